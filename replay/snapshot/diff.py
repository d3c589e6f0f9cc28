"""How two documents differ: the one module that compares JSON, JSONL and text.

For goldens (``changes``): JSON and JSONL are compared semantically: records are
aligned first (an inserted event is one line of report, not a shifted file), then the
changed pairs are compared with deepdiff and each difference is one line, e.g.
``event 17 plan.entries[1].status: "pending" → "in_progress"``. Text is compared as a
unified diff. Output is capped; a real difference never yields an empty report.

For byte-exact streams (``align_lines``, conformance): the two streams aligned, what
is missing, extra or changed, and the first line that differs, with the first
difference of its JSON value in document order (``first_difference``, which also sees
key order).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from deepdiff import DeepDiff

from replay.log.values import show

MAX_LINES = 40
_MAX_DIFFS = 20_000
"""deepdiff's ``max_diffs`` counts every node it visits, not differences: keep it far above
the size of a golden record, and say so when it is reached anyway."""
_ROOT = re.compile(r"\[(?:'((?:[^'\\]|\\.)*)'|(\d+))\]")


def _short(value: Any, limit: int = 70) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def _change(old: Any, new: Any) -> str:
    if isinstance(old, str) and isinstance(new, str) and (len(old) > 70 or len(new) > 70):
        return _string_change(old, new)
    return f"{_short(old)} → {_short(new)}"


def _path(deep_path: str, head: str) -> str:
    """``root['update']['entries'][1]['status']`` → ``entries[1].status``, after ``head``."""
    out = head
    for key, index in _ROOT.findall(deep_path):
        if index:
            out += f"[{index}]"
        else:
            out += ("." if out else "") + key
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


def value_changes(expected: Any, actual: Any) -> list[str]:
    """One line per difference between two JSON values (``expected → actual``)."""
    head_e, left = _focus(expected)
    head_a, right = _focus(actual)
    if head_e != head_a:
        return [f"{head_e or '(record)'} → {head_a or '(record)'}: {_short(expected)} → {_short(actual)}"]
    diff = DeepDiff(left, right, verbose_level=2, max_diffs=_MAX_DIFFS)
    lines: list[str] = []
    for kind, items in diff.to_dict().items():
        if not isinstance(items, dict):
            items = {str(item): None for item in items}
        for where, detail in items.items():
            path = _path(where, head_e)
            if kind in ("values_changed", "type_changes") and isinstance(detail, dict):
                lines.append(f"{path}: {_change(detail.get('old_value'), detail.get('new_value'))}")
            elif "added" in kind:
                lines.append(f"{path}: added {_short(detail)}")
            elif "removed" in kind:
                lines.append(f"{path}: removed {_short(detail)}")
            else:
                lines.append(f"{path}: {kind.replace('_', ' ')}")
    lines.sort()
    if diff.get_stats().get("MAX DIFF LIMIT REACHED"):  # type: ignore[no-untyped-call]
        # deepdiff stops at max_diffs and may return a partial or even an empty result:
        # say so, never report fewer differences than there are as if that were all.
        lines.append(f"{head_e or '(value)'}: too large to compare completely (over {_MAX_DIFFS} values); the "
                     "list above is incomplete")
    elif not lines and expected != actual:
        lines.append(f"{head_e or '(value)'}: differs: {_short(expected)} → {_short(actual)}")
    return lines


def _parse_lines(data: bytes) -> list[Any] | None:
    out = []
    for line in data.decode("utf-8", "replace").split("\n"):
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except (ValueError, RecursionError):
            return None
    return out


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


def _summary(record: Any) -> str:
    """A record named by its kind, then its content: ``plan: {"entries":[…]}``."""
    head, body = _focus(_positionless(record)[0])
    return f"{head}: {_short(body, 100)}" if head else _short(record, 100)


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


def jsonl_changes(expected: bytes, actual: bytes) -> list[str]:
    left, right = _parse_lines(expected), _parse_lines(actual)
    if left is None or right is None:
        return text_changes(expected, actual)
    lines: list[str] = []
    shifts: list[tuple[int, int]] = []  # (event, delta) of aligned pairs whose seq moved
    outer = difflib.SequenceMatcher(a=[_key(r) for r in left], b=[_key(r) for r in right], autojunk=False)

    def pair(event: int, old: Any, new: Any) -> None:
        old_body, old_seq, old_src = _positionless(old)
        new_body, new_seq, new_src = _positionless(new)
        delta, moved = _shift(old_seq, new_seq, old_src, new_src)
        if delta:
            shifts.append((event, delta))
        head = _focus(old)[0]
        if moved:
            lines.append(f"event {event} {head}.{moved}")
        if old_body != new_body:
            lines.extend(f"event {event} {c}" for c in value_changes(old_body, new_body))

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
                lines.append(f"event {i1 + k + 1} removed {_summary(left[i1 + k])}")
            for k in range(b1, b2):
                lines.append(f"event {j1 + k + 1} (new) added {_summary(right[j1 + k])}")
    lines.extend(_shift_lines(shifts))
    return lines or _never_empty(expected, actual)


def _shift_lines(shifts: list[tuple[int, int]]) -> list[str]:
    """Consecutive events with the same seq shift, as one line per run."""
    out: list[str] = []
    i = 0
    while i < len(shifts):
        start, delta = shifts[i]
        end = start
        i += 1
        while i < len(shifts) and shifts[i] == (end + 1, delta):
            end += 1
            i += 1
        span = f"event {start}" if start == end else f"events {start}–{end}"
        out.append(f"{span}: seq shifted by {delta:+d} (events were added or removed before them)")
    return out


def json_changes(expected: bytes, actual: bytes) -> list[str]:
    try:
        left, right = json.loads(expected), json.loads(actual)
    except (ValueError, RecursionError):
        return text_changes(expected, actual)
    lines = value_changes(left, right)
    return lines or _never_empty(expected, actual)


def text_changes(expected: bytes, actual: bytes) -> list[str]:
    if expected != actual and expected.rstrip(b"\n") == actual.rstrip(b"\n"):
        return ["only the trailing newline differs"]
    a = expected.decode("utf-8", "replace").split("\n")
    b = actual.decode("utf-8", "replace").split("\n")
    lines = [line for line in difflib.unified_diff(a, b, "golden", "run", n=1, lineterm="")][2:]
    return lines or _never_empty(expected, actual)


def _never_empty(expected: bytes, actual: bytes) -> list[str]:
    if expected == actual:
        return []
    if expected.rstrip(b"\n") == actual.rstrip(b"\n"):
        return ["only the trailing newline differs"]
    return [f"the bytes differ ({len(expected)} bytes in the golden, {len(actual)} from the run) though the "
            "content compares equal: check key order, number spelling or escaping"]


def guess_changes(expected: bytes, actual: bytes) -> list[str]:
    """``changes`` for content whose file name is unknown: JSON, JSONL or text, by what
    the golden parses as."""
    try:
        json.loads(expected)
        name = ".json"
    except (ValueError, RecursionError):
        name = ".jsonl" if _parse_lines(expected) is not None else ".txt"
    return changes(name, expected, actual)


def changes(name: str, expected: bytes, actual: bytes) -> list[str]:
    """The differences of one golden file, capped at ``MAX_LINES`` lines."""
    if name.endswith(".jsonl"):
        lines = jsonl_changes(expected, actual)
    elif name.endswith(".json"):
        lines = json_changes(expected, actual)
    else:
        lines = text_changes(expected, actual)
    return list(_capped(lines))


def _capped(lines: list[str]) -> Iterator[str]:
    yield from lines[:MAX_LINES]
    if len(lines) > MAX_LINES:
        yield f"… and {len(lines) - MAX_LINES} more differences"


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
