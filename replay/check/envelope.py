"""The event envelope: its top-level keys and their types (C2), and its type known to
the harness (B6)."""

from __future__ import annotations

from replay.checker import event_error
from replay.findings import Example, Finding, Rule
from replay.hints import command
from replay.log.event import ENVELOPE_KEYS, KNOWN_TYPES, REMOVED_TYPES, Event
from replay.log.values import is_nonneg_safe_int, is_safe_int
from replay.output import show

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


def envelope_problems(ev: Event, out: list[Finding]) -> None:
    """C2: every way the event's top-level keys break the envelope."""
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
        out.append(event_error(C2, ev, f"today's harness refuses this event: {problem}"))


def type_problem(ev: Event, out: list[Finding]) -> None:
    """B6: a type today's harness does not know, not marked ignorable."""
    t = ev.type
    if t not in KNOWN_TYPES and ev.record.get("ignorable") is not True:
        removed = (". (Earlier harnesses wrote this type and today's removed it; their ACP agent streamed nothing "
                   f"for it, which is why {command('conformance')} can find this log's recorded streams byte-exact: "
                   "they are the earlier harness's.)") if t in REMOVED_TYPES else ""
        out.append(event_error(B6, ev, f'today\'s harness does not know the event type "{t}", and the event is '
                               f'not marked "ignorable": true, so it refuses the log{removed}'))
