"""How two documents differ: the one module that compares JSON, JSONL and text.

For goldens (``changes``): JSON and JSONL are compared semantically: records are
aligned first (an inserted event is one line of report, not a shifted file), then the
changed pairs are compared with deepdiff and each difference is one ``Change``, e.g.
``event 17 plan.entries[1].status: "pending" → "in_progress"``. Text is compared as a
unified diff, one ``Change`` per hunk. Every change knows the line of the golden it
starts on (``goldens/<scenario>/<artefact>:<line>`` in a report). Values are shortened
and the list is capped unless ``full``; a real difference never yields an empty report.

For byte-exact streams (``align_lines``, conformance): the two streams aligned, what
is missing, extra or changed, and the first line that differs, with the first
difference of its JSON value in document order (``first_difference``, which also sees
key order).
"""

from __future__ import annotations

import bisect
import difflib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from deepdiff import DeepDiff

from replay.log.values import show

MAX_LINES = 40
"""The most lines of changes a golden reports (unless ``full``)."""
_MAX_DIFFS = 20_000
"""deepdiff's ``max_diffs`` counts every node it visits, not differences: keep it far above
the size of a golden record, and say so when it is reached anyway."""
_SHORT = 70
"""The widest a value is shown (unless ``full``)."""

Path_ = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Change:
    """One difference of a golden: ``text`` (one line), the golden's 1-based ``line``
    it starts on (``None`` when it has none, e.g. "only the trailing newline"), and, for
    a text hunk, the hunk's lines in ``body``."""

    text: str
    line: int | None = None
    body: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return [self.text, *self.body]


def change_lines(found: Sequence[Change]) -> list[str]:
    """The changes as plain lines (each change's text, then its body)."""
    return [line for c in found for line in c.lines()]


def _short(value: Any, full: bool = False, limit: int = _SHORT) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if full or len(text) <= limit else text[: limit - 1] + "…"


def _string_change(old: str, new: str, context: int = 24, width: int = 60) -> str:
    """Two strings shown around their first difference, not from their (shared) start."""
    p = 0
    limit = min(len(old), len(new))
    while p < limit and old[p] == new[p]:
        p += 1
    start = max(0, p - context)

    def window(text: str) -> str:
        piece = text[start : start + width]
        return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")

    return f"{json.dumps(window(old), ensure_ascii=False)} → {json.dumps(window(new), ensure_ascii=False)}"


def _change(old: Any, new: Any, full: bool) -> str:
    if not full and isinstance(old, str) and isinstance(new, str) and (len(old) > _SHORT or len(new) > _SHORT):
        return _string_change(old, new)
    return f"{_short(old, full)} → {_short(new, full)}"


def _path(parts: Sequence[Any], head: str) -> str:
    """``['update', 'entries', 1, 'status']`` → ``entries[1].status``, after ``head``."""
    out = head
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(whole value)"


def _focus(record: Any) -> tuple[str, Any]:
    """What of a record to compare, and how to name it: an ACP notification is its
    update (named by its kind), a log event its type plus data."""
    if isinstance(record, dict):
        params = record.get("params")
        if isinstance(params, dict) and isinstance(params.get("update"), dict):
            update = params["update"]
            kind = update.get("sessionUpdate")
            return (str(kind) if isinstance(kind, str) else "update"), {k: v for k, v in update.items()
                                                                      if k != "sessionUpdate"}
        if isinstance(record.get("type"), str) and "data" in record:
            return str(record["type"]), {k: v for k, v in record.items() if k != "type"}
    return "", record


def _value_diffs(expected: Any, actual: Any, full: bool = False) -> list[tuple[Path_, str]]:
    """Each difference between two JSON values as (its path in ``expected``, one line),
    sorted by line."""
    head_e, left = _focus(expected)
    head_a, right = _focus(actual)
    if head_e != head_a:
        return [((), f"{head_e or '(record)'} → {head_a or '(record)'}: {_short(expected, full)} → "
                     f"{_short(actual, full)}")]
    diff = DeepDiff(left, right, view="tree", max_diffs=_MAX_DIFFS)
    found: list[tuple[Path_, str]] = []
    for kind, items in diff.items():
        for level in items:
            parts = tuple(level.path(output_format="list"))
            path = _path(parts, head_e)
            if kind in ("values_changed", "type_changes"):
                text = f"{path}: {_change(level.t1, level.t2, full)}"
            elif "added" in kind:
                text = f"{path}: added {_short(level.t2, full)}"
            elif "removed" in kind:
                text = f"{path}: removed {_short(level.t1, full)}"
            else:
                text = f"{path}: {kind.replace('_', ' ')}"
            found.append((parts, text))
    found.sort(key=lambda item: item[1])
    if diff.get_stats().get("MAX DIFF LIMIT REACHED"):  # type: ignore[no-untyped-call]
        # deepdiff stops at max_diffs and may return a partial or even an empty result:
        # say so, never report fewer differences than there are as if that were all.
        found.append(((), f"{head_e or '(value)'}: too large to compare completely (over {_MAX_DIFFS} values); "
                          "the list above is incomplete"))
    elif not found and expected != actual:
        found.append(((), f"{head_e or '(value)'}: differs: {_short(expected, full)} → {_short(actual, full)}"))
    return found


def value_changes(expected: Any, actual: Any, full: bool = False) -> list[str]:
    """One line per difference between two JSON values (``expected → actual``)."""
    return [text for _, text in _value_diffs(expected, actual, full)]


def _parse_lines(data: bytes) -> tuple[list[Any], list[int]] | None:
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


_POSITION_KEYS = ("seq", "seq0", "sourceEventSeqs")


def _positionless(record: Any) -> tuple[Any, Any, Any]:
    """A log record without its positions (seq, seq0, sourceEventSeqs), and those
    positions: one inserted event shifts every later seq, which is one fact, not fifty."""
    if isinstance(record, dict) and any(k in record for k in _POSITION_KEYS):
        seq = record.get("seq", record.get("seq0"))
        return {k: v for k, v in record.items() if k not in _POSITION_KEYS}, seq, record.get("sourceEventSeqs")
    return record, None, None


def _key(record: Any) -> str:
    return json.dumps(_positionless(record)[0], sort_keys=True, ensure_ascii=False)


def _kind(record: Any) -> str:
    return _focus(record)[0]


def _summary(record: Any, full: bool) -> str:
    """A record named by its kind, then its content: ``plan: {"entries":[…]}``."""
    head, body = _focus(_positionless(record)[0])
    return f"{head}: {_short(body, full, 100)}" if head else _short(record, full, 100)


def _shift(left_seq: Any, right_seq: Any, left_src: Any, right_src: Any) -> tuple[int, str | None]:
    """The seq shift of an aligned pair, and a line if its sources moved otherwise."""
    delta = right_seq - left_seq if isinstance(left_seq, int) and isinstance(right_seq, int) else 0
    if left_src == right_src:
        return delta, None
    if isinstance(left_src, list) and isinstance(right_src, list) and len(left_src) == len(right_src):
        pairs = zip(left_src, right_src, strict=True)
        if all(isinstance(x, int) and isinstance(y, int) and y - x == delta for x, y in pairs):
            return delta, None
    return delta, f"sourceEventSeqs: {_short(left_src)} → {_short(right_src)}"


def jsonl_changes(expected: bytes, actual: bytes, full: bool = False) -> list[Change]:
    parsed_left, parsed_right = _parse_lines(expected), _parse_lines(actual)
    if parsed_left is None or parsed_right is None:
        return text_changes(expected, actual, full)
    left, numbers = parsed_left
    right, _ = parsed_right
    found: list[Change] = []
    shifts: list[tuple[int, int]] = []  # (event, delta) of aligned pairs whose seq moved

    def line_of(event: int) -> int:
        """The golden line of event ``event`` (1-based); past the end, the last line."""
        return numbers[min(event, len(numbers)) - 1] if numbers else 1

    def pair(event: int, old: Any, new: Any) -> None:
        old_body, old_seq, old_src = _positionless(old)
        new_body, new_seq, new_src = _positionless(new)
        delta, moved = _shift(old_seq, new_seq, old_src, new_src)
        if delta:
            shifts.append((event, delta))
        head = _focus(old)[0]
        if moved:
            found.append(Change(f"event {event} {head}.{moved}", line_of(event)))
        if old_body != new_body:
            found.extend(Change(f"event {event} {c}", line_of(event)) for c in value_changes(old_body, new_body, full))

    outer = difflib.SequenceMatcher(a=[_key(r) for r in left], b=[_key(r) for r in right], autojunk=False)
    for tag, i1, i2, j1, j2 in outer.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                pair(i1 + k + 1, left[i1 + k], right[j1 + k])
            continue
        # Within a changed block, pair records of the same kind; the rest are inserts/deletes.
        inner = difflib.SequenceMatcher(a=[_kind(r) for r in left[i1:i2]], b=[_kind(r) for r in right[j1:j2]],
                                        autojunk=False)
        for t, a1, a2, b1, b2 in inner.get_opcodes():
            if t in ("equal", "replace") and a2 - a1 == b2 - b1:
                for k in range(a2 - a1):
                    pair(i1 + a1 + k + 1, left[i1 + a1 + k], right[j1 + b1 + k])
                continue
            for k in range(a1, a2):
                found.append(Change(f"event {i1 + k + 1} removed {_summary(left[i1 + k], full)}",
                                    line_of(i1 + k + 1)))
            for k in range(b1, b2):
                # An added event has no line of its own: it goes before the golden's next event.
                found.append(Change(f"event {j1 + k + 1} (new) added {_summary(right[j1 + k], full)}",
                                    line_of(i1 + a1 + 1)))
    found.extend(Change(text, line_of(start)) for start, text in _shift_lines(shifts))
    return found or _never_empty(expected, actual)


def _shift_lines(shifts: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """Consecutive events with the same seq shift, as one line per run (and its first event)."""
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
        out.append((start, f"{span}: seq shifted by {delta:+d} (events were added or removed before them)"))
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


def json_changes(expected: bytes, actual: bytes, full: bool = False) -> list[Change]:
    try:
        left, right = json.loads(expected), json.loads(actual)
    except (ValueError, RecursionError):
        return text_changes(expected, actual, full)
    diffs = _value_diffs(left, right, full)
    lines = json_lines(expected.decode("utf-8", "replace")) if diffs else {}
    found = sorted((Change(text, _line_in(lines, path)) for path, text in diffs),
                   key=lambda c: (c.line is None, c.line or 0))  # stable: by line, then as deepdiff sorted them
    return found or _never_empty(expected, actual)


_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def text_changes(expected: bytes, actual: bytes, full: bool = False) -> list[Change]:
    """A unified diff (one line of context), one ``Change`` per hunk, at the first
    golden line it changes."""
    if expected != actual and expected.rstrip(b"\n") == actual.rstrip(b"\n"):
        return [_trailing_newline(expected)]
    a = expected.decode("utf-8", "replace").split("\n")
    b = actual.decode("utf-8", "replace").split("\n")
    found: list[Change] = []
    hunk: list[str] = []
    for line in list(difflib.unified_diff(a, b, "golden", "run", n=1, lineterm=""))[2:]:
        if line.startswith("@@") and hunk:
            found.append(_hunk(hunk))
            hunk = []
        hunk.append(line)
    if hunk:
        found.append(_hunk(hunk))
    return found or _never_empty(expected, actual)


def _hunk(lines: list[str]) -> Change:
    header, body = lines[0], tuple(lines[1:])
    match = _HUNK.match(header)
    line = int(match.group(1)) if match else None
    if line is not None:
        if match and match.group(2) == "0":
            line += 1  # an insertion into an empty stretch: -N,0 means "after line N"
        for row in body:  # context lines come first: the change starts after them
            if not row.startswith(" "):
                break
            line += 1
    return Change(header, max(line, 1) if line is not None else None, body)


def _trailing_newline(expected: bytes) -> Change:
    return Change("only the trailing newline differs", expected.rstrip(b"\n").count(b"\n") + 1)


def _never_empty(expected: bytes, actual: bytes) -> list[Change]:
    if expected == actual:
        return []
    if expected.rstrip(b"\n") == actual.rstrip(b"\n"):
        return [_trailing_newline(expected)]
    return [Change(f"the bytes differ ({len(expected)} bytes in the golden, {len(actual)} from the run) though the "
                   "content compares equal: check key order, number spelling or escaping")]


def guess_changes(expected: bytes, actual: bytes, full: bool = False) -> list[Change]:
    """``changes`` for content whose file name is unknown: JSON, JSONL or text, by what
    the golden parses as."""
    try:
        json.loads(expected)
        name = ".json"
    except (ValueError, RecursionError):
        name = ".jsonl" if _parse_lines(expected) is not None else ".txt"
    return changes(name, expected, actual, full)


def changes(name: str, expected: bytes, actual: bytes, full: bool = False) -> list[Change]:
    """The differences of one golden file, capped at ``MAX_LINES`` lines unless ``full``."""
    if name.endswith(".jsonl"):
        found = jsonl_changes(expected, actual, full)
    elif name.endswith(".json"):
        found = json_changes(expected, actual, full)
    else:
        found = text_changes(expected, actual, full)
    return found if full else list(_capped(found))


def new_file_changes(actual: bytes, full: bool = False) -> list[Change]:
    """A golden that does not exist yet, as the lines it would hold."""
    found = text_changes(b"", actual, full) if actual else [Change("an empty file")]
    return found if full else list(_capped(found))


def _capped(found: list[Change]) -> Iterator[Change]:
    """At most ``MAX_LINES`` lines; a hunk that does not fit is cut, and the rest counted."""
    room = MAX_LINES
    total = sum(1 + len(c.body) for c in found)
    for change in found:
        size = 1 + len(change.body)
        if size <= room:
            yield change
            room -= size
            continue
        if room > 1 and change.body:
            yield Change(change.text, change.line, change.body[: room - 1])
            room = 0
        break
    shown = MAX_LINES - room if total > MAX_LINES else total
    if total > shown:
        yield Change(f"… and {total - shown} more differences")


@dataclass(frozen=True, slots=True)
class LineDiff:
    """The first difference, with the two streams aligned: the golden line (0-based
    ``index`` among the compared golden lines, ``None`` for an extra rendered line) and
    the rendered one (``rendered_index``; ``None`` when a golden line was not rendered),
    and a short semantic summary."""

    index: int | None
    rendered_index: int | None
    expected: str | None
    got: str | None
    summary: str


@dataclass(frozen=True, slots=True)
class LineAlignment:
    """Two line streams aligned: ``matching`` expected lines found in order, ``missing``
    expected lines not there, ``extra`` lines not expected, ``changed`` pairs that differ
    in place, and the first difference (``None``: the streams are the same)."""

    matching: int
    missing: int
    extra: int
    changed: int
    first: LineDiff | None


def align_lines(expected: Sequence[str], got: Sequence[str]) -> LineAlignment:
    """Align two streams of lines (JSON, as a rule) and say what differs."""
    matcher = difflib.SequenceMatcher(None, list(expected), list(got), autojunk=False)
    matching = missing = extra = changed = 0
    first: LineDiff | None = None
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            matching += i2 - i1
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        changed += pairs
        missing += (i2 - i1) - pairs
        extra += (j2 - j1) - pairs
        if first is None:
            exp = expected[i1] if i1 < i2 else None
            act = got[j1] if j1 < j2 else None
            first = LineDiff(i1 if exp is not None else None, j1 if act is not None else None, exp, act,
                             describe_difference(exp, act))
    return LineAlignment(matching, missing, extra, changed, first)


def compare_lines(expected: Sequence[str], got: Sequence[str]) -> tuple[int, LineDiff | None]:
    """(expected lines found in order, the first difference or ``None``)."""
    aligned = align_lines(expected, got)
    return aligned.matching, aligned.first


def describe_difference(expected: str | None, got: str | None) -> str:
    """A one-line semantic summary: which key differs, expected vs got."""
    if expected is None:
        return f"extra line rendered: {_line_kind(got)}"
    if got is None:
        return f"expected line not rendered: {_line_kind(expected)}"
    try:
        exp, act = json.loads(expected), json.loads(got)
    except ValueError:
        return "a line is not JSON"
    found = first_difference(exp, act)
    if found is None:
        return "same JSON value, different bytes (key order or escaping)"
    return found


def _line_kind(line: str | None) -> str:
    """What a JSON-RPC line is: its update's kind, else its method, else ``?``."""
    try:
        frame = json.loads(line or "")
    except ValueError:
        return "?"
    if not isinstance(frame, dict):
        return "?"
    params = frame.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if isinstance(update, dict) and isinstance(update.get("sessionUpdate"), str):
        return str(update["sessionUpdate"])
    return str(frame["method"]) if isinstance(frame.get("method"), str) else "?"


def first_difference(exp: Any, act: Any, path: str = "") -> str | None:
    """The first difference of two JSON values in document order, key order included
    (what byte-exactness needs; ``value_changes`` lists them all, order-blind), as
    ``path: expected X, got Y``; ``None`` when they are the same."""
    where = path or "(root)"
    if isinstance(exp, dict) and isinstance(act, dict):
        for key in exp:
            if key not in act:
                return f"{path}.{key}: expected {show(exp[key])}, missing"
            found = first_difference(exp[key], act[key], f"{path}.{key}" if path else key)
            if found:
                return found
        for key in act:
            if key not in exp:
                return f"{path}.{key}: unexpected key, got {show(act[key])}"
        if list(exp) != list(act):
            return f"{where}: key order: expected {list(exp)}, got {list(act)}"
        return None
    if isinstance(exp, list) and isinstance(act, list):
        for i, (e, a) in enumerate(zip(exp, act, strict=False)):
            found = first_difference(e, a, f"{path}[{i}]")
            if found:
                return found
        if len(exp) != len(act):
            return f"{where}: expected {len(exp)} items, got {len(act)}"
        return None
    if exp != act or type(exp) is not type(act):
        return f"{where}: expected {show(exp)}, got {show(act)}"
    return None
