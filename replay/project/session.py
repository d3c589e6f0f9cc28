"""What a session browser shows of a log besides its transcript: times and durations,
turns and steps, each step's model and token usage, each tool call's outcome and
duration, the models used, the standing plan's progress and the title: one fold over
the log's events, in order, holding per-turn, per-step and per-call numbers only.

The rules, each the harness's own (session-log-spec.md §2.2-2.5):

- **Times** are the events' ``time`` (milliseconds since the epoch; one that is not an
  integer is left out). The session runs from its earliest to its latest event time;
  a turn from its ``turn/start`` to its ``turn/end``; a step (its latency: one model
  call and the tools it asked for) from its ``step/start`` to its ``step/end``; a tool
  call from its ``tool/call`` to the appended ``tool/result`` that settled it.
- **Tokens** (``TokenUsage``: input, output, cache-read, cache-write, reasoning) are
  counted per step: the step's ``usage`` chunks (one per attempt, failed attempts
  included: the authoritative record), or, when it has none, its ``assistant/message``
  usage. A step is the ``turn`` and ``step`` of the event. The session's tokens are
  the sum over its steps.
- **A step's model** is its ``assistant/message``'s ``source.model``, or else the model
  of the route in force: the latest ``request/context`` model or ``request/header``
  ``config.model`` before the step ended. The session's models are its steps' models,
  each once, in the order they first appear.
- **A tool call's outcome** is ``replay.project.tools.outcome``: pending, done, failed
  or interrupted.
- **The plan's progress** is the standing plan at the end of the log
  (``replay.todo.plan``): its completed items and its items.
- **The title** is the latest ``session/title`` a provider or the user gave; a
  ``fallback`` title is the harness's cut of the first prompt (its first words), so
  the first prompt itself, whole, stands in for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from replay.log import typed
from replay.log.event import Event
from replay.project.tools import Outcome, Pairing, ToolCall, ToolResult, outcome
from replay.todo.plan import PlanChange, plan_change

SUBAGENT_TOOLS = ("subagent", "subagent_fork")
"""The tools whose call starts a child session (``session.N.jsonl``)."""
RESULT_HEAD = 512
"""Characters of a delegation's result text kept (where a child's session id is named)."""


@dataclass(slots=True)
class Usage:
    """Token counts (``TokenUsage``); the counts are disjoint (``input`` is the uncached input)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0

    @classmethod
    def read(cls, value: Any) -> Usage | None:
        """A ``TokenUsage`` record; ``None`` when it is not an object."""
        if not isinstance(value, dict):
            return None
        get = value.get  # a count: a positive integer, else nothing (inline: one read per usage chunk)
        i, o, r, w, t = (get("inputTokens"), get("outputTokens"), get("cacheReadTokens"), get("cacheWriteTokens"),
                         get("reasoningTokens"))
        return cls(i if type(i) is int and i > 0 else 0, o if type(o) is int and o > 0 else 0,
                   r if type(r) is int and r > 0 else 0, w if type(w) is int and w > 0 else 0,
                   t if type(t) is int and t > 0 else 0)

    def add(self, other: Usage) -> None:
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.reasoning += other.reasoning


def _span(start: int | None, end: int | None) -> int | None:
    return end - start if start is not None and end is not None else None


@dataclass(slots=True)
class StepFacts:
    """One step: a model call and the tools it asked for."""

    turn: Any
    step: Any
    start: int | None = None
    end: int | None = None
    model: str | None = None
    route: str | None = None
    """The model of the route in force when the step ended (the fallback of ``model``)."""
    chunk_usage: Usage | None = None
    message_usage: Usage | None = None
    failed_attempts: int = 0
    """Attempts that finished with an error (a ``finish`` chunk of kind ``error``)."""
    attempts: int = 0
    """Attempts that finished (``finish`` chunks)."""
    finish: str | None = None
    """The kind of the last ``finish`` chunk's reason (``stop``, ``tool-calls``, ``error``, …)."""

    @property
    def usage(self) -> Usage:
        """The step's tokens: its usage chunks, else its assistant message's usage."""
        return self.chunk_usage or self.message_usage or Usage()

    @property
    def shown_model(self) -> str | None:
        return self.model or self.route

    @property
    def latency(self) -> int | None:
        return _span(self.start, self.end)


@dataclass(slots=True)
class TurnFacts:
    turn: Any
    start: int | None = None
    end: int | None = None
    reason: str | None = None
    """The end reason's kind (``completed``, ``aborted``, …); ``None`` while open."""
    steps: int = 0

    @property
    def duration(self) -> int | None:
        return _span(self.start, self.end)


@dataclass(slots=True)
class CallFacts:
    """One tool call: its name, when it was made and settled, and how it ended."""

    number: int
    call_id: str
    name: str
    seq: int
    start: int | None
    end: int | None = None
    outcome: Outcome = "pending"
    result_head: str = ""
    """The start of a delegation's result text (``SUBAGENT_TOOLS`` only)."""

    @property
    def duration(self) -> int | None:
        return _span(self.start, self.end)


_STEPPED = frozenset({typed.Chunk, typed.StepStart, typed.StepEnd, typed.ToolCall, typed.AssistantMessageEvent,
                      typed.ToolResult})
"""The typed events whose ``body`` has the ``turn`` and ``step`` (safe integers) of their data."""


def may_count(ev: Event) -> bool:
    """A typed stream chunk that may be a ``usage`` or ``finish`` chunk (the others count
    for nothing: ``SessionFold.chunk``), read off its bytes when its data is not decoded:
    a string equal to ``usage`` or ``finish`` is written ``"usage"`` or ``"finish"`` in JSON
    unless a backslash escapes one of its characters. (``find``, not ``in``: a bytes
    ``in`` first tries the bytes sought as an integer, and raises and formats an error
    inside, each time.)"""
    if type(ev) is not typed.Chunk or ev.memo is not None:
        return True
    raw = ev.raw
    return raw.find(b"\\") >= 0 or raw.find(b'"usage"') >= 0 or raw.find(b'"finish"') >= 0


def _step_key(data: Any) -> tuple[Any, Any]:
    if not isinstance(data, dict):
        return None, None
    turn, step = data.get("turn"), data.get("step")
    return (turn if type(turn) is int else None), (step if type(step) is int else None)


def _text_of(content: Any) -> str | None:
    """A message's text blocks, joined by newlines (``None`` when it has none)."""
    if isinstance(content, str):
        return content or None
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
             and isinstance(b.get("text"), str)] if isinstance(content, list) else []
    return "\n".join(texts) or None


def _model_of(message: Any) -> str | None:
    source = message.get("source") if isinstance(message, dict) else None
    model = source.get("model") if isinstance(source, dict) else None
    return model if isinstance(model, str) and model else None


@dataclass
class SessionFold:
    """The fold: ``event`` every event in log order (or, for stream chunks read without
    making events, ``chunk`` and ``span``); the numbers are read off as it goes
    (``step`` and ``turns[-1]`` right after a ``step/end`` or ``turn/end``) or at the end."""

    first: int | None = None
    last: int | None = None
    turns: list[TurnFacts] = field(default_factory=list)
    steps: MutableMapping[tuple[Any, Any], StepFacts] = field(default_factory=dict)
    """Each step by its ``turn`` and ``step`` (a ``replay.project.spill.StepStore`` keeps few in memory)."""
    calls: list[CallFacts] = field(default_factory=list)
    title: str | None = None
    fallback_title: str | None = None
    prompt: str | None = None
    """The text of the first prompt a person wrote (a ``user/message`` from the user)."""
    plan: list[Any] | None = None
    changes: list[PlanChange] = field(default_factory=list)
    """Every change of the standing plan, in log order (the plan timeline's steps)."""
    route: str | None = None
    settled: tuple[int, ToolResult] | None = None
    """The call the last ``tool/result`` event settled (its number) and its result."""
    called: tuple[int, ToolCall] | None = None
    """The call the last ``tool/call`` event made (its number and call; ``None``: it read as none)."""
    pair_calls: bool = True
    """Keep each tool call's facts (``calls``, ``settled``); a reader that pairs the
    calls itself (the session page's draft) leaves them to it."""
    _pairing: Pairing = field(default_factory=Pairing)

    # -- times --------------------------------------------------------------------------

    def span(self, low: int, high: int) -> None:
        """Events whose times lie between ``low`` and ``high`` were read."""
        if self.first is None or low < self.first:
            self.first = low
        if self.last is None or high > self.last:
            self.last = high

    @property
    def duration(self) -> int | None:
        return _span(self.first, self.last)

    # -- steps --------------------------------------------------------------------------

    def step(self, data: Any) -> StepFacts:
        """The step an event's ``turn`` and ``step`` name (made when first named)."""
        return self.step_at(_step_key(data))

    def step_at(self, key: tuple[Any, Any]) -> StepFacts:
        """The step of this ``turn`` and ``step`` (made when first named)."""
        found = self.steps.get(key)
        if found is None:
            found = self.steps[key] = StepFacts(*key)
        return found

    def step_of(self, ev: Event) -> StepFacts:
        """``step(ev.data)``, from a typed event's fields when it has them."""
        if type(ev) not in _STEPPED:
            return self.step(ev.data)
        body = ev.body  # type: ignore[attr-defined]
        key = body.turn, body.step
        found = self.steps.get(key)
        if found is None:
            found = self.steps[key] = StepFacts(*key)
        return found

    def chunk(self, data: Any, chunk: Any) -> None:
        """A stream chunk's accounting: a ``usage`` chunk counts for its step, an error
        ``finish`` is a failed attempt (other chunks count for nothing here)."""
        self.chunk_at(_step_key(data), chunk)

    def chunk_at(self, key: tuple[Any, Any], chunk: Any) -> None:
        """``chunk`` of a chunk whose data names the step ``key`` (its ``turn`` and ``step``)."""
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        if kind == "usage":
            usage = Usage.read(chunk.get("usage"))
            if usage is not None:
                step = self.step_at(key)
                if step.chunk_usage is None:
                    step.chunk_usage = Usage()
                step.chunk_usage.add(usage)
        elif kind == "finish":
            reason = chunk.get("reason")
            step = self.step_at(key)
            step.attempts += 1
            finish = reason.get("kind") if isinstance(reason, dict) else reason
            step.finish = finish if isinstance(finish, str) else None
            if finish == "error":
                step.failed_attempts += 1

    # -- the fold -----------------------------------------------------------------------

    def event(self, ev: Event) -> None:
        t = ev.time
        if type(t) is int:
            if self.first is None or t < self.first:
                self.first = t
            if self.last is None or t > self.last:
                self.last = t
        else:
            t = None
        handler = _FOLDS.get(ev.type)
        if handler is not None:
            handler(self, ev, t)

    def _chunk(self, ev: Event, t: int | None) -> None:
        if not may_count(ev):
            return
        data = ev.data
        if isinstance(data, dict):
            self.chunk(data, data.get("chunk"))

    def _turn_start(self, ev: Event, t: int | None) -> None:
        if type(ev) is typed.TurnStart:
            self.turns.append(TurnFacts(ev.body.turn, t))
        else:
            data = ev.data
            self.turns.append(TurnFacts(data.get("turn") if isinstance(data, dict) else None, t))
        self._plan(ev)

    def _turn_end(self, ev: Event, t: int | None) -> None:
        turn = self.turns[-1] if self.turns and self.turns[-1].reason is None else None
        if type(ev) is typed.TurnEnd:
            body = ev.body
            if turn is None:
                turn = TurnFacts(body.turn)
                self.turns.append(turn)
            turn.end = t
            turn.reason = body.reason.kind
            return
        data = ev.data
        if turn is None:
            turn = TurnFacts(data.get("turn") if isinstance(data, dict) else None)
            self.turns.append(turn)
        turn.end = t
        reason = data.get("reason") if isinstance(data, dict) else None
        kind = reason.get("kind") if isinstance(reason, dict) else reason
        turn.reason = kind if isinstance(kind, str) else "unknown"

    def _step_start(self, ev: Event, t: int | None) -> None:
        self.step_of(ev).start = t
        if self.turns and self.turns[-1].reason is None:
            self.turns[-1].steps += 1

    def _step_end(self, ev: Event, t: int | None) -> None:
        step = self.step_of(ev)
        step.end = t
        step.route = self.route

    def _assistant(self, ev: Event, t: int | None) -> None:
        data = ev.data
        if isinstance(data, dict):
            step = self.step(data)
            step.model = _model_of(data.get("message")) or step.model
            usage = Usage.read(data.get("usage"))
            if usage is not None:
                if step.message_usage is None:
                    step.message_usage = Usage()
                step.message_usage.add(usage)

    def _route(self, model: Any) -> None:
        if isinstance(model, str) and model:
            self.route = model

    def _context(self, ev: Event, t: int | None) -> None:
        self._route(ev.data.get("model") if isinstance(ev.data, dict) else None)

    def _header(self, ev: Event, t: int | None) -> None:
        header = ev.data.get("header") if isinstance(ev.data, dict) else None
        config = header.get("config") if isinstance(header, dict) else None
        self._route(config.get("model") if isinstance(config, dict) else None)

    def _call(self, ev: Event, t: int | None) -> None:
        if not self.pair_calls:
            return
        got = self.called = self._pairing.call(ev)
        if got is not None:
            number, call = got
            self.calls.append(CallFacts(number, call.call_id, call.name, ev.seq, t))

    def _result(self, ev: Event, t: int | None) -> None:
        if not self.pair_calls:
            return
        settled = self._pairing.result(ev)
        self.settled = settled
        if settled is not None:
            number, result = settled
            call = self.calls[number]
            call.end = t
            call.outcome = outcome(result)
            if call.name in SUBAGENT_TOOLS:
                call.result_head = result.text[:RESULT_HEAD]

    def _title(self, ev: Event, t: int | None) -> None:
        data = ev.data
        title = data.get("title") if isinstance(data, dict) else None
        if isinstance(title, str):
            source = data.get("source")
            if isinstance(source, dict) and source.get("kind") == "fallback":
                self.fallback_title = title
            else:
                self.title = title

    def _user(self, ev: Event, t: int | None) -> None:
        if self.prompt is not None:  # the first prompt only: the others' data is not read
            return
        data = ev.data
        if isinstance(data, dict):
            source = data.get("source")
            if isinstance(source, dict) and source.get("kind") == "user":
                self.prompt = _text_of(data.get("content"))

    def _plan(self, ev: Event, t: int | None = None) -> None:
        change = plan_change(ev)
        if change is not None:
            self.plan = change.todos
            self.changes.append(change)

    # -- what is read off at the end ----------------------------------------------------

    def usage(self) -> Usage:
        total = Usage()
        for step in self.steps.values():
            total.add(step.usage)
        return total

    def models(self) -> list[str]:
        seen: dict[str, None] = {}
        for step in self.steps.values():
            model = step.shown_model
            if model is not None:
                seen.setdefault(model)
        return list(seen)

    def shown_title(self) -> str | None:
        """The session's title (see the module docstring)."""
        return self.title or self.prompt or self.fallback_title

    def plan_progress(self) -> tuple[int, int] | None:
        """The standing plan's completed items and items (``None``: no plan, or ``[]``)."""
        if not self.plan:
            return None
        done = sum(1 for item in self.plan if isinstance(item, dict) and item.get("status") == "completed")
        return done, len(self.plan)

    def outcomes(self) -> dict[Outcome, int]:
        counts: dict[Outcome, int] = {"done": 0, "failed": 0, "interrupted": 0, "pending": 0}
        for call in self.calls:
            counts[call.outcome] += 1
        return counts


_FOLDS: dict[str, Callable[[SessionFold, Event, int | None], None]] = {
    "assistant/chunk": SessionFold._chunk, "turn/start": SessionFold._turn_start, "turn/end": SessionFold._turn_end,
    "step/start": SessionFold._step_start, "step/end": SessionFold._step_end,
    "assistant/message": SessionFold._assistant, "request/context": SessionFold._context,
    "request/header": SessionFold._header, "tool/call": SessionFold._call, "tool/result": SessionFold._result,
    "session/title": SessionFold._title, "user/message": SessionFold._user, "todo/write": SessionFold._plan,
}
"""What each type of event tells the fold (the others: their time only)."""


def session_fold(events: Iterable[Event]) -> SessionFold:
    """The fold over a whole log's events."""
    fold = SessionFold()
    for ev in events:
        fold.event(ev)
    return fold
