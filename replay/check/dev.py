"""The core dev invariant (the D rules but D1): turns and steps open and close in
order, and what happens in a step names it; a tool/result answers a waiting call.
Today's harness checks it only in a development build, when a session is resumed."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from replay.checker import Found
from replay.checker import event_error as _error
from replay.findings import Example, Finding, Rule
from replay.log.event import Event
from replay.log.seqmap import HIGH, LOW
from replay.log.typed import Chunk, Plain, StepEnd, StepStart, ToolCall, TurnEnd, TurnStart
from replay.log.values import hashable, is_safe_int
from replay.output import show

_RESUMED = ("Loads and shows the log; a development build with the invariant checks on throws an "
            "InvariantError when the session is resumed")
"""What today's harness does with a log that breaks a session invariant (the D rules)."""

D2 = Rule(
    "D2", "invariant", "session", "a turn starts only when no turn is open",
    explanation="""Turns do not overlap: a turn/start comes only when the previous turn has ended.""",
    examples=[
        Example(
            "a turn/start while a turn is open", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"turn/start","seq":1,"time":0,"data":{"turn":2}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":2,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: D2 error: turn 2 starts while turn 1 is still open (no turn/end closed it)
                """),
    ],
    harness=_RESUMED + ".",
)

D3 = Rule(
    "D3", "invariant", "session", "turns are numbered 1, 2, 3, … with no gaps",
    explanation="""
        Turns are numbered 1, 2, 3, … in order, with no gap. Turns inherited from a fork's seed and
        turns closed by repair count too.""",
    examples=[
        Example(
            "the first turn numbered 2", bad_line=2,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":2}}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":2,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 2: D3 error: turn/start numbers this turn 2, but the next turn is 1 (turns count 1, 2, 3, … with no gap)
                """),  # noqa: E501
    ],
    harness=_RESUMED + ".",
)

D4 = Rule(
    "D4", "invariant", "session", "turn/end closes the open turn",
    explanation="""A turn/end closes the turn that is open, by its number.""",
    examples=[
        Example(
            "a turn/end for another turn", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":2,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: D4 error: turn/end closes turn 2, but the open turn is 1
                """),
    ],
    harness=_RESUMED + ".",
)

D5 = Rule(
    "D5", "invariant", "session", "a turn ends only after its step has ended",
    explanation="""A turn ends only after its last step has ended: a step/end comes before the turn/end.""",
    examples=[
        Example(
            "a turn/end while a step is open", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: D5 error: turn 1 ends while its step 1 is still open (no step/end closed it)
                """),
    ],
    harness=_RESUMED + ".",
)

D6 = Rule(
    "D6", "invariant", "session", "step/start belongs to the open turn",
    explanation="""A step/start belongs to the open turn: its "turn" is the open turn's number.""",
    examples=[
        Example(
            "a step/start for another turn", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":2,"step":1}}
                """,
            audit="""
                line 3: D6 error: step/start belongs to turn 2, but the open turn is 1
                line 3: B7 warning: the log ends inside turn 1 (the session was interrupted): loading would append step/end for step 1, turn/end {"kind":"interrupted"} for turn 1
                """),  # noqa: E501
    ],
    harness=_RESUMED + ".",
)

D7 = Rule(
    "D7", "invariant", "session", "a step starts only when no step is open",
    explanation="""Steps do not overlap: a step/start comes only after the previous step's step/end.""",
    examples=[
        Example(
            "a step/start while a step is open", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"step/start","seq":2,"time":0,"data":{"turn":1,"step":2}}
                {"type":"step/end","seq":3,"time":0,"data":{"turn":1,"step":2}}
                {"type":"turn/end","seq":4,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: D7 error: step 2 starts while step 1 is still open (no step/end closed it)
                """),
    ],
    harness=_RESUMED + ".",
)

D8 = Rule(
    "D8", "invariant", "session", "steps are numbered 1, 2, 3, … within a turn",
    explanation="""Steps are numbered 1, 2, 3, … within each turn, with no gap.""",
    examples=[
        Example(
            "the first step numbered 2", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":2}}
                {"type":"step/end","seq":2,"time":0,"data":{"turn":1,"step":2}}
                {"type":"turn/end","seq":3,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: D8 error: step/start numbers this step 2, but the next step of turn 1 is 1 (steps count 1, 2, 3, … within a turn)
                """),  # noqa: E501
    ],
    harness=_RESUMED + ".",
)

D9 = Rule(
    "D9", "invariant", "session",
    "chunks, messages, tool calls, appended results and step/end belong to the open step",
    explanation="""
        What the model streams and does belongs to the step it happens in: an assistant/chunk, an
        assistant/message, a tool/call, an appended tool/result and the step/end itself name exactly
        the open turn and step. A chunk outside any turn (as in replay-only chunk scripts) fails here.""",
    examples=[
        Example(
            "a chunk outside any turn", bad_line=2,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"assistant/chunk","seq":0,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"hi"}}}
                """,
            audit="""
                line 2: D9 error: assistant/chunk belongs to turn 1, step 1, but no turn is open
                """),
        Example(
            "a chunk naming another step", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"assistant/chunk","seq":2,"time":0,"data":{"turn":1,"step":9,"chunk":{"type":"text-delta","index":0,"text":"hi"}}}
                {"type":"step/end","seq":3,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":4,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: D9 error: assistant/chunk belongs to turn 1, step 9, but the open step is turn 1, step 1
                """),
        Example(
            "a packed row naming another turn", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"tool-call-chunks","seq0":2,"time0":0,"data":{"turn":3,"step":1,"index":0,"dt":[0],"id":"c1","name":"bash","args":["{","}"]}}
                {"type":"step/end","seq":4,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":5,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: D9 error: assistant/chunk belongs to turn 3, step 1, but the open step is turn 1, step 1 (a packed tool-call-chunks row of 2 chunks, seq 2–3)
                """),  # noqa: E501
    ],
    harness=_RESUMED + ' ("names turn 1/step 1 but open is …").',
)

D10 = Rule(
    "D10", "invariant", "session", "step/end closes the step and forgets its waiting calls",
    explanation="""
        A step/end closes the step: its tool calls stop waiting for results (a call may stay
        unanswered, as in an error turn) and the next step/start takes the next number. No finding
        cites D10; it is part of how D9, D12 and D8 are judged.""",
    harness="""Nothing to report: this is how the invariant keeps its state.""",
)

D11 = Rule(
    "D11", "invariant", "session", "tool/call makes its call wait for a result",
    explanation="""
        A tool/call puts its call id among the calls waiting for a result in this step. No finding
        cites D11; rule D12 uses it.""",
    harness="""Nothing to report: this is how the invariant keeps its state.""",
)

D12 = Rule(
    "D12", "invariant", "session", "an appended tool/result answers a waiting tool/call of the same step",
    explanation="""
        An appended tool/result answers a tool/call of the same step that is still waiting for its
        result, and only once. The one exception is the repair's own "not started" result (an error
        with the code TOOL_NOT_STARTED), which has no tool/call.""",
    examples=[
        Example(
            "a result without its call", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"tool/result","seq":2,"time":0,"data":{"turn":1,"step":1,"message":{"id":"r1","role":"user","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"ok"}],"isError":false}]}},"surfaceOp":"append"}
                {"type":"step/end","seq":3,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":4,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: D12 error: tool/result answers the call "c1", but no tool/call with that id is waiting for a result in this step
                """),  # noqa: E501
        Example(
            "a second result for one call", bad_line=6,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"tool/call","seq":2,"time":0,"data":{"turn":1,"step":1,"callId":"c1","name":"bash","arguments":"{}"}}
                {"type":"tool/result","seq":3,"time":0,"data":{"turn":1,"step":1,"message":{"id":"r1","role":"user","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"ok"}],"isError":false}]}},"surfaceOp":"append"}
                {"type":"tool/result","seq":4,"time":0,"data":{"turn":1,"step":1,"message":{"id":"r2","role":"user","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"again"}],"isError":false}]}},"surfaceOp":"append"}
                {"type":"step/end","seq":5,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":6,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 6: D12 error: tool/result answers the call "c1", but no tool/call with that id is waiting for a result in this step
                """),  # noqa: E501
    ],
    harness="""
        Loads and shows the log; a development build with the invariant checks on throws an
        InvariantError when the session is resumed ("tool/result for c1 with no prior tool/call in
        this step").""",
)

D13 = Rule(
    "D13", "invariant", "session", "a replacing tool/result is inside a turn",
    explanation="""
        A tool/result that replaces an earlier result on the surface (to shorten a long output, say)
        is not tied to a step, but it must come inside a turn.""",
    examples=[
        Example(
            "a replacement after the turn", bad_line=8,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"tool/call","seq":2,"time":0,"data":{"turn":1,"step":1,"callId":"c1","name":"bash","arguments":"{}"}}
                {"type":"tool/result","seq":3,"time":0,"data":{"turn":1,"step":1,"message":{"id":"r1","role":"user","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"long output"}],"isError":false}]}},"sourceEventSeqs":[2],"surfaceOp":"append"}
                {"type":"step/end","seq":4,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":5,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                {"type":"tool/result","seq":6,"time":0,"data":{"turn":1,"step":1,"message":{"id":"r1","role":"user","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"(trimmed)"}],"isError":false}]}},"sourceEventSeqs":[3],"surfaceOp":{"op":"replace","start":3,"end":3}}
                """,  # noqa: E501
            audit="""
                line 8: D13 error: a replacing tool/result must be inside a turn, but no turn is open
                """),
    ],
    harness=_RESUMED + ".",
)

D14 = Rule(
    "D14", "invariant", "session", "todo/write, request/header and request/context are inside a turn",
    explanation="""
        todo/write, request/header and request/context are part of a turn's work: each comes between a
        turn/start and its turn/end (not necessarily inside a step).""",
    examples=[
        Example(
            "a todo/write outside any turn", bad_line=2,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"todo/write","seq":0,"time":0,"data":{"todos":[]}}
                """,
            audit="""
                line 2: D14 error: todo/write is outside any turn: todo/write, request/header and request/context must come between a turn/start and its turn/end
                """),  # noqa: E501
    ],
    harness=_RESUMED + ' ("appended outside any open turn").',
)

D15 = Rule(
    "D15", "invariant", "session", "user/message may come anywhere",
    explanation="""
        A user/message may come anywhere, inside or outside turns and steps (context injected while
        the session is idle). No finding cites D15.""",
    harness="""Nothing to report: the invariant allows it.""",
)

D16 = Rule(
    "D16", "invariant", "session", "session/end-seed may come anywhere",
    explanation="""
        A session/end-seed (the end of a fork's inherited events) may come anywhere, even inside a
        turn the seed left open. No finding cites D16.""",
    harness="""Nothing to report: the invariant allows it.""",
)

D17 = Rule(
    "D17", "invariant", "session", "plugin event types are left to their plugins",
    explanation="""
        Event types of plugins (titles, hooks, approvals, compaction, …) are not constrained by the
        session core; each plugin judges its own. No finding cites D17.""",
    harness="""Nothing to report: the core invariant allows them.""",
)


def _turn_step(data: Any) -> tuple[Any, Any]:
    if isinstance(data, dict):
        return data.get("turn"), data.get("step")
    return None, None


def _is_not_started_repair(data: Any, message: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(message, dict):
        return False
    error = data.get("error")
    content = message.get("content")
    return (isinstance(error, dict) and error.get("code") == "TOOL_NOT_STARTED"
            and isinstance(content, list) and bool(content) and isinstance(content[0], dict)
            and content[0].get("isError") is True)


_Int = Annotated[int, msgspec.Meta(ge=LOW, le=HIGH - 1)]


class DevState(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """The invariant's state for a checkpoint (``replay.check.resume``): the open turn
    and step (``None``: none), the numbers the next ones take, and the calls waiting
    for a result, each once."""

    open_turn: _Int | None
    open_step: _Int | None
    next_turn: _Int
    next_step: _Int
    pending: list[str]


def _whole(value: Any) -> bool:
    return type(value) is int and LOW <= value < HIGH


class DevInvariant:
    """The invariant's state: the open turn and step, the numbers the next ones take,
    and the calls of the open step waiting for a result."""

    def __init__(self) -> None:
        self.open_turn: Any = None
        self.open_step: Any = None
        self.next_turn: Any = 1
        self.next_step: Any = 1
        self.pending: set[Any] = set()

    def dev_state(self) -> DevState | None:
        """The invariant's state; ``None`` when it holds what a log's JSON may put where a
        number or a call id belongs but a checkpoint does not keep (a float, a list, …)."""
        turn, step = self.open_turn, self.open_step
        if not ((turn is None or _whole(turn)) and (step is None or _whole(step)) and _whole(self.next_turn)
                and _whole(self.next_step) and all(type(call) is str for call in self.pending)):
            return None
        return DevState(turn, step, self.next_turn, self.next_step, sorted(self.pending))

    def restore_dev(self, state: DevState) -> None:
        """Put the invariant in ``state`` (``ValueError``: a call said twice)."""
        pending = set(state.pending)
        if len(pending) != len(state.pending):
            raise ValueError("a waiting call is said twice")
        self.open_turn, self.open_step = state.open_turn, state.open_step
        self.next_turn, self.next_step, self.pending = state.next_turn, state.next_step, pending

    def _open_desc(self) -> str:
        """What is open, as the end of a sentence: "no turn is open", …"""
        if self.open_turn is None:
            return "no turn is open"
        if self.open_step is None:
            return f"turn {show(self.open_turn)} has no step open"
        return f"the open step is turn {show(self.open_turn)}, step {show(self.open_step)}"

    def _not_open_step(self, ev: Event, turn: Any, step: Any, out: list[Finding]) -> None:
        out.append(_error(D9, ev, f"{ev.type} belongs to turn {show(turn)}, step {show(step)}, but "
                          f"{self._open_desc()}"))

    def _turn_start(self, ev: Event, out: list[Finding]) -> None:
        self._start_turn(ev, _turn_step(ev.data)[0], out)

    def _start_turn(self, ev: Event, turn: Any, out: list[Finding]) -> None:
        if self.open_turn is not None:
            out.append(_error(D2, ev, f"turn {show(turn)} starts while turn {show(self.open_turn)} is still open "
                              "(no turn/end closed it)"))
        expected = self.next_turn
        if self.open_turn is not None and is_safe_int(self.open_turn):
            expected = self.open_turn + 1  # already reported by D2; don't report it twice
        if turn != expected:
            out.append(_error(D3, ev, f"turn/start numbers this turn {show(turn)}, but the next turn is "
                              f"{show(expected)} (turns count 1, 2, 3, … with no gap)"))
        self.open_turn = turn
        self.open_step = None
        self.next_step = 1
        self.pending = set()
        if is_safe_int(turn):
            self.next_turn = turn

    def _turn_end(self, ev: Event, out: list[Finding]) -> None:
        self._end_turn(ev, _turn_step(ev.data)[0], out)

    def _end_turn(self, ev: Event, turn: Any, out: list[Finding]) -> None:
        if turn != self.open_turn or self.open_turn is None:
            out.append(_error(D4, ev, f"turn/end closes turn {show(turn)}, but "
                              + ("no turn is open" if self.open_turn is None else
                                 f"the open turn is {show(self.open_turn)}")))
        if self.open_step is not None:
            out.append(_error(D5, ev, f"turn {show(turn)} ends while its step {show(self.open_step)} is still "
                              "open (no step/end closed it)"))
        self.open_turn = None
        self.open_step = None
        self.pending = set()
        self.next_turn = (turn + 1) if is_safe_int(turn) else self.next_turn

    def _step_start(self, ev: Event, out: list[Finding]) -> None:
        self._start_step(ev, *_turn_step(ev.data), out)

    def _start_step(self, ev: Event, turn: Any, step: Any, out: list[Finding]) -> None:
        if turn != self.open_turn or self.open_turn is None:
            out.append(_error(D6, ev, f"step/start belongs to turn {show(turn)}, but "
                              + ("no turn is open" if self.open_turn is None else
                                 f"the open turn is {show(self.open_turn)}")))
        if self.open_step is not None:
            out.append(_error(D7, ev, f"step {show(step)} starts while step {show(self.open_step)} is still open "
                              "(no step/end closed it)"))
        expected = self.next_step
        if self.open_step is not None and is_safe_int(self.open_step):
            expected = self.open_step + 1  # already reported by D7
        if step != expected:
            out.append(_error(D8, ev, f"step/start numbers this step {show(step)}, but the next step of turn "
                              f"{show(turn)} is {show(expected)} (steps count 1, 2, 3, … within a turn)"))
        self.open_step = step
        if is_safe_int(step):
            self.next_step = step

    def _names_open_step(self, ev: Event, out: list[Finding]) -> None:
        self._in_open_step(ev, *_turn_step(ev.data), out)

    def _in_open_step(self, ev: Event, turn: Any, step: Any, out: list[Finding]) -> None:
        """D9: the event names the open turn and step."""
        if self.open_step is not None and step == self.open_step and turn == self.open_turn:
            return
        self._not_open_step(ev, turn, step, out)

    def _step_end(self, ev: Event, out: list[Finding]) -> None:
        self._end_step(ev, *_turn_step(ev.data), out)

    def _end_step(self, ev: Event, turn: Any, step: Any, out: list[Finding]) -> None:
        self._in_open_step(ev, turn, step, out)
        self.pending = set()
        self.open_step = None
        self.next_step = (step + 1) if is_safe_int(step) else self.next_step + 1

    def _tool_call(self, ev: Event, out: list[Finding]) -> None:
        self._names_open_step(ev, out)
        if isinstance(ev.data, dict):
            self.pending.add(hashable(ev.data.get("callId")))

    def _answers(self, ev: Event, call_id: Any, data: Any, message: Any, out: list[Finding]) -> None:
        """D12: an appended tool/result answers a waiting call (or is repair's own)."""
        if call_id in self.pending:
            self.pending.discard(call_id)
            return
        if _is_not_started_repair(data, message):
            return
        out.append(_error(D12, ev, f"tool/result answers the call {show(call_id)}, but no tool/call with that "
                          "id is waiting for a result in this step"))

    def _enclosed(self, ev: Event, out: list[Finding]) -> None:
        if self.open_turn is None:
            out.append(_error(D14, ev, f"{ev.type} is outside any turn: todo/write, request/header and "
                              "request/context must come between a turn/start and its turn/end"))

    def _replaces_in_turn(self, ev: Event, out: list[Finding]) -> None:
        """D13: a replacing tool/result comes inside a turn."""
        if self.open_turn is None:
            out.append(_error(D13, ev, "a replacing tool/result must be inside a turn, but no turn is open"))

    # -- typed events (``replay.log.typed``): the same rules, on their fields --------

    def _t_chunk(self, ev: Chunk) -> Found:
        body = ev.body
        if self.open_step is not None and body.step == self.open_step and body.turn == self.open_turn:
            return None
        out: list[Finding] = []
        self._not_open_step(ev, body.turn, body.step, out)
        return out

    def _t_turn_start(self, ev: TurnStart) -> Found:
        out: list[Finding] = []
        self._start_turn(ev, ev.body.turn, out)
        return out or None

    def _t_turn_end(self, ev: TurnEnd) -> Found:
        out: list[Finding] = []
        self._end_turn(ev, ev.body.turn, out)
        return out or None

    def _t_step_start(self, ev: StepStart) -> Found:
        out: list[Finding] = []
        self._start_step(ev, ev.body.turn, ev.body.step, out)
        return out or None

    def _t_step_end(self, ev: StepEnd) -> Found:
        out: list[Finding] = []
        self._end_step(ev, ev.body.turn, ev.body.step, out)
        return out or None

    def _t_tool_call(self, ev: ToolCall) -> Found:
        body = ev.body
        out: list[Finding] = []
        self._in_open_step(ev, body.turn, body.step, out)
        self.pending.add(body.call_id)
        return out or None

    def _t_enclosed(self, ev: Plain) -> Found:
        out: list[Finding] = []
        self._enclosed(ev, out)
        return out or None
