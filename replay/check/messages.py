"""The messages of user/message, assistant/message and tool/result: an id, a role, a
source and a list of content (B5)."""

from __future__ import annotations

from typing import Any

from replay.checker import event_error
from replay.findings import Example, Finding, Rule
from replay.log.event import Event
from replay.log.values import is_nonempty_str
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


def message_problems(ev: Event, message: Any, role: str, out: list[Finding]) -> None:
    """B5, every clause of it: the message of an event of type ``ev.type``, which must
    have the role ``role``."""
    t = ev.type
    if not isinstance(message, dict) or not is_nonempty_str(message.get("id")):
        out.append(event_error(B5, ev, f'{t} has no identified message (an object with a non-empty string "id")'))
        if not isinstance(message, dict):
            return
    if message.get("role") != role:
        out.append(event_error(B5, ev, f'{t}\'s message must have the role "{role}", got '
                          f"{show(message.get('role'))}"))
    source = message.get("source")
    if not isinstance(source, dict) or not is_nonempty_str(source.get("kind")):
        out.append(event_error(B5, ev, f'{t}\'s message must say where it came from (a "source" object with a '
                          f'non-empty "kind"), got {show(source)}'))
        source = None
    content = message.get("content")
    if not isinstance(content, list):
        out.append(event_error(B5, ev, f'{t}\'s message content must be a list of blocks, got '
                          f'{show(content)}'))
    if t == "assistant/message" and source is not None and not (
        source.get("kind") == "model" and is_nonempty_str(source.get("provider"))
        and is_nonempty_str(source.get("model"))
    ):
        out.append(event_error(B5, ev, "assistant/message must name the model that wrote it (a source of kind "
                          f'"model" with a non-empty "provider" and "model"), got {show(source)}'))
    if t == "tool/result":
        if source is not None and not (source.get("kind") == "tool" and is_nonempty_str(source.get("callId"))):
            out.append(event_error(B5, ev, 'tool/result must name the call it answers (a source of kind "tool" '
                              f'with a non-empty "callId"), got {show(source)}'))
        if isinstance(content, list):
            blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool-result"]
            if len(content) != 1 or len(blocks) != 1 or not isinstance(blocks[0].get("content"), list):
                out.append(event_error(B5, ev, "tool/result must hold exactly one tool-result block, whose "
                                  "content is a list"))
            elif source is not None and blocks[0].get("toolCallId") != source.get("callId"):
                out.append(event_error(B5, ev, f"tool/result answers two calls: its block names "
                                  f"{show(blocks[0].get('toolCallId'))} and its source "
                                  f"{show(source.get('callId'))}"))
