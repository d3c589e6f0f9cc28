"""The surface's node sequence (``SurfaceNodes``, compact, and ``LinkedNodes``, the
general form it falls back to) behaves exactly as the plain list it replaced
(``list.index`` + slice assignment), including repeated and non-integer seqs, and a
replace costs the nodes it removes, not the length of the surface."""

from __future__ import annotations

import time
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay.check.nodes import LinkedNodes, SurfaceNodes


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


def _same_answers(mine: SurfaceNodes | LinkedNodes, script: list[tuple[Any, ...]]) -> None:
    ref = ListNodes()
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


@given(ops)
def test_same_answers_as_the_list_it_replaced(script: list[tuple[Any, ...]]) -> None:
    _same_answers(SurfaceNodes(), script)
    _same_answers(LinkedNodes(), script)


# A log's own order: each event's seq above the last (the compact form's case), a
# replace's run anywhere in the surface; now and then a seq out of order or repeated.
steps = st.lists(st.one_of(
    st.tuples(st.just("append")), st.tuples(st.just("replace"), st.integers(0, 40), st.integers(0, 5)),
    st.tuples(st.just("odd"), st.one_of(st.integers(0, 40), st.integers(0, 40).map(float)))), max_size=80)


@given(steps)
def test_same_answers_in_a_logs_own_order(shape: list[tuple[Any, ...]]) -> None:
    script: list[tuple[Any, ...]] = []
    for seq, step in enumerate(shape, 1):
        if step[0] == "append":
            script.append(("append", seq))
        elif step[0] == "odd":
            script.append(("append", step[1]))
        else:  # start and end: seqs of the recent past
            script.append(("replace", max(0, seq - step[1]), max(0, seq - step[1] + step[2]), seq))
    _same_answers(SurfaceNodes(), script)


def test_compaction_replaces_from_the_first_node_linearly() -> None:
    """Every replace from the first node on, over what the earlier ones removed:
    each dead node is stepped over once, not once per replace."""
    nodes = SurfaceNodes()
    seq = 0
    for _ in range(200):
        for _ in range(50):
            nodes.append(seq)
            seq += 1
        first = next(iter(nodes))
        run = nodes.span(first, seq - 1)
        assert isinstance(run, list) and len(run) == 51 - (first == 0)
        nodes.replace(run, seq)
        seq += 1
    assert list(nodes) == [seq - 1]
    assert max(nodes._jump) <= seq  # every path shortened to a live slot or the end


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


@given(st.lists(st.integers(-(1 << 63), (1 << 63) - 1), unique=True, max_size=200).map(sorted))
def test_nodes_restored_at_once_are_the_nodes_appended_one_by_one(seqs: list[int]) -> None:
    """``SurfaceNodes._appended`` (a checkpoint's slots restored at once) leaves what
    appending each seq leaves."""
    from array import array

    one_by_one, at_once = SurfaceNodes(), SurfaceNodes()
    for seq in seqs:
        one_by_one.append(seq)
    at_once._appended(array("q", seqs))
    assert [getattr(at_once, name) for name in SurfaceNodes.__slots__] == \
        [getattr(one_by_one, name) for name in SurfaceNodes.__slots__]
    assert list(at_once) == seqs
