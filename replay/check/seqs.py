"""The seqs of events handed over directly, where no reader counted them: each is its
position (C4) and they only increase (D1). For a log file the reader judges both as
rule A7."""

from __future__ import annotations

from replay.findings import Example, Finding, Rule
from replay.log.event import ChunkRun, Event

C4 = Rule(
    "C4", "format", "session", "each event's seq is its position (events handed over directly)",
    explanation="""
        Each event's seq must equal its position, counting from 0. For a log file this is judged as
        the records are read (rule A7); C4 applies to events handed to the audit directly (the
        audit_events API), where no reader counted them.""",
    examples=[
        Example(
            "a seq that is not its position", bad_line=3, events_only=True,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"turn/end","seq":5,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: C4 error: event number 1 (counting from 0) has seq 5: an event's seq must be its position in the log
                """),  # noqa: E501
    ],
    harness="""Refuses the session: the seed "must be contiguous from 0".""",
)

D1 = Rule(
    "D1", "invariant", "session", "seqs only increase (events handed over directly)",
    explanation="""
        Seqs only increase. For a log file the reader already checks that they count up by one (rule
        A7); D1 applies to events handed to the audit directly.""",
    examples=[
        Example(
            "a seq that goes back", bad_line=4, events_only=True,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":2,"time":0,"data":{"turn":1,"step":1}}
                {"type":"step/end","seq":1,"time":0,"data":{"turn":1,"step":1}}
                """,
            audit="""
                line 3: C4 error: event number 1 (counting from 0) has seq 2: an event's seq must be its position in the log
                line 4: C4 error: event number 3 (counting from 0) has seq 1: an event's seq must be its position in the log
                line 4: D1 error: seq 1 comes after seq 2: seqs must only increase
                """),  # noqa: E501
    ],
    harness="""
        Loads the log; a development build with the invariant checks on throws an InvariantError when
        the session is resumed ("seq must strictly increase").""",
)


class Positions:
    """C4 and D1's state: how many events came, and the largest seq yet."""

    def __init__(self) -> None:
        self.index = 0
        self.last_seq = -1

    def _sequence(self, seq: int, count: int, ev: Event | None, out: list[Finding],
                  run: ChunkRun | None = None) -> None:
        """C4 and D1, for event sources no line scanner has checked."""
        index = self.index
        self.index = index + count
        line = ev.line if ev else run.line if run else None
        type_ = ev.type if ev else "assistant/chunk"
        if seq != index:
            out.append(C4.error(f"event number {index} (counting from 0) has seq {seq}: an event's seq must be "
                                "its position in the log", line, seq, type_))
            self.index = seq + count
        if seq <= self.last_seq:
            out.append(D1.error(f"seq {seq} comes after seq {self.last_seq}: seqs must only increase", line, seq,
                                type_))
        self.last_seq = max(self.last_seq, seq + count - 1)
