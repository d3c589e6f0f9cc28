"""What the session core keeps for every surface event of a log: the surface's nodes
(``SurfaceNodes``), which a replace finds anywhere in the surface.

They are kept for the whole log, so they cost memory per surface event: a few bytes
in arrays while seqs come in increasing order (every log the scanner accepted), where
dicts of int objects cost about 150. Anything else falls back to the general form,
with the same answers.
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from itertools import islice
from typing import Any

import msgspec

from replay.log.seqmap import HIGH, LOW, extends, from_int64s, int64s


class NodesState(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A ``SurfaceNodes`` as its meaning, for a checkpoint (``replay.check.resume``).
    Compact (``general`` false): the seq of each slot (``int64s``, increasing), one
    byte a slot (1: it holds a node, 0: a replace removed it; the first of each run is
    a node) and the slots whose node is a replacing one, with its seq (``int64s``
    pairs, slot then seq, in slot order). General: the nodes in order (``slots``),
    distinct, the two others empty."""

    general: bool
    slots: bytes
    alive: bytes
    moved: bytes


class SurfaceNodes:
    """The surface's nodes in order, as ``LinkedNodes`` keeps them, in arrays while
    every appended seq is an integer above the last one: slot ``i`` holds the ``i``-th
    node appended (``_seqs``, increasing, so a seq is found by bisection), a replace
    puts its new node in the first slot of the run it removes and marks the others
    dead. A replacing node's seq (above every other) is found in ``_moved``; dead
    slots are skipped through ``_jump`` (each dead slot points at or before the next
    live one, the pointers shortened as they are followed), so a replace costs the
    nodes it removes, as in ``LinkedNodes``. The first append out of order turns the
    nodes into a ``LinkedNodes`` holding the same nodes.
    """

    __slots__ = ("_alive", "_current", "_general", "_jump", "_moved", "_seqs")

    def __init__(self) -> None:
        self._seqs = array("q")
        """The seq appended into each slot."""
        self._alive = bytearray()
        """1 for a slot that holds a node, 0 for one a replace removed."""
        self._moved: dict[int, int] = {}
        """The seq of a replacing node → its slot."""
        self._current: dict[int, int] = {}
        """A slot a replacing node took → its seq."""
        self._jump = array("q")
        """For a dead slot: a slot after it, at or before the next live one."""
        self._general: LinkedNodes | None = None

    def _last(self) -> int | None:
        return self._seqs[-1] if self._seqs else None

    def _slot(self, seq: int) -> int | None:
        """The slot of the node ``seq``, or ``None``."""
        slot = self._moved.get(seq)
        if slot is not None:
            return slot
        seqs = self._seqs
        i = bisect_left(seqs, seq)
        if i < len(seqs) and seqs[i] == seq and self._alive[i] and i not in self._current:
            return i
        return None

    def _at(self, slot: int) -> int:
        seq = self._current.get(slot)
        return self._seqs[slot] if seq is None else seq

    def _live_from(self, slot: int) -> int:
        """The first live slot from ``slot`` on (``len`` when there is none)."""
        alive, jump, end = self._alive, self._jump, len(self._seqs)
        found = slot
        while found < end and not alive[found]:
            found = jump[found]
        while slot < found and not alive[slot]:  # shorten the path followed
            following = jump[slot]
            jump[slot] = found
            slot = following
        return found

    def _generalize(self) -> LinkedNodes:
        general = LinkedNodes()
        for seq in self:
            general.append(seq)
        self._general = general
        self._seqs, self._alive, self._jump = array("q"), bytearray(), array("q")
        self._moved, self._current = {}, {}
        return general

    def snapshot(self) -> NodesState | None:
        """The nodes' state; ``None`` when a node is no integer of the arrays' range or
        a seq is a node twice (no checkpoint keeps such nodes)."""
        if self._general is not None:
            nodes = list(self._general)
            if not all(type(seq) is int and LOW <= seq < HIGH for seq in nodes) or len(set(nodes)) != len(nodes):
                return None
            return NodesState(True, int64s(nodes), b"", b"")
        moved = sorted(self._current.items())
        return NodesState(False, int64s(self._seqs), bytes(self._alive),
                          int64s(value for pair in moved for value in pair))

    @classmethod
    def restored(cls, state: NodesState) -> SurfaceNodes:
        """Nodes in the state ``state`` says, built by the appends and replaces that
        leave them so (``ValueError``: not a state nodes can be in)."""
        nodes = cls()
        seqs = from_int64s(state.slots)
        if state.general:
            if state.alive or state.moved:
                raise ValueError("general nodes have no slots")
            for seq in seqs:
                nodes.append(seq)
            nodes._distinct()
            return nodes
        alive, pairs = state.alive, from_int64s(state.moved)
        if len(alive) != len(seqs) or (alive and alive[0] != 1) or alive.strip(b"\0\1") or len(pairs) % 2:
            raise ValueError("the slots' marks are not one a slot for each seq, the first a node")
        if any(map(operator.ge, seqs, islice(seqs, 1, None))):
            raise ValueError("the slots' seqs are not in increasing order")
        nodes._appended(seqs)
        moved = {pairs[i]: pairs[i + 1] for i in range(0, len(pairs), 2)}
        if len(moved) != len(pairs) // 2 or sorted(moved) != list(moved) or \
                not all(0 <= slot < len(seqs) and alive[slot] for slot in moved):
            raise ValueError("the replacing nodes are not each on a node's slot, in slot order")
        end = len(seqs)
        for first in range(end):
            if not alive[first]:
                continue
            after = first + 1
            while after < end and not alive[after]:
                after += 1
            replacing = moved.get(first)
            if after > first + 1 or replacing is not None:
                run = nodes.span(seqs[first], seqs[after - 1])
                if not isinstance(run, list):
                    raise ValueError("a run of slots is not on the surface")
                nodes.replace(run, seqs[first] if replacing is None else replacing)
        nodes._distinct()
        return nodes

    def _appended(self, seqs: array[int]) -> None:
        """What ``append`` of each of ``seqs`` (increasing integers of the arrays' range)
        leaves in nodes that have none, at once (a property test holds it to the appends)."""
        assert not self._seqs and self._general is None and not self._moved
        self._seqs = array("q", seqs)
        self._alive = bytearray(b"\1") * len(seqs)

    def _distinct(self) -> None:
        """``ValueError`` when a seq is a node twice (the general form turned into a list)."""
        if self._general is not None and self._general._list is not None:
            raise ValueError("a seq is a node twice")

    def append(self, seq: Any) -> None:
        general = self._general
        if general is None and extends(seq, self._last()) and seq not in self._moved:
            self._seqs.append(seq)
            self._alive.append(1)
            return
        (general or self._generalize()).append(seq)

    def __iter__(self) -> Iterator[Any]:
        if self._general is not None:
            return iter(self._general)
        end = len(self._seqs)
        nodes = []
        slot = self._live_from(0)
        while slot < end:
            nodes.append(self._at(slot))
            slot = self._live_from(slot + 1)
        return iter(nodes)

    def span(self, start: Any, end: Any) -> list[Any] | str:
        """The nodes from ``start`` to ``end`` inclusive (both safe integers), or
        why there are none: ``"start"`` or ``"end"`` (not a node), ``"order"``
        (start comes after end)."""
        if self._general is not None:
            return self._general.span(start, end)
        first = self._slot(int(start))  # 5.0 is the node 5
        if first is None:
            return "start"
        last = self._slot(int(end))
        if last is None:
            return "end"
        if first > last:
            return "order"
        run = [self._at(first)]
        slot = first
        while slot != last:
            slot = self._live_from(slot + 1)
            run.append(self._at(slot))
        return run

    def replace(self, run: list[Any], seq: Any) -> None:
        """Swap ``run`` (what ``span`` returned) for the one node ``seq``."""
        if self._general is not None:
            self._general.replace(run, seq)
            return
        first, last = self._slot(run[0]), self._slot(run[-1])
        assert first is not None and last is not None
        taken = self._slot(seq) if type(seq) is int else None
        if not (type(seq) is int and LOW <= seq < HIGH) or (taken is not None and not first <= taken <= last):
            self._generalize().replace(run, seq)  # a seq that is not a node's, or that stays one
            return
        alive, jump, current, moved = self._alive, self._jump, self._current, self._moved
        if len(jump) < len(alive):
            jump.frombytes(bytes(8 * (len(alive) - len(jump))))
        slot = self._live_from(first + 1)
        while slot <= last:
            alive[slot] = 0
            jump[slot] = slot + 1
            gone = current.pop(slot, None)
            if gone is not None:
                del moved[gone]
            slot = self._live_from(slot + 1)
        gone = current.pop(first, None)
        if gone is not None:
            del moved[gone]
        if seq != self._seqs[first]:
            current[first] = seq
            moved[seq] = first


class LinkedNodes:
    """The surface's nodes (the seqs of its events) in order, whatever the seqs: an
    append adds one at the end, a replace swaps the run from ``start`` to ``end`` for
    one new node.

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
