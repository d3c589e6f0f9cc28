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

from replay.jsjson import js_string
from replay.log.event import Event
from replay.log.repair import with_repair
from replay.project.tools import tool_call, tool_result
from replay.render.acp.paths import relativize_title, terminal_cwd
from replay.render.acp.permissions import PermissionRequests
from replay.render.acp.presenters import shipped_presenters
from replay.render.acp.profiles import DEFAULT_PROFILE, AutomationSession, Profile
from replay.render.acp.validation import ArgumentSchema
from replay.render.acp.views import (
    UNSET,
    CallView,
    Diff,
    DiffCall,
    DiffResult,
    GenericCall,
    GenericResult,
    Presenter,
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
    ``permission_requests``: also give the ``session/request_permission`` requests the
    agent sent (live only: a load replays no requests; ``permissions.py``).
    """

    session_id: str
    include_user_messages: bool = False
    terminal_output: bool = False
    cwd: str | None = None
    presenters: PresenterRegistry = field(default_factory=shipped_presenters)
    permission_requests: bool = False


@dataclass(frozen=True, slots=True)
class _InFlight:
    name: str
    args: Any
    card: str


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
        self._permissions = PermissionRequests(options.session_id) if options.permission_requests else None
        self._presenters = options.presenters

    # -- events ---------------------------------------------------------------

    def translate(self, event: Event) -> list[Notification]:
        """The frames one event produces, in order (a permission request before the
        updates; the event that asks has none)."""
        frames = [] if self._permissions is None else self._permissions.frames(event)
        return frames + [self.wrap(update) for update in self.updates(event)]

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
        # Only what the log wrote as a user/message: the reader migrates a legacy
        # steering/message (a hook's continuation, …) into one, the bridge never showed it.
        if not self.options.include_user_messages or event.record.get("type") != "user/message":
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
        call = tool_call(event)
        if call is None or not isinstance(data.get("callId"), str):
            return []
        name = data["name"] if isinstance(data.get("name"), str) else js_string(data.get("name"))
        args = call.display_args
        view = self._present_call(name, args)
        card = "generic" if isinstance(view, GenericCall) else "diff" if isinstance(view, DiffCall) else "terminal"
        self._in_flight[call.call_id] = _InFlight(name, args, card)
        return [self._call_update(call.call_id, view)]

    def _presenter(self, name: str, args: Any) -> Presenter | None:
        """The tool's presenter when it may see these arguments (they validate)."""
        presenter = self._presenters.get(name)
        return presenter if presenter is not None and presenter.accepts(args) else None

    def _request_header(self, event: Event, data: dict[str, Any]) -> list[Update]:
        """No update; but a header that lists the tools offered says which schema each
        call is validated against (a tokenized ``"{{tools}}"`` keeps the registry's)."""
        header = data.get("header")
        tools = header.get("tools") if isinstance(header, dict) else None
        if isinstance(tools, list):
            self._presenters = self._presenters.with_parameters(offered_schemas(tools))
        return []

    def _present_call(self, name: str, args: Any) -> CallView:
        presenter = self._presenter(name, args)
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
            if view.description is not None:
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
        result = tool_result(event)
        if result is None or result.call_id is None:
            return []
        meta = UNSET if result.meta is None else result.meta
        return [self._result_update(result.call_id, ToolOutcome(list(result.blocks), result.is_error, meta))]

    def _present_result(self, call_id: str, outcome: ToolOutcome) -> ResultView:
        call = self._in_flight.pop(call_id, None)
        raw = GenericResult(content=outcome.content)
        if call is None:
            return raw
        presenter = self._presenter(call.name, call.args)
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


def offered_schemas(tools: list[Any]) -> dict[str, Any]:
    """Tool name → parameter schema, for the entries of a header's tool list that are
    usable (a malformed entry or schema is passed over: the registry's stays)."""
    schemas: dict[str, Any] = {}
    for tool in tools:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str) and isinstance(tool.get("parameters"), dict):
            try:
                ArgumentSchema.of(tool["parameters"])
            except ValueError:
                continue
            schemas[tool["name"]] = tool["parameters"]
    return schemas


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
    "request/header": AcpSession._request_header,
}


def render_acp(
    events: Iterable[Event],
    *,
    session_id: str,
    mode: Mode = "live",
    profile: Profile = DEFAULT_PROFILE,
    terminal_output: bool = False,
    cwd: str | None = None,
    presenters: PresenterRegistry | None = None,
    repair: bool = True,
) -> Iterator[Notification]:
    """The frames a client received for a session's events, in order: ``session/update``
    notifications and, live, ``session/request_permission`` requests.

    ``mode="live"`` is what a client saw while the session ran (user messages are not
    echoed); ``mode="load"`` is a ``session/load`` replay (every event, user messages
    included, through a fresh presenter). ``profile`` is the generation of the
    harness's ACP agent (``profiles.py``); the 2026-08 agent has no load (``ValueError``).
    ``repair``: a log that ends inside a turn is first closed the way the harness's
    cold load closes it (``replay.log.repair``), and the closers are rendered too.
    """
    source = with_repair(events) if repair else events
    if profile == "2026-08":
        if mode == "load":
            raise ValueError("the 2026-08 ACP agent has no session/load: render it live")
        automation = AutomationSession(session_id)
        for event in source:
            yield from automation.translate(event)
        return
    options = AcpOptions(
        session_id=session_id,
        include_user_messages=mode == "load",
        terminal_output=terminal_output,
        cwd=cwd,
        presenters=presenters if presenters is not None else shipped_presenters(),
        permission_requests=mode == "live",
    )
    session = AcpSession(options)
    for event in source:
        yield from session.translate(event)
