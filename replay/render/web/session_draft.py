"""The draft of a session's page in the session browser (``replay view PATH -o DIR``),
made where the log is audited (this process, a worker process or a cluster worker): the
site's watch (``replay.view.site.PageWatch``) feeds a ``DraftWriter`` the audit's own items
as they are read; it writes the transcript as HTML, compressed as it goes, to a temporary
file with its places (``replay.render.web.draft_places``: memory holds the HTML of the tool
calls still waiting for their results, at most ``HELD`` events of it, and the numbers of the
steps in use, ``replay.project.spill.StepStore``: flat in the length of the log). What
only the end of the log or the rest of the archive knows is left as places in the HTML:
where each event's element starts (its findings go there), the numbers of each turn and
step (known at its end) and each delegation's link to its child's page.
``replay.render.web.session_page`` fills them.

Every event has an element whose id is its line (``L25``) and, inside it, an anchor whose id
is its seq (``seq-24``); a run of stream chunks is one element (its first line and seq) whose
``data-lines`` and ``data-seqs`` give the range the page's script resolves the others in.
Every text from the log goes through ``esc`` (the one sanitizer, then HTML escaping).
"""


from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Any

import orjson
import zstandard

from replay.findings import Finding, Severity
from replay.jsjson import parse
from replay.log.event import ChunkRun, ChunkSpan, Event
from replay.project.session import RESULT_HEAD, SUBAGENT_TOOLS, SessionFold, StepFacts, TurnFacts, may_count
from replay.project.spill import Spill, StepStore
from replay.project.tools import Outcome, Pairing, ToolCall, ToolResult, outcome
from replay.project.transcript import message_of
from replay.render.choices import Locale
from replay.render.generation import generation_of
from replay.render.web.audited import Audited
from replay.render.web.draft_places import BODY, Places
from replay.render.web.draft_places import Slot as _Slot
from replay.render.web.locale import formatter, interpolate
from replay.render.web.page import (
    CLIP,
    clipped_pre,
    esc,
    message_html,
    panel_section,
    row_body_html,
    row_line_html,
    timeline_chunks,
)
from replay.render.web.page_strings import PageStrings, page_strings
from replay.render.web.panel import panel_fields
from replay.render.web.row import row_fields
from replay.render.web.site_strings import SiteStrings, count, site_strings
from replay.render.web.timeline import steps_of
from replay.render.web.timing import Timing, timing_html
from replay.words import by_count

HELD = 4096
"""Events whose HTML waits at most for an earlier tool call's result; past it, the
oldest call waiting is shown without its result (its result, when it comes, is shown
where it comes, as an event of its own)."""
BRIEF = 160
"""Characters of an event's one-line summary."""
DATA_CLIP = 4096
"""Characters of an event's data shown under its line (an event the transcript does not
show: its data is often a copy of what it does, a prompt, a request's header)."""
FLUSH = 1 << 16
"""Bytes of HTML gathered before they are compressed."""
MAX_TOOLS = 200
"""Tool names offered by the page's tool filter, at most."""
SEVERITIES = (Severity.ERROR, Severity.WARNING, Severity.POLICY)
_ACCOUNTED = ("usage", "finish")
"""The stream chunks that count (``SessionFold.chunk``); a tuple, not a set: a chunk's
type may be a list or an object, which is no set's key."""


# -- what the draft carries ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Delegation:
    """A ``subagent`` / ``subagent_fork`` call: its number among the log's calls, and the
    start of its result (where a child's session id may be named)."""

    number: int
    name: str
    result_head: str
    failed: bool
    """The call ended in an error (it may have started no child)."""


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """The numbers of a session: its header, page header and index row."""

    session_id: str | None
    parent: str | None
    cwd: str | None
    created: int | None
    start: int | None
    duration: int | None
    turns: int
    steps: int
    calls: int
    outcomes: tuple[int, int, int, int]
    """Calls done, failed, interrupted, pending."""
    tokens: tuple[int, int, int, int, int]
    """Input, output, cache-read, cache-write and reasoning tokens."""
    models: tuple[str, ...]
    plan: tuple[int, int] | None
    """The standing plan's completed items and items (``None``: no plan)."""
    title: str | None
    generation: str | None
    """The profile ``--profile auto`` would choose (``None``: the log does not tell)."""
    tools: tuple[str, ...]
    delegations: tuple[Delegation, ...]


@dataclass(frozen=True, slots=True)
class PageDraft:
    """A page made where its log was audited, waiting for what only the site knows:
    the transcript's HTML (zstd-compressed when it is large), where its elements start,
    and the places left in it, all in ``store`` (``replay.render.web.draft_places``)."""

    facts: SessionFacts
    store: Spill
    compressed: bool
    """The HTML (the ``BODY`` blocks) is one zstd frame, else its bytes as they are."""
    links: tuple[tuple[int, int], ...]
    """Where each delegation's link to its child's page goes: offset, call number."""
    timeline: Packed
    """The plan timeline's HTML."""
    timing: str
    """Where the time and the tokens went (``timing.timing_html``)."""
    panel: str


Packed = tuple[bool, bytes]
"""UTF-8 bytes, zstd-compressed (``True``) when they were more than ``FLUSH``."""


def pack(data: bytes) -> Packed:
    if len(data) <= FLUSH:
        return False, data
    return True, zstandard.ZstdCompressor(level=1).compress(data)


def unpacked(blob: Packed) -> Iterator[bytes]:
    """The bytes of a ``Packed``, in pieces, never joined."""
    compressed, data = blob
    if not compressed:
        yield data
        return
    reader = zstandard.ZstdDecompressor().stream_reader(data)
    while True:
        piece = reader.read(FLUSH)
        if not piece:
            return
        yield piece


# -- the draft ----------------------------------------------------------------------------


class _Link:
    """The place of a delegation's link to its child's page (filled by the site)."""

    __slots__ = ("number",)

    def __init__(self, number: int) -> None:
        self.number = number


Piece = str | _Slot | _Link


class _Part:
    """One element of the transcript, waiting to be written: its first line (``None``:
    markup between elements), its pieces, the lines it holds besides its first, and
    for a tool call, the row still waiting for its result."""

    __slots__ = ("inner", "line", "pieces", "row")

    def __init__(self, line: int | None, pieces: list[Piece], row: _Row | None = None) -> None:
        self.line = line
        self.pieces = pieces
        self.inner: list[int] = []
        self.row = row


class _Row:
    """A tool call's row while its result is awaited."""

    __slots__ = ("call", "line", "number", "part", "result_line", "result_seq", "time")

    def __init__(self, number: int, call: ToolCall, line: int, time: int | None) -> None:
        self.number = number
        self.call = call
        self.line = line
        self.time = time
        self.part = _Part(line, [], self)
        self.result_line: int | None = None
        self.result_seq: int | None = None


def _anchor(seq: int) -> str:
    """The anchor of an event's seq, inside its element (``#seq-24``)."""
    return f"<span class=\"anchor\" id=\"seq-{seq}\"></span>"


def _brief(data: Any, text: str) -> str:
    """An event's one-line summary: its first non-empty string field, else its data
    (``text``: its data as JSON)."""
    if isinstance(data, dict):
        for value in data.values():
            if isinstance(value, str) and value.strip():
                end = value.find("\n")
                line = value if end < 0 else value[:end]
                return line[:BRIEF] + ("…" if len(line) > BRIEF else "")
    return text[:BRIEF] + ("…" if len(text) > BRIEF else "")


def shown_result(result: ToolResult, limit: int = CLIP) -> ToolResult:
    """``clip(result, limit)`` as a row reads it (its ``output``, ``clipped_from`` and
    outcome), its output joined once: one text block holding it (cut to ``limit``)."""
    output = result.output
    if output is None or (len(result.blocks) == 1 and len(output) <= limit):
        return result  # one block: its output is its text, or that block as JSON
    if len(output) <= limit:
        return replace(result, blocks=({"type": "text", "text": output},))
    return replace(result, blocks=({"type": "text", "text": output[:limit]},), clipped_from=len(output))


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits, a lone surrogate
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class DraftWriter:
    """One log's page, drafted from its items (events, chunk runs and spans, and the
    reading's findings, as the audit reads them) batch by batch: ``batch``, then
    ``done``. ``header``: the log's session header record."""

    def __init__(self, header: dict[str, Any] | None, locale: Locale) -> None:
        self.locale = locale
        self.ps: PageStrings = page_strings(locale)
        self.ss: SiteStrings = site_strings(locale)
        ss = self.ss
        self._stream_label = formatter(by_count(2, ss.stream), "count", "first", "last")
        self._stream_label_one = formatter(by_count(1, ss.stream), "count", "first", "last")
        self._turn_head = formatter(ss.turn_head, "turn")
        self._turn_end_text = formatter(ss.turn_end, "turn", "reason", "duration")
        self._step_head = formatter(ss.step_head, "step")
        self._step_end_text = formatter(ss.step_end, "step", "latency")
        self._step_label = formatter(ss.step_label, "turn", "step")
        self._tokens_line = formatter(ss.tokens_line, "input", "output", "cache_read", "reasoning")
        self.header = header if header is not None else {}
        self.fold = SessionFold(steps=StepStore(), pair_calls=False)
        self.pairing = Pairing()
        self.outcomes: dict[Outcome, int] = {"done": 0, "failed": 0, "interrupted": 0}
        """Calls settled, by outcome (the others are pending)."""
        self.delegations: dict[int, Delegation] = {}
        self.generation: str | None = None
        self.tools: dict[str, None] = {}
        self.rows: dict[int, _Row] = {}
        self.parts: deque[_Part] = deque()
        self.turn_open = False
        self.turn_slot: tuple[_Slot, TurnFacts] | None = None
        self.step_slots: dict[tuple[Any, Any], _Slot] = {}
        self.stream: list[int] | None = None
        """A run of stream chunks not written yet: first line, last line, least and greatest seq, count."""
        self._z: Any = None
        self.store = Spill()
        self.places = Places(self.store)
        self._held: list[bytes] = []
        self._held_size = 0
        self.size = 0
        self.links: list[tuple[int, int]] = []
        self.last_line = 0
        self.suspects: list[int] = []
        self.timing = Timing()
        self.step_lines: dict[tuple[Any, Any], int] = {}
        """The first line of each step not ended yet."""

    # -- writing ----------------------------------------------------------------------

    def _emit(self, line: int | None, text: str) -> None:
        """An element, written now unless an earlier call's row waits for its result."""
        if self.parts:
            self._emit_part(_Part(line, [text]))
            return
        if line is not None:
            self._start(line)
        self._put(text)

    def _emit_part(self, part: _Part) -> None:
        self.parts.append(part)
        self._flush()

    def _flush(self) -> None:
        parts = self.parts
        while parts and parts[0].row is None:
            self._write(parts.popleft())
        if len(parts) > HELD:  # the oldest call waits too long: shown without its result
            self._settle(parts[0])
            self._flush()

    def _start(self, line: int) -> None:
        """An element that holds ``line`` starts here."""
        if line > self.last_line:
            self.places.start(line, self.size)
            self.last_line = line
        else:
            self.places.inner(line, self.size)

    def _write(self, part: _Part) -> None:
        if part.line is not None:
            self._start(part.line)
        for held in part.inner:
            self.places.inner(held, self.size)
        text: list[str] = []
        for piece in part.pieces:
            if isinstance(piece, str):
                text.append(piece)
                continue
            self._put("".join(text))
            text = []
            if isinstance(piece, _Slot):
                self.places.slot(self.size, piece)
            else:
                self.links.append((self.size, piece.number))
        self._put("".join(text))

    def _put(self, text: str) -> None:
        if text:
            data = text.encode("utf-8", "replace")
            size = len(data)
            self.size += size
            self._held.append(data)
            self._held_size += size
            if self._held_size >= FLUSH:
                self._compress()

    def _compress(self) -> None:
        if self._z is None:
            self._z = zstandard.ZstdCompressor(level=1).compressobj()
        self.store.put(BODY, self._z.compress(b"".join(self._held)))
        self._held = []
        self._held_size = 0

    # -- the items --------------------------------------------------------------------

    def batch(self, items: Sequence[Any]) -> None:
        for item in items:
            kind = type(item)
            if kind is Finding:
                self._suspect(item)
                continue
            if self.suspects:
                self._not_events(item.line)
            if kind is ChunkSpan:
                self._span(item)
            elif kind is ChunkRun:
                self._run(item)
            elif item.type == "assistant/chunk":  # an event: typed, or its dict view
                self._chunk_event(item)
            else:
                if self.stream is not None:
                    self._end_stream()
                self._event(item)

    def _stream_add(self, first: int, last: int, low: int, high: int, n: int) -> None:
        stream = self.stream
        if stream is None:
            self.stream = [first, last, low, high, n]
            return
        stream[1] = last
        stream[2] = min(stream[2], low)
        stream[3] = max(stream[3], high)
        stream[4] += n

    def _chunk_event(self, ev: Event) -> None:
        self.fold.event(ev)
        self._stream_add(ev.line, ev.line, ev.seq, ev.seq, 1)

    def _span(self, span: ChunkSpan) -> None:
        fold = self.fold
        chunks = span.chunks
        times = [ev.time for ev in chunks]  # safe integers (see ChunkSpan)
        fold.span(min(times), max(times))
        for ev in chunks:
            if not may_count(ev):
                continue
            data = ev.data
            chunk = data.get("chunk")
            if type(chunk) is dict and chunk.get("type") in _ACCOUNTED:
                fold.chunk(data, chunk)
        n = len(chunks)
        self._stream_add(span.line, span.line + n - 1, span.seq0, span.seq0 + n - 1, n)

    def _run(self, run: ChunkRun) -> None:
        times = list(accumulate(run.dt, initial=run.time0))  # dt: safe integers (see ChunkRun)
        low, high = min(times), max(times)
        if type(low) is int and type(high) is int:
            self.fold.span(low, high)
        self._stream_add(run.line, run.line, run.seq0, run.last_seq, run.count)

    def _end_stream(self) -> None:
        stream = self.stream
        if stream is None:
            return
        self.stream = None
        first, last, low, high, n = stream
        label = (self._stream_label_one if n == 1 else self._stream_label)(count=count(n), first=low, last=high)
        self._emit(first, f"<div class=\"ev stream log\" id=\"L{first}\" data-lines=\"{first} {last}\" "
                          f"data-seqs=\"{low} {high}\">{_anchor(low)}{esc(label)}</div>\n")

    def _suspect(self, found: Finding) -> None:
        """A line the reading found damaged or too long may have given no event."""
        if found.line is not None and found.line > 1 and (found.tail or found.rule == "LIMIT"):
            self.suspects.append(found.line)

    def _not_events(self, line: int | None) -> None:
        """The damaged lines before ``line`` gave no event: each gets an element of its
        own, where its findings are shown (one that did, at ``line``, is no suspect)."""
        left: list[int] = []
        for suspect in sorted(set(self.suspects)):
            if line is not None and suspect >= line:
                if suspect > line:
                    left.append(suspect)
                continue
            self._end_stream()
            self._emit(suspect, f"<div class=\"ev bad\" id=\"L{suspect}\">"
                                f"{esc(interpolate(self.ss.not_an_event, line=suspect))}</div>\n")
        self.suspects = left

    def _event(self, ev: Event) -> None:
        fold = self.fold
        fold.event(ev)
        if self.generation is None:
            self.generation = generation_of(ev)
        kind = ev.type
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, ev)
        else:
            message = message_of(ev) if kind in ("user/message", "assistant/message") else None
            if message is not None:
                self._emit(ev.line, f"<div class=\"ev msg\" id=\"L{ev.line}\">{_anchor(ev.seq)}"
                                    f"{message_html(message, self.ps)}</div>\n")
            else:
                self._log_event(ev)

    def _log_event(self, ev: Event) -> None:
        """An event the transcript does not show: one collapsed line, its data inside."""
        kind = ev.type
        replaced = kind in ("user/message", "assistant/message", "tool/result")  # not appended
        value = ev.data
        data = _json(value)
        brief = self.ss.replaced if replaced else _brief(value, data)
        kind = esc(kind)
        self._emit(ev.line, f"<details class=\"ev log\" id=\"L{ev.line}\" data-type=\"{kind}\"><summary>"
                            f"{_anchor(ev.seq)}<span class=\"type\">{kind}</span> <span class=\"brief\">{esc(brief)}"
                            f"</span></summary>{clipped_pre(data, len(data), self.ps, DATA_CLIP)}</details>\n")

    def _turn_start(self, ev: Event) -> None:
        parts: list[Piece] = []
        if self.turn_open:
            parts.append("</section>\n")
        self.turn_open = True
        turn = self.fold.turns[-1]
        if self.turn_slot is not None:  # a turn that never ended: its numbers are never known
            self.turn_slot[0].text = ""
        slot = _Slot()
        self.turn_slot = (slot, turn)
        number = esc(_shown(turn.turn))
        name = self._turn_head(turn=number)
        parts += [f"<section class=\"turnBlock\" data-turn=\"{number}\">"
                  f"<h2 class=\"ev turnHead\" id=\"L{ev.line}\" tabindex=\"-1\">{_anchor(ev.seq)}{name} "
                  "<span class=\"stats\">",
                  slot, "</span></h2>\n"]
        self._emit_part(_Part(ev.line, parts))

    def _turn_stats(self, slot: _Slot, turn: TurnFacts) -> None:
        reason = turn.reason if turn.reason is not None else self.ss.turn_open
        duration = self.ss.duration(turn.duration) if turn.reason is not None else self.ss.unknown
        slot.text = esc(interpolate(self.ss.turn_stats, start=self.ss.time(turn.start), duration=duration,
                                    reason=reason))

    def _turn_end(self, ev: Event) -> None:
        turn = self.fold.turns[-1]
        if self.turn_slot is not None and self.turn_slot[1] is turn:
            self._turn_stats(*self.turn_slot)
            self.turn_slot = None
            self.places.settle()
        error = " data-error=\"true\"" if turn.reason == "error" else ""
        text = self._turn_end_text(turn=_shown(turn.turn), reason=turn.reason or "",
                                   duration=self.ss.duration(turn.duration))
        pieces: list[Piece] = [f"<div class=\"ev turnEnd\" id=\"L{ev.line}\" data-reason=\"{esc(turn.reason or '')}\""
                               f"{error}>{_anchor(ev.seq)}{esc(text)}</div>\n"]
        if self.turn_open:
            pieces.append("</section>\n")
            self.turn_open = False
        self._emit_part(_Part(ev.line, pieces))

    def _step_start(self, ev: Event) -> None:
        step = self.fold.step_of(ev)
        slot = _Slot()
        before = self.step_slots.get((step.turn, step.step))
        if before is not None:  # a step started again: the first start's numbers are never known
            before.text = ""
        self.step_slots[(step.turn, step.step)] = slot
        self.step_lines[(step.turn, step.step)] = ev.line
        name = self._step_head(step=esc(_shown(step.step)))
        self._emit_part(_Part(ev.line, [f"<div class=\"ev stepHead\" id=\"L{ev.line}\">{_anchor(ev.seq)}{name} "
                                        "<span class=\"stats\">", slot, "</span></div>\n"]))

    def _step_stats(self, step: StepFacts, latency: str | None = None) -> str:
        """A step's numbers (``latency``: its latency as shown, when the caller has it)."""
        usage = step.usage
        tokens = self._tokens_line(input=count(usage.input), output=count(usage.output),
                                   cache_read=count(usage.cache_read), reasoning=count(usage.reasoning))
        if usage.cache_write:
            tokens += interpolate(self.ss.cache_write, cache_write=count(usage.cache_write))
        text = " · ".join((step.shown_model or self.ss.unknown, tokens,
                           self.ss.duration(step.latency) if latency is None else latency))
        if step.failed_attempts:
            text += interpolate(by_count(step.failed_attempts, self.ss.step_failed_attempts),
                                count=step.failed_attempts)
        return esc(text)

    def _step_end(self, ev: Event) -> None:
        step = self.fold.step_of(ev)
        slot = self.step_slots.pop((step.turn, step.step), None)
        latency = self.ss.duration(step.latency)
        usage = step.usage
        self.timing.step(self._step_label(turn=_shown(step.turn), step=_shown(step.step)),
                         self.step_lines.pop((step.turn, step.step), ev.line), step.latency, usage.input, usage.output)
        if slot is not None:
            slot.text = self._step_stats(step, latency)
            self.places.settle()
        text = self._step_end_text(step=esc(_shown(step.step)), latency=latency)
        self._emit(ev.line, f"<div class=\"ev stepEnd log\" id=\"L{ev.line}\">{_anchor(ev.seq)}{text}</div>\n")

    def _call(self, ev: Event) -> None:
        got = self.pairing.call(ev)
        if got is None:
            self._log_event(ev)
            return
        number, call = got
        if len(self.tools) < MAX_TOOLS:
            self.tools.setdefault(call.name)
        if call.name in SUBAGENT_TOOLS:
            self.delegations[number] = Delegation(number, call.name, "", False)
        row = _Row(number, call, ev.line, ev.time if type(ev.time) is int else None)
        self.rows[number] = row
        self.parts.append(row.part)

    def _result(self, ev: Event) -> None:
        """A result settles its call's row; one that settles nothing, or a call shown
        already without it, is an event of its own."""
        settled = self.pairing.result(ev)
        if settled is not None:
            self._settled(*settled)
        row = self.rows.get(settled[0]) if settled is not None else None
        if settled is None or row is None:
            self._log_event(ev)
            return
        row.call = replace(row.call, result=shown_result(settled[1]))
        row.result_line, row.result_seq = ev.line, ev.seq
        self._settle(row.part, ev.time if type(ev.time) is int else None)
        self._flush()

    def _settled(self, number: int, result: ToolResult) -> None:
        """What the page counts of a call settled (``replay.project.session.CallFacts``)."""
        ended = outcome(result)
        self.outcomes[ended] += 1
        delegation = self.delegations.get(number)
        if delegation is not None:
            self.delegations[number] = replace(delegation, result_head=result.text[:RESULT_HEAD],
                                               failed=ended == "failed")

    def _settle(self, part: _Part, end: int | None = None) -> None:
        """A row's HTML, now that its result is known (or will not be waited for)."""
        row = part.row
        assert row is not None
        part.row = None
        self.rows.pop(row.number, None)
        call = row.call
        parsed = parse(call.args_raw) if call.args_raw else None
        fields = row_fields(call, self.locale, parsed)
        duration = end - row.time if end is not None and row.time is not None else None
        self.timing.call(row.number, call.name, row.line, duration)
        tail = "" if duration is None else (f"<span class=\"dur\" data-ms=\"{duration}\">"
                                            f"{esc(self.ss.duration(duration))}</span>")
        res = ""
        if row.result_line is not None and row.result_seq is not None:
            res = f"<div class=\"res\" id=\"L{row.result_line}\">{_anchor(row.result_seq)}</div>"
            part.inner.append(row.result_line)
        error = " data-error=\"true\"" if fields.state == "error" else ""
        part.pieces = [
            f"<details class=\"ev tool\" id=\"L{row.line}\" data-variant=\"others\" data-tool=\"{esc(fields.tool)}\" "
            f"data-state=\"{fields.state}\" data-outcome=\"{outcome(call.result)}\" "
            f"data-call-id=\"{esc(fields.call_id)}\"{error}>",
            row_line_html(fields, self.ps, lead=_anchor(call.seq), tail=tail),
            row_body_html(call, fields, self.ps, tail=res, parsed=parsed)
            or (f"<div class=\"body\">{res}</div>" if res else ""),
            "</details>\n",
        ]
        if call.name in SUBAGENT_TOOLS:
            part.pieces.append(_Link(row.number))

    # -- the end ----------------------------------------------------------------------

    def done(self, report: Audited | None = None) -> PageDraft:
        self._not_events(None)
        self._end_stream()
        while self.parts:
            if self.parts[0].row is not None:
                self._settle(self.parts[0])
            self._write(self.parts.popleft())
        fold = self.fold
        if self.turn_slot is not None:
            self._turn_stats(*self.turn_slot)
        for key, slot in self.step_slots.items():
            slot.text = self._step_stats(fold.steps[key])
        if self.turn_open:
            self._put("</section>\n")
        if self._z is None:
            self.store.put(BODY, b"".join(self._held))
        else:
            self._compress()
            self.store.put(BODY, self._z.flush())
        self.places.done()
        timeline = pack(
            "".join(timeline_chunks(steps_of(self.fold.changes, self.locale), self.ps)).encode("utf-8", "replace"))
        draft = PageDraft(
            facts=self._facts(),
            store=self.store,
            compressed=self._z is not None,
            links=tuple(self.links),
            timeline=timeline,
            timing=timing_html(self.timing, self.ss),
            panel=panel_section(panel_fields(fold.plan, self.locale), self.ps),
        )
        if isinstance(fold.steps, StepStore):
            fold.steps.close()
        return draft

    def _facts(self) -> SessionFacts:
        fold = self.fold
        header = self.header
        usage = fold.usage()
        outcomes = self.outcomes
        calls = self.pairing.calls
        return SessionFacts(
            session_id=_text(header.get("id")),
            parent=_text(header.get("parentSession")),
            cwd=_text(header.get("cwd")),
            created=header.get("createdAt") if type(header.get("createdAt")) is int else None,
            start=fold.first,
            duration=fold.duration,
            turns=len(fold.turns),
            steps=len(fold.steps),
            calls=calls,
            outcomes=(outcomes["done"], outcomes["failed"], outcomes["interrupted"], calls - sum(outcomes.values())),
            tokens=(usage.input, usage.output, usage.cache_read, usage.cache_write, usage.reasoning),
            models=tuple(fold.models()),
            plan=fold.plan_progress(),
            title=fold.shown_title(),
            generation=self.generation,
            tools=tuple(sorted(self.tools)),
            delegations=tuple(self.delegations.values()),
        )



_HANDLERS: dict[str, Callable[[DraftWriter, Event], None]] = {
    "turn/start": DraftWriter._turn_start, "turn/end": DraftWriter._turn_end, "step/start": DraftWriter._step_start,
    "step/end": DraftWriter._step_end, "tool/call": DraftWriter._call, "tool/result": DraftWriter._result}
"""The events the transcript shows in a way of their own (the others: messages, or a
line of their own)."""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _shown(value: Any) -> str:
    """A value from the log as text (a string as it is, anything else as JSON)."""
    if type(value) is int:
        return str(value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
