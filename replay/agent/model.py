"""The model of a keyless run: a recorded log or a script, never a network service.

A model is asked for one call at a time and answers with the stream chunks of that
call (``block-start``, deltas, ``block-end``, ``usage``, ``finish``), exactly the
``assistant/chunk`` payloads the harness persists.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from replay.jsjson import dumps
from replay.log.event import Event

Chunk = dict[str, Any]


class ModelError(Exception):
    """The model cannot answer: its script is exhausted, or a recorded stream is broken."""


class Model(Protocol):
    def next_call(self) -> list[Chunk]: ...

    def unused(self) -> int:
        """Calls left unanswered (a recorded model should end with none)."""
        ...


def _chunk_problem(chunk: Any) -> str | None:
    """What makes a recorded chunk unusable as model output, or ``None``."""
    if not isinstance(chunk, dict) or not isinstance(chunk.get("type"), str):
        return "is not a chunk object with a type"
    if chunk["type"] == "block-end":
        block = chunk.get("block")
        if type(chunk.get("index")) is not int or not isinstance(block, dict) or not isinstance(block.get("type"), str):
            return "is a block-end without an integer index and a typed block"
        for key in ("text", "arguments", "id", "name"):
            if key in block and not isinstance(block[key], str):
                return f"has a block whose {key} is not a string"
    if chunk["type"] == "finish" and not isinstance(chunk.get("reason"), dict):
        return "is a finish without a reason object"
    return None


@dataclass
class RecordedModel:
    """Plays back the assistant output of a recorded log, one call per model call.

    A call is the chunks of one ``(turn, step)`` up to its ``finish`` chunk; a step
    with a failed attempt and a retry holds two calls. Events inherited from a fork
    seed (before the header's ``seedLength``) are not this session's calls.
    """

    calls: list[list[Chunk]]
    cursor: int = 0

    @classmethod
    def from_events(cls, events: Iterable[Event], seed_length: int = 0) -> RecordedModel:
        calls: list[list[Chunk]] = []
        current: list[Chunk] = []
        key: tuple[Any, Any] | None = None
        for ev in events:
            if ev.seq < seed_length or ev.type != "assistant/chunk" or not isinstance(ev.data, dict):
                continue
            here = (ev.data.get("turn"), ev.data.get("step"))
            if current and here != key:
                raise ModelError(f"the recorded stream of turn {key[0] if key else '?'} step "
                                 f"{key[1] if key else '?'} ends without a finish chunk (line {ev.line}); the "
                                 "recording needs an override")
            key = here
            chunk = ev.data.get("chunk")
            problem = _chunk_problem(chunk)
            if problem is not None:
                raise ModelError(f"the recorded chunk at line {ev.line} (seq {ev.seq}) {problem}; the recording "
                                 "cannot play the model (run `replay audit` on it)")
            assert isinstance(chunk, dict)
            current.append(chunk)
            if isinstance(chunk, dict) and chunk.get("type") == "finish":
                calls.append(current)
                current = []
        if current:
            raise ModelError("the recorded stream ends without a finish chunk; the recording needs an override")
        return cls(calls)

    def next_call(self) -> list[Chunk]:
        if self.cursor >= len(self.calls):
            raise ModelError(f"the recorded script is exhausted after {len(self.calls)} calls: the run asks the "
                             "model more often than the recording did (re-record, or script the extra call)")
        self.cursor += 1
        return [dict(c) for c in self.calls[self.cursor - 1]]

    def unused(self) -> int:
        return len(self.calls) - self.cursor


@dataclass(frozen=True)
class ScriptedCall:
    """One scripted model call."""

    reasoning: str | None = None
    text: str | None = None
    tool_calls: Sequence[tuple[str, Any]] = ()
    """``(tool name, arguments)``; arguments given as a string are sent verbatim."""
    error: tuple[str, str] | None = None
    """``(message, code)``: the stream fails after its content."""
    finish: str | None = None
    """Overrides the finish kind (e.g. ``max-tokens``)."""


_PIECES = re.compile(r"\S+\s*|\s+")


def _pieces(text: str) -> list[str]:
    """Split text the way a provider streams it: a word (with its trailing space) per delta."""
    return _PIECES.findall(text) or [""]


def _arg_pieces(raw: str, width: int = 12) -> list[str]:
    return [raw[i : i + width] for i in range(0, len(raw), width)] or [""]


@dataclass
class ScriptedModel:
    """Answers each call from a list of ``ScriptedCall``s, in order."""

    script: list[ScriptedCall]
    call_prefix: str = "call"
    cursor: int = 0
    _tool_calls: int = field(default=0, repr=False)

    def next_call(self) -> list[Chunk]:
        if self.cursor >= len(self.script):
            raise ModelError(f"the scripted model has only {len(self.script)} calls; the run asked for more")
        call = self.script[self.cursor]
        self.cursor += 1
        chunks: list[Chunk] = []
        blocks: list[dict[str, Any]] = []
        index = 0
        for kind, text in (("reasoning", call.reasoning), ("text", call.text)):
            if text is None:
                continue
            chunks.append({"type": "block-start", "index": index, "blockType": kind})
            chunks.extend({"type": f"{kind}-delta", "index": index, "text": p} for p in _pieces(text))
            blocks.append({"type": kind, "text": text})
            index += 1
        for name, arguments in call.tool_calls:
            self._tool_calls += 1
            call_id = f"{self.call_prefix}_{self._tool_calls:02d}"
            raw = arguments if isinstance(arguments, str) else dumps(arguments)
            chunks.append({"type": "block-start", "index": index, "blockType": "tool-call"})
            chunks.extend({"type": "tool-call-delta", "index": index, "id": call_id, "name": name, "argumentsDelta": p}
                          for p in _arg_pieces(raw))
            blocks.append({"type": "tool-call", "id": call_id, "name": name, "arguments": raw})
            index += 1
        for i, block in enumerate(blocks):
            chunks.append({"type": "block-end", "index": i, "block": block})
        if call.error is not None:
            message, code = call.error
            failure = {"message": message, "code": code}
            chunks.append({"type": "finish", "reason": {"kind": "error", "failure": failure}})
            return chunks
        words = sum(len(_pieces(b.get("text") or b.get("arguments") or "")) for b in blocks)
        chunks.append({"type": "usage", "usage": {"inputTokens": 100 * self.cursor, "outputTokens": words}})
        kind = call.finish or ("tool-calls" if call.tool_calls else "stop")
        chunks.append({"type": "finish", "reason": {"kind": kind}})
        return chunks

    def unused(self) -> int:
        return len(self.script) - self.cursor
