"""The markup of each element of a session's page, in one place: the escaping (``esc``),
a message, a tool row (its collapsed line and its expanded card), the plan panel and
the plan timeline. The page itself (its draft, ``session_draft``, and the page around
it, ``session_page``) is made of these, for ``replay view LOG``, ``render web --html``
and every page of the site alike. Every text from the log goes through ``esc`` (the
one sanitizer, then ``html.escape``, quotes included), or, for the timeline's data,
through ``script_json``. The page loads nothing: its only code is its inline
stylesheet and script (``page_assets``), which a hash-based Content-Security-Policy
allows while refusing every fetch and every other script.

- Tool rows and reasoning blocks are ``<details>`` (collapsed; Enter/Space/click open
  them, with no script).
- The plan panel is a real ``<button aria-expanded aria-controls>`` over a ``hidden``
  list, collapsed by default; the script toggles both.
- The plan timeline (``timeline``) steps through every plan change; the script renders
  the plan at the chosen step from the JSON data block, with ``textContent`` only.

Stable hooks (the same logical class names as the harness, plus ``data-part``):

- tool row: ``details.tool[data-tool][data-state][data-call-id]`` → ``summary.row``
  → ``.title``, ``.sep``, ``span.summary[data-part=summary]`` (also ``.errorSummary``
  on an error row), ``span.summarySuffix[data-part=suffix]`` (only with a ``+N``;
  ``role=img`` with an ``aria-label`` such as ``2 more in progress``, its text stays
  ``+2``), hidden ``.stateLabel``; expanded body ``.in pre`` / ``.out pre``;
- panel: ``section[data-testid=todo-panel]`` → ``button.header[aria-expanded]`` →
  ``.title``, ``span.progress[data-part=progress]``; ``ul#todo-panel-list``
  → ``li[data-status]`` → ``.content``;
- timeline: ``section#plan-timeline`` → ``input#plan-timeline-range``,
  ``#plan-timeline-prev`` / ``#plan-timeline-next``, ``#plan-timeline-steps
  button[data-seq]``, live ``#plan-timeline-status``, ``#plan-timeline-view[data-seq]``
  → ``li[data-status]`` → ``.content``;
- message: ``.message[data-role][data-source]`` → ``.text`` / ``details.thinking
  .reasoning`` / ``.other``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from replay.project.tools import ToolCall
from replay.project.transcript import Message
from replay.render.web.locale import interpolate
from replay.render.web.page_assets import CSP, CSS, SCRIPT
from replay.render.web.page_strings import PageStrings
from replay.render.web.panel import PanelFields
from replay.render.web.row import RowFields
from replay.render.web.timeline import TimelineStep, timeline_json
from replay.style import ESCAPED_CHARACTERS, sanitize

__all__ = ["CLIP", "CSP", "CSS", "SCRIPT", "clipped_pre", "esc", "message_html", "panel_section", "pretty_json",
           "row_body_html", "row_line_html", "timeline_chunks"]

PANEL_LIST_ID = "todo-panel-list"


_TOUCHED = re.compile(f"[&<>\"'{ESCAPED_CHARACTERS}]")
"""A character ``esc`` changes (most texts have none, and are shown as they are)."""
_ASCII_KEPT = bytes(c for c in range(128) if _TOUCHED.match(chr(c)) is None)
"""The ASCII characters ``esc`` leaves as they are."""
_ASCII_MARKUP = bytes(c for c in range(128) if html.escape(chr(c), quote=True) != chr(c))
"""The ASCII characters HTML escaping changes (the sanitizer leaves them)."""


_SHORT = 64
"""Characters of a text whose escaping is remembered (labels, names, numbers: a site's
pages say the same ones thousands of times)."""
_REMEMBERED: dict[str, str] = {}
_REMEMBER = 4096
"""Texts remembered at most (then forgotten all at once)."""


def esc(text: str) -> str:
    """A text as the page shows it: through the one sanitizer (controls, bidi controls
    and lone surrogates shown escaped, newlines kept), then HTML-escaped (``&``, ``<``,
    ``>``, ``"`` and ``'``), for content and attributes."""
    if len(text) <= _SHORT:
        known = _REMEMBERED.get(text)
        if known is None:
            if len(_REMEMBERED) >= _REMEMBER:
                _REMEMBERED.clear()
            known = _REMEMBERED[text] = _escaped(text)
        return known
    return _escaped(text)


def _escaped(text: str) -> str:
    if len(text) > 32 and text.isascii():  # what it holds that esc changes, by a table (faster than a search)
        touched = text.encode("ascii").translate(None, _ASCII_KEPT)
        if not touched:
            return text
        if not touched.translate(None, _ASCII_MARKUP):  # html.escape(text, quote=True), its calls inlined
            return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(
                '"', "&quot;").replace("'", "&#x27;")
    elif _TOUCHED.search(text) is None:
        return text
    return html.escape(sanitize(text, keep_newlines=True), quote=True)


def message_html(entry: Message, ps: PageStrings) -> str:
    """A user or assistant message; reasoning blocks are collapsed under their label."""
    parts = []
    for block in entry.blocks:
        if block.kind == "other":
            parts.append(f"<div class=\"other\">[{esc(block.text)}]</div>")
        elif block.kind == "reasoning":
            parts.append(f"<details class=\"thinking\"><summary>{esc(ps.reasoning)}</summary>"
                         f"<div class=\"reasoning\">{esc(block.text)}</div></details>")
        else:
            parts.append(f"<div class=\"text\">{esc(block.text)}</div>")
    source = f" data-source=\"{esc(entry.source_kind)}\"" if entry.source_kind is not None else ""
    return f"<div class=\"message\" data-role=\"{entry.role}\"{source}>{''.join(parts)}</div>\n"


ICONS = {"running": "pending", "ok": "done", "error": "failed", "stopped": "interrupted"}
"""The leading icon of a row in each state: one that reads right (a check for a call that
is done, a cross for one that failed, a stop for one interrupted, a hollow circle for
one still waiting); its state is also announced (the hidden state label)."""


def suffix_html(suffix: str, ps: PageStrings) -> str:
    """The ``+N`` span. Its text stays ``+N`` (the harness's hook); a screen reader
    hears its name instead, e.g. ``2 more in progress``."""
    extra = suffix.removeprefix("+")
    name = interpolate(ps.suffix_more, extra=extra) if extra.isdigit() else suffix
    return (f"<span class=\"summarySuffix\" data-part=\"suffix\" role=\"img\" "
            f"aria-label=\"{esc(name)}\">{esc(suffix)}</span>")


def row_line_html(row: RowFields, ps: PageStrings, lead: str = "", tail: str = "") -> str:
    """The collapsed row: hidden state label, icon, title, separator, summary, optional
    suffix (``lead`` and ``tail``: markup a caller adds at its start and end)."""
    parts = [lead]
    if row.state_label is not None:
        parts.append(f"<span class=\"visuallyHidden stateLabel\">{esc(row.state_label)}</span>")
    parts.append(f"<span class=\"leading\" aria-hidden=\"true\" data-icon=\"{ICONS[row.state]}\"></span>")
    parts.append(f"<span class=\"title\">{esc(row.title)}</span>")
    if row.summary:  # an empty summary: no separator after the title ("Tool call · workflow ·")
        classes = "summary errorSummary" if row.error_summary else "summary"
        parts.append("<span class=\"sep\" aria-hidden=\"true\"></span>")
        parts.append(f"<span class=\"{classes}\" data-part=\"summary\">{esc(row.summary)}</span>")
        if row.suffix is not None:
            parts.append(suffix_html(row.suffix, ps))
    parts.append(tail)
    return f"<summary class=\"row\">{''.join(parts)}</summary>"


CLIP = 1 << 16
"""Characters of a tool row's input or output the page shows; the rest is cut, and a
note under it gives the full length."""


def clipped_pre(text: str, total: int, ps: PageStrings, clip: int = CLIP) -> str:
    """A ``<pre>`` of ``text`` (at most ``clip`` characters of something ``total`` long)."""
    shown = text[:clip]
    note = "" if total <= len(shown) else (
        f"<p class=\"clipped\">{esc(interpolate(ps.clipped, shown=len(shown), total=total))}</p>")
    return f"<pre>{esc(shown)}</pre>{note}"


def pretty_json(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)`` of a parsed JSON value: by
    orjson when the value has no float (whose text orjson writes otherwise) and orjson
    takes it (no integer beyond 64 bits, no lone surrogate, no nesting past its limit)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is not str and kind is not int and kind is not bool and item is not None:
            return json.dumps(value, indent=2, ensure_ascii=False)
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
    except orjson.JSONEncodeError:
        return json.dumps(value, indent=2, ensure_ascii=False)


def row_body_html(call: ToolCall, row: RowFields, ps: PageStrings, tail: str = "",
                  parsed: tuple[bool, Any] | None = None) -> str:
    """The expanded IN/OUT card; an input or output longer than ``CLIP`` characters is
    cut, with its full length shown (``tail``: markup a caller adds at its end;
    ``parsed``: ``call.parsed``, when the caller has it)."""
    parts = []
    if call.args_raw != "":
        ok, value = parsed if parsed is not None else call.parsed
        shown = pretty_json(value) if ok else call.args_raw
        parts.append(f"<div class=\"in\"><div class=\"label\">{esc(ps.label_in)}</div>"
                     f"{clipped_pre(shown, len(shown), ps)}</div>")
    result = call.result
    output = result.output if result is not None else None
    if result is not None and output is not None:
        error = " error" if row.state == "error" else ""
        total = result.clipped_from or len(output)
        parts.append(f"<div class=\"out{error}\"><div class=\"label\">{esc(ps.label_out)}</div>"
                     f"{clipped_pre(output, total, ps)}"
                     "</div>")
    if tail:
        parts.append(tail)
    return f"<div class=\"body\">{''.join(parts)}</div>" if parts else ""


def plan_list_html(panel: PanelFields, ps: PageStrings, list_id: str, hidden: bool) -> str:
    """``<ul>`` of a plan's items, per ``li[data-status]`` a glyph (named by its status
    for screen readers; it has no text) and the content."""
    items = "".join(
        f"<li data-status=\"{esc(item.status)}\"><span class=\"glyph\" role=\"img\" "
        f"aria-label=\"{esc(ps.status_name(item.status))}\"></span>"
        f"<span class=\"content\">{esc(item.content)}</span></li>"
        for item in panel.items
    )
    return f"<ul class=\"planList\" id=\"{list_id}\"{' hidden' if hidden else ''}>{items}</ul>"


def panel_section(panel: PanelFields | None, ps: PageStrings) -> str:
    """The plan panel, collapsed: a header button over a hidden list; nothing at all
    when there is no standing plan."""
    if panel is None:
        return ""
    return (
        f"<section class=\"todoPanel\" data-testid=\"todo-panel\" aria-label=\"{esc(panel.title)}\">"
        f"<button type=\"button\" class=\"header\" aria-expanded=\"false\" aria-controls=\"{PANEL_LIST_ID}\">"
        "<span class=\"icon\" aria-hidden=\"true\"></span>"
        f"<span class=\"title\">{esc(panel.title)}</span>"
        f"<span class=\"progress\" data-part=\"progress\">{esc(panel.progress)}</span>"
        "<span class=\"chevron\" aria-hidden=\"true\"></span>"
        f"</button>{plan_list_html(panel, ps, PANEL_LIST_ID, hidden=True)}</section>\n"
    )


def timeline_chunks(steps: Sequence[TimelineStep], ps: PageStrings) -> Iterator[str]:
    """The plan timeline, a step at a time: a range input with previous/next buttons,
    one jump button per step, a live status line, the plan view (filled by the script)
    and the JSON data. Nothing at all when the plan never changes."""
    if not steps:
        return
    last = len(steps) - 1
    yield (
        "<section class=\"timeline\" id=\"plan-timeline\" aria-labelledby=\"plan-timeline-title\">"
        f"<h2 id=\"plan-timeline-title\">{esc(ps.timeline_title)}</h2>"
        "<div class=\"controls\">"
        f"<button type=\"button\" id=\"plan-timeline-prev\" aria-label=\"{esc(ps.timeline_previous)}\">"
        "<span aria-hidden=\"true\">\u2039</span></button>"
        f"<input type=\"range\" id=\"plan-timeline-range\" min=\"0\" max=\"{last}\" step=\"1\" value=\"{last}\" "
        f"aria-label=\"{esc(ps.timeline_slider)}\">"
        f"<button type=\"button\" id=\"plan-timeline-next\" aria-label=\"{esc(ps.timeline_next)}\">"
        "<span aria-hidden=\"true\">\u203a</span></button>"
        "</div>"
        "<p class=\"status\" id=\"plan-timeline-status\" aria-live=\"polite\" aria-atomic=\"true\"></p>"
        "<div class=\"view\" id=\"plan-timeline-view\"></div>"
        f"<ol class=\"steps\" id=\"plan-timeline-steps\" aria-label=\"{esc(ps.timeline_steps)}\">"
    )
    for i, step in enumerate(steps):
        yield (f"<li><button type=\"button\" data-index=\"{i}\" data-seq=\"{step.seq}\" "
               f"data-cause=\"{esc(step.cause)}\">{esc(step.label)}</button></li>")
    yield "</ol><script type=\"application/json\" id=\"plan-timeline-data\">"
    yield from timeline_json(steps, ps)
    yield "</script></section>\n"
