"""The model of a keyless run: a recorded log or a script, never a network service.

A model is asked for one call at a time and answers with a ``ModelCall``: the stream
chunks of that call (``block-start``, deltas, ``block-end``, ``usage``, ``finish``),
exactly the ``assistant/chunk`` payloads the harness persists, and how the stream
ended when it did not finish: it threw (a provider failure), or it hung until the user
cancelled the turn. These are the harness's replay entries (acp-and-snapshots.md
§B.6): ``chunks``, ``throw`` and ``hang``; an override file of those entries can
replace or patch what a recording derives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, overload

from replay.agent.packed import Packed
from replay.hints import command
from replay.jsjson import dumps
from replay.log.event import Event
from replay.log.typed import StepStart, turn_and_step

Chunk = dict[str, Any]


class ModelError(Exception):
    """The model cannot answer: its script is exhausted, or a recorded stream is broken."""


@dataclass(frozen=True)
class ModelCall:
    """One answer of the model.

    ``failure`` (``{message, code[, status]}``): the stream threw after ``chunks`` —
    the turn ends in that error. ``hang``: the stream stalled after ``chunks`` and the user cancelled the
    turn. ``source``: the ``assistant/message`` source a recording gave this call
    (provider, model, …), when known.
    """

    chunks: list[Chunk]
    failure: dict[str, Any] | None = None
    hang: bool = False
    source: dict[str, Any] | None = None


_Packed = tuple[Packed, dict[str, Any] | None, bool]
"""A call kept compact: its chunks (``Packed``), its failure, whether it hangs."""


def _pack(call: ModelCall) -> _Packed:
    return Packed(call.chunks), call.failure, call.hang


class PackedCalls(Sequence[ModelCall]):
    """A recording's model calls, each kept as JSON bytes and read back when asked for:
    a long recording costs its size in bytes, not in parsed objects."""

    def __init__(self, packed: list[_Packed], sources: list[dict[str, Any] | None]) -> None:
        self._packed = packed
        self._sources = sources

    def __len__(self) -> int:
        return len(self._packed)

    @overload
    def __getitem__(self, index: int) -> ModelCall: ...

    @overload
    def __getitem__(self, index: slice) -> list[ModelCall]: ...

    def __getitem__(self, index: int | slice) -> ModelCall | list[ModelCall]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        chunks, failure, hang = self._packed[index]
        return ModelCall(chunks.value(), failure, hang, self._sources[index])


class Model(Protocol):
    def next_call(self) -> ModelCall: ...

    def unused(self) -> int:
        """Calls left unanswered (a recorded model should end with none)."""
        ...


def chunk_problem(chunk: Any) -> str | None:
    """What makes a chunk unusable as model output, or ``None``."""
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
    if chunk["type"] in _DELTA_TEXT and (type(chunk.get("index")) is not int
                                         or not isinstance(chunk.get(_DELTA_TEXT[chunk["type"]]), str)):
        return f"is a {chunk['type']} without an integer index and a string {_DELTA_TEXT[chunk['type']]}"
    return None


_DELTA_TEXT = {"text-delta": "text", "reasoning-delta": "text", "tool-call-delta": "argumentsDelta"}


def failure_of(raw: Any) -> dict[str, Any] | None:
    """An ``LlmFailure`` (``{message, code[, status]}``) made from a recorded one."""
    if not isinstance(raw, dict):
        return None
    message, code, status = raw.get("message"), raw.get("code"), raw.get("status")
    failure: dict[str, Any] = {"message": message if isinstance(message, str) else "model error",
                               "code": code if isinstance(code, str) else "UNKNOWN"}
    if type(status) is int:
        failure["status"] = status
    return failure


def _failure_of(reason: Any) -> dict[str, Any] | None:
    """The failure of an error ``turn/end`` reason, or ``None``."""
    if not isinstance(reason, dict) or reason.get("kind") != "error":
        return None
    return failure_of(reason.get("error", reason.get("failure")))


@dataclass
class _Step:
    """What a recorded step contributed to the script while it is being read."""

    key: tuple[Any, Any]
    calls: int = 0
    open: list[Chunk] = field(default_factory=list)
    line: int = 0


class Deriver:
    """Reads a recording's events into replay entries (the harness's derivation,
    plus the two ends a recording shows without an override: a stream that threw
    — no ``finish``, then an error ``turn/end`` — and a stream the user cancelled)."""

    def __init__(self) -> None:
        self.calls: list[_Packed] = []
        self.sources: dict[tuple[Any, Any], dict[str, Any]] = {}
        self._keys: list[tuple[Any, Any]] = []
        self.step: _Step | None = None

    def add(self, ev: Event) -> None:
        """One event of the recording (after its seed); ``ModelError`` for a broken stream."""
        kind = ev.type
        if kind == "assistant/chunk":
            data = ev.data
            if isinstance(data, dict):
                self.chunk(ev, data)
        elif kind == "step/start":
            if type(ev) is StepStart or isinstance(ev.data, dict):  # a typed one's data is an object
                self.step_start(ev)
        elif kind == "turn/end":
            if isinstance(ev.data, dict):
                self.turn_end(ev)
        elif kind == "assistant/message":
            data = ev.data
            if isinstance(data, dict):
                message = data.get("message")
                source = message.get("source") if isinstance(message, dict) else None
                if isinstance(source, dict):
                    self.sources[turn_and_step(ev)] = source

    def chunk(self, ev: Event, data: dict[str, Any]) -> None:
        here = turn_and_step(ev)
        if self.step is None or self.step.key != here:
            self._unterminated(None)
            self.step = _Step(here)
        chunk = data.get("chunk")
        problem = chunk_problem(chunk)
        if problem is not None:
            raise ModelError(f"the recorded chunk at line {ev.line} (seq {ev.seq}) {problem}; the recording "
                             f"cannot play the model (run {command('audit')} on it)")
        assert isinstance(chunk, dict)
        if not self.step.open:
            self.step.line = ev.line
        self.step.open.append(chunk)
        if chunk["type"] == "finish":
            self._emit(ModelCall(self.step.open))
            self.step.open = []
            self.step.calls += 1

    def step_start(self, ev: Event) -> None:
        self._unterminated(None)
        self.step = _Step(turn_and_step(ev))

    def turn_end(self, ev: Event) -> None:
        self._unterminated(ev.data.get("reason"))
        self.step = None

    def _emit(self, call: ModelCall) -> None:
        assert self.step is not None
        self.calls.append(_pack(call))
        self._keys.append(self.step.key)

    def _unterminated(self, reason: Any) -> None:
        """Close the current step: its chunks without a ``finish`` (or a step with no
        call at all) are a throw when the turn ended in an error, a hang when the user
        cancelled it, and a broken recording otherwise."""
        step = self.step
        if step is None or (not step.open and (step.calls or reason is None)):
            return
        failure = _failure_of(reason)
        kind = reason.get("kind") if isinstance(reason, dict) else None
        if failure is not None:
            self._emit(ModelCall(step.open, failure=failure))
        elif kind == "aborted":
            self._emit(ModelCall(step.open, hang=True))
        elif step.open:
            turn, number = step.key
            raise ModelError(f"the recorded stream of turn {turn} step {number} ends without a finish chunk "
                             f"(line {step.line}) and the turn neither failed nor was cancelled there; the "
                             "recording needs an override")
        step.open = []
        step.calls += 1

    def finish(self) -> PackedCalls:
        if self.step is not None and self.step.open:
            turn, number = self.step.key
            raise ModelError(f"the recorded stream of turn {turn} step {number} ends without a finish chunk "
                             f"(line {self.step.line}); the recording needs an override")
        return PackedCalls(self.calls, [self.sources.get(key) for key in self._keys])


@dataclass
class RecordedModel:
    """Plays back the assistant output of a recorded log, one call per model call.

    A call is the chunks of one ``(turn, step)`` up to its ``finish`` chunk; a step
    with a failed attempt and a retry holds two calls. Events inherited from a fork
    seed (before the header's ``seedLength``) are not this session's calls.
    """

    calls: Sequence[ModelCall]
    cursor: int = 0

    @classmethod
    def from_events(cls, events: Iterable[Event], seed_length: int = 0) -> RecordedModel:
        derive = Deriver()
        for ev in events:
            if ev.seq >= seed_length:
                derive.add(ev)
        return cls(derive.finish())

    def with_override(self, doc: Any) -> RecordedModel:
        """The script after a harness override (``replay.override.json``): a list of
        entries replaces the derived script; ``{"patches": [{"at": i, "entry": …}]}``
        replaces entry ``i`` (or appends, at ``i`` = the script's length)."""
        return RecordedModel(apply_override(list(self.calls), doc))

    def next_call(self) -> ModelCall:
        if self.cursor >= len(self.calls):
            raise ModelError(f"the recording has no model call here: it holds {len(self.calls)} calls and the run "
                             "asks for more (the scenario diverged from the recording: re-record, or revert the "
                             "edit)")
        self.cursor += 1
        call = self.calls[self.cursor - 1]
        return ModelCall([dict(c) for c in call.chunks], call.failure, call.hang, call.source)

    def unused(self) -> int:
        return len(self.calls) - self.cursor


class OverrideError(ModelError):
    """An override document that is not the harness's replay-entry format."""


_ENTRY_KEYS = {"chunks": ({"kind", "chunks"}, set()),
               "throw": ({"kind", "chunks", "message", "code"}, {"status"}),
               "hang": ({"kind"}, {"readyFile"})}
_HANG_CHUNKS: list[Chunk] = [{"type": "block-start", "index": 0, "blockType": "text"},
                             {"type": "text-delta", "index": 0, "text": "partial"}]


def override_entry(entry: Any, where: str) -> ModelCall:
    """One replay entry, strictly validated (exact keys, known kinds, valid chunks)."""
    if not isinstance(entry, dict) or entry.get("kind") not in _ENTRY_KEYS:
        raise OverrideError(f"{where}: an entry is an object whose kind is chunks, throw or hang")
    kind = entry["kind"]
    required, optional = _ENTRY_KEYS[kind]
    keys = set(entry)
    if not required <= keys or keys - required - optional:
        wanted = ", ".join(sorted(required | optional))
        raise OverrideError(f"{where}: a {kind} entry has exactly the keys {wanted} (got {', '.join(sorted(keys))})")
    if kind == "hang":
        if "readyFile" in entry and not isinstance(entry["readyFile"], str):
            raise OverrideError(f"{where}.readyFile: must be a string")
        return ModelCall([dict(c) for c in _HANG_CHUNKS], hang=True)
    chunks = entry["chunks"]
    if not isinstance(chunks, list):
        raise OverrideError(f"{where}.chunks: must be an array of chunks")
    for i, chunk in enumerate(chunks):
        problem = chunk_problem(chunk)
        if problem is not None:
            raise OverrideError(f"{where}.chunks[{i}] {problem}")
    if kind == "throw":
        if not isinstance(entry["message"], str) or not isinstance(entry["code"], str):
            raise OverrideError(f"{where}: a throw entry's message and code are strings")
        if "status" in entry and type(entry["status"]) is not int:
            raise OverrideError(f"{where}.status: must be an integer (the provider's HTTP status)")
        return ModelCall(list(chunks), failure=failure_of(entry))
    if not chunks or chunks[-1].get("type") != "finish":
        raise OverrideError(f"{where}.chunks: a chunks entry ends with a finish chunk")
    return ModelCall(list(chunks))


def apply_override(calls: Sequence[ModelCall], doc: Any) -> list[ModelCall]:
    """``calls`` with a harness override applied (see ``RecordedModel.with_override``)."""
    if isinstance(doc, list):
        return [override_entry(e, f"override[{i}]") for i, e in enumerate(doc)]
    if not isinstance(doc, dict) or set(doc) != {"patches"} or not isinstance(doc["patches"], list):
        raise OverrideError('override: the document is an array of entries, or {"patches": [{"at": i, '
                            '"entry": …}, …]}')
    out = list(calls)
    seen: set[int] = set()
    for i, patch in enumerate(doc["patches"]):
        where = f"override.patches[{i}]"
        if not isinstance(patch, dict) or set(patch) != {"at", "entry"}:
            raise OverrideError(f"{where}: a patch has exactly the keys at and entry")
        at = patch["at"]
        if type(at) is not int or not 0 <= at <= len(out) or at in seen:
            raise OverrideError(f"{where}.at: must be a unique call index from 0 to {len(out)} (got {dumps(at)})")
        seen.add(at)
        entry = override_entry(patch["entry"], f"{where}.entry")
        if at == len(out):
            out.append(entry)
        else:
            out[at] = entry
    return out


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

    def next_call(self) -> ModelCall:
        if self.cursor >= len(self.script):
            raise ModelError(f"the script has no step here (it holds {len(self.script)}, all used); a turn ends at "
                             "a step with text and no tool calls")
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
            return ModelCall(chunks)
        words = sum(len(_pieces(b.get("text") or b.get("arguments") or "")) for b in blocks)
        chunks.append({"type": "usage", "usage": {"inputTokens": 100 * self.cursor, "outputTokens": words}})
        kind = call.finish or ("tool-calls" if call.tool_calls else "stop")
        chunks.append({"type": "finish", "reason": {"kind": kind}})
        return ModelCall(chunks)

    def unused(self) -> int:
        return len(self.script) - self.cursor
