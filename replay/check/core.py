"""Session-core rules: message shapes and known types, the event envelope, the
request header and the surface, and the core dev invariant (the D rules).

C1 (the header) is judged while the header is read (``replay.log.header``); B7 (an
interrupted trailing turn the loader would close) is reported by the engine, which
owns the repair tracker. Each rule is declared here as a constant and emitted by name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from types import MethodType
from typing import Any

import orjson
from msgspec import UNSET

from replay.check.nodes import SurfaceNodes
from replay.checker import Checker, Found
from replay.findings import Example, Finding, Rule
from replay.jsjson import MAX_SAFE_INTEGER
from replay.log.event import ENVELOPE_KEYS, KNOWN_TYPES, SURFACE_TYPES, ChunkRun, ChunkSpan, DictEvent, Event
from replay.log.seqmap import SeqBytes
from replay.log.typed import (
    PLAIN,
    AssistantMessageEvent,
    Chunk,
    Plain,
    RequestHeader,
    StepEnd,
    StepStart,
    Surface,
    ToolCall,
    ToolResult,
    TurnEnd,
    TurnStart,
    UserMessageEvent,
)
from replay.log.values import hashable, is_nonempty_str, is_nonneg_safe_int, is_safe_int
from replay.output import show

B5 = Rule(
    "B5", "format", "session", "messages have an id, a role, a source and a list of content",
    explanation="""
        The messages carried by user/message, assistant/message and tool/result need an "id" (a
        non-empty string), the right "role", a "source" object with a non-empty "kind", and "content"
        as a list. An assistant message's source is {"kind":"model"} with a non-empty "provider" and
        "model"; a tool result's source is {"kind":"tool"} with the "callId" it answers, and it holds
        exactly one tool-result block for that same call.""",
    examples=[
        Example(
            "an assistant message without provider and model", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"assistant/message","seq":2,"time":0,"data":{"turn":1,"step":1,"message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}],"source":{"kind":"model"}}},"surfaceOp":"append"}
                {"type":"step/end","seq":3,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":4,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: B5 error: assistant/message must name the model that wrote it (a source of kind "model" with a non-empty "provider" and "model"), got {"kind":"model"}
                """),  # noqa: E501
        Example(
            "a message without id", bad_line=4,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"assistant/message","seq":2,"time":0,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}
                {"type":"step/end","seq":3,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":4,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 4: B5 error: assistant/message has no identified message (an object with a non-empty string "id")
                """),
        Example(
            "a tool result whose block names another call", bad_line=5,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
                {"type":"tool/call","seq":2,"time":0,"data":{"turn":1,"step":1,"callId":"c1","name":"bash","arguments":"{}"}}
                {"type":"tool/result","seq":3,"time":0,"data":{"turn":1,"step":1,"message":{"id":"r1","role":"user","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c2","content":[{"type":"text","text":"ok"}],"isError":false}]}},"surfaceOp":"append"}
                {"type":"step/end","seq":4,"time":0,"data":{"turn":1,"step":1}}
                {"type":"turn/end","seq":5,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 5: B5 error: tool/result answers two calls: its block names "c2" and its source "c1"
                """),
    ],
    harness="""Refuses the log: the stored session "failed validation".""",
)

B6 = Rule(
    "B6", "format", "session", "every event type is known to the harness, or marked ignorable",
    explanation=f"""
        Every event type must be one of the {len(KNOWN_TYPES)} types today's harness knows, unless the event says
        "ignorable": true (then a harness that does not know it may skip it). Events of a plugin type
        the harness has since dropped, or of a newer harness, fail here.""",
    examples=[
        Example(
            "an unknown type", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"prompt/blocked","seq":1,"time":0,"data":{}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: B6 error: today's harness does not know the event type "prompt/blocked", and the event is not marked "ignorable": true, so it refuses the log
                """),  # noqa: E501
    ],
    harness="""
        Refuses the log as intact but unreadable: the type is "unknown to this harness and not marked
        ignorable".""",
)

C2 = Rule(
    "C2", "format", "session", "each event has only the known top-level keys, with the right types",
    explanation="""
        An event may have only the top-level keys type, seq, time, data, surfaceOp, sourceEventSeqs
        and ignorable; its type is a string, its seq a whole number from 0, its time a whole number of
        milliseconds, its data present, and "ignorable" (when present) exactly true.""",
    examples=[
        Example(
            "an unknown envelope key", bad_line=2,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1},"note":"resumed"}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 2: C2 error: today's harness refuses this event: it has the unknown top-level key(s) note (an event holds only type, seq, time, data, surfaceOp, sourceEventSeqs and ignorable)
                """),  # noqa: E501
        Example(
            "a time that is not a number", bad_line=2,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":"yesterday","data":{"turn":1}}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 2: C2 error: today's harness refuses this event: its time must be a whole number of milliseconds within ±(2^53-1), got "yesterday"
                """),  # noqa: E501
    ],
    harness="""Refuses the log: the event "has an invalid event envelope".""",
)

C3 = Rule(
    "C3", "format", "session", "each request/header names its provider and model",
    explanation="""
        A request/header records what the model was asked with: its config names a non-empty provider
        and model, a reasoningEffort (when set) is a non-empty string, and adapterDefaults may only
        mark reasoningEffort or maxTokens as true, each also set in the config.""",
    examples=[
        Example(
            "a request/header without a model", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"request/header","seq":1,"time":0,"data":{"header":{"config":{"provider":"deepseek-official"}},"reason":"initial"}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: C3 error: request/header does not name the model: config.provider and config.model must be non-empty strings
                """),  # noqa: E501
        Example(
            "an empty provider", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"request/header","seq":1,"time":0,"data":{"header":{"config":{"provider":"","model":"m"}},"reason":"initial"}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: C3 error: request/header does not name the model: config.provider and config.model must be non-empty strings
                """),  # noqa: E501
    ],
    harness="""Refuses the log: the request/header "lacks provider/model".""",
)

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

_ADAPTER_KEYS = frozenset({"reasoningEffort", "maxTokens"})


def _turn_step(data: Any) -> tuple[Any, Any]:
    if isinstance(data, dict):
        return data.get("turn"), data.get("step")
    return None, None


_PRINT_SIZE = 16
"""The bytes of a tool result's fingerprint."""


def _fingerprint(data: Any) -> bytes:
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
    return hashlib.blake2b(blob, digest_size=_PRINT_SIZE).digest()


def _error(rule: Rule, ev: Event, message: str) -> Finding:
    return rule.error(message, ev.line, ev.seq, ev.type)


def _surface_error(ev: Event, message: str) -> Finding:
    return C5.error(message, ev.line, ev.seq, ev.type)


class CoreChecker(Checker):
    """One log's session-core state. ``scanned`` is true when a line scanner already
    checked seq contiguity (A7); C4 and D1 then have nothing to add."""

    def __init__(self, scanned: bool = True) -> None:
        self.scanned = scanned
        self.index = 0
        self.last_seq = -1
        self.open_turn: Any = None
        self.open_step: Any = None
        self.next_turn: Any = 1
        self.next_step: Any = 1
        self.pending: set[Any] = set()
        self.nodes = SurfaceNodes()
        self.tool_prints = SeqBytes(_PRINT_SIZE)
        """Surface nodes that are tool/results, with what a content-only rewrite must keep."""

    # -- hooks ---------------------------------------------------------------------

    def event(self, ev: Event) -> Found:
        if self.scanned and type(ev) is not DictEvent:
            # A typed event: its type's handler reads its fields (the rules it cannot
            # break by its shape are not looked at); a plain known type has none.
            typed = _TYPED.get(type(ev))
            return typed(self, ev) if typed is not None else None
        return self._exact(ev)

    def _exact(self, ev: Event) -> Found:
        """Every core rule on the event's dict view: the exact path."""
        rec = ev.record
        t = ev.type
        plain = plain_envelope(rec)
        if plain and t == "assistant/chunk" and len(rec) == 4 and self.scanned:
            # A plain chunk (exactly type, seq, time and data, all sound): of every core
            # rule only D9 can have something to say.
            data = ev.data
            if type(data) is dict and self.open_step is not None and data.get("step") == self.open_step \
                    and data.get("turn") == self.open_turn:
                return None
            out: list[Finding] = []
            self._names_open_step(ev, out)
            return out or None
        out = []
        if not plain:
            self._envelope(ev, out)
        if not self.scanned:
            self._sequence(ev.seq, 1, ev, out)
        if t not in KNOWN_TYPES and rec.get("ignorable") is not True:
            out.append(_error(B6, ev, f'today\'s harness does not know the event type "{t}", and the event is '
                              'not marked "ignorable": true, so it refuses the log'))
        if t in SURFACE_TYPES:
            self._surface(ev, out)
        elif ("surfaceOp" in rec or "sourceEventSeqs" in rec) and t in KNOWN_TYPES:
            key = "surfaceOp" if "surfaceOp" in rec else "sourceEventSeqs"
            out.append(_surface_error(ev, f"{t} never changes the conversation surface, so it must not carry "
                                      f"{key}"))
        handler = _HANDLERS.get(t)
        if handler is not None:
            handler(self, ev, out)
        return out or None

    def hook(self, kind: type[Event]) -> Callable[[Event], Found] | None:
        if not self.scanned or kind is DictEvent or type(self).event is not CoreChecker.event:
            return self.event  # a subclass's own ``event`` sees every event
        typed = _TYPED.get(kind)
        return None if typed is None else MethodType(typed, self)

    def chunks(self, span: ChunkSpan) -> Found:
        # The span's chunks are plain (the fast path of ``event`` applies to each) and
        # share a turn and step: when that is the open step, none has a finding.
        if self.scanned and self.open_step is not None and span.step == self.open_step \
                and span.turn == self.open_turn:
            return None
        return super().chunks(span)

    def run(self, run: ChunkRun) -> Found:
        out: list[Finding] = []
        if not self.scanned:
            self._sequence(run.seq0, run.count, None, out, run)
        if run.turn != self.open_turn or run.step != self.open_step or self.open_step is None:
            out.append(D9.error(
                f"assistant/chunk belongs to turn {show(run.turn)}, step {show(run.step)}, but "
                f"{self._open_desc()} (a packed {run.tag} row of {run.count} chunks, seq {run.seq0}–{run.last_seq})",
                run.line, run.seq0, "assistant/chunk"))
        return out or None

    # -- helpers -------------------------------------------------------------------

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

    def _envelope(self, ev: Event, out: list[Finding]) -> None:
        rec = ev.record
        problems = []
        extra = [k for k in rec if k not in ENVELOPE_KEYS]
        if extra:
            problems.append(f"it has the unknown top-level key(s) {', '.join(extra)} (an event holds only "
                            "type, seq, time, data, surfaceOp, sourceEventSeqs and ignorable)")
        if not isinstance(rec.get("type"), str):
            problems.append(f"its type must be a string, got {show(rec.get('type'))}")
        if not is_nonneg_safe_int(rec.get("seq")):
            problems.append(f"its seq must be a whole number from 0 to 2^53-1, got {show(rec.get('seq'))}")
        if not is_safe_int(rec.get("time")):
            problems.append(f"its time must be a whole number of milliseconds within ±(2^53-1), got "
                            f"{show(rec.get('time'))}")
        if "data" not in rec:
            problems.append("it has no data")
        if "ignorable" in rec and rec["ignorable"] is not True:
            problems.append(f'its "ignorable" must be exactly true when present, got {show(rec["ignorable"])}')
        for problem in problems:
            out.append(_error(C2, ev, f"today's harness refuses this event: {problem}"))

    # -- message shape (B5) and surface (C5) -----------------------------------------

    def _message_shape(self, ev: Event, message: Any, role: str, out: list[Finding]) -> None:
        if not well_formed_message(ev.type, message, role):
            self._message_problems(ev, message, role, out)

    def _message_problems(self, ev: Event, message: Any, role: str, out: list[Finding]) -> None:
        """B5, every clause of it: what ``well_formed_message`` passes has none."""
        t = ev.type
        if not isinstance(message, dict) or not is_nonempty_str(message.get("id")):
            out.append(_error(B5, ev, f'{t} has no identified message (an object with a non-empty string "id")'))
            if not isinstance(message, dict):
                return
        if message.get("role") != role:
            out.append(_error(B5, ev, f'{t}\'s message must have the role "{role}", got '
                              f"{show(message.get('role'))}"))
        source = message.get("source")
        if not isinstance(source, dict) or not is_nonempty_str(source.get("kind")):
            out.append(_error(B5, ev, f'{t}\'s message must say where it came from (a "source" object with a '
                              f'non-empty "kind"), got {show(source)}'))
            source = None
        content = message.get("content")
        if not isinstance(content, list):
            out.append(_error(B5, ev, f'{t}\'s message content must be a list of blocks, got '
                              f'{show(content)}'))
        if t == "assistant/message" and source is not None and not (
            source.get("kind") == "model" and is_nonempty_str(source.get("provider"))
            and is_nonempty_str(source.get("model"))
        ):
            out.append(_error(B5, ev, "assistant/message must name the model that wrote it (a source of kind "
                              f'"model" with a non-empty "provider" and "model"), got {show(source)}'))
        if t == "tool/result":
            if source is not None and not (source.get("kind") == "tool" and is_nonempty_str(source.get("callId"))):
                out.append(_error(B5, ev, 'tool/result must name the call it answers (a source of kind "tool" '
                                  f'with a non-empty "callId"), got {show(source)}'))
            if isinstance(content, list):
                blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool-result"]
                if len(content) != 1 or len(blocks) != 1 or not isinstance(blocks[0].get("content"), list):
                    out.append(_error(B5, ev, "tool/result must hold exactly one tool-result block, whose "
                                      "content is a list"))
                elif source is not None and blocks[0].get("toolCallId") != source.get("callId"):
                    out.append(_error(B5, ev, f"tool/result answers two calls: its block names "
                                      f"{show(blocks[0].get('toolCallId'))} and its source "
                                      f"{show(source.get('callId'))}"))

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
                out.append(_surface_error(ev, f"{t}'s sourceEventSeqs must be a list of seqs (whole numbers from "
                                          "0)"))
                sources = None
            else:
                assert isinstance(sources, list)
                if not run and len(set(sources)) != len(sources):
                    out.append(_surface_error(ev, f"{t}'s sourceEventSeqs names a seq twice"))
                if sources and (sources[-1] if run else max(sources)) >= seq:
                    out.append(_surface_error(ev, f"{t}'s sourceEventSeqs names a seq that is not before it"))
                if not sources and t != "assistant/message":
                    out.append(_surface_error(ev, f"{t}'s sourceEventSeqs is empty (only an assistant/message "
                                              "may have none)"))
        if "surfaceOp" not in rec:
            out.append(_surface_error(ev, f'{t} must say how it changes the conversation surface ("surfaceOp": '
                                      '"append" or a replace), but it has no surfaceOp'))
            return
        op = rec["surfaceOp"]
        if op == "append":
            self.nodes.append(seq)
            if t == "tool/result":
                self.tool_prints[seq] = _fingerprint(ev.data)
            return
        if not (isinstance(op, dict) and op.keys() == {"op", "start", "end"} and op["op"] == "replace"
                and is_nonneg_safe_int(op["start"]) and is_nonneg_safe_int(op["end"])):
            out.append(_surface_error(ev, f'{t}\'s surfaceOp must be "append" or '
                                      f'{{"op":"replace","start":S,"end":E}}, got {show(op)}'))
            return
        start, end = op["start"], op["end"]
        shadowed = self.nodes.span(start, end)
        if shadowed == "start":
            out.append(_surface_error(ev, f"{t} replaces the surface from seq {start}, but no event with that seq "
                                      "is on the surface"))
            return
        if shadowed == "end":
            out.append(_surface_error(ev, f"{t} replaces the surface up to seq {end}, but no event with that seq "
                                      "is on the surface"))
            return
        if shadowed == "order":
            out.append(_surface_error(ev, f"{t} replaces the surface from seq {start} to seq {end}, but {start} "
                                      f"comes after {end} on the surface"))
            return
        assert isinstance(shadowed, list)
        if sources is None or not set(shadowed) <= set(sources):
            missing = [s for s in shadowed if sources is None or s not in sources]
            out.append(_surface_error(ev, f"{t} replaces events its sourceEventSeqs does not name: "
                                      f"{show(missing)}"))
        if t == "tool/result":
            if len(shadowed) != 1 or shadowed[0] not in self.tool_prints:
                out.append(_surface_error(ev, "a replacing tool/result must replace exactly one tool/result"))
            elif isinstance(ev.data, dict) and self.tool_prints.get(shadowed[0]) != _fingerprint(ev.data):
                out.append(_surface_error(ev, "a replacing tool/result may change only the result's content, but "
                                          f"it differs from seq {shadowed[0]} elsewhere"))
        for s in shadowed:
            self.tool_prints.pop(s, None)
        self.nodes.replace(shadowed, seq)
        if t == "tool/result":
            self.tool_prints[seq] = _fingerprint(ev.data)

    # -- per-type handlers (B5, C3, D2–D14) ----------------------------------------

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

    def _assistant_message(self, ev: Event, out: list[Finding]) -> None:
        data = ev.data
        self._message_shape(ev, data.get("message") if isinstance(data, dict) else None, "assistant", out)
        self._names_open_step(ev, out)

    def _user_message(self, ev: Event, out: list[Finding]) -> None:
        self._message_shape(ev, ev.data, "user", out)

    def _tool_call(self, ev: Event, out: list[Finding]) -> None:
        self._names_open_step(ev, out)
        if isinstance(ev.data, dict):
            self.pending.add(hashable(ev.data.get("callId")))

    def _tool_result(self, ev: Event, out: list[Finding]) -> None:
        data = ev.data
        message = data.get("message") if isinstance(data, dict) else None
        self._message_shape(ev, message, "user", out)
        if ev.record.get("surfaceOp") != "append":
            if self.open_turn is None:
                out.append(_error(D13, ev, "a replacing tool/result must be inside a turn, but no turn is open"))
            return
        self._names_open_step(ev, out)
        source = message.get("source") if isinstance(message, dict) else None
        call_id = hashable(source.get("callId")) if isinstance(source, dict) else None
        self._answers(ev, call_id, data, message, out)

    def _answers(self, ev: Event, call_id: Any, data: Any, message: Any, out: list[Finding]) -> None:
        """D12: an appended tool/result answers a waiting call (or is repair's own)."""
        if call_id in self.pending:
            self.pending.discard(call_id)
            return
        if _is_not_started_repair(data, message):
            return
        out.append(_error(D12, ev, f"tool/result answers the call {show(call_id)}, but no tool/call with that "
                          "id is waiting for a result in this step"))

    def _request_header(self, ev: Event, out: list[Finding]) -> None:
        self._enclosed(ev, out)
        data = ev.data
        header = data.get("header") if isinstance(data, dict) else None
        config = header.get("config") if isinstance(header, dict) else None
        prefix = "request/header "
        if not isinstance(config, dict) or not is_nonempty_str(config.get("provider")) \
                or not is_nonempty_str(config.get("model")):
            out.append(_error(C3, ev, prefix + "does not name the model: config.provider and config.model "
                              "must be non-empty strings"))
            return
        if "reasoningEffort" in config and not is_nonempty_str(config["reasoningEffort"]):
            out.append(_error(C3, ev, prefix + "has a config.reasoningEffort that is not a non-empty string: "
                              f"{show(config['reasoningEffort'])}"))
        if isinstance(header, dict) and "adapterDefaults" in header:
            defaults = header["adapterDefaults"]
            ok = isinstance(defaults, dict) and defaults.keys() <= _ADAPTER_KEYS and all(
                v is True and k in config for k, v in defaults.items())
            if not ok:
                out.append(_error(C3, ev, prefix + f"has adapterDefaults {show(defaults)}, but they may only "
                                  "mark reasoningEffort or maxTokens as true, each set in the config"))

    def _enclosed(self, ev: Event, out: list[Finding]) -> None:
        if self.open_turn is None:
            out.append(_error(D14, ev, f"{ev.type} is outside any turn: todo/write, request/header and "
                              "request/context must come between a turn/start and its turn/end"))


    # -- typed events (``replay.log.typed``): the same rules, on their fields --------
    # A typed event's shape already satisfies the envelope (C2), known-type (B6) and
    # message-shape (B5) rules, and it appends to the surface: what is left is read from
    # its fields and judged by the rule code above. Where a field shows something the
    # shape does not settle (a block that names another call, adapterDefaults, a
    # sourceEventSeqs that is not distinct and earlier), the exact rule runs on the
    # event's dict view.

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
            self.tool_prints[ev.seq] = _fingerprint(ev.data)

    def _t_user_message(self, ev: UserMessageEvent) -> Found:
        out: list[Finding] = []
        self._t_append(ev, out)
        return out or None

    def _t_assistant_message(self, ev: AssistantMessageEvent) -> Found:
        out: list[Finding] = []
        self._t_append(ev, out)
        self._in_open_step(ev, ev.body.turn, ev.body.step, out)
        return out or None

    def _t_tool_result(self, ev: ToolResult) -> Found:
        body = ev.body
        message = body.message
        call_id = message.source.call_id
        if message.content[0].tool_call_id != call_id:
            return self._exact(ev)  # B5: the block answers another call
        out: list[Finding] = []
        self._t_append(ev, out)
        self._in_open_step(ev, body.turn, body.step, out)
        if call_id in self.pending:
            self.pending.discard(call_id)
        else:
            data = ev.data
            self._answers(ev, call_id, data, data.get("message"), out)
        return out or None

    def _t_request_header(self, ev: RequestHeader) -> Found:
        if ev.body.header.adapter_defaults is not UNSET:
            return self._exact(ev)
        out: list[Finding] = []
        self._enclosed(ev, out)
        return out or None

    def _t_enclosed(self, ev: Plain) -> Found:
        out: list[Finding] = []
        self._enclosed(ev, out)
        return out or None


_HANDLERS: dict[str, Callable[[CoreChecker, Event, list[Finding]], None]] = {
    "turn/start": CoreChecker._turn_start,
    "turn/end": CoreChecker._turn_end,
    "step/start": CoreChecker._step_start,
    "step/end": CoreChecker._step_end,
    "assistant/chunk": CoreChecker._names_open_step,
    "assistant/message": CoreChecker._assistant_message,
    "tool/call": CoreChecker._tool_call,
    "tool/result": CoreChecker._tool_result,
    "user/message": CoreChecker._user_message,
    "request/header": CoreChecker._request_header,
    "todo/write": CoreChecker._enclosed,
    "request/context": CoreChecker._enclosed,
}
"""Per-type checks of the core (D2–D14, B5, C3); every event also gets the envelope,
known-type and surface checks."""

_TYPED: dict[type[Event], Callable[[CoreChecker, Any], Found]] = {
    Chunk: CoreChecker._t_chunk,
    TurnStart: CoreChecker._t_turn_start,
    TurnEnd: CoreChecker._t_turn_end,
    StepStart: CoreChecker._t_step_start,
    StepEnd: CoreChecker._t_step_end,
    ToolCall: CoreChecker._t_tool_call,
    UserMessageEvent: CoreChecker._t_user_message,
    AssistantMessageEvent: CoreChecker._t_assistant_message,
    ToolResult: CoreChecker._t_tool_result,
    RequestHeader: CoreChecker._t_request_header,
    **{cls: CoreChecker._t_enclosed for cls in PLAIN if cls.__struct_config__.tag in ("todo/write", "request/context")},
}
"""The core's handler of each typed event class; a typed class without one (a plain
known type) has nothing the core judges."""


def plain_envelope(rec: dict[str, Any]) -> bool:
    """The envelope rule's fast path: a record of which ``CoreChecker._envelope`` (C2)
    has nothing to say (``False`` only sends it there to be looked at in full)."""
    seq = rec.get("seq")
    time = rec.get("time")
    return rec.keys() <= ENVELOPE_KEYS and type(rec.get("type")) is str and type(seq) is int \
        and 0 <= seq <= MAX_SAFE_INTEGER and type(time) is int and -MAX_SAFE_INTEGER <= time <= MAX_SAFE_INTEGER \
        and "data" in rec and rec.get("ignorable", True) is True


def well_formed_message(t: str, message: Any, role: str) -> bool:
    """The message-shape rule's fast path: a message of an event of type ``t`` of which
    ``CoreChecker._message_problems`` (B5) has nothing to say (``False`` only sends it
    there to be looked at in full)."""
    if type(message) is not dict or message.get("role") != role or type(message.get("content")) is not list:
        return False
    mid = message.get("id")
    source = message.get("source")
    if type(mid) is not str or not mid or type(source) is not dict:
        return False
    kind = source.get("kind")
    if t == "user/message":
        return type(kind) is str and bool(kind)
    if t == "assistant/message":
        return kind == "model" and is_nonempty_str(source.get("provider")) and is_nonempty_str(source.get("model"))
    if t != "tool/result" or kind != "tool":
        return False
    content = message["content"]
    call_id = source.get("callId")
    if len(content) != 1 or type(call_id) is not str or not call_id:
        return False
    block = content[0]
    return type(block) is dict and block.get("type") == "tool-result" and type(block.get("content")) is list \
        and block.get("toolCallId") == call_id


def _is_not_started_repair(data: Any, message: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(message, dict):
        return False
    error = data.get("error")
    content = message.get("content")
    return (isinstance(error, dict) and error.get("code") == "TOOL_NOT_STARTED"
            and isinstance(content, list) and bool(content) and isinstance(content[0], dict)
            and content[0].get("isError") is True)

