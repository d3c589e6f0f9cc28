"""The conversation surface: surfaceOp and sourceEventSeqs where they belong, well
formed, and a replacement consistent with what is on the surface (C5)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import orjson
from msgspec import UNSET

from replay.findings import Example, Finding, Rule
from replay.jsjson import MAX_SAFE_INTEGER
from replay.log.event import Event
from replay.log.typed import Surface, ToolResult
from replay.log.values import is_nonneg_safe_int
from replay.output import show

C5 = Rule(
    "C5", "format", "session",
    "surfaceOp and sourceEventSeqs are present where needed, well formed and consistent",
    explanation="""
        user/message, assistant/message and tool/result change the conversation surface (what the
        model is shown next): each must carry "surfaceOp", either "append" or
        {"op":"replace","start":S,"end":E} replacing a range of surface entries, and may name the
        events it came from in "sourceEventSeqs" (distinct, earlier seqs; empty only on an
        assistant/message). A replacement must name every event it replaces, and a replacing
        tool/result may change only the result's content. No other event may carry these keys.""",
    examples=[
        Example(
            "a user/message without surfaceOp", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"user/message","seq":1,"time":0,"data":{"id":"u1","role":"user","source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: C5 error: user/message must say how it changes the conversation surface ("surfaceOp": "append" or a replace), but it has no surfaceOp
                """),  # noqa: E501
        Example(
            "a surfaceOp on step/start", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1},"surfaceOp":"append"}
                {"type":"step/end","seq":2,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":3,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: C5 error: step/start never changes the conversation surface, so it must not carry surfaceOp
                """),
        Example(
            "a source seq that is not before it", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"assistant/message","seq":2,"time":0,"data":{"turn":1,"step":1,"message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}],"source":{"kind":"model","provider":"p","model":"m"}}},"sourceEventSeqs":[7],"surfaceOp":"append"}
                {"type":"step/end","seq":3,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":4,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: C5 error: assistant/message's sourceEventSeqs names a seq that is not before it
                """),
        Example(
            "a replacement of seqs not on the surface", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"user/message","seq":1,"time":0,"data":{"id":"u1","role":"user","source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]},"surfaceOp":"append"}
                {"type":"user/message","seq":2,"time":0,"data":{"id":"u2","role":"user","source":{"kind":"user"},"content":[{"type":"text","text":"(summary)"}]},"sourceEventSeqs":[1],"surfaceOp":{"op":"replace","start":10000,"end":10000}}
                {"type":"turn/end","seq":3,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: C5 error: user/message replaces the surface from seq 10000, but no event with that seq is on the surface
                """),  # noqa: E501
    ],
    harness="""Refuses the log: the event is an "invalid seed event" of the surface.""",
)


def tool_print(data: Any) -> bytes:
    """Everything of a tool/result but its inner content (spec §3 rewrite rule)."""
    message = data.get("message") if isinstance(data, dict) else None
    stripped: Any = data
    if isinstance(message, dict) and isinstance(message.get("content"), list) and message["content"]:
        block = message["content"][0]
        if isinstance(block, dict):
            stripped = {**data, "message": {**message, "content": [{**block, "content": None}]}}
    try:
        blob = orjson.dumps(stripped, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        blob = repr(stripped).encode()
    return hashlib.blake2b(blob, digest_size=16).digest()


def _error(ev: Event, message: str) -> Finding:
    return C5.error(message, ev.line, ev.seq, ev.type)


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


class SurfaceJudge:
    """C5's state: the surface's nodes, and what a content-only rewrite of each
    tool/result on it must keep."""

    def __init__(self) -> None:
        self.nodes = SurfaceNodes()
        self.tool_prints: dict[int, bytes] = {}
        """Surface nodes that are tool/results, with what a content-only rewrite must keep."""

    def _surface(self, ev: Event, out: list[Finding]) -> None:
        rec = ev.record
        seq = ev.seq
        t = ev.type
        sources = rec.get("sourceEventSeqs")
        if "sourceEventSeqs" in rec:
            # The common list is a run of consecutive seqs (a message's chunks): integers,
            # distinct, with its first and last as its bounds, all shown by one comparison.
            run = (type(sources) is list and bool(sources) and type(sources[0]) is int
                   and sources == list(range(sources[0], sources[0] + len(sources)))
                   and set(map(type, sources)) == {int})
            ok = run or (type(sources) is list and (
                not sources
                or (set(map(type, sources)) == {int} and min(sources) >= 0 and max(sources) <= MAX_SAFE_INTEGER)
                or all(is_nonneg_safe_int(s) for s in sources)
            ))
            if run:
                assert isinstance(sources, list)
                if sources[0] < 0 or sources[-1] > MAX_SAFE_INTEGER:
                    ok = False
            if not ok:
                out.append(_error(ev, f"{t}'s sourceEventSeqs must be a list of seqs (whole numbers from "
                                          "0)"))
                sources = None
            else:
                assert isinstance(sources, list)
                if not run and len(set(sources)) != len(sources):
                    out.append(_error(ev, f"{t}'s sourceEventSeqs names a seq twice"))
                if sources and (sources[-1] if run else max(sources)) >= seq:
                    out.append(_error(ev, f"{t}'s sourceEventSeqs names a seq that is not before it"))
                if not sources and t != "assistant/message":
                    out.append(_error(ev, f"{t}'s sourceEventSeqs is empty (only an assistant/message "
                                              "may have none)"))
        if "surfaceOp" not in rec:
            out.append(_error(ev, f'{t} must say how it changes the conversation surface ("surfaceOp": '
                                      '"append" or a replace), but it has no surfaceOp'))
            return
        op = rec["surfaceOp"]
        if op == "append":
            self.nodes.append(seq)
            if t == "tool/result":
                self.tool_prints[seq] = tool_print(ev.data)
            return
        if not (isinstance(op, dict) and op.keys() == {"op", "start", "end"} and op["op"] == "replace"
                and is_nonneg_safe_int(op["start"]) and is_nonneg_safe_int(op["end"])):
            out.append(_error(ev, f'{t}\'s surfaceOp must be "append" or '
                                      f'{{"op":"replace","start":S,"end":E}}, got {show(op)}'))
            return
        start, end = op["start"], op["end"]
        shadowed = self.nodes.span(start, end)
        if shadowed == "start":
            out.append(_error(ev, f"{t} replaces the surface from seq {start}, but no event with that seq "
                                      "is on the surface"))
            return
        if shadowed == "end":
            out.append(_error(ev, f"{t} replaces the surface up to seq {end}, but no event with that seq "
                                      "is on the surface"))
            return
        if shadowed == "order":
            out.append(_error(ev, f"{t} replaces the surface from seq {start} to seq {end}, but {start} "
                                      f"comes after {end} on the surface"))
            return
        assert isinstance(shadowed, list)
        if sources is None or not set(shadowed) <= set(sources):
            missing = [s for s in shadowed if sources is None or s not in sources]
            out.append(_error(ev, f"{t} replaces events its sourceEventSeqs does not name: "
                                      f"{show(missing)}"))
        if t == "tool/result":
            if len(shadowed) != 1 or shadowed[0] not in self.tool_prints:
                out.append(_error(ev, "a replacing tool/result must replace exactly one tool/result"))
            elif isinstance(ev.data, dict) and self.tool_prints.get(shadowed[0]) != tool_print(ev.data):
                out.append(_error(ev, "a replacing tool/result may change only the result's content, but "
                                          f"it differs from seq {shadowed[0]} elsewhere"))
        for s in shadowed:
            self.tool_prints.pop(s, None)
        self.nodes.replace(shadowed, seq)
        if t == "tool/result":
            self.tool_prints[seq] = tool_print(ev.data)

    def _off_surface(self, ev: Event, out: list[Finding]) -> None:
        """C5 of a known type that never changes the surface: it carries neither key."""
        rec = ev.record
        if "surfaceOp" in rec or "sourceEventSeqs" in rec:
            key = "surfaceOp" if "surfaceOp" in rec else "sourceEventSeqs"
            out.append(_error(ev, f"{ev.type} never changes the conversation surface, so it must not carry "
                              f"{key}"))

    def _t_append(self, ev: Surface, out: list[Finding]) -> None:
        """C5 of an appending surface event: its sourceEventSeqs (when it has them) are
        distinct and before it, and empty only on an assistant/message."""
        sources = ev.sources
        if sources is not UNSET:
            if sources:
                ok = max(sources) < ev.seq and len(set(sources)) == len(sources)
            else:
                ok = ev.type == "assistant/message"
            if not ok:
                self._surface(ev, out)
                return
        self.nodes.append(ev.seq)
        if type(ev) is ToolResult:
            self.tool_prints[ev.seq] = tool_print(ev.data)
