"""The translator: one persisted event → zero or more ACP ``session/update``s.

``AcpSession`` holds one session's presenter state (call id → the call still in
flight); everything else is a pure function of the event. See the package docstring
for the mapping.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from replay.jsjson import js_string, parse
from replay.log.event import Event
from replay.render.acp.paths import relativize_title, terminal_cwd
from replay.render.acp.presenters import shipped_presenters
from replay.render.acp.views import (
    UNSET,
    CallView,
    Diff,
    DiffCall,
    DiffResult,
    GenericCall,
    GenericResult,
    PresenterRegistry,
    ResultView,
    TerminalResult,
    ToolOutcome,
)

Mode = Literal["live", "load"]
Update = dict[str, Any]
Notification = dict[str, Any]


@dataclass(frozen=True, slots=True)
class AcpOptions:
    """How one session is rendered.

    ``include_user_messages``: load replay (``session/load``) echoes user messages,
    the live path does not. ``terminal_output``: the client opted in to terminal cards
    (``clientCapabilities._meta.terminal_output``). ``cwd``: the absolute session cwd
    used by path logic (title relativization, terminal cwd); ``None`` for none.
    """

    session_id: str
    include_user_messages: bool = False
    terminal_output: bool = False
    cwd: str | None = None
    presenters: PresenterRegistry = field(default_factory=shipped_presenters)


@dataclass(frozen=True, slots=True)
class _InFlight:
    name: str
    args: Any
    card: str


def parse_arguments(raw: Any) -> Any:
    """A tool call's arguments: ``""`` → ``{}``, valid JSON → its value, anything
    else → the raw string (what ``JSON.parse`` accepts: no NaN/Infinity)."""
    if not isinstance(raw, str):
        return raw
    if raw == "":
        return {}
    ok, value = parse(raw)
    return value if ok else raw


def iso_time(ms: Any) -> str | None:
    """``new Date(ms).toISOString()``; ``None`` where JavaScript would throw."""
    if isinstance(ms, bool) or not isinstance(ms, int | float):
        return None
    if isinstance(ms, float) and not math.isfinite(ms):
        return None
    t = int(ms)  # TimeClip truncates toward zero
    if abs(t) > 8.64e15:
        return None
    days, rem = divmod(t, 86_400_000)
    year, month, day = _civil_from_days(days)
    hh, rem = divmod(rem, 3_600_000)
    mm, rem = divmod(rem, 60_000)
    ss, millis = divmod(rem, 1000)
    y = f"{year:04d}" if 0 <= year <= 9999 else f"{'-' if year < 0 else '+'}{abs(year):06d}"
    return f"{y}-{month:02d}-{day:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{millis:03d}Z"


def _civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097  # floor division (the C original truncates, then adjusts)
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


def _text_chunk(kind: str, text: str) -> Update:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


def text_content(blocks: Iterable[Any]) -> list[dict[str, Any]]:
    """The text-only block conversion: text blocks become ACP ``content`` items, every
    other block (reasoning, images, …) is dropped."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            out.append({"type": "content", "content": {"type": "text", "text": block["text"]}})
    return out


def _diff_blocks(diffs: list[Diff]) -> list[dict[str, Any]]:
    return [{"type": "diff", "path": d.path, "oldText": d.old_text, "newText": d.new_text} for d in diffs]


def _first_location_path(locations: list[dict[str, Any]] | None) -> str | None:
    if locations and isinstance(locations[0], dict):
        path = locations[0].get("path")
        return path if isinstance(path, str) else None
    return None


class AcpSession:
    """One ACP session's translator. Feed it events in log order with ``translate``.

    The only state is the presenter's map of calls in flight (call id → name, parsed
    arguments, card kind); a result removes its call.
    """

    def __init__(self, options: AcpOptions) -> None:
        self.options = options
        self._in_flight: dict[str, _InFlight] = {}

    # -- events ---------------------------------------------------------------

    def translate(self, event: Event) -> list[Notification]:
        """The notifications one event produces, in order."""
        return [self.wrap(update) for update in self.updates(event)]

    def wrap(self, update: Update) -> Notification:
        return {"jsonrpc": "2.0", "method": "session/update",
                "params": {"sessionId": self.options.session_id, "update": update}}

    def updates(self, event: Event) -> list[Update]:
        """The ``update`` objects one event produces, in order."""
        data = event.data
        if not isinstance(data, dict):
            return []
        handler = _HANDLERS.get(event.type)
        return [] if handler is None else handler(self, event, data)

    def _chunk(self, event: Event, data: dict[str, Any]) -> list[Update]:
        chunk = data.get("chunk")
        if not isinstance(chunk, dict) or not isinstance(chunk.get("text"), str):
            return []
        if chunk.get("type") == "text-delta":
            return [_text_chunk("agent_message_chunk", chunk["text"])]
        if chunk.get("type") == "reasoning-delta":
            return [_text_chunk("agent_thought_chunk", chunk["text"])]
        return []

    def _retry(self, event: Event, data: dict[str, Any]) -> list[Update]:
        failure = data.get("failure")
        message = failure.get("message") if isinstance(failure, dict) else None
        text = (f"\n\n[Previous model attempt discarded; retrying {_js(data, 'retry')}/{_js(data, 'maxRetries')} "
                f"in {_js(data, 'delayMs')}ms: {js_string(message) if message is not None else 'undefined'}]\n\n")
        return [_text_chunk("agent_message_chunk", text)]

    def _user_message(self, event: Event, data: dict[str, Any]) -> list[Update]:
        if not self.options.include_user_messages:
            return []
        envelope = data.get("envelope")
        shown = envelope.get("displayContent") if isinstance(envelope, dict) else None
        blocks = shown if shown is not None else data.get("content")
        if not isinstance(blocks, list):
            return []
        return [_text_chunk("user_message_chunk", b["text"]) for b in blocks
                if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]

    def _todo_write(self, event: Event, data: dict[str, Any]) -> list[Update]:
        todos = data.get("todos")
        if not isinstance(todos, list):
            return []
        entries = []
        for todo in todos:
            item = todo if isinstance(todo, dict) else {}
            entry: dict[str, Any] = {}
            if "content" in item:
                entry["content"] = item["content"]
            entry["priority"] = "medium"
            if "status" in item:
                entry["status"] = item["status"]
            entries.append(entry)
        return [{"sessionUpdate": "plan", "entries": entries}]

    def _title(self, event: Event, data: dict[str, Any]) -> list[Update]:
        update: Update = {"sessionUpdate": "session_info_update", "title": data.get("title")}
        stamp = iso_time(event.time)
        if stamp is not None:
            update["updatedAt"] = stamp
        return [update]

    def _turn_end(self, event: Event, data: dict[str, Any]) -> list[Update]:
        # The raw record, not the migrated view: a legacy error reason carrying only a
        # message (a plugin failure) is migrated into the same shape as a real failure.
        raw = event.record.get("data")
        reason = raw.get("reason") if isinstance(raw, dict) else None
        if not isinstance(reason, dict) or reason.get("kind") != "error":
            return []
        failure = reason.get("failure")
        if failure is None and "step" not in reason:
            failure = reason.get("error")  # today's shape: the failure object is `error`
        if not isinstance(failure, dict):
            return []
        message = failure.get("message")
        text = ("\n\n[Model attempt failed; any partial output above is discarded: "
                f"{js_string(message) if message is not None else 'undefined'}]\n\n")
        return [_text_chunk("agent_message_chunk", text)]

    # -- tools ----------------------------------------------------------------

    def _tool_call(self, event: Event, data: dict[str, Any]) -> list[Update]:
        call_id = data.get("callId")
        name = data.get("name")
        if not isinstance(call_id, str):
            return []
        name = name if isinstance(name, str) else js_string(name)
        args = parse_arguments(data.get("arguments"))
        view = self._present_call(name, args)
        card = "generic" if isinstance(view, GenericCall) else "diff" if isinstance(view, DiffCall) else "terminal"
        self._in_flight[call_id] = _InFlight(name, args, card)
        return [self._call_update(call_id, view)]

    def _present_call(self, name: str, args: Any) -> CallView:
        presenter = self.options.presenters.get(name)
        if presenter is not None and presenter.call is not None:
            try:
                view = presenter.call(args)
            except Exception:  # a presenter failure never propagates (generic fallback)
                view = None
            if view is not None:
                return view
        return GenericCall(title=name, kind="other", raw_input=args)

    def _call_update(self, call_id: str, view: CallView) -> Update:
        cwd = self.options.cwd
        update: Update = {"sessionUpdate": "tool_call", "toolCallId": call_id}
        if isinstance(view, GenericCall):
            update["title"] = relativize_title(view.title, _first_location_path(view.locations), cwd)
            update["kind"] = view.kind or "other"
            update["status"] = "in_progress"
            if view.raw_input is not UNSET:
                update["rawInput"] = view.raw_input
            if view.locations is not None:
                update["locations"] = view.locations
            if view.content:
                update["content"] = text_content(view.content)
        elif isinstance(view, DiffCall):
            anchor = _first_location_path(view.locations)
            if anchor is None and view.diffs:
                anchor = view.diffs[0].path
            update["title"] = relativize_title(view.title, anchor, cwd)
            update["kind"] = "edit"
            update["status"] = "in_progress"
            if view.locations is not None:
                update["locations"] = view.locations
            if view.diffs:
                update["content"] = _diff_blocks(view.diffs)
        else:
            update["title"] = view.title
            update["kind"] = "execute"
            update["status"] = "in_progress"
            update["rawInput"] = view.title
            content: list[dict[str, Any]] = []
            if view.description:
                content.append({"type": "content", "content": {"type": "text", "text": view.description}})
            if self.options.terminal_output:
                content.append({"type": "terminal", "terminalId": call_id})
            if content:
                update["content"] = content
            if self.options.terminal_output:
                info: dict[str, Any] = {"terminal_id": call_id}
                where = terminal_cwd(view.cwd, cwd)
                if where is not None:
                    info["cwd"] = where
                update["_meta"] = {"terminal_info": info}
        return update

    def _tool_result(self, event: Event, data: dict[str, Any]) -> list[Update]:
        op = event.record.get("surfaceOp")
        if op is not None and op != "append":
            return []  # a context rewrite (e.g. pruning), not an execution
        message = data.get("message")
        blocks = message.get("content") if isinstance(message, dict) else None
        if not isinstance(blocks, list):
            return []
        meta = data.get("meta", UNSET)
        updates = []
        for block in blocks:
            if not isinstance(block, dict) or block.get("type") != "tool-result":
                continue
            call_id = block.get("toolCallId")
            if not isinstance(call_id, str):
                continue
            content = block.get("content")
            outcome = ToolOutcome(content if isinstance(content, list) else [], block.get("isError") is True, meta)
            updates.append(self._result_update(call_id, outcome))
        return updates

    def _present_result(self, call_id: str, outcome: ToolOutcome) -> ResultView:
        call = self._in_flight.pop(call_id, None)
        raw = GenericResult(content=outcome.content)
        if call is None:
            return raw
        presenter = self.options.presenters.get(call.name)
        view: ResultView | None = None
        if presenter is not None and presenter.result is not None:
            try:
                view = presenter.result(call.args, outcome)
            except Exception:  # contained, like a throwing presentResult
                view = None
        if view is None:
            return raw
        if isinstance(view, TerminalResult) and call.card != "terminal":
            return raw  # orphan guard: no output for a terminal the client never saw
        if isinstance(view, GenericResult) and view.content is None:
            return GenericResult(content=outcome.content, title=view.title)
        return view

    def _result_update(self, call_id: str, outcome: ToolOutcome) -> Update:
        view = self._present_result(call_id, outcome)
        update: Update = {"sessionUpdate": "tool_call_update", "toolCallId": call_id,
                          "status": "failed" if outcome.is_error else "completed"}
        if isinstance(view, GenericResult):
            update["content"] = text_content(view.content or [])
            if view.title is not None:
                update["title"] = view.title
        elif isinstance(view, DiffResult):
            if view.diffs:
                update["content"] = _diff_blocks(view.diffs)
            if view.title is not None:
                anchor = view.diffs[0].path if view.diffs else None
                update["title"] = relativize_title(view.title, anchor, self.options.cwd)
        elif self.options.terminal_output:
            if view.title is not None:
                update["title"] = view.title
            meta: dict[str, Any] = {"terminal_output": {"terminal_id": call_id, "data": view.output or ""}}
            if view.signal is not None:
                meta["terminal_exit"] = {"terminal_id": call_id, "signal": view.signal}
            elif view.exit_code is not None:
                meta["terminal_exit"] = {"terminal_id": call_id, "exit_code": view.exit_code}
            update["_meta"] = meta
        else:
            text = "```console\n" + (view.output or "").rstrip("\n") + "\n```"
            update["content"] = [{"type": "content", "content": {"type": "text", "text": text}}]
            if view.title is not None:
                update["title"] = view.title
        return update


def _js(data: dict[str, Any], key: str) -> str:
    return js_string(data[key]) if key in data else "undefined"


_HANDLERS = {
    "assistant/chunk": AcpSession._chunk,
    "llm/retry": AcpSession._retry,
    "user/message": AcpSession._user_message,
    "tool/call": AcpSession._tool_call,
    "tool/result": AcpSession._tool_result,
    "todo/write": AcpSession._todo_write,
    "session/title": AcpSession._title,
    "turn/end": AcpSession._turn_end,
}


def render_acp(
    events: Iterable[Event],
    *,
    session_id: str,
    mode: Mode = "live",
    terminal_output: bool = False,
    cwd: str | None = None,
    presenters: PresenterRegistry | None = None,
) -> Iterator[Notification]:
    """The ``session/update`` notifications of a session's events, in order.

    ``mode="live"`` is what a client saw while the session ran (user messages are not
    echoed); ``mode="load"`` is a ``session/load`` replay (every event, user messages
    included, through a fresh presenter).
    """
    options = AcpOptions(
        session_id=session_id,
        include_user_messages=mode == "load",
        terminal_output=terminal_output,
        cwd=cwd,
        presenters=presenters if presenters is not None else shipped_presenters(),
    )
    session = AcpSession(options)
    for event in events:
        yield from session.translate(event)
