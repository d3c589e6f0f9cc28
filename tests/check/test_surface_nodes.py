"""The surface's node sequence (``SurfaceNodes``) behaves exactly as the plain list it
replaced (``list.index`` + slice assignment), including repeated and non-integer seqs,
and a replace costs the nodes it removes, not the length of the surface."""

from __future__ import annotations

import time
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay.check.surface import SurfaceNodes


class ListNodes:
    """The reference: what the core did before, with a list."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []

    def append(self, seq: Any) -> None:
        self.nodes.append(seq)

    def span(self, start: Any, end: Any) -> list[Any] | str:
        try:
            i = self.nodes.index(start)
        except ValueError:
            return "start"
        try:
            j = self.nodes.index(end)
        except ValueError:
            return "end"
        return "order" if i > j else self.nodes[i : j + 1]

    def replace(self, run: list[Any], seq: Any) -> None:
        i = self.nodes.index(run[0])
        self.nodes[i : i + len(run)] = [seq]


seqs = st.one_of(st.integers(0, 30), st.integers(0, 30).map(float))
ops = st.lists(st.one_of(st.tuples(st.just("append"), seqs),
                         st.tuples(st.just("replace"), seqs, seqs, seqs)), max_size=60)


@given(ops)
def test_same_answers_as_the_list_it_replaced(script: list[tuple[Any, ...]]) -> None:
    mine, ref = SurfaceNodes(), ListNodes()
    for op in script:
        if op[0] == "append":
            mine.append(op[1])
            ref.append(op[1])
            continue
        _, start, end, seq = op
        got, want = mine.span(start, end), ref.span(start, end)
        assert got == want and [type(n) for n in got] == [type(n) for n in want]
        if isinstance(want, list):
            mine.replace(got, seq)  # type: ignore[arg-type]
            ref.replace(want, seq)
    assert list(mine) == ref.nodes


def test_a_replace_costs_what_it_removes() -> None:
    """100k nodes, then 20k replaces of the two newest ones near the end and one
    lookup at the start: linear (the list scanned the surface on every lookup)."""
    nodes = SurfaceNodes()
    n = 100_000
    for seq in range(n):
        nodes.append(seq)
    last = n - 1
    began = time.process_time()
    for _ in range(20_000):
        run = nodes.span(last - 1, last)
        assert isinstance(run, list) and len(run) == 2
        nodes.replace(run, last + 1)
        nodes.append(last + 2)
        last += 2
        assert nodes.span(0, 0) == [0]
    assert time.process_time() - began < 1.0
