"""What the session core keeps for every surface event of a log: the surface's nodes
(``SurfaceNodes``), which a replace finds anywhere in the surface."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class SurfaceNodes:
    """The surface's nodes (the seqs of its events) in order: an append adds one at
    the end, a replace swaps the run from ``start`` to ``end`` for one new node.

    A list does this with ``list.index`` (a scan per replace: quadratic in a long
    log); here each node knows its neighbours and an order key, so finding a node is
    one dict access and a replace costs the nodes it removes (each node is removed at
    most once: linear over the log). Seqs are distinct integers in any log the
    scanner accepted; the first repeated or non-integer seq turns the nodes back into
    a plain list, whose ``index`` finds the first occurrence, as before. An append (by
    far the most common change) only gives the node its order key; it is linked to its
    neighbours when the nodes are next looked at, with the appends since.
    """

    __slots__ = ("_fresh", "_head", "_key", "_list", "_next", "_order", "_prev", "_tail")

    def __init__(self) -> None:
        self._key: dict[int, int] = {}
        self._next: dict[int, int | None] = {}
        self._prev: dict[int, int | None] = {}
        self._head: int | None = None
        self._tail: int | None = None
        self._order = 0
        self._list: list[Any] | None = None
        self._fresh: list[int] = []
        """Appended nodes (keyed, in order) not yet linked after ``_tail``."""

    def append(self, seq: Any) -> None:
        if self._list is not None:
            self._list.append(seq)
        elif type(seq) is not int or seq in self._key:
            self._link_fresh()
            self._list = [*self._chain(self._head), seq]
        else:
            self._key[seq] = self._order
            self._order += 1
            self._fresh.append(seq)

    def _link_fresh(self) -> None:
        fresh = self._fresh
        if not fresh:
            return
        following, preceding = self._next, self._prev
        tail = self._tail
        for seq in fresh:
            preceding[seq] = tail
            following[seq] = None
            if tail is None:
                self._head = seq
            else:
                following[tail] = seq
            tail = seq
        self._tail = tail
        fresh.clear()

    def __iter__(self) -> Iterator[Any]:
        self._link_fresh()
        return iter(self._list if self._list is not None else self._chain(self._head))

    def span(self, start: Any, end: Any) -> list[Any] | str:
        """The nodes from ``start`` to ``end`` inclusive (both safe integers), or
        why there are none: ``"start"`` or ``"end"`` (not a node), ``"order"``
        (start comes after end)."""
        nodes = self._list
        if nodes is not None:
            try:
                i = nodes.index(start)
            except ValueError:
                return "start"
            try:
                j = nodes.index(end)
            except ValueError:
                return "end"
            return "order" if i > j else nodes[i : j + 1]
        self._link_fresh()
        first, last = int(start), int(end)  # 5.0 is the node 5
        at = self._key.get(first)
        if at is None:
            return "start"
        to = self._key.get(last)
        if to is None:
            return "end"
        if at > to:
            return "order"
        run: list[Any] = [first]
        following = self._next
        node: int | None = first
        while node != last:
            assert node is not None  # ``last`` follows ``first``: the walk meets it
            node = following[node]
            run.append(node)
        return run

    def replace(self, run: list[Any], seq: Any) -> None:
        """Swap ``run`` (what ``span`` returned) for the one node ``seq``."""
        nodes = self._list
        if nodes is not None:
            i = nodes.index(run[0])
            nodes[i : i + len(run)] = [seq]
            return
        self._link_fresh()
        key, following, preceding = self._key, self._next, self._prev
        order = key[run[0]]
        before = preceding[run[0]]
        after = following[run[-1]]
        for node in run:
            del key[node], following[node], preceding[node]
        if before is None:
            self._head = after
        else:
            following[before] = after
        if after is None:
            self._tail = before
        else:
            preceding[after] = before
        if type(seq) is not int or seq in key:
            self._list = [*self._chain(self._head, after), seq, *self._chain(after)]
        else:
            self._link(before, after, seq, order)

    def _link(self, before: int | None, after: int | None, seq: int, order: int) -> None:
        self._key[seq] = order
        self._prev[seq] = before
        self._next[seq] = after
        if before is None:
            self._head = seq
        else:
            self._next[before] = seq
        if after is None:
            self._tail = seq
        else:
            self._prev[after] = seq

    def _chain(self, node: int | None, stop: int | None = None) -> list[Any]:
        """The nodes from ``node`` on, up to (not including) ``stop``."""
        out: list[Any] = []
        while node is not None and node != stop:
            out.append(node)
            node = self._next[node]
        return out
