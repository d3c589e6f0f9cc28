"""What a recorded session gives a keyless run besides the model's chunks.

A harness log holds more than the loop writes itself: session titles, hook and
approval records, injected context and steering messages, request headers, and the
results of tools the loop does not model. ``Recording`` reads a log into:

* the recorded **tool calls** by call id (name, arguments, result, duration), which
  answer ``RecordedTool`` calls;
* the **turn shapes** (which steps each turn ran, how it ended), so a turn continues
  where the recording continued (a stop hook, a max-tokens continuation) and ends
  where it ended (a cancel, a blocked prompt);
* the **dispatch order** of each step's tool calls and results;
* every **foreign** event — one the loop does not write itself — with its anchor:
  the loop-written event it followed.

``Replayer`` plays a recording into one session of a run: after the loop writes an
event, the foreign events anchored there are appended, their seq references
(``sourceEventSeqs``, a replacement's range, a title's or a title request's
``messageSeqs``) moved to the seqs of this run; a transform may rewrite an event's data
or leave it out (``DROP``). Events are named by ``Keyer`` in the recording and in the run alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from replay.agent.packed import Packed
from replay.agent.tools import RecordedCall, ToolReply
from replay.agent.writer import SessionLog
from replay.log.event import Event
from replay.log.typed import (
    AssistantMessageEvent,
    Chunk,
    StepEnd,
    StepStart,
    ToolCall,
    ToolResult,
    TurnEnd,
    TurnStart,
    UserMessageEvent,
    turn_and_step,
)
from replay.log.values import hashable

Key = tuple[Any, ...]
"""Names one loop-written event: its type, its turn, then what tells it apart."""


def call_id_of(data: dict[str, Any]) -> Any:
    """The call id of a ``tool/result`` payload (today's shape)."""
    message = data.get("message")
    source = message.get("source") if isinstance(message, dict) else None
    if isinstance(source, dict) and "callId" in source:
        return source["callId"]
    content = message.get("content") if isinstance(message, dict) else None
    first = content[0] if isinstance(content, list) and content else None
    return first.get("toolCallId") if isinstance(first, dict) else None


KEYED = frozenset({"turn/start", "turn/end", "step/start", "step/end", "user/message", "assistant/chunk",
                   "assistant/message", "tool/call", "tool/result", "todo/write"})
"""The types of the events the loop writes itself: an event of any other type is foreign."""

class Keyer:
    """Names the events the loop writes itself, identically in a recording and in a
    run; ``None`` for an event the loop never writes (a foreign event)."""

    def __init__(self) -> None:
        self.turn: Any = None
        self._prompted: set[Any] = set()
        self._counts: Counter[Key] = Counter()

    def _nth(self, *key: Any) -> Key:
        self._counts[key] += 1
        return (*key, self._counts[key])

    def event_key(self, ev: Event) -> Key | None:
        """``key(ev.type, ev.data, ev.surface_op)``, read from a typed event's struct
        where it holds what the key needs: most events of a recording are named without
        decoding their data."""
        cls = type(ev)
        if cls is Chunk or cls is AssistantMessageEvent:
            body = ev.body  # type: ignore[attr-defined]
            return self._nth(ev.type, body.turn, body.step)
        if cls is StepStart or cls is StepEnd:
            body = ev.body  # type: ignore[attr-defined]
            return (ev.type, body.turn, body.step)
        if cls is ToolCall:
            body = ev.body  # type: ignore[attr-defined]
            return (ev.type, body.turn, body.step, body.call_id)
        if cls is ToolResult:  # typed: it appends, and its message's source names the call
            body = ev.body  # type: ignore[attr-defined]
            return (ev.type, body.turn, body.step, body.message.source.call_id)
        if cls is TurnStart or cls is TurnEnd:
            turn = ev.body.turn  # type: ignore[attr-defined]
            self.turn = turn if cls is TurnStart else None
            return (ev.type, turn)
        if cls is UserMessageEvent:
            return self._prompt(ev.body.source.kind, "append")  # type: ignore[attr-defined]
        if ev.type not in KEYED:
            return None
        return self.key(ev.type, ev.data, ev.surface_op)

    def _prompt(self, kind: Any, surface_op: Any) -> Key | None:
        """A ``user/message``: the key of its turn's prompt, or ``None`` (any other)."""
        if self.turn is None or self.turn in self._prompted or kind != "user" or surface_op != "append":
            return None
        self._prompted.add(self.turn)
        return ("user/message", self.turn)

    def key(self, type: str, data: Any, surface_op: Any = None) -> Key | None:
        if type not in KEYED or not isinstance(data, dict):
            return None
        turn, step = hashable(data.get("turn")), hashable(data.get("step"))
        if type == "turn/start":
            self.turn = turn
            return (type, turn)
        if type == "turn/end":
            self.turn = None
            return (type, turn)
        if type in ("step/start", "step/end"):
            return (type, turn, step)
        if type == "user/message":
            source = data.get("source")
            return self._prompt(source.get("kind") if isinstance(source, dict) else None, surface_op)
        if type in ("assistant/chunk", "assistant/message"):
            return self._nth(type, turn, step)
        if type == "tool/call":
            return (type, turn, step, hashable(data.get("callId")))
        if type == "tool/result":
            return (type, turn, step, hashable(call_id_of(data))) if surface_op == "append" else None
        if type == "todo/write":
            return self._nth(type, self.turn)
        return None


@dataclass
class RecordedTurn:
    steps: set[Any] = field(default_factory=set)
    end: dict[str, Any] | None = None
    """The recorded ``turn/end`` reason (``None`` while the turn is open)."""
    prompt_first: bool = False
    """The prompt was written before the first ``step/start`` (older harnesses did)."""
    answered: set[Any] = field(default_factory=set)
    """The steps that wrote an ``assistant/message`` (older harnesses wrote none for a
    cancelled stream)."""


def outcome_of(result: Event, call_time: Any) -> ToolReply:
    """What a recorded ``tool/result`` gave its call (made at ``call_time``)."""
    data = result.data
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    block = content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}
    raw = block.get("content")
    inner: list[Any] = raw if isinstance(raw, list) else []
    text = next((b["text"] for b in inner if isinstance(b, dict) and isinstance(b.get("text"), str)), "")
    extra = {k: v for k, v in data.items() if k not in ("turn", "step", "message")}
    duration = result.time - call_time if isinstance(result.time, int) and isinstance(call_time, int) else 0
    return ToolReply(text, block.get("isError") is True, list(inner), extra, max(0, duration))


@dataclass(frozen=True, slots=True)
class Foreign:
    """A foreign event as recorded: its seq, its type as read, its record as written
    (kept compact until the run replays it)."""

    seq: int
    type: str
    record: Packed


@dataclass
class Recording:
    """A recorded session, read for replay (see the module docstring)."""

    foreign: list[tuple[Key | None, Foreign]] = field(default_factory=list)
    own: dict[Key, int] = field(default_factory=dict)
    turns: dict[Any, RecordedTurn] = field(default_factory=dict)
    orders: dict[tuple[Any, Any], list[tuple[str, Any]]] = field(default_factory=dict)
    calls: dict[str, RecordedCall] = field(default_factory=dict)
    attempts: Counter[tuple[Any, Any]] = field(default_factory=Counter)
    """Model calls per step: more than one where a failed attempt was retried."""
    referenced: Container[int] | None = None
    """The seqs foreign events name (``None``: any may be): only these need a place in
    ``own`` and in a run's seq map."""

    @classmethod
    def from_events(cls, events: Iterable[Event], seed_length: int = 0,
                    referenced: Container[int] | None = None) -> Recording:
        """A recording read in one pass. ``referenced``: the seqs its events name
        (``referenced_seqs`` of a first pass), so that a long recording keeps a seq
        for those alone."""
        fold = RecordingFold(referenced)
        for ev in events:
            if ev.seq >= seed_length:
                fold.add(ev)
        return fold.recording

    def called_tools(self) -> list[str]:
        """The names of the tools the recording called, in first-call order."""
        return list(dict.fromkeys(c.name for c in self.calls.values()))


class RecordingFold:
    """``Recording.from_events`` one event at a time (a run reads its recording's
    events once, for this and for its model: ``add`` decodes an event's data only
    where it needs more than its struct holds)."""

    def __init__(self, referenced: Container[int] | None = None) -> None:
        self.recording = Recording(referenced=referenced)
        self._keyer = Keyer()
        self._anchor: Key | None = None
        self._pending_calls: dict[Any, Event] = {}

    def add(self, ev: Event) -> None:
        rec = self.recording
        key = self._keyer.event_key(ev)
        if key is None:
            rec.foreign.append((self._anchor, Foreign(ev.seq, ev.type, Packed(ev.record))))
            return
        referenced = rec.referenced
        if referenced is None or ev.seq in referenced:
            rec.own[key] = ev.seq
        self._anchor = key
        type = ev.type
        turn = key[1]
        shape = rec.turns.get(turn)
        if shape is None:
            shape = rec.turns[turn] = RecordedTurn()
        if type == "assistant/chunk":
            chunk = ev.data.get("chunk")
            if isinstance(chunk, dict) and chunk.get("type") == "finish":
                rec.attempts[(turn, turn_and_step(ev)[1])] += 1
        elif type == "user/message":
            shape.prompt_first = not shape.steps
        elif type == "assistant/message":
            shape.answered.add(turn_and_step(ev)[1])
        elif type == "step/start":
            shape.steps.add(turn_and_step(ev)[1])
        elif type == "turn/end":
            # As written: a legacy reason says more than its migrated form (an error
            # with only a message is a plugin failure, and renders differently).
            raw = ev.record.get("data")
            reason = raw.get("reason") if isinstance(raw, dict) else None
            shape.end = reason if isinstance(reason, dict) else {}
        elif type == "tool/call":
            call_id = key[3]
            self._pending_calls[call_id] = ev
            rec.orders.setdefault((turn, turn_and_step(ev)[1]), []).append(("call", call_id))
        elif type == "tool/result":
            call_id = key[3]
            rec.orders.setdefault((turn, turn_and_step(ev)[1]), []).append(("result", call_id))
            call = self._pending_calls.pop(call_id, None)
            if call is not None and isinstance(call_id, str):
                name, arguments = call.data.get("name"), call.data.get("arguments")
                rec.calls[call_id] = RecordedCall(str(name), arguments if isinstance(arguments, str) else "",
                                                  outcome_of(ev, call.time))


_SEQ_LISTS = {"session/title": "messageSeqs", "session/title-llm-request": "messageSeqs"}
"""Foreign payloads that name seqs of the session (moved to this run's seqs)."""


def referenced_seqs(events: Iterable[Event], seed_length: int = 0) -> set[int]:
    """Every seq a recording's foreign events name (those a run replays and must move
    to its own seqs): their ``sourceEventSeqs``, a replacement's range, a title's
    ``messageSeqs``. Events are told foreign as ``Recording.from_events`` tells them."""
    found: set[int] = set()
    keyer = Keyer()
    for ev in events:
        if ev.seq < seed_length or keyer.event_key(ev) is not None:
            continue
        record = ev.record
        lists = [record.get("sourceEventSeqs")]
        for type, data in ((ev.type, ev.data), (record.get("type"), record.get("data"))):  # as read, as written
            key = _SEQ_LISTS.get(type) if isinstance(type, str) else None
            if key is not None and isinstance(data, dict):
                lists.append(data.get(key))
        for values in lists:
            if isinstance(values, list):
                found.update(v for v in values if isinstance(v, int))
        op = record.get("surfaceOp")
        if isinstance(op, dict):
            found.update(op[k] for k in ("start", "end") if isinstance(op.get(k), int))
    return found


Transform = Callable[[str, Any], Any]
"""Rewrites a foreign event's data as it is replayed (or returns ``DROP``)."""


class Drop:
    """What a transform returns to leave a recorded event out of the run."""


DROP = Drop()
def _remap_seqs(values: Any, seqs: dict[int, int]) -> Any:
    if not isinstance(values, list):
        return values
    return [seqs[v] for v in values if isinstance(v, int) and v in seqs]


class Replayer:
    """Plays one recording's foreign events into the session a run is writing."""

    def __init__(self, recording: Recording, log: SessionLog, transform: Transform | None = None) -> None:
        self.recording = recording
        self.log = log
        self.transform = transform
        self.keyer = Keyer()
        self._pending: dict[Key | None, list[tuple[int, Foreign]]] = {}
        """The foreign events still to append, by anchor, each with its place in the recording."""
        self._anchors: dict[Any, list[Key]] = {}
        """The anchors of each turn (every anchor names its turn second)."""
        for place, (anchor, ev) in enumerate(recording.foreign):
            if anchor not in self._pending and anchor is not None:
                self._anchors.setdefault(anchor[1], []).append(anchor)
            self._pending.setdefault(anchor, []).append((place, ev))
        self._seqs: dict[int, int] = {}
        self._started = False

    def turn(self, turn: Any) -> RecordedTurn | None:
        return self.recording.turns.get(turn)

    def order(self, turn: Any, step: Any, call_ids: Sequence[str]) -> list[tuple[str, Any]] | None:
        """How the recording interleaved this step's calls and results, when it made
        exactly these calls (each once)."""
        order = self.recording.orders.get((turn, step))
        if order is None or len(set(call_ids)) != len(call_ids):
            return None
        if sorted(i for k, i in order if k == "call") != sorted(call_ids) \
                or sorted(i for k, i in order if k == "result") != sorted(call_ids):
            return None
        return order

    def before(self, type: str, data: Any) -> None:
        """Called before the loop writes an event: foreign events recorded before any
        loop event open the session; those left over in a turn close it."""
        if not self._started:
            self._started = True
            self._emit([None])
        if type == "turn/end" and isinstance(data, dict):
            anchors = self._anchors.get(hashable(data.get("turn")), [])
            self._emit([a for a in anchors if a is not None and a[0] != "turn/end"])

    def after(self, record: dict[str, Any]) -> None:
        """Called after the loop wrote an event: the foreign events anchored there follow."""
        key = self.keyer.key(record["type"], record["data"], record.get("surfaceOp"))
        if key is None:
            return
        recorded = self.recording.own.get(key)
        if recorded is not None:
            self._map(recorded, record["seq"])
        self._emit([key])

    def finish(self) -> None:
        """The run is over: anything still pending is appended, in recorded order."""
        self._emit(list(self._pending))

    def _emit(self, anchors: Iterable[Key | None]) -> None:
        """Append the pending foreign events anchored at ``anchors``, in recorded order.
        Each event is looked up by its anchor, never by a scan of all that are pending:
        a run is linear in the length of its recording."""
        due: list[tuple[int, Foreign]] = []
        for anchor in anchors:
            due.extend(self._pending.pop(anchor, ()))
        if len(due) > 1:
            due.sort(key=lambda item: item[0])
        for _, ev in due:
            self._append(ev)

    def _append(self, ev: Foreign) -> None:
        """Append a foreign event as it was written (a legacy shape stays legacy), its
        seq references moved to this run's seqs."""
        record = ev.record.value()
        type, data = str(record.get("type", ev.type)), record.get("data")
        if self.transform is not None:
            data = self.transform(type, data)
            if data is DROP:
                return
        key = _SEQ_LISTS.get(type)
        if key is not None and isinstance(data, dict) and key in data:
            data = {**data, key: _remap_seqs(data[key], self._seqs)}
        sources = _remap_seqs(record["sourceEventSeqs"], self._seqs) if "sourceEventSeqs" in record else None
        op = record.get("surfaceOp")
        if isinstance(op, dict) and op.get("op") == "replace":
            op = {**op, **{k: self._seqs.get(op[k], op[k]) for k in ("start", "end") if isinstance(op.get(k), int)}}
        out = self.log.append(type, data, sources=sources, surface_op=op, ignorable=record.get("ignorable") is True)
        self._map(ev.seq, out["seq"])

    def _map(self, recorded: int, written: int) -> None:
        """Where a recorded seq landed in this run, kept only if some event names it."""
        referenced = self.recording.referenced
        if referenced is None or recorded in referenced:
            self._seqs[recorded] = written
