"""The historical stdio (readline) transcript of the harness, replayed.

``render_stdio(events)`` yields the exact writes the stdio UI made, in order: one
string per write (the startup prompt, then one string for each event that printed
anything; events that print nothing yield nothing). ``"".join(...)`` of them is the
transcript; ``stdio_text`` does that. The format (web-stdio-todo.md §3.2):

- startup ``{welcome}\\n> ``; ``turn/start`` ``\\n[{label} turn {n}] ``;
- reasoning deltas dim (``ESC[2m`` … ``ESC[0m``), text deltas plain, a text delta
  after reasoning starts a new line;
- ``\\n  [tool call] {name}({arguments})`` with the raw arguments;
- ``\\n  [tool result] {text}\\n  `` for appended results (replacements are skipped),
  the text blocks concatenated with no separator, no error marker;
- every ``todo/write`` appends a full checklist: ``\\n  [todos]\\n`` + item lines
  (``    [x]|[~]|[ ] content``, any unknown status is ``[ ]``) + ``\\n  ``;
- ``turn/end`` ``\\n> ``.

Options:

- ``color=False`` drops the format's own SGR codes (dim on, reset); line structure
  is unchanged.
- ``terminal=True`` passes text that comes from log content (deltas, tool names
  and arguments, result text, todo content, turn numbers, the label) through
  ``replay.style.sanitize`` with newlines kept: every C0 control except LF and TAB,
  DEL and every C1 control is written as a visible ``\\xNN`` escape (lowercase hex:
  ESC shows as ``\\x1b``), the convention of the harness's own terminal UI; bidi
  controls show as ``\\uNNNN`` and a lone surrogate as U+FFFD. The format's own
  codes are not content and stay (unless ``color=False``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from replay.jsjson import js_string
from replay.log.event import Event
from replay.project.tools import is_append, tool_result
from replay.style import COLORS, COLORS_OFF, sanitize

MARKERS = {"completed": "[x]", "in_progress": "[~]"}
"""Item markers by status; anything else is ``[ ]``."""
PENDING_MARKER = "[ ]"

_MISSING = object()
"""A key the event does not have: a template literal prints ``undefined`` for it."""


def _show(value: Any) -> str:
    """What a JavaScript template literal prints for a JSON value (``String(value)``)."""
    return "undefined" if value is _MISSING else js_string(value)


def todo_block(todos: Any) -> str:
    """The ``[todos]`` block for one ``todo/write`` list (content verbatim)."""
    items = todos if isinstance(todos, list) else []
    lines = []
    for item in items:
        status = item.get("status") if isinstance(item, dict) else None
        content = item.get("content", _MISSING) if isinstance(item, dict) else _MISSING
        marker = MARKERS.get(status, PENDING_MARKER) if isinstance(status, str) else PENDING_MARKER
        lines.append(f"    {marker} {_show(content)}")
    return "\n  [todos]\n" + "\n".join(lines) + "\n  "


def render_stdio(
    events: Iterable[Event],
    *,
    color: bool = True,
    terminal: bool = False,
    label: str = "main",
    welcome: str | None = "ready.",
) -> Iterator[str]:
    """The stdio transcript, one string per write (see the module docstring).

    ``label`` is the turn header label (``main`` for the target agent's session; pass
    the session id for another session). ``welcome=None`` leaves out the startup write.
    """
    codes = COLORS if color else COLORS_OFF
    dim, reset = codes["dim"], codes["reset"]

    def content(value: Any) -> str:
        text = _show(value)
        return sanitize(text, keep_newlines=True) if terminal else text

    if welcome is not None:
        yield content(welcome) + "\n> "
    reasoning = False
    for ev in events:
        data = ev.data if isinstance(ev.data, dict) else {}
        out = ""
        if ev.type == "turn/start":
            out = f"\n[{content(label)} turn {content(data.get('turn', _MISSING))}] "
        elif ev.type == "assistant/chunk":
            chunk = data.get("chunk")
            kind = chunk.get("type") if isinstance(chunk, dict) else None
            if kind == "reasoning-delta":
                assert isinstance(chunk, dict)
                if not reasoning:
                    out, reasoning = dim, True
                out += content(chunk.get("text", ""))
            elif kind == "text-delta":
                assert isinstance(chunk, dict)
                if reasoning:
                    out, reasoning = reset + "\n", False
                out += content(chunk.get("text", ""))
        elif ev.type == "turn/end":
            if reasoning:
                out, reasoning = reset, False
            out += "\n> "
        elif ev.type == "tool/call":
            if reasoning:
                out, reasoning = reset, False
            out += f"\n  [tool call] {content(data.get('name', _MISSING))}({content(data.get('arguments', _MISSING))})"
        elif ev.type == "tool/result":
            result = tool_result(ev) if is_append(ev) else None
            if result is not None:
                out = f"\n  [tool result] {content(result.text)}\n  "
        elif ev.type == "todo/write":
            if reasoning:
                out, reasoning = reset, False
            block = todo_block(data.get("todos"))
            out += sanitize(block, keep_newlines=True) if terminal else block
        if out:
            yield out


def stdio_text(
    events: Iterable[Event],
    *,
    color: bool = True,
    terminal: bool = False,
    label: str = "main",
    welcome: str | None = "ready.",
) -> str:
    """The whole transcript as one string."""
    return "".join(render_stdio(events, color=color, terminal=terminal, label=label, welcome=welcome))
