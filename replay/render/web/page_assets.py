"""The page's inline stylesheet and script, and the Content-Security-Policy that allows
exactly these two and nothing else.

The policy names the style and the script by their SHA-256 hashes, so the page's own
inline code runs from ``file://`` while any markup a log might smuggle in could neither
run a script nor load a resource: ``default-src 'none'`` refuses every fetch (images,
fonts, frames, connections), and Trusted Types refuse every HTML-string sink
(``innerHTML`` and the like), which the script never uses: it builds nodes and sets
``textContent`` only.

The script reads no log text except through the timeline's JSON data block
(``<script type="application/json">``, a data block the browser never runs).
"""

from __future__ import annotations

import base64
import hashlib

CSS = """
:root { color-scheme: light dark; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --bg: #fff;
  --error: #cf222e; --warn: #bf8700; --ok: #1a7f37; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --line: #30363d;
  --bg: #0d1117; --error: #f85149; --warn: #d29922; --ok: #3fb950; --accent: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/20px system-ui, -apple-system, "Segoe UI", "PingFang SC", sans-serif; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: -2px; }
header.page { padding: 12px 16px; border-bottom: 1px solid var(--line); }
header.page h1 { margin: 0; font-size: 16px; line-height: 24px; overflow-wrap: anywhere; }
main.transcript { max-width: 860px; margin: 0 auto; padding: 12px 16px 96px; }
.turn { margin: 16px 0 8px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); }
.turnEnd { color: var(--muted); font-size: 12px; }
.message { margin: 8px 0; }
.message[data-role=user] .text { background: color-mix(in srgb, var(--accent) 10%, transparent);
  border-radius: 8px; padding: 8px 12px; }
.message[data-role=user]:not([data-source=user]) { opacity: .6; font-size: 12px; }
.text, .reasoning, pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
details.thinking > summary { color: var(--muted); font-size: 12px; cursor: pointer; width: fit-content; }
.reasoning { color: var(--muted); font-style: italic; }
.other { color: var(--muted); font-size: 12px; }
details.tool { margin: 2px 0; }
summary.row { display: flex; align-items: center; height: 24px; overflow: hidden; cursor: pointer;
  list-style: none; font-size: 14px; line-height: 24px; }
summary.row::-webkit-details-marker { display: none; }
.leading { flex: none; width: 16px; height: 16px; margin-right: 6px; display: inline-flex;
  align-items: center; justify-content: center; }
.leading[data-icon=checklist]::before { content: ""; width: 10px; height: 10px; border: 1.5px solid var(--muted);
  border-radius: 2px; }
.leading[data-icon=error]::before, .leading[data-icon=stopped]::before { content: ""; width: 8px; height: 8px;
  border-radius: 50%; background: var(--error); }
.leading[data-icon=stopped]::before { background: var(--warn); }
.row .title { flex: none; white-space: nowrap; font-weight: 500; }
.sep { flex: none; width: 2px; height: 2px; margin: 0 8px; border-radius: 50%; background: var(--muted); }
.summary { flex: 1 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  color: var(--muted); font-size: 14px; line-height: 24px; }
.summarySuffix { flex: none; margin-left: 4px; white-space: nowrap; color: var(--muted);
  font-size: 14px; line-height: 24px; }
.errorSummary { color: var(--error); }
.visuallyHidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
.body { margin: 4px 0 8px 22px; border: 1px solid var(--line); border-radius: 8px; padding: 4px 8px; }
.body .label { font-size: 11px; color: var(--muted); }
.out.error pre { color: var(--error); }
pre { font: 12px/18px ui-monospace, SFMono-Regular, Menlo, monospace; }
section.todoPanel { position: sticky; bottom: 0; max-width: 860px; margin: 0 auto; background: var(--bg);
  border: 1px solid var(--line); border-radius: 12px; padding: 4px 12px; }
.todoPanel button.header { display: flex; align-items: center; gap: 6px; width: 100%; min-width: 0;
  margin: 0; padding: 2px 4px; border: 0; border-radius: 6px; background: none; color: inherit; font: inherit;
  text-align: start; cursor: pointer; }
.todoPanel .icon { flex: none; width: 16px; height: 16px; display: inline-flex; align-items: center;
  justify-content: center; }
.todoPanel .icon::before { content: ""; width: 10px; height: 10px; border: 1.5px solid var(--muted);
  border-radius: 2px; }
.todoPanel .title { flex: none; font-weight: 500; }
.todoPanel .progress { flex: 1 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; color: var(--muted); }
.chevron { flex: none; }
.chevron::before { content: "\\25B4"; color: var(--muted); }
button.header[aria-expanded=true] .chevron::before { content: "\\25BE"; }
.planList { list-style: none; margin: 4px 0; padding: 0; max-height: 180px; overflow-y: auto; }
.todoPanel .planList { padding-left: 6px; }
.planList li { display: flex; align-items: center; gap: 6px; height: 24px; min-width: 0; }
.glyph { flex: none; width: 12px; height: 12px; border-radius: 50%; border: 1.5px dashed var(--muted); }
li[data-status=completed] .glyph { border: 1.5px solid var(--ok); background: var(--ok); }
li[data-status=in_progress] .glyph { border: 1.5px solid var(--accent); }
.planList .content { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
section.timeline { max-width: 860px; margin: 0 auto; padding: 8px 16px 0; }
.timeline h2 { margin: 0 0 4px; font-size: 13px; line-height: 20px; font-weight: 600; }
.timeline .controls { display: flex; align-items: center; gap: 8px; min-width: 0; }
.timeline input[type=range] { flex: 1 1 auto; min-width: 0; margin: 0; accent-color: var(--accent); }
.timeline button { flex: none; min-width: 28px; height: 28px; padding: 0 8px; border: 1px solid var(--line);
  border-radius: 6px; background: none; color: inherit; font: inherit; cursor: pointer; }
.timeline button:disabled { opacity: .4; cursor: default; }
.timeline .status { margin: 4px 0 0; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.timeline .view { border: 1px solid var(--line); border-radius: 8px; padding: 0 8px; margin: 4px 0; }
.timeline .empty { margin: 4px 0; color: var(--muted); font-style: italic; }
.timeline .steps { list-style: none; display: flex; flex-wrap: wrap; gap: 4px; margin: 4px 0 0; padding: 0;
  max-height: 72px; overflow-y: auto; }
.timeline .steps button { height: 24px; font-size: 12px; color: var(--muted); }
.timeline .steps button[aria-current=step] { color: var(--fg); border-color: var(--accent); font-weight: 600; }
"""

SCRIPT = """
(() => {
  "use strict";
  const make = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const panel = document.querySelector("[data-testid=todo-panel] > button.header");
  if (panel) {
    panel.addEventListener("click", () => {
      const open = panel.getAttribute("aria-expanded") !== "true";
      panel.setAttribute("aria-expanded", open ? "true" : "false");
      const list = document.getElementById(panel.getAttribute("aria-controls"));
      if (list) list.hidden = !open;
    });
  }
  const source = document.getElementById("plan-timeline-data");
  if (!source) return;
  const data = JSON.parse(source.textContent);
  const steps = data.steps;
  const range = document.getElementById("plan-timeline-range");
  const prev = document.getElementById("plan-timeline-prev");
  const next = document.getElementById("plan-timeline-next");
  const status = document.getElementById("plan-timeline-status");
  const view = document.getElementById("plan-timeline-view");
  const jumps = Array.from(document.querySelectorAll("#plan-timeline-steps button[data-index]"));
  let at = -1;
  const show = (wanted) => {
    const index = Math.max(0, Math.min(steps.length - 1, wanted));
    const step = steps[index];
    at = index;
    range.value = String(index);
    range.setAttribute("aria-valuetext", step.label + " (" + step.position + ")");
    prev.disabled = index === 0;
    next.disabled = index === steps.length - 1;
    jumps.forEach((jump, k) => {
      if (k === index) jump.setAttribute("aria-current", "step");
      else jump.removeAttribute("aria-current");
    });
    const where = make("span", "where", step.label + " (" + step.position + ")");
    const progress = make("span", "progress", step.progress === null ? data.empty : step.progress);
    status.replaceChildren(where, data.joiner, progress);
    view.dataset.seq = String(step.seq);
    view.dataset.index = String(index);
    if (step.items.length === 0) {
      view.replaceChildren(make("p", "empty", data.empty));
      return;
    }
    const list = make("ul", "planList");
    for (const [state, name, content] of step.items) {
      const item = make("li");
      item.dataset.status = state;
      const glyph = make("span", "glyph");
      glyph.setAttribute("role", "img");
      glyph.setAttribute("aria-label", name);
      item.append(glyph, make("span", "content", content));
      list.append(item);
    }
    view.replaceChildren(list);
  };
  range.addEventListener("input", () => show(Number(range.value)));
  prev.addEventListener("click", () => show(at - 1));
  next.addEventListener("click", () => show(at + 1));
  jumps.forEach((jump, k) => jump.addEventListener("click", () => show(k)));
  show(steps.length - 1);
})();
"""


def source_hash(text: str) -> str:
    """The CSP source expression of an inline element's text: ``'sha256-…'``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(style: str = CSS, script: str = SCRIPT) -> str:
    """Nothing may be fetched; only this style and this script may apply and run."""
    return "; ".join((
        "default-src 'none'",
        f"script-src {source_hash(script)}",
        f"style-src {source_hash(style)}",
        "base-uri 'none'",
        "form-action 'none'",
        "require-trusted-types-for 'script'",
        "trusted-types 'none'",
    ))


CSP = content_security_policy()
