"""The event-sourced loop: turns of steps, a model call per step, tools run for real.

Per turn it writes ``turn/start`` → per step: ``step/start``, the prompt as
``user/message`` (first step), ``request/header`` (when the offered tools change),
the model's ``assistant/chunk``s, ``assistant/message``, then per tool call
``tool/call`` → (the tool's own events, e.g. ``todo/write``) → ``tool/result``, and
``step/end``; a step that asked for tools is followed by another; finally
``turn/end``. A model call that fails ends the turn in an error; one that hangs ends
it cancelled. Every log it writes from a script passes ``replay audit`` with no error
findings.

A session played from a recording (``recording``) also gets what the loop does not
write itself, at the point the recording had it (``replay.agent.recording``): its
request headers (the tools it offered), titles, hooks, injected messages; its steps
follow the recording's (a turn continues or ends where the recorded one did); and its
tool calls are dispatched in the recorded order. With a title model
(``replay.agent.title``), the recording's title requests are answered by that model
and its titles replace the recorded ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from replay.agent.model import Chunk, Model, ModelCall, ModelError, failure_of
from replay.agent.recording import DROP, RecordedTurn, Recording, Replayer
from replay.agent.title import REQUEST, TITLE, TitleModel
from replay.agent.tools import Tool, ToolContext, ToolError, ToolReply
from replay.agent.writer import Ids, SessionLog

MAX_STEPS = 50

ChildFactory = Callable[["Agent", str, str | None], ToolReply]


class RunError(Exception):
    """A run that cannot go on. ``where`` names the session (for a child), the turn,
    the step, and the tool call when one is to blame."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


@dataclass
class Agent:
    """One session's loop."""

    log: SessionLog
    model: Model
    tools: Sequence[Tool]
    ids: Ids
    provider: str = "replay"
    model_name: str = "scripted"
    system: str | None = None
    spawn_child: ChildFactory | None = None
    recording: Recording | None = None
    label: str | None = None
    """How errors name this session (``child 1``); the primary needs none."""
    title_model: TitleModel | None = None
    """The title route: answers the recording's title requests (a recorded session only)."""
    persist_throw: bool = False
    """Persist a stream that threw as an error ``finish`` chunk, as today's harness does (its 2026-07 generation
    persisted none)."""
    turn: int = 0
    _last_header: dict[str, Any] | None = field(default=None, repr=False)
    replay: Replayer | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.recording is not None:
            self.replay = Replayer(self.recording, self.log, self._replayed)

    def _tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    def append(self, type: str, data: dict[str, Any], *, surface: bool = False,
               sources: list[int] | None = None) -> dict[str, Any]:
        """Write one event of this loop (tools write theirs through here too)."""
        if self.replay is not None:
            self.replay.before(type, data)
        record = self.log.append(type, data, surface=surface, sources=sources)
        if self.replay is not None:
            self.replay.after(record)
        return record

    def finish(self) -> None:
        """The session is done: recorded events still pending are appended."""
        if self.replay is not None:
            self.replay.finish()

    def _replayed(self, type: str, data: Any) -> Any:
        """A recorded event as this run writes it: request headers offer this run's
        tools; title requests are asked of the title model, whose answers title the
        provider titles that follow (no answer: no title)."""
        if type == "request/header":
            return self._offered(type, data)
        if self.title_model is None:
            return data
        if type == REQUEST:
            try:
                self.title_model.request(data)
            except ModelError as exc:
                turn = f"turn {self.turn}" if self.turn else "before the first turn"
                where = ", ".join(p for p in (self.label, turn, "the title request") if p)
                raise RunError(where, f"the title model: {exc}") from None
        elif type == TITLE and self.title_model.answers(data):
            title = self.title_model.title(data)
            return DROP if title is None else {**data, "title": title}
        return data

    def _offered(self, type: str, data: Any) -> Any:
        """A recorded request header with each tool this run models presenting itself
        (``todo_write``'s policy sentence follows this run's policy)."""
        header = data.get("header") if type == "request/header" and isinstance(data, dict) else None
        tools = header.get("tools") if isinstance(header, dict) else None
        if not isinstance(header, dict) or not isinstance(tools, list):
            return data
        offered = []
        for entry in tools:
            tool = self._tool(entry["name"]) if isinstance(entry, dict) and isinstance(entry.get("name"), str) else None
            offered.append(tool.offered(entry) if tool is not None else entry)
        return {**data, "header": {**header, "tools": offered}}

    def _header(self) -> dict[str, Any]:
        header: dict[str, Any] = {"config": {"provider": self.provider, "model": self.model_name}}
        if self.system:
            header["system"] = self.system
        tools = [t.schema() for t in self.tools]
        if tools:
            header["tools"] = tools
        return header

    def _where(self, turn: int, step: int, call: str | None = None) -> str:
        return ", ".join(p for p in (self.label, f"turn {turn}", f"step {step}", call) if p)

    def run_turn(self, prompt: str) -> str:
        """Run one user turn; return the final assistant text."""
        self.turn += 1
        turn = self.turn
        self.append("turn/start", {"turn": turn})
        recorded = self.replay.turn(turn) if self.replay is not None else None
        final_text = ""
        step = 1
        while True:
            if recorded is not None and recorded.end is not None and step not in recorded.steps:
                return self._end(turn, recorded.end, final_text)  # cancelled, blocked, … where the recording was
            if step > MAX_STEPS:
                return self._end(turn, {"kind": "error", "error": {
                    "message": f"the turn exceeded {MAX_STEPS} steps", "code": "UNKNOWN"}}, final_text)
            ended, more, text = self._step(turn, step, prompt, recorded)
            final_text = text or final_text
            if ended is not None:
                return self._end(turn, ended, final_text)
            if not more:
                reason = recorded.end if recorded is not None and recorded.end is not None else {"kind": "completed"}
                return self._end(turn, reason, final_text)
            step += 1

    def _end(self, turn: int, reason: dict[str, Any], text: str) -> str:
        self.append("turn/end", {"turn": turn, "reason": reason})
        return text

    def _step(self, turn: int, step: int, prompt: str,
              recorded: RecordedTurn | None) -> tuple[dict[str, Any] | None, bool, str]:
        """One step. Returns (the turn's end reason if the step ended the turn, whether
        another step follows, the step's text)."""
        prompt_first = step == 1 and recorded is not None and recorded.prompt_first
        if prompt_first:
            self._prompt(prompt)
        self.append("step/start", {"turn": turn, "step": step})
        if step == 1 and not prompt_first:
            self._prompt(prompt)
        if self.replay is None:
            header = self._header()
            if header != self._last_header:
                reason = "initial" if self._last_header is None else "change"
                self.append("request/header", {"header": header, "reason": reason})
                self._last_header = header
        call, seqs = self._call_model(turn, step)
        finish = _finish(call.chunks)
        failure = call.failure or _failure(finish)
        recorded_end = recorded.end if recorded is not None else None
        if failure is not None:
            self.append("step/end", {"turn": turn, "step": step})
            if recorded_end is not None and recorded_end.get("kind") == "error":
                return recorded_end, False, ""
            return {"kind": "error", "error": failure}, False, ""
        if call.hang:
            partial = _partial_blocks(call.chunks)
            if partial and (recorded is None or step in recorded.answered):
                self.append("assistant/message", {"turn": turn, "step": step,
                                                  "message": self._message(partial, call),
                                                  "interrupted": True}, surface=True, sources=seqs)
            self.append("step/end", {"turn": turn, "step": step})
            if recorded_end is not None and recorded_end.get("kind") == "aborted":
                return recorded_end, False, ""
            return {"kind": "aborted", "reason": {"kind": "user"}}, False, ""
        content = _blocks(call.chunks)
        usage = next((c["usage"] for c in call.chunks if c.get("type") == "usage"), None)
        data: dict[str, Any] = {"turn": turn, "step": step, "message": self._message(content, call)}
        if usage is not None:
            data["usage"] = usage
        self.append("assistant/message", data, surface=True, sources=seqs)
        text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        calls = [b for b in content if b.get("type") == "tool-call"]
        self._dispatch(turn, step, calls)
        self.append("step/end", {"turn": turn, "step": step})
        if recorded is not None and recorded.end is not None:
            return None, step + 1 in recorded.steps, text  # the recording continued (a hook) or stopped here
        if calls:
            return None, True, text
        return ({"kind": "max-tokens"} if finish.get("kind") == "max-tokens" else None), False, text

    def _call_model(self, turn: int, step: int) -> tuple[ModelCall, list[int]]:
        """The step's model call, its chunks written (their seqs returned). A failed
        attempt the recording retried is followed by the retry."""
        attempt = 0
        while True:
            try:
                call = self.model.next_call()
            except ModelError as exc:
                raise RunError(self._where(turn, step), str(exc)) from None
            attempt += 1
            chunks = call.chunks
            if call.failure is not None and self.persist_throw and _finish(chunks).get("kind") != "error":
                chunks = [*chunks, {"type": "finish", "reason": {"kind": "error", "failure": call.failure}}]
            seqs = [self.append("assistant/chunk", {"turn": turn, "step": step, "chunk": c})["seq"]
                    for c in chunks]
            failed = call.failure is not None or _failure(_finish(call.chunks)) is not None
            retried = self.replay is not None and self.replay.recording.attempts[(turn, step)] > attempt
            if not failed or call.hang or not retried:
                return call, seqs

    def _prompt(self, prompt: str) -> None:
        self.append("user/message", {"id": self.ids.next(), "role": "user",
                                     "content": [{"type": "text", "text": prompt}], "source": {"kind": "user"}},
                    surface=True)

    def _message(self, content: list[dict[str, Any]], call: ModelCall) -> dict[str, Any]:
        source: dict[str, Any] = {"kind": "model", "provider": self.provider, "model": self.model_name}
        recorded = call.source
        if recorded is not None and all(isinstance(recorded.get(k), str) and recorded[k]
                                        for k in ("provider", "model")):
            source = dict(recorded)
        return {"id": self.ids.next(), "role": "assistant", "content": content, "source": source}

    def _dispatch(self, turn: int, step: int, blocks: list[dict[str, Any]]) -> None:
        """Write each call and its result: in the recorded order where the recording
        made exactly these calls, else each result right after its call."""
        ids = [str(b.get("id")) for b in blocks]
        order = self.replay.order(turn, step, ids) if self.replay is not None else None
        if order is None:
            for block in blocks:
                self._result(turn, step, block, self._call(turn, step, block))
            return
        by_id = dict(zip(ids, blocks, strict=True))
        call_seqs: dict[str, int] = {}
        for kind, call_id in order:
            if kind == "call":
                call_seqs[call_id] = self._call(turn, step, by_id[call_id])
            else:
                self._result(turn, step, by_id[call_id], call_seqs[call_id])

    def _call(self, turn: int, step: int, block: dict[str, Any]) -> int:
        arguments = block.get("arguments") if isinstance(block.get("arguments"), str) else ""
        record = self.append("tool/call", {"turn": turn, "step": step, "callId": str(block.get("id")),
                                           "name": str(block.get("name")), "arguments": arguments})
        return int(record["seq"])

    def _result(self, turn: int, step: int, block: dict[str, Any], call_seq: int) -> None:
        call_id = str(block.get("id"))
        name = str(block.get("name"))
        arguments = block.get("arguments") if isinstance(block.get("arguments"), str) else ""
        tool = self._tool(name)
        if tool is None:
            outcome = ToolReply(f"Error: unknown tool {name}", True,
                                  extra={"error": {"name": "UnknownToolError", "code": "UNKNOWN_TOOL"}})
        else:
            ctx = ToolContext(self, self._spawn, call_id, str(arguments), int(self.log.header["delegationDepth"]))
            try:
                outcome = tool.run(str(arguments), ctx)
            except ToolError as exc:
                raise RunError(self._where(turn, step, f"call {call_id} ({name})"), str(exc)) from None
        self.log.clock.advance(outcome.duration_ms)
        result = {"type": "tool-result", "toolCallId": call_id, "content": outcome.blocks,
                  "isError": outcome.is_error}
        data: dict[str, Any] = {"turn": turn, "step": step, "message": {
            "id": self.ids.next(), "role": "user", "content": [result], "source": {"kind": "tool", "callId": call_id}}}
        data.update(outcome.extra)
        self.append("tool/result", data, surface=True, sources=[call_seq])

    def _spawn(self, prompt: str, label: str | None) -> ToolReply:
        if self.spawn_child is None:
            return ToolReply("Error: subagents are not available in this session", True)
        return self.spawn_child(self, prompt, label)


def _finish(chunks: list[Chunk]) -> dict[str, Any]:
    for chunk in reversed(chunks):
        if chunk.get("type") == "finish" and isinstance(chunk.get("reason"), dict):
            return dict(chunk["reason"])
    return {"kind": "stop"}


def _failure(finish: dict[str, Any]) -> dict[str, Any] | None:
    return failure_of(finish.get("failure", {})) if finish.get("kind") == "error" else None


def _blocks(chunks: list[Chunk]) -> list[dict[str, Any]]:
    """The assembled content blocks of a call, in block order."""
    ends = sorted((c for c in chunks if c.get("type") == "block-end" and isinstance(c.get("block"), dict)),
                  key=lambda c: c.get("index", 0))
    return [dict(c["block"]) for c in ends]


def _partial_blocks(chunks: list[Chunk]) -> list[dict[str, Any]]:
    """What a stream cut short had said: its finished blocks, and the text and
    reasoning deltas of the unfinished ones (a partial tool call is dropped)."""
    done = {c.get("index"): dict(c["block"]) for c in chunks
            if c.get("type") == "block-end" and isinstance(c.get("block"), dict)}
    partial: dict[Any, dict[str, Any]] = {}
    for c in chunks:
        kind = c.get("type")
        if kind in ("text-delta", "reasoning-delta") and c.get("index") not in done and isinstance(c.get("text"), str):
            block = partial.setdefault(c.get("index"), {"type": kind.removesuffix("-delta"), "text": ""})
            block["text"] += c["text"]
    merged = {**partial, **done}
    return [merged[i] for i in sorted(merged, key=lambda i: i if isinstance(i, int) else 0)]
