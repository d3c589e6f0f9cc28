"""How two documents differ: the one module that compares JSON, JSONL and text.

For goldens (``changes``): JSON and JSONL are compared semantically: records are
aligned first (an inserted event is one line of report, not a shifted file), then the
changed pairs are compared with deepdiff and each difference is one ``Change``, e.g.
``event 17 plan.entries[1].status: "pending" → "in_progress"``. Text is compared as a
unified diff, one ``Change`` per hunk. Every change knows the line of the golden it
starts on (``goldens/<scenario>/<artefact>:<line>`` in a report). Values are shortened
and the list is capped unless ``full``; a real difference never yields an empty report.

Content past ``SEMANTIC_DIFF_BYTES`` (either side) is compared line by line instead, as
it is read (``stream_changes`` reads files): the semantic diff holds both sides parsed,
about fifteen times their size. The line diff reads ahead a window of lines
(``_WINDOW_LINES``, ``_WINDOW_BYTES``, and always one line), so its memory is that of
its largest lines, and its work is linear: it resyncs on the nearest line both windows
hold, or takes both windows as changed. Its report is capped and its lines are cut even
with ``full``, and its first line says it is a line diff.

Under that limit the work is bounded too (``Effort``). difflib's alignment of records,
list items or lines is quadratic or worse on repetitive content: the alignments of one
golden get ``EXACT_DIFF_STEPS`` steps, past which an alignment is made linear
(``_linear_opcodes``: on the items each side holds once, then on the nearest equal ones)
and text is compared by the line diff, and the report's first line says so. deepdiff
costs tens of microseconds a value, and aligns lists and multi-line strings with difflib
too: past what one call of it may cost (``_DEEPDIFF_STEPS``), values are compared by a
walk of our own that finds what deepdiff finds (``_walk``). JSON nested deeper than
``MAX_JSON_DEPTH`` (deepdiff recurses) is compared as text, after a line saying so.

For byte-exact streams (``align_lines``, conformance): the two streams aligned, what
is missing, extra or changed, and the first line that differs, with the first
difference of its JSON value in document order (``first_difference``, which also sees
key order).
"""

from __future__ import annotations

import bisect
import difflib
import io
import json
import os
import re
from collections import Counter, deque
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any, BinaryIO, TypeVar

from deepdiff import DeepDiff

from replay.output import show

MAX_LINES = 40
"""The most lines of changes a golden reports (unless ``full``)."""
_MAX_DIFFS = 20_000
"""deepdiff's ``max_diffs`` counts every node it visits, not differences: keep it far above
the size of a golden record, and say so when it is reached anyway."""
_SHORT = 70
"""The widest a value is shown (unless ``full``)."""
SEMANTIC_DIFF_BYTES = 1 << 20
"""The largest content compared record by record (both sides): what that holds is about
fifteen times their size. Larger content is compared line by line."""
EXACT_DIFF_STEPS = 5_000_000
"""The most steps the exact alignments of one golden take (``Effort``): a step is about
what one item of a probe of difflib costs (0.1 µs). Past it, alignments are linear and
the report says so."""
_DEEPDIFF_CALL_STEPS = 350
_DEEPDIFF_VALUE_STEPS = 150
"""What deepdiff costs in steps: about 35 µs a call and 15 µs a value it visits (measured)."""
_DEEPDIFF_STEPS = _DEEPDIFF_CALL_STEPS + _DEEPDIFF_VALUE_STEPS * _MAX_DIFFS
"""The steps deepdiff may take on one golden: what one call of it may take. Past it,
``_walk`` compares the values, with the same result."""
MAX_JSON_DEPTH = 64
"""The deepest JSON compared value by value (deepdiff recurses a few frames a level);
deeper JSON is compared as text."""
_DEEPER = 0.33
"""deepdiff's ``threshold_to_diff_deeper``, passed to it and mirrored by ``_walk``: two
objects that share less than this share of their keys are shown whole."""
_WINDOW_LINES = 64
_WINDOW_BYTES = 1 << 16
"""The line diff reads ahead at most this many lines and, past its first, bytes per side;
the linear alignment (``_linear_opcodes``) looks this many items ahead."""
_LINE_WIDTH = 200
"""The widest a line of the line diff is shown, in characters."""
_LINE_LEAD = 40
"""Characters shown before the first difference of a changed line too long to show whole."""
_CHUNK = 1 << 16

Path_ = tuple[str | int, ...]
_Opcode = tuple[str, int, int, int, int]
"""One step of an alignment, as difflib's ``get_opcodes`` writes it."""
_H = TypeVar("_H", bound=Hashable)


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


@dataclass
class Effort:
    """The work one golden's semantic diff may do and did: its alignments ``allowed``
    steps, deepdiff ``deepdiff_allowed`` (``None``: no bound; ``Effort(None, None)`` is the
    exact reference), the steps each ``aligned`` and ``deepdiffed``; ``approximate`` once
    an alignment was made linear, ``lines`` once text was compared line by line."""

    allowed: int | None = EXACT_DIFF_STEPS
    deepdiff_allowed: int | None = _DEEPDIFF_STEPS
    aligned: int = 0
    deepdiffed: int = 0
    approximate: bool = False
    lines: bool = False

    def align(self, steps: int) -> bool:
        """Whether an alignment may take ``steps`` more steps; if so they are counted."""
        if self.allowed is not None and self.aligned + steps > self.allowed:
            return False
        self.aligned += steps
        return True

    def deepdiff_left(self) -> int | None:
        """The steps deepdiff may still take (``None``: no bound)."""
        return None if self.deepdiff_allowed is None else self.deepdiff_allowed - self.deepdiffed

    def note(self, instead: str) -> Change:
        """The line that says an alignment ran out of steps, and what was done ``instead``."""
        return Change(f"too costly to align exactly (the limit is {self.allowed or 0:,} steps): {instead}")


class _TooCostly(Exception):
    """An exact alignment would take more steps than its ``Effort`` has left."""


class _Matcher(difflib.SequenceMatcher[_H]):
    """difflib's alignment, each probe counted before it is made: a probe of ``a[alo:ahi]``
    visits each of those items and every place ``b`` holds it, and walks no further than
    both ranges; ``_TooCostly`` when the ``Effort`` cannot afford one."""

    def __init__(self, a: Sequence[_H], b: Sequence[_H], effort: Effort, autojunk: bool) -> None:
        super().__init__(None, a, b, autojunk)
        self._effort = effort
        self._sizes = len(a), len(b)
        where: dict[_H, list[int]] = self.b2j  # type: ignore[attr-defined]  # documented, not in the stubs
        upto = [0]  # upto[i]: the steps of probing a[:i] over the whole of b
        for item in a:
            upto.append(upto[-1] + 1 + len(where.get(item, ())))
        self._upto = upto

    def find_longest_match(self, alo: int = 0, ahi: int | None = None, blo: int = 0,
                           bhi: int | None = None) -> difflib.Match:
        ahi = self._sizes[0] if ahi is None else ahi
        bhi = self._sizes[1] if bhi is None else bhi
        if not self._effort.align(self._upto[ahi] - self._upto[alo] + (bhi - blo) + 1):
            raise _TooCostly
        return super().find_longest_match(alo, ahi, blo, bhi)


def _align(a: Sequence[_H], b: Sequence[_H], effort: Effort) -> Sequence[_Opcode]:
    """difflib's opcodes of ``a`` → ``b`` while ``effort`` affords them, else the linear
    alignment's (and ``effort`` is marked approximate)."""
    if a == b:  # what difflib finds too (one block of all), at no cost
        return [("equal", 0, len(a), 0, len(b))] if a else []
    try:
        return _Matcher(a, b, effort, autojunk=False).get_opcodes()
    except _TooCostly:
        effort.approximate = True
        return _linear_opcodes(a, b)


def _linear_opcodes(a: Sequence[_H], b: Sequence[_H]) -> list[_Opcode]:
    """An alignment in O(n log n): the items each side holds once, in the longest order
    both keep, are aligned; between two of them, equal items are aligned as the line diff
    resyncs (the nearest pair within ``_WINDOW_LINES`` items ahead), the rest changed."""
    in_a, in_b = Counter(a), Counter(b)
    at_b = {item: j for j, item in enumerate(b) if in_b[item] == 1}
    anchors = _increasing([(i, at_b[item]) for i, item in enumerate(a) if in_a[item] == 1 and item in at_b])
    pairs: list[tuple[int, int]] = []
    i = j = 0
    for ai, bj in [*anchors, (len(a), len(b))]:
        while i < ai and j < bj:
            if a[i] == b[j]:
                pairs.append((i, j))
                i, j = i + 1, j + 1
                continue
            di, dj = _resync(a[i:min(i + _WINDOW_LINES, ai)], b[j:min(j + _WINDOW_LINES, bj)])
            i, j = i + di, j + dj
        if ai < len(a):
            pairs.append((ai, bj))
        i, j = ai + 1, bj + 1
    ops: list[_Opcode] = []
    i = j = 0
    for pi, pj in [*pairs, (len(a), len(b))]:
        if pi > i or pj > j:
            ops.append(("replace" if pi > i and pj > j else "delete" if pi > i else "insert", i, pi, j, pj))
        if pi == len(a) and pj == len(b):
            break
        if ops and ops[-1][0] == "equal" and ops[-1][2] == pi and ops[-1][4] == pj:
            ops[-1] = ("equal", ops[-1][1], pi + 1, ops[-1][3], pj + 1)
        else:
            ops.append(("equal", pi, pi + 1, pj, pj + 1))
        i, j = pi + 1, pj + 1
    return ops


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (in order) whose second items increase too, in
    O(n log n) (patience sorting)."""
    ends: list[int] = []  # ends[k]: the smallest second item a run of k + 1 pairs ends on
    end_at: list[int] = []  # and the pair it ends with
    before = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        length = bisect.bisect_left(ends, j)
        if length == len(ends):
            ends.append(j)
            end_at.append(k)
        else:
            ends[length] = j
            end_at[length] = k
        before[k] = end_at[length - 1] if length else -1
    run: list[tuple[int, int]] = []
    k = end_at[-1] if end_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]


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


_Found = tuple[str, Path_, Any, Any]
"""One difference as deepdiff's tree view names it: its kind, its path, the two values."""
_ABSENT = object()


def _value_diffs(expected: Any, actual: Any, full: bool = False, effort: Effort | None = None,
                 ) -> list[tuple[Path_, str]]:
    """Each difference between two JSON values as (its path in ``expected``, one line),
    sorted by line: deepdiff's, or, when ``effort`` cannot afford deepdiff, ``_walk``'s."""
    head_e, left = _focus(expected)
    head_a, right = _focus(actual)
    if head_e != head_a:
        return [((), f"{head_e or '(record)'} → {head_a or '(record)'}: {_short(expected, full)} → "
                     f"{_short(actual, full)}")]
    effort = Effort() if effort is None else effort
    cost = _deepdiff_cost(left, right, effort.deepdiff_left())
    incomplete = False
    if cost is not None:
        effort.deepdiffed += cost
        diff = DeepDiff(left, right, view="tree", max_diffs=_MAX_DIFFS, threshold_to_diff_deeper=_DEEPER,
                        ignore_private_variables=True)
        raw: list[_Found] = [(kind, tuple(level.path(output_format="list")), level.t1, level.t2)
                             for kind, items in diff.items() for level in items]
        incomplete = bool(diff.get_stats().get("MAX DIFF LIMIT REACHED"))  # type: ignore[no-untyped-call]
    else:
        raw = _walk(left, right, effort)
    found: list[tuple[Path_, str]] = []
    runs, raw = _string_runs(raw)
    for parts, last, old, new in runs:
        found.append((parts, f"{_path(parts[:-1], head_e) if len(parts) > 1 or head_e else ''}[{parts[-1]}–{last}] "
                             f"joined: {_change(old, new, full)}"))
    for kind, parts, old, new in raw:
        path = _path(parts, head_e)
        if kind in ("values_changed", "type_changes"):
            text = f"{path}: {_change(old, new, full)}"
        elif "added" in kind:
            text = f"{path}: added {_short(new, full)}"
        elif "removed" in kind:
            text = f"{path}: removed {_short(old, full)}"
        else:
            text = f"{path}: {kind.replace('_', ' ')}"
        found.append((parts, text))
    found.sort(key=lambda item: (position(item[0]), item[1]))
    if incomplete:
        # deepdiff stops at max_diffs and may return a partial or even an empty result:
        # say so, never report fewer differences than there are as if that were all.
        found.append(((), f"{head_e or '(value)'}: too large to compare completely (over {_MAX_DIFFS} values); "
                          "the list above is incomplete"))
    elif not found and expected != actual:
        found.append(((), f"{head_e or '(value)'}: differs: {_short(expected, full)} → {_short(actual, full)}"))
    return found


def position(parts: Path_) -> tuple[tuple[int, int | str], ...]:
    """Where a path is in its document, as a sort key: list indices in their natural
    order (``args[6]`` before ``args[10]``), keys by name."""
    return tuple((0, p) if isinstance(p, int) else (1, str(p)) for p in parts)


_RUN_KINDS = frozenset({"values_changed", "iterable_item_removed", "iterable_item_added"})


def _string_runs(raw: list[_Found]) -> tuple[list[tuple[Path_, int, str, str]], list[_Found]]:
    """Neighbouring items of one list of strings that changed (a text cut in pieces, as
    a stream of chunks is): each run of two or more is one difference of the joined
    pieces, ``(path of its first item, its last index, old text, new text)``; the other
    differences are returned as they came. One edit of such a text is then one line, not
    one per piece it moved across."""
    by_list: dict[Path_, dict[int, _Found]] = {}
    for item in raw:
        kind, parts, old, new = item
        if (kind in _RUN_KINDS and parts and isinstance(parts[-1], int)
                and (isinstance(old, str) or old is _ABSENT) and (isinstance(new, str) or new is _ABSENT)):
            by_list.setdefault(parts[:-1], {})[parts[-1]] = item
    runs: list[tuple[Path_, int, str, str]] = []
    merged: set[int] = set()
    for parent, items in by_list.items():
        indices = sorted(items)
        start = 0
        for k in range(1, len(indices) + 1):
            if k < len(indices) and indices[k] == indices[k - 1] + 1:
                continue
            run = [items[i] for i in indices[start:k]]
            if len(run) > 1 and any(kind == "values_changed" for kind, *_ in run):
                old = "".join(o for _, _, o, _ in run if isinstance(o, str))
                new = "".join(n for _, _, _, n in run if isinstance(n, str))
                runs.append(((*parent, indices[start]), indices[k - 1], old, new))
                merged.update(id(item) for item in run)
            start = k
    return runs, [item for item in raw if id(item) not in merged]


def value_changes(expected: Any, actual: Any, full: bool = False, effort: Effort | None = None) -> list[str]:
    """One line per difference between two JSON values (``expected → actual``)."""
    return [text for _, text in _value_diffs(expected, actual, full, effort)]


def _scalars(items: list[Any]) -> bool:
    """Whether a list holds only JSON scalars (deepdiff aligns those with difflib)."""
    return all(item is None or isinstance(item, (str, int, float)) for item in items)


def _align_cost(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """An upper bound of the steps difflib takes to align ``a`` and ``b``: at most
    3·min(n, m) + 1 probes, each visiting at most both sides and every pair of equal items."""
    in_b = Counter(b)
    equal = sum(in_b.get(item, 0) for item in a)
    return (3 * min(len(a), len(b)) + 1) * (len(a) + len(b) + equal + 1)


def _deepdiff_cost(left: Any, right: Any, cutoff: int | None) -> int | None:
    """The steps deepdiff may take over two values (``None`` past ``cutoff``): the call,
    each value it visits (it stops at ``_MAX_DIFFS``), and difflib's work on each pair of
    lists of scalars it aligns and of multi-line strings it diffs."""
    steps = _DEEPDIFF_CALL_STEPS
    visits = 0
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        visits += 1
        if a is b or type(a) is not type(b):
            continue
        if isinstance(a, dict):
            stack.extend((value, b[key]) for key, value in a.items() if key in b)
        elif isinstance(a, list):
            if _scalars(a) and _scalars(b):
                steps += _align_cost(a, b)
            else:
                stack.extend(zip(a, b, strict=False))
        elif isinstance(a, str) and a != b and ("\n" in a or "\n" in b):
            steps += _align_cost(a.splitlines(), b.splitlines())
        if cutoff is not None and steps + _DEEPDIFF_VALUE_STEPS * min(visits, _MAX_DIFFS) > cutoff:
            return None
    return steps + _DEEPDIFF_VALUE_STEPS * min(visits, _MAX_DIFFS)


def _walk(left: Any, right: Any, effort: Effort) -> list[_Found]:
    """What deepdiff (as ``_value_diffs`` calls it) finds, by a walk in linear work but for
    the alignment of lists of scalars, which ``effort`` bounds: objects' keys added,
    removed and compared (two objects that share under ``_DEEPER`` of their keys shown
    whole, keys starting with "__" passed over); lists of scalars aligned, then compared
    item by item instead when that finds no more; other lists item by item."""
    found: list[_Found] = []
    stack: list[tuple[Path_, Any, Any]] = [((), left, right)]
    while stack:
        parts, a, b = stack.pop()
        if a is b:
            continue
        if type(a) is not type(b):
            found.append(("type_changes", parts, a, b))
        elif isinstance(a, dict):
            keys_a = [k for k in a if not _private(k)]
            keys_b = [k for k in b if not _private(k)]
            shared = [k for k in keys_a if k in b]
            union = len(keys_a) + len(keys_b) - len(shared)
            if union > 1 and len(shared) / union < _DEEPER:
                found.append(("values_changed", parts, a, b))
                continue
            found.extend(("dictionary_item_added", (*parts, k), _ABSENT, b[k]) for k in keys_b if k not in a)
            found.extend(("dictionary_item_removed", (*parts, k), a[k], _ABSENT) for k in keys_a if k not in b)
            stack.extend(((*parts, k), a[k], b[k]) for k in shared)
        elif isinstance(a, list):
            if _scalars(a) and _scalars(b):
                found.extend(_scalar_list(parts, a, b, effort))
            else:
                found.extend(_in_order(parts, a, b, 0, 0, stack))
        elif a != b:
            found.append(("values_changed", parts, a, b))
    # An item removed and one added at the same place are one change of that item.
    added = {parts: new for kind, parts, _, new in found if kind == "iterable_item_added"}
    removed = {parts for kind, parts, _, _ in found if kind == "iterable_item_removed"}
    both = added.keys() & removed
    if not both:
        return found
    return [("values_changed", parts, old, added[parts]) if kind == "iterable_item_removed" and parts in both
            else (kind, parts, old, new) for kind, parts, old, new in found
            if not (kind == "iterable_item_added" and parts in both)]


def _private(key: Any) -> bool:
    """A key deepdiff passes over (``ignore_private_variables``)."""
    return isinstance(key, str) and key.startswith("__")


def _in_order(parts: Path_, a: list[Any], b: list[Any], at_a: int, at_b: int,
              stack: list[tuple[Path_, Any, Any]] | None) -> list[_Found]:
    """Two lists (``a`` from ``at_a``, ``b`` from ``at_b``) compared item by item: the
    items past the shorter are removed or added; the pairs are pushed on ``stack`` to
    compare, or, for scalars (``stack`` is ``None``), compared here."""
    found: list[_Found] = []
    for k, (x, y) in enumerate(zip_longest(a, b, fillvalue=_ABSENT)):
        if y is _ABSENT:
            found.append(("iterable_item_removed", (*parts, at_a + k), x, y))
        elif x is _ABSENT:
            found.append(("iterable_item_added", (*parts, at_b + k), x, y))
        elif stack is not None:
            stack.append(((*parts, at_a + k), x, y))
        elif x is not y and (type(x) is not type(y) or x != y):
            found.append(("type_changes" if type(x) is not type(y) else "values_changed", (*parts, at_a + k), x, y))
    return found


def _scalar_list(parts: Path_, a: list[Any], b: list[Any], effort: Effort) -> list[_Found]:
    """Two lists of scalars as deepdiff compares them: aligned (a changed stretch item by
    item), unless item by item over the whole lists finds no more differences."""
    found: list[_Found] = []
    for tag, i1, i2, j1, j2 in _align(a, b, effort):
        if tag == "replace":
            found.extend(_in_order(parts, a[i1:i2], b[j1:j2], i1, j1, None))
        elif tag == "delete":
            found.extend(("iterable_item_removed", (*parts, i), a[i], _ABSENT) for i in range(i1, i2))
        elif tag == "insert":
            found.extend(("iterable_item_added", (*parts, j), _ABSENT, b[j]) for j in range(j1, j2))
    if len(found) > 1:
        by_item = _in_order(parts, a, b, 0, 0, None)
        if len(found) >= len(by_item):
            return by_item
    return found


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


def jsonl_changes(expected: bytes, actual: bytes, full: bool = False, effort: Effort | None = None,
                  ) -> list[Change]:
    effort = Effort() if effort is None else effort
    parsed_left, parsed_right = _parse_lines(expected), _parse_lines(actual)
    if parsed_left is None or parsed_right is None:
        return text_changes(expected, actual, full, effort)
    left, numbers = parsed_left
    right, _ = parsed_right
    if not all(_shallow(record) for record in (*left, *right)):
        return _as_text(expected, actual, full, effort)
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
            found.extend(Change(f"event {event} {c}", line_of(event))
                         for c in value_changes(old_body, new_body, full, effort))

    for tag, i1, i2, j1, j2 in _align([_key(r) for r in left], [_key(r) for r in right], effort):
        if tag == "equal":
            for k in range(i2 - i1):
                pair(i1 + k + 1, left[i1 + k], right[j1 + k])
            continue
        # Within a changed block, pair records of the same kind; the rest are inserts/deletes.
        for t, a1, a2, b1, b2 in _align([_kind(r) for r in left[i1:i2]], [_kind(r) for r in right[j1:j2]], effort):
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
    return _noted(found, expected, actual, effort)


def _noted(found: list[Change], expected: bytes, actual: bytes, effort: Effort) -> list[Change]:
    """``found`` after the line saying an alignment was made linear (when one was), or
    ``_never_empty``'s line when there is nothing."""
    if not found:
        return _never_empty(expected, actual)
    if effort.approximate:
        return [effort.note("aligned on the records and items each side holds once, then on the nearest equal ones"),
                *found]
    return found


def _shallow(value: Any) -> bool:
    """Whether a JSON value nests no more than ``MAX_JSON_DEPTH`` objects and lists."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        inside = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if inside is None:
            continue
        if depth > MAX_JSON_DEPTH:
            return False
        stack.extend((child, depth + 1) for child in inside)
    return True


def _as_text(expected: bytes, actual: bytes, full: bool, effort: Effort) -> list[Change]:
    """JSON too deep to compare value by value, as text, after a line saying so."""
    return [Change(f"nested more than {MAX_JSON_DEPTH} deep: compared as text"),
            *text_changes(expected, actual, full, effort)]


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


def json_changes(expected: bytes, actual: bytes, full: bool = False, effort: Effort | None = None,
                 ) -> list[Change]:
    effort = Effort() if effort is None else effort
    try:
        left, right = json.loads(expected), json.loads(actual)
    except (ValueError, RecursionError):
        return text_changes(expected, actual, full, effort)
    if not (_shallow(left) and _shallow(right)):
        return _as_text(expected, actual, full, effort)
    diffs = _value_diffs(left, right, full, effort)
    lines = json_lines(expected.decode("utf-8", "replace")) if diffs else {}
    found = sorted((Change(text, _line_in(lines, path)) for path, text in diffs),
                   key=lambda c: (c.line is None, c.line or 0))  # stable: by line, then as deepdiff sorted them
    return _noted(found, expected, actual, effort)


_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def text_changes(expected: bytes, actual: bytes, full: bool = False, effort: Effort | None = None,
                 ) -> list[Change]:
    """A unified diff (one line of context, difflib's), one ``Change`` per hunk, at the
    first golden line it changes; the line diff when ``effort`` cannot afford difflib."""
    effort = Effort() if effort is None else effort
    if expected != actual and expected.rstrip(b"\n") == actual.rstrip(b"\n"):
        return [_trailing_newline(expected)]
    a = expected.decode("utf-8", "replace").split("\n")
    b = actual.decode("utf-8", "replace").split("\n")
    try:
        groups = list(_Matcher(a, b, effort, autojunk=True).get_grouped_opcodes(1))
    except _TooCostly:
        effort.lines = True
        return _line_changes(io.BytesIO(expected), io.BytesIO(actual), effort.note("compared line by line"))
    found = []
    for group in groups:
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        hunk = [f"@@ -{_span(i1, i2 - i1)} +{_span(j1, j2 - j1)} @@"]
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                hunk.extend(" " + line for line in a[a1:a2])
                continue
            if tag in ("replace", "delete"):
                hunk.extend("-" + line for line in a[a1:a2])
            if tag in ("replace", "insert"):
                hunk.extend("+" + line for line in b[b1:b2])
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


def guess_changes(expected: bytes, actual: bytes, full: bool = False, *,
                  limit: int = SEMANTIC_DIFF_BYTES) -> list[Change]:
    """``changes`` for content whose file name is unknown: JSON, JSONL or text, by what
    the golden parses as (past ``limit``, lines: it is not parsed)."""
    if max(len(expected), len(actual)) > limit:
        return changes("", expected, actual, full, limit=limit)
    try:
        json.loads(expected)
        name = ".json"
    except (ValueError, RecursionError):
        name = ".jsonl" if _parse_lines(expected) is not None else ".txt"
    return changes(name, expected, actual, full, limit=limit)


def changes(name: str, expected: bytes, actual: bytes, full: bool = False, *,
            limit: int = SEMANTIC_DIFF_BYTES) -> list[Change]:
    """The differences of one golden file, capped at ``MAX_LINES`` lines unless ``full``:
    ``semantic_changes`` when both sides fit ``limit``, else line by line."""
    if max(len(expected), len(actual)) <= limit:
        return semantic_changes(name, expected, actual, full)
    return _line_changes(io.BytesIO(expected), io.BytesIO(actual), _oversize(len(expected), len(actual), limit))


def semantic_changes(name: str, expected: bytes, actual: bytes, full: bool = False, *,
                     effort: Effort | None = None) -> list[Change]:
    """The differences of one golden file record by record (JSON, JSONL) or as a
    unified diff (text), capped at ``MAX_LINES`` lines unless ``full``, whatever its size,
    in the work ``effort`` allows (a fresh ``Effort``: ``EXACT_DIFF_STEPS``; ``Effort(None)``
    is the exact reference, unbounded)."""
    effort = Effort() if effort is None else effort
    if name.endswith(".jsonl"):
        found = jsonl_changes(expected, actual, full, effort)
    elif name.endswith(".json"):
        found = json_changes(expected, actual, full, effort)
    else:
        found = text_changes(expected, actual, full, effort)
    return found if full or effort.lines else list(_capped(found))  # the line diff is capped already


def new_file_changes(actual: bytes, full: bool = False, *, limit: int = SEMANTIC_DIFF_BYTES) -> list[Change]:
    """A golden that does not exist yet, as the lines it would hold."""
    if len(actual) > limit:
        return _line_changes(io.BytesIO(b""), io.BytesIO(actual), _oversize(None, len(actual), limit))
    effort = Effort()
    found = text_changes(b"", actual, full, effort) if actual else [Change("an empty file")]
    return found if full or effort.lines else list(_capped(found))


def stream_changes(name: str, expected: BinaryIO | None, actual: BinaryIO, full: bool = False, *,
                   limit: int = SEMANTIC_DIFF_BYTES) -> list[Change]:
    """``changes`` of a golden and a run read from seekable binary files, from their
    start (``new_file_changes`` when ``expected`` is ``None``: there is no golden).
    Content that fits ``limit`` is read whole; larger content is compared as it is
    read, never held."""
    golden = None if expected is None else _size(expected)
    run = _size(actual)
    if max(golden or 0, run) <= limit:
        data = actual.read()
        if expected is None:
            return new_file_changes(data, full, limit=limit)
        return changes(name, expected.read(), data, full, limit=limit)
    return _line_changes(expected if expected is not None else io.BytesIO(b""), actual, _oversize(golden, run, limit))


def same_content(expected: BinaryIO, actual: BinaryIO) -> bool:
    """Whether two seekable binary files hold the same bytes, read a block at a time."""
    size = _size(expected)
    return size == _size(actual) and _same_prefix(expected, actual, size)[0]


def _size(fh: BinaryIO) -> int:
    """The size of a seekable file, left at its start."""
    size = fh.seek(0, os.SEEK_END)
    fh.seek(0)
    return size


def _same_prefix(expected: BinaryIO, actual: BinaryIO, end: int) -> tuple[bool, int]:
    """Whether the first ``end`` bytes of both are the same, and the line breaks among
    them (when they are); both are left at their start."""
    expected.seek(0)
    actual.seek(0)
    breaks = 0
    done = 0
    same = True
    while done < end:
        want = min(_CHUNK, end - done)
        block = expected.read(want)
        if len(block) != want or block != actual.read(want):
            same = False
            break
        breaks += block.count(b"\n")
        done += want
    expected.seek(0)
    actual.seek(0)
    return same, breaks


def _stripped_size(fh: BinaryIO, size: int) -> int:
    """The size without the line breaks that end the file, read from its end."""
    end = size
    while end > 0:
        start = max(0, end - _CHUNK)
        fh.seek(start)
        kept = len(fh.read(end - start).rstrip(b"\n"))
        if kept:
            end = start + kept
            break
        end = start
    fh.seek(0)
    return end


def _oversize(golden: int | None, run: int, limit: int) -> Change:
    """The line that says content was compared line by line, and why (``golden``:
    its size, ``None`` when there is none)."""
    size = f"{limit >> 20} MiB" if limit and limit % (1 << 20) == 0 else f"{limit:,} bytes"
    sizes = f"this run {run:,} bytes" if golden is None else f"golden {golden:,} bytes, this run {run:,}"
    return Change(f"too large to compare record by record ({sizes}; the limit is {size}): compared line by line")


def _line_changes(expected: BinaryIO, actual: BinaryIO, note: Change) -> list[Change]:
    """``note``, then the changes line by line in unified hunks (one line of context),
    as the two files are read; capped at ``MAX_LINES`` lines, each cut to ``_LINE_WIDTH``
    characters around its first difference; ``[]`` when the bytes are the same."""
    sizes = _size(expected), _size(actual)
    if sizes[0] == sizes[1] and _same_prefix(expected, actual, sizes[0])[0]:
        return []
    stripped = _stripped_size(expected, sizes[0])
    if stripped == _stripped_size(actual, sizes[1]):
        same, breaks = _same_prefix(expected, actual, stripped)
        if same:
            return [note, Change("only the trailing newline differs", breaks + 1)]
    cap = _Cap()
    hunks = _Hunks(cap)
    left, right = _Side(expected), _Side(actual)
    while True:
        old, new = left.peek(), right.peek()
        if old is None and new is None:
            break
        if old == new:
            hunks.equal(left.take(1)[0])
            right.take(1)
            continue
        left.fill()
        right.fill()
        i, j = _resync(left.ahead, right.ahead)
        hunks.change(left.take(i), right.take(j))
    hunks.close()
    return [note, *cap.end()]


class _Side:
    """One file read a line at a time (each line with its line break), with the lines
    read ahead and not yet taken."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.ahead: deque[bytes] = deque()
        self.ahead_bytes = 0
        self.done = False

    def _read(self) -> bool:
        line = b"" if self.done else self.fh.readline()
        if not line:
            self.done = True
            return False
        self.ahead.append(line)
        self.ahead_bytes += len(line)
        return True

    def peek(self) -> bytes | None:
        if not self.ahead and not self._read():
            return None
        return self.ahead[0]

    def fill(self) -> None:
        """Read ahead up to the window: ``_WINDOW_LINES`` lines, and past the first,
        ``_WINDOW_BYTES``."""
        while len(self.ahead) < _WINDOW_LINES and (not self.ahead or self.ahead_bytes < _WINDOW_BYTES):
            if not self._read():
                break

    def take(self, count: int) -> list[bytes]:
        taken = [self.ahead.popleft() for _ in range(count)]
        self.ahead_bytes -= sum(len(line) for line in taken)
        return taken


def _resync(old: Sequence[_H], new: Sequence[_H]) -> tuple[int, int]:
    """How many lines (items) of each window to take as changed before the nearest line
    both have (the fewest in all); both whole windows when they have none in common."""
    first: dict[_H, int] = {}
    for index, line in enumerate(new):
        first.setdefault(line, index)
    best: tuple[int, int] | None = None
    for i, line in enumerate(old):
        if best is not None and i >= best[0] + best[1]:
            break
        j = first.get(line)
        if j is not None and (best is None or i + j < best[0] + best[1]):
            best = (i, j)
    return best if best is not None else (len(old), len(new))


@dataclass
class _Cap:
    """``_capped`` as changes come: at most ``MAX_LINES`` lines; a hunk that does not fit
    is cut, and the rest counted."""

    room: int = MAX_LINES
    total: int = 0
    stopped: bool = False
    shown: list[Change] = field(default_factory=list)

    def keep(self) -> int:
        """The most lines of the next hunk's body worth keeping."""
        return 0 if self.stopped else max(self.room - 1, 0)

    def add(self, change: Change, size: int) -> None:
        """One change of ``size`` lines (``change.body`` may hold only what ``keep`` said)."""
        self.total += size
        if self.stopped:
            return
        if size <= self.room:
            self.shown.append(change)
            self.room -= size
            return
        if self.room > 1 and size > 1:
            self.shown.append(Change(change.text, change.line, change.body[: self.room - 1]))
            self.room = 0
        self.stopped = True

    def end(self) -> list[Change]:
        shown = MAX_LINES - self.room if self.total > MAX_LINES else self.total
        if self.total > shown:
            return [*self.shown, Change(f"… and {self.total - shown} more differences")]
        return self.shown


def _capped(found: Iterable[Change]) -> list[Change]:
    """At most ``MAX_LINES`` lines; a hunk that does not fit is cut, and the rest counted."""
    cap = _Cap()
    for change in found:
        cap.add(change, 1 + len(change.body))
    return cap.end()


@dataclass
class _Hunks:
    """Changed lines gathered into unified hunks with one line of context (hunks two
    equal lines apart are one), each handed to ``cap`` with as much of its body as it
    keeps; the rest of a body is only counted."""

    cap: _Cap
    old_line: int = 0
    """Lines of each side gone by."""
    new_line: int = 0
    before: bytes | None = None
    """The equal line before the next change."""
    trail: list[bytes] = field(default_factory=list)
    """The equal lines since the open hunk's last change."""
    open: bool = False
    head: tuple[int, int, int] = (0, 0, 0)
    """The open hunk's first line of each side (0-based) and its first changed golden line."""
    spans: list[int] = field(default_factory=lambda: [0, 0])
    body: list[str] = field(default_factory=list)
    rows: int = 0
    keep: int = 0

    def _row(self, text: str) -> None:
        if len(self.body) < self.keep:
            self.body.append(text)
        self.rows += 1

    def _context(self, line: bytes) -> None:
        self._row(" " + _shown_line(line, 0))
        self.spans[0] += 1
        self.spans[1] += 1

    def equal(self, line: bytes) -> None:
        if self.open:
            self.trail.append(line)
            if len(self.trail) > 2:
                self.close()
        self.before = line
        self.old_line += 1
        self.new_line += 1

    def change(self, removed: list[bytes], added: list[bytes]) -> None:
        if not self.open:
            self.open = True
            self.keep = self.cap.keep()
            self.body, self.rows, self.spans = [], 0, [0, 0]
            lead = self.before is not None
            self.head = (self.old_line - lead, self.new_line - lead, self.old_line + 1)
            if self.before is not None:
                self._context(self.before)
        for line in self.trail:
            self._context(line)
        self.trail = []
        for mark, lines, others in (("-", removed, added), ("+", added, removed)):
            for k, line in enumerate(lines):
                at = _first_difference(line, others[k]) if k < len(others) else 0
                self._row(mark + _shown_line(line, max(0, min(at - _LINE_LEAD, len(line) - _LINE_WIDTH))))
                if not line.endswith(b"\n"):
                    self._row("\\ No newline at end of file")
        self.spans[0] += len(removed)
        self.spans[1] += len(added)
        self.old_line += len(removed)
        self.new_line += len(added)
        self.before = None

    def close(self) -> None:
        """End the open hunk (with the first equal line after it as its context)."""
        if not self.open:
            return
        if self.trail:
            self._context(self.trail[0])
        old, new, line = self.head
        header = f"@@ -{_span(old, self.spans[0])} +{_span(new, self.spans[1])} @@"
        self.cap.add(Change(header, line, tuple(self.body)), 1 + self.rows)
        self.open = False
        self.trail = []
        self.body = []


def _span(start: int, length: int) -> str:
    """A hunk's range as unified diffs write it: ``N`` for one line, ``N,0`` after line N."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _first_difference(a: bytes, b: bytes) -> int:
    """Where two lines first differ (their line breaks aside), a block at a time."""
    end = min(len(a) - a.endswith(b"\n"), len(b) - b.endswith(b"\n"))
    left, right = memoryview(a), memoryview(b)
    at = 0
    while at < end and left[at : min(at + _CHUNK, end)] == right[at : min(at + _CHUNK, end)]:
        at += _CHUNK
    at = min(at, end)
    high = min(at + _CHUNK, end)
    while at < high:  # the first differing byte of this block, halving
        mid = (at + high) // 2
        if left[at : mid + 1] == right[at : mid + 1]:
            at = mid + 1
        else:
            high = mid
    return at


def _shown_line(line: bytes, start: int) -> str:
    """A line without its line break, from byte ``start`` (moved back to the start of
    its character), at most ``_LINE_WIDTH`` characters; "…" where it is cut."""
    body = line[:-1] if line.endswith(b"\n") else line
    while 0 < start < len(body) and body[start] & 0xC0 == 0x80:
        start -= 1
    start = min(start, len(body))
    piece = body[start : start + 4 * _LINE_WIDTH + 4]
    text = piece.decode("utf-8", "replace")
    cut = len(text) > _LINE_WIDTH or start + len(piece) < len(body)
    return ("…" if start else "") + text[:_LINE_WIDTH] + ("…" if cut else "")


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
