"""A self-contained HTML page of a replayed session.

One function per section (head, transcript, each kind of entry, tool row, panel),
each returning a string, so later issues can add sections or behaviour without
touching the others. Every text from the log goes through ``esc`` (``html.escape``,
quotes included); the page holds no script, loads nothing (inline CSS only, and a
Content-Security-Policy that forbids every network fetch) and needs no JavaScript:
the tool rows and the plan panel are ``<details>`` elements, collapsed by default.

Stable hooks (the same logical class names as the harness, plus ``data-part``):

- tool row: ``details.tool[data-tool][data-state][data-call-id]`` → ``summary.row``
  → ``.title``, ``.sep``, ``span.summary[data-part=summary]`` (also ``.errorSummary``
  on an error row), ``span.summarySuffix[data-part=suffix]`` (only with a ``+N``),
  hidden ``.stateLabel``; expanded body ``.in pre`` / ``.out pre``;
- panel: ``section[data-testid=todo-panel]`` → ``.title``,
  ``span.progress[data-part=progress]``, ``li[data-status]`` → ``.content``;
- transcript: ``.turn[data-turn]``, ``.message[data-role][data-source]`` →
  ``.text`` / ``.reasoning`` / ``.other``.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from typing import assert_never

from replay.log.event import Event
from replay.project.tools import ToolCall
from replay.project.transcript import Entry, Message, ToolEntry, TurnEnd, TurnStart, transcript
from replay.render.web.locale import strings
from replay.render.web.panel import PanelFields, panel_fields
from replay.render.web.row import RowFields, row_fields
from replay.todo.plan import standing_plan

DEFAULT_TITLE = "Session replay"

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

CSS = """
:root { color-scheme: light dark; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --bg: #fff;
  --error: #cf222e; --warn: #bf8700; --ok: #1a7f37; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --line: #30363d;
  --bg: #0d1117; --error: #f85149; --warn: #d29922; --ok: #3fb950; --accent: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/20px system-ui, -apple-system, "Segoe UI", "PingFang SC", sans-serif; }
header.page { padding: 12px 16px; border-bottom: 1px solid var(--line); }
header.page h1 { margin: 0; font-size: 16px; line-height: 24px; }
main.transcript { max-width: 860px; margin: 0 auto; padding: 12px 16px 96px; }
.turn { margin: 16px 0 8px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); }
.turnEnd { color: var(--muted); font-size: 12px; }
.message { margin: 8px 0; }
.message[data-role=user] .text { background: color-mix(in srgb, var(--accent) 10%, transparent);
  border-radius: 8px; padding: 8px 12px; }
.message[data-role=user]:not([data-source=user]) { opacity: .6; font-size: 12px; }
.text, .reasoning, pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
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
.todoPanel summary.header { display: flex; align-items: center; gap: 6px; cursor: pointer; list-style: none;
  min-width: 0; }
.todoPanel summary.header::-webkit-details-marker { display: none; }
.todoPanel .title { flex: none; font-weight: 500; }
.todoPanel .progress { flex: 1 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; color: var(--muted); }
.chevron::before { content: "\\25B4"; color: var(--muted); }
details[open] > summary .chevron::before { content: "\\25BE"; }
.todoPanel ul { list-style: none; margin: 4px 0; padding: 0; max-height: 180px; overflow-y: auto; }
.todoPanel li { display: flex; align-items: center; gap: 6px; height: 24px; }
.glyph { flex: none; width: 12px; height: 12px; border-radius: 50%; border: 1.5px dashed var(--muted); }
li[data-status=completed] .glyph { border: 1.5px solid var(--ok); background: var(--ok); }
li[data-status=in_progress] .glyph { border: 1.5px solid var(--accent); }
.todoPanel .content { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
"""


def esc(text: str) -> str:
    """HTML-escape a text (``&``, ``<``, ``>``, ``"`` and ``'``), for content and attributes."""
    return html.escape(text, quote=True)


def session_title(events: Iterable[Event]) -> str | None:
    """The last ``session/title`` event's title, if any."""
    title: str | None = None
    for ev in events:
        if ev.type == "session/title" and isinstance(ev.data, dict) and isinstance(ev.data.get("title"), str):
            title = ev.data["title"]
    return title


def head_section(title: str) -> str:
    return (
        "<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{esc(CSP)}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n"
    )


def _display(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def turn_start_html(entry: TurnStart) -> str:
    turn = _display(entry.turn)
    return f"<div class=\"turn\" data-turn=\"{esc(turn)}\">#{esc(turn)}</div>\n"


def turn_end_html(entry: TurnEnd) -> str:
    if entry.reason in (None, "completed"):
        return ""
    reason = entry.reason or ""
    return f"<div class=\"turnEnd\" data-reason=\"{esc(reason)}\">{esc(reason)}</div>\n"


def message_html(entry: Message) -> str:
    parts = []
    for block in entry.blocks:
        if block.kind == "other":
            parts.append(f"<div class=\"other\">[{esc(block.text)}]</div>")
        else:
            parts.append(f"<div class=\"{block.kind}\">{esc(block.text)}</div>")
    source = f" data-source=\"{esc(entry.source_kind)}\"" if entry.source_kind is not None else ""
    return f"<div class=\"message\" data-role=\"{entry.role}\"{source}>{''.join(parts)}</div>\n"


_ICONS = {"running": "checklist", "ok": "checklist", "error": "error", "stopped": "stopped"}


def row_line_html(row: RowFields) -> str:
    """The collapsed row: icon, title, separator, summary, optional suffix."""
    parts = []
    if row.state_label is not None:
        parts.append(f"<span class=\"visuallyHidden stateLabel\">{esc(row.state_label)}</span>")
    parts.append(f"<span class=\"leading\" aria-hidden=\"true\" data-icon=\"{_ICONS[row.state]}\"></span>")
    parts.append(f"<span class=\"title\">{esc(row.title)}</span>")
    if row.summary is not None:
        classes = "summary errorSummary" if row.error_summary else "summary"
        parts.append("<span class=\"sep\" aria-hidden=\"true\"></span>")
        parts.append(f"<span class=\"{classes}\" data-part=\"summary\">{esc(row.summary)}</span>")
        if row.suffix is not None:
            parts.append(f"<span class=\"summarySuffix\" data-part=\"suffix\">{esc(row.suffix)}</span>")
    return f"<summary class=\"row\">{''.join(parts)}</summary>"


def row_body_html(call: ToolCall, row: RowFields) -> str:
    """The expanded IN/OUT card."""
    parts = []
    if call.args_raw != "":
        ok, value = call.parsed
        shown = json.dumps(value, indent=2, ensure_ascii=False) if ok else call.args_raw
        parts.append(f"<div class=\"in\"><div class=\"label\">IN</div><pre>{esc(shown)}</pre></div>")
    output = call.result.output if call.result is not None else None
    if output is not None:
        error = " error" if row.state == "error" else ""
        parts.append(f"<div class=\"out{error}\"><div class=\"label\">OUT</div><pre>{esc(output)}</pre></div>")
    return f"<div class=\"body\">{''.join(parts)}</div>" if parts else ""


def tool_row_html(call: ToolCall, locale: str) -> str:
    row = row_fields(call, locale)
    return (
        f"<details class=\"tool\" data-variant=\"others\" data-tool=\"{esc(row.tool)}\" "
        f"data-state=\"{row.state}\" data-call-id=\"{esc(row.call_id)}\">"
        f"{row_line_html(row)}{row_body_html(call, row)}</details>\n"
    )


def entry_html(entry: Entry, locale: str) -> str:
    if isinstance(entry, TurnStart):
        return turn_start_html(entry)
    if isinstance(entry, TurnEnd):
        return turn_end_html(entry)
    if isinstance(entry, Message):
        return message_html(entry)
    if isinstance(entry, ToolEntry):
        return tool_row_html(entry.call, locale)
    assert_never(entry)


def transcript_section(entries: Iterable[Entry], locale: str) -> str:
    body = "".join(entry_html(entry, locale) for entry in entries)
    return f"<main class=\"transcript\">\n{body}</main>\n"


def panel_section(panel: PanelFields | None) -> str:
    """The plan panel, collapsed; nothing at all when there is no standing plan."""
    if panel is None:
        return ""
    items = "".join(
        f"<li data-status=\"{esc(item.status)}\"><span class=\"glyph\" aria-hidden=\"true\"></span>"
        f"<span class=\"content\">{esc(item.content)}</span></li>"
        for item in panel.items
    )
    return (
        f"<section class=\"todoPanel\" data-testid=\"todo-panel\" aria-label=\"{esc(panel.title)}\">"
        "<details class=\"panelBody\"><summary class=\"header\">"
        "<span class=\"icon\" aria-hidden=\"true\"></span>"
        f"<span class=\"title\">{esc(panel.title)}</span>"
        f"<span class=\"progress\" data-part=\"progress\">{esc(panel.progress)}</span>"
        "<span class=\"chevron\" aria-hidden=\"true\"></span>"
        f"</summary><ul>{items}</ul></details></section>\n"
    )


def html_page(events: Iterable[Event], *, locale: str = "en", title: str | None = None) -> str:
    """The whole page: transcript of the log and the panel of its standing plan.

    ``title`` defaults to the session's last ``session/title``, else ``Session replay``.
    """
    strings(locale)  # refuse an unknown locale before building anything
    evs = list(events)
    page_title = title if title is not None else session_title(evs) or DEFAULT_TITLE
    lang = "zh" if locale == "zh" else "en"
    return (
        f"<!doctype html>\n<html lang=\"{lang}\">\n{head_section(page_title)}<body>\n"
        f"<header class=\"page\"><h1>{esc(page_title)}</h1></header>\n"
        f"{transcript_section(transcript(evs), locale)}"
        f"{panel_section(panel_fields(standing_plan(evs), locale))}"
        "</body>\n</html>\n"
    )
