"""How two JSON or JSONL documents differ: records aligned first (an inserted event is
one line of report, not a shifted file), then the changed pairs compared value by value,
each change at the golden line its value starts on."""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from replay.goldens.align import Effort, align
from replay.goldens.lines import Change, never_empty, text_changes
from replay.goldens.values import (
    MAX_JSON_DEPTH,
    WHOLE,
    Focus,
    Path_,
    Positioned,
    shallow,
    short,
    value_changes,
    value_diffs,
)


def parse_lines(data: bytes) -> tuple[list[Any], list[int]] | None:
    """The records of a JSONL document and the 1-based line of each; ``None`` when a
    line is not JSON."""
    records: list[Any] = []
    numbers: list[int] = []
    for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), start=1):
        if not line:
            continue
        try:
            records.append(json.loads(line))
        except (ValueError, RecursionError):
            return None
        numbers.append(number)
    return records, numbers


def _key(focus: Focus, record: Any) -> str:
    return json.dumps(focus.positioned(record).body, sort_keys=True, ensure_ascii=False)


def _summary(focus: Focus, record: Any, full: bool) -> str:
    """A record named by its kind, then its content: ``plan: {"entries":[…]}``."""
    head, body = focus.named(focus.positioned(record).body)
    return f"{head}: {short(body, full, 100)}" if head else short(record, full, 100)


def _shift(focus: Focus, old: Positioned, new: Positioned) -> tuple[int, str | None]:
    """The position shift of an aligned pair, and a line if its sources moved otherwise."""
    delta = new.at - old.at if isinstance(old.at, int) and isinstance(new.at, int) else 0
    if old.sources == new.sources:
        return delta, None
    if isinstance(old.sources, list) and isinstance(new.sources, list) and len(old.sources) == len(new.sources):
        pairs = zip(old.sources, new.sources, strict=True)
        if all(isinstance(x, int) and isinstance(y, int) and y - x == delta for x, y in pairs):
            return delta, None
    return delta, f"{focus.sources}: {short(old.sources)} → {short(new.sources)}"


def jsonl_changes(expected: bytes, actual: bytes, full: bool = False, effort: Effort | None = None,
                  focus: Focus = WHOLE) -> list[Change]:
    """The changes of a JSONL document, record by record, as ``focus`` names and places
    its records."""
    effort = Effort() if effort is None else effort
    parsed_left, parsed_right = parse_lines(expected), parse_lines(actual)
    if parsed_left is None or parsed_right is None:
        return text_changes(expected, actual, full, effort)
    left, numbers = parsed_left
    right, _ = parsed_right
    if not all(shallow(record) for record in (*left, *right)):
        return _as_text(expected, actual, full, effort)
    found: list[Change] = []
    shifts: list[tuple[int, int]] = []  # (event, delta) of aligned pairs whose position moved

    def line_of(event: int) -> int:
        """The golden line of event ``event`` (1-based); past the end, the last line."""
        return numbers[min(event, len(numbers)) - 1] if numbers else 1

    def pair(event: int, old: Any, new: Any) -> None:
        was, now = focus.positioned(old), focus.positioned(new)
        delta, moved = _shift(focus, was, now)
        if delta:
            shifts.append((event, delta))
        if moved:
            found.append(Change(f"event {event} {focus.kind(old)}.{moved}", line_of(event)))
        if was.body != now.body:
            found.extend(Change(f"event {event} {c}", line_of(event))
                         for c in value_changes(was.body, now.body, full, effort, focus))

    for tag, i1, i2, j1, j2 in align([_key(focus, r) for r in left], [_key(focus, r) for r in right], effort):
        if tag == "equal":
            for k in range(i2 - i1):
                pair(i1 + k + 1, left[i1 + k], right[j1 + k])
            continue
        # Within a changed block, pair records of the same kind; the rest are inserts/deletes.
        for t, a1, a2, b1, b2 in align([focus.kind(r) for r in left[i1:i2]], [focus.kind(r) for r in right[j1:j2]],
                                       effort):
            if t in ("equal", "replace") and a2 - a1 == b2 - b1:
                for k in range(a2 - a1):
                    pair(i1 + a1 + k + 1, left[i1 + a1 + k], right[j1 + b1 + k])
                continue
            for k in range(a1, a2):
                found.append(Change(f"event {i1 + k + 1} removed {_summary(focus, left[i1 + k], full)}",
                                    line_of(i1 + k + 1)))
            for k in range(b1, b2):
                # An added event has no line of its own: it goes before the golden's next event.
                found.append(Change(f"event {j1 + k + 1} (new) added {_summary(focus, right[j1 + k], full)}",
                                    line_of(i1 + a1 + 1)))
    found.extend(Change(text, line_of(start)) for start, text in _shift_lines(focus, shifts))
    return _noted(found, expected, actual, effort)


def _noted(found: list[Change], expected: bytes, actual: bytes, effort: Effort) -> list[Change]:
    """``found`` after the line saying an alignment was made linear (when one was), or
    ``never_empty``'s line when there is nothing."""
    if not found:
        return never_empty(expected, actual)
    if effort.approximate:
        return [Change(effort.note("aligned on the records and items each side holds once, then on the nearest "
                              "equal ones")),
                *found]
    return found



def _as_text(expected: bytes, actual: bytes, full: bool, effort: Effort) -> list[Change]:
    """JSON too deep to compare value by value, as text, after a line saying so."""
    return [Change(f"nested more than {MAX_JSON_DEPTH} deep: compared as text"),
            *text_changes(expected, actual, full, effort)]


def _shift_lines(focus: Focus, shifts: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """Consecutive events with the same position shift, as one line per run (and its first event)."""
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(shifts):
        start, delta = shifts[i]
        end = start
        i += 1
        while i < len(shifts) and shifts[i] == (end + 1, delta):
            end += 1
            i += 1
        span = f"event {start}" if start == end else f"events {start}–{end}"
        out.append((start, f"{span}: {focus.position} shifted by {delta:+d} (events were added or removed "
                           "before them)"))
    return out


_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity")


def _string(text: str, pos: int) -> tuple[str, int]:
    """The JSON string starting at ``pos`` (its opening quote) and the position after it."""
    match = _STRING.match(text, pos)
    if match is None:
        raise ValueError("not a string")
    return str(json.loads(match.group())), match.end()


def json_lines(text: str) -> dict[Path_, int]:
    """The 1-based line each value of a JSON document starts on, by its path (object
    keys and array indexes). Iterative, one pass; what it cannot read ends the map."""
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    out: dict[Path_, int] = {}
    stack: list[tuple[bool, Path_, list[int]]] = []  # (is an object, its path, [next index])
    path: Path_ = ()
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    try:
        while True:
            out[path] = bisect.bisect_right(starts, pos)
            ch = text[pos]
            if ch in "{[":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                if text[pos] not in "}]":
                    if ch == "{":
                        key, pos = _string(text, pos)
                        pos = _WS.match(text, _WS.match(text, pos).end() + 1).end()  # type: ignore[union-attr]
                        stack.append((True, path, [0]))
                        path = (*path, key)
                    else:
                        stack.append((False, path, [0]))
                        path = (*path, 0)
                    continue
                pos += 1
            elif ch == '"':
                _, pos = _string(text, pos)
            else:
                pos = _SCALAR.match(text, pos).end()  # type: ignore[union-attr]
            while True:  # after a value: the next member, or close containers
                if not stack:
                    return out
                is_object, parent, index = stack[-1]
                pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
                if text[pos] == ",":
                    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                    if is_object:
                        key, pos = _string(text, pos)
                        pos = _WS.match(text, _WS.match(text, pos).end() + 1).end()  # type: ignore[union-attr]
                        path = (*parent, key)
                    else:
                        index[0] += 1
                        path = (*parent, index[0])
                    break
                pos += 1
                stack.pop()
    except (IndexError, ValueError, AttributeError):
        return out


def _line_in(lines: dict[Path_, int], path: Path_) -> int | None:
    """The line of ``path``, or of its nearest ancestor the golden has (an added key)."""
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def json_changes(expected: bytes, actual: bytes, full: bool = False, effort: Effort | None = None,
                 ) -> list[Change]:
    effort = Effort() if effort is None else effort
    try:
        left, right = json.loads(expected), json.loads(actual)
    except (ValueError, RecursionError):
        return text_changes(expected, actual, full, effort)
    if not (shallow(left) and shallow(right)):
        return _as_text(expected, actual, full, effort)
    diffs = value_diffs(left, right, full, effort)
    lines = json_lines(expected.decode("utf-8", "replace")) if diffs else {}
    found = sorted((Change(text, _line_in(lines, path)) for path, text in diffs),
                   key=lambda c: (c.line is None, c.line or 0))  # stable: by line, then as deepdiff sorted them
    return _noted(found, expected, actual, effort)


