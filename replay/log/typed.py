"""Typed events: records decoded straight from their bytes into structs (msgspec).

A record that fits the shape of its type exactly is decoded in C into a ``TypedEvent``
of that type (field lookup, type checks and object building all happen there), with
a ``body`` holding the fields of its ``data`` that the rules read; anything else in
``data`` is skipped, not built. What does not fit (see ``decode``) takes the exact path
(``replay.log.scan``): an unknown type or a plugin type the harness does not know, an
envelope key too many or missing, a field of the wrong JSON type, an integer that is
not safe (or ``5.0`` where a seq or turn belongs), a lone surrogate or invalid UTF-8
in a field read here, an ``ignorable`` key, a surface replacement, a legacy shape a
migration rewrites. The shapes are chosen so that a typed event is one about which
the exact path would have said nothing its typed reading does not say: the rules read
its fields (``replay.check.core``), and a record whose fields show something to report
is handed to the exact rule with its dict view (``record``), decoded from the bytes by
the exact path's own parser. What the audit finds is the same either way, byte for
byte; the property tests hold the two readings to it on mutated real logs.

The fields that are not JSON (``line``, ``raw``, ``memo``) are declared with a type no
JSON value can have, so a record that holds such a key fails to decode and takes the
exact path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType, field

from replay.jsjson import MAX_SAFE_INTEGER
from replay.log.event import KNOWN_TYPES, Event
from replay.log.lines import decode_json
from replay.log.values import hashable

if TYPE_CHECKING:
    LocalInt = int
    LocalBytes = bytes | bytearray
    LocalRecord = dict[str, Any] | None
else:  # no JSON value decodes into these: a record holding such a key is not typed
    LocalInt = Annotated[int, Meta(ge=1, le=0)]
    LocalBytes = Annotated[bytes, Meta(min_length=1, max_length=0)]
    LocalRecord = Annotated[dict, Meta(min_length=1, max_length=0)]

SafeInt = Annotated[int, Meta(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)]
"""``Number.isSafeInteger`` of a JSON integer literal (no ``5.0``, no boolean)."""
Seq = Annotated[int, Meta(ge=0, le=MAX_SAFE_INTEGER)]
Turn = Annotated[int, Meta(ge=1, le=MAX_SAFE_INTEGER)]
Text = Annotated[str, Meta(min_length=1)]
"""A non-empty string."""

MAX_NESTING = 1024
"""orjson's nesting limit: a typed record nests no deeper, so its dict view can always
be decoded, wherever it is asked for (a record that might go deeper is not typed)."""


class TypedEvent(Event, tag_field="type", forbid_unknown_fields=True, kw_only=True):
    """A record decoded into the struct of its type; ``type`` is the class's tag."""

    line: LocalInt = 0
    raw: LocalBytes = b""
    """The record's bytes, from which ``record`` is decoded when a stage asks for it."""
    memo: LocalRecord = None

    @property
    def record(self) -> dict[str, Any]:
        memo = self.memo
        if memo is None:
            memo = self.memo = decode_json(self.raw)
            self.raw = b""  # the bytes are not held twice
        return memo

    @property
    def data(self) -> Any:
        return self.record["data"]


class Surface(TypedEvent, kw_only=True):
    """A surface event that appends (``"surfaceOp": "append"``; a replacement is not
    typed), with its ``sourceEventSeqs`` when it has them."""

    surface: Literal["append"] = field(name="surfaceOp")
    sources: list[Seq] | UnsetType = field(default=UNSET, name="sourceEventSeqs")

    @property
    def surface_op(self) -> Any:
        return "append"


# -- the bodies: the fields of ``data`` the rules read ---------------------------------


class TurnBody(Struct, gc=False, forbid_unknown_fields=True):
    turn: SafeInt


class BareReason(Struct, gc=False, forbid_unknown_fields=True):
    kind: Literal["completed", "blocked", "max-tokens", "interrupted"]


class TurnEndBody(Struct, gc=False, forbid_unknown_fields=True):
    """A turn/end no migration rewrites: exactly a turn from 1 and a bare reason."""

    turn: Turn
    reason: BareReason


class StepBody(Struct, gc=False):
    turn: SafeInt
    step: SafeInt


class CallBody(Struct, gc=False):
    turn: SafeInt
    step: SafeInt
    call_id: str = field(name="callId")


class UserSource(Struct, gc=False):
    kind: Text


class ModelSource(Struct, gc=False):
    kind: Literal["model"]
    provider: Text
    model: Text


class ToolSource(Struct, gc=False):
    kind: Literal["tool"]
    call_id: Text = field(name="callId")


class UserMessage(Struct, gc=False):
    """A well-formed user message (rule B5 has nothing to say about it)."""

    id: Text
    role: Literal["user"]
    content: list[Raw]
    source: UserSource


class AssistantMessage(Struct, gc=False):
    id: Text
    role: Literal["assistant"]
    content: list[Raw]
    source: ModelSource


class ToolBlock(Struct, gc=False):
    type: Literal["tool-result"]
    tool_call_id: str = field(name="toolCallId")
    content: list[Raw]


class ToolMessage(Struct, gc=False):
    id: Text
    role: Literal["user"]
    content: Annotated[list[ToolBlock], Meta(min_length=1, max_length=1)]
    source: ToolSource


class AssistantBody(Struct, gc=False):
    turn: SafeInt
    step: SafeInt
    message: AssistantMessage


class ResultBody(Struct, gc=False):
    turn: SafeInt
    step: SafeInt
    message: ToolMessage


class Config(Struct, gc=False):
    provider: Text
    model: Text
    reasoning_effort: Text | UnsetType = field(default=UNSET, name="reasoningEffort")


class RequestHeaderInner(Struct, gc=False):
    config: Config
    adapter_defaults: Raw | UnsetType = field(default=UNSET, name="adapterDefaults")


class HeaderBody(Struct, gc=False):
    header: RequestHeaderInner
    reason: Any = None


# -- the typed events ---------------------------------------------------------------


class Chunk(TypedEvent, tag="assistant/chunk"):
    seq: Seq
    time: SafeInt
    body: StepBody = field(name="data")


class TurnStart(TypedEvent, tag="turn/start"):
    seq: Seq
    time: SafeInt
    body: TurnBody = field(name="data")


class TurnEnd(TypedEvent, tag="turn/end"):
    seq: Seq
    time: SafeInt
    body: TurnEndBody = field(name="data")


class StepStart(TypedEvent, tag="step/start"):
    seq: Seq
    time: SafeInt
    body: StepBody = field(name="data")


class StepEnd(TypedEvent, tag="step/end"):
    seq: Seq
    time: SafeInt
    body: StepBody = field(name="data")


class ToolCall(TypedEvent, tag="tool/call"):
    seq: Seq
    time: SafeInt
    body: CallBody = field(name="data")


class UserMessageEvent(Surface, tag="user/message"):
    seq: Seq
    time: SafeInt
    body: UserMessage = field(name="data")


class AssistantMessageEvent(Surface, tag="assistant/message"):
    seq: Seq
    time: SafeInt
    body: AssistantBody = field(name="data")


class ToolResult(Surface, tag="tool/result"):
    seq: Seq
    time: SafeInt
    body: ResultBody = field(name="data")


class RequestHeader(TypedEvent, tag="request/header"):
    seq: Seq
    time: SafeInt
    body: HeaderBody = field(name="data")


class Plain(TypedEvent):
    """A known type no rule looks inside (or only through ``data``): its ``data`` is
    any JSON value, checked for being JSON and skipped."""

    seq: Seq
    time: SafeInt
    body: Raw = field(name="data")


def _plain(tag: str) -> type[Plain]:
    name = "Plain_" + "".join(c if c.isalnum() else "_" for c in tag)
    cls = msgspec.defstruct(name, [], bases=(Plain,), tag=tag, module=__name__)
    assert issubclass(cls, Plain)
    return cls


class _Row(Struct, gc=False, tag_field="type", forbid_unknown_fields=True):
    """A packed chunk row (spec §1.4) of the exact shape ``replay.log.rows`` accepts,
    with safe integers where it accepts any number; the scanner completes its checks
    (the length of ``dt``, the running time) and makes it a ``ChunkRun``."""

    type: ClassVar[str]
    seq0: Seq
    time0: SafeInt


class TextRowBody(Struct, gc=False, forbid_unknown_fields=True):
    turn: SafeInt
    step: SafeInt
    index: SafeInt
    dt: list[SafeInt]
    texts: Annotated[list[str], Meta(min_length=1)]


class CallRowBody(Struct, gc=False, forbid_unknown_fields=True):
    turn: SafeInt
    step: SafeInt
    index: SafeInt
    dt: list[SafeInt]
    id: str
    args: Annotated[list[str], Meta(min_length=1)]
    name: str | UnsetType = UNSET


class TextRow(_Row, tag="text-chunks"):
    body: TextRowBody = field(name="data")


class ReasoningRow(_Row, tag="reasoning-chunks"):
    body: TextRowBody = field(name="data")


class CallRow(_Row, tag="tool-call-chunks"):
    body: CallRowBody = field(name="data")


Row = TextRow | ReasoningRow | CallRow

TYPED: tuple[type[TypedEvent], ...] = (Chunk, TurnStart, TurnEnd, StepStart, StepEnd, ToolCall, UserMessageEvent,
                                       AssistantMessageEvent, ToolResult, RequestHeader)
PLAIN: tuple[type[Plain], ...] = tuple(_plain(t) for t in sorted(KNOWN_TYPES - {c.__struct_config__.tag
                                                                                for c in TYPED}))
"""Every other type today's harness knows (todo/write, request/context, titles, hooks,
…): their rules read ``data`` as a dict, or nothing."""
ROWS: tuple[type[_Row], ...] = (TextRow, ReasoningRow, CallRow)

for _cls in (*TYPED, *PLAIN, *ROWS):
    setattr(_cls, "type", str(_cls.__struct_config__.tag))  # noqa: B010 (the tag, read as every event's ``type``)

_union: Any = Union[(*TYPED, *PLAIN, *ROWS)]
decode = msgspec.json.Decoder(_union).decode
"""One record's bytes as a typed event or row; ``DecodeError`` (``ValidationError`` is
one) or ``RecursionError`` when it is not typed: the exact path reads it."""
NOT_TYPED = (msgspec.DecodeError, RecursionError)

_STEPPED = frozenset({Chunk, StepStart, StepEnd, ToolCall, AssistantMessageEvent, ToolResult})
"""The typed events whose struct holds their turn and step."""


def turn_and_step(ev: Event) -> tuple[Any, Any]:
    """An event's ``turn`` and ``step`` as dict keys (``hashable``): a typed event's
    from its struct (its data is not decoded), any other's from its data (``None``
    for what it lacks)."""
    if type(ev) in _STEPPED:
        body = ev.body  # type: ignore[attr-defined]
        return body.turn, body.step
    data = ev.data
    if not isinstance(data, dict):
        return None, None
    return hashable(data.get("turn")), hashable(data.get("step"))
