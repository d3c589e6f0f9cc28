"""The alignments of the golden engine, each under a step budget (``Effort``).

difflib's alignment of records, list items or lines is quadratic or worse on repetitive
content: the alignments of one golden get ``EXACT_DIFF_STEPS`` steps, past which an
alignment is made linear (``linear_opcodes``: on the items each side holds once, then on
the nearest equal ones), and the report's first line says so.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

EXACT_DIFF_STEPS = 5_000_000
"""The most steps the exact alignments of one golden take (``Effort``): a step is about
what one item of a probe of difflib costs (0.1 µs). Past it, alignments are linear and
the report says so."""
WINDOW_LINES = 64
WINDOW_BYTES = 1 << 16
"""The line diff reads ahead at most this many lines and, past its first, bytes per side;
the linear alignment (``linear_opcodes``) looks this many items ahead."""

MAX_DIFFS = 20_000
"""deepdiff's ``max_diffs`` counts every node it visits, not differences: keep it far above
the size of a golden record, and say so when it is reached anyway."""
DEEPDIFF_CALL_STEPS = 350
DEEPDIFF_VALUE_STEPS = 150
"""What deepdiff costs in steps: about 35 µs a call and 15 µs a value it visits (measured)."""
DEEPDIFF_STEPS = DEEPDIFF_CALL_STEPS + DEEPDIFF_VALUE_STEPS * MAX_DIFFS
"""The steps deepdiff may take on one golden: what one call of it may take. Past it,
the values are compared by a walk of our own, with the same result."""

Opcode = tuple[str, int, int, int, int]
"""One step of an alignment, as difflib's ``get_opcodes`` writes it."""
_H = TypeVar("_H", bound=Hashable)


@dataclass
class Effort:
    """The work one golden's semantic diff may do and did: its alignments ``allowed``
    steps, deepdiff ``deepdiff_allowed`` (``None``: no bound; ``Effort(None, None)`` is the
    exact reference), the steps each ``aligned`` and ``deepdiffed``; ``approximate`` once
    an alignment was made linear, ``lines`` once text was compared line by line."""

    allowed: int | None = EXACT_DIFF_STEPS
    deepdiff_allowed: int | None = DEEPDIFF_STEPS
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

    def note(self, instead: str) -> str:
        """The line that says an alignment ran out of steps, and what was done ``instead``."""
        return (f"too costly to align exactly (the limit is {self.allowed or 0:,} steps): {instead}")


class TooCostly(Exception):
    """An exact alignment would take more steps than its ``Effort`` has left."""


class Matcher(difflib.SequenceMatcher[_H]):
    """difflib's alignment, each probe counted before it is made: a probe of ``a[alo:ahi]``
    visits each of those items and every place ``b`` holds it, and walks no further than
    both ranges; ``TooCostly`` when the ``Effort`` cannot afford one."""

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
            raise TooCostly
        return super().find_longest_match(alo, ahi, blo, bhi)


def align(a: Sequence[_H], b: Sequence[_H], effort: Effort) -> Sequence[Opcode]:
    """difflib's opcodes of ``a`` → ``b`` while ``effort`` affords them, else the linear
    alignment's (and ``effort`` is marked approximate)."""
    if a == b:  # what difflib finds too (one block of all), at no cost
        return [("equal", 0, len(a), 0, len(b))] if a else []
    try:
        return Matcher(a, b, effort, autojunk=False).get_opcodes()
    except TooCostly:
        effort.approximate = True
        return linear_opcodes(a, b)


def linear_opcodes(a: Sequence[_H], b: Sequence[_H]) -> list[Opcode]:
    """An alignment in O(n log n): the items each side holds once, in the longest order
    both keep, are aligned; between two of them, equal items are aligned as the line diff
    resyncs (the nearest pair within ``WINDOW_LINES`` items ahead), the rest changed."""
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
            di, dj = resync(a[i:min(i + WINDOW_LINES, ai)], b[j:min(j + WINDOW_LINES, bj)])
            i, j = i + di, j + dj
        if ai < len(a):
            pairs.append((ai, bj))
        i, j = ai + 1, bj + 1
    ops: list[Opcode] = []
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


def resync(old: Sequence[_H], new: Sequence[_H]) -> tuple[int, int]:
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


