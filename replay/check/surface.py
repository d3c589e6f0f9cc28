"""The conversation surface: surfaceOp and sourceEventSeqs where they belong, well
formed, and a replacement consistent with what is on the surface (C5)."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from msgspec import UNSET

from replay.check.nodes import NodesState, SurfaceNodes
from replay.findings import Example, Finding, Rule
from replay.jsjson import MAX_SAFE_INTEGER
from replay.log.event import Event
from replay.log.seqmap import SeqBytes, SeqBytesState, restored_bytes, snapshot_bytes
from replay.log.typed import Surface
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


PRINT_SIZE = 16
"""The bytes of a tool result's print."""


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
    return hashlib.blake2b(blob, digest_size=PRINT_SIZE).digest()


def _error(ev: Event, message: str) -> Finding:
    return C5.error(message, ev.line, ev.seq, ev.type)


class SurfaceJudge:
    """C5's state: the surface's nodes, and what a content-only rewrite of each
    tool/result on it must keep."""

    def __init__(self) -> None:
        self.nodes = SurfaceNodes()
        self.tool_prints = SeqBytes(PRINT_SIZE)
        """Surface nodes that are tool/results, with what a content-only rewrite must keep."""

    def surface_state(self) -> tuple[NodesState, SeqBytesState] | None:
        """C5's state for a checkpoint (``replay.check.resume``): the nodes and the
        tool/results' prints; ``None`` when a checkpoint cannot keep them."""
        nodes, prints = self.nodes.snapshot(), snapshot_bytes(self.tool_prints)
        return None if nodes is None or prints is None else (nodes, prints)

    def restore_surface(self, nodes: NodesState, prints: SeqBytesState) -> None:
        """Put C5's state as ``surface_state`` said it (``ValueError``: not one a log leaves)."""
        self.nodes = SurfaceNodes.restored(nodes)
        self.tool_prints = restored_bytes(PRINT_SIZE, prints)

    def _surface(self, ev: Event, out: list[Finding]) -> None:
        """C5 of a surface event, read from its dict view."""
        rec = ev.record
        self._judge_surface(ev, rec.get("sourceEventSeqs", UNSET), rec.get("surfaceOp", UNSET), out)

    def _t_append(self, ev: Surface, out: list[Finding]) -> None:
        """C5 of a typed surface event: it appends, with its sourceEventSeqs when it has
        them."""
        self._judge_surface(ev, ev.sources, "append", out)

    def _judge_surface(self, ev: Event, sources: Any, op: Any, out: list[Finding]) -> None:
        """C5, every clause of it: ``sources`` and ``op`` are the event's sourceEventSeqs
        and surfaceOp (``UNSET``: it has none); an append or a replacement that passes
        changes the surface."""
        seq = ev.seq
        t = ev.type
        if sources is UNSET:
            sources = None
        else:
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
        if op is UNSET:
            out.append(_error(ev, f'{t} must say how it changes the conversation surface ("surfaceOp": '
                                      '"append" or a replace), but it has no surfaceOp'))
            return
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
