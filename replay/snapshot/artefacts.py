"""What a scenario run renders into golden files, one producer per artefact.

Every producer reads the run's logs back through the same reader a user's log goes
through (``replay.log``), so goldens exercise the real read path. Producers are small
units in one registry (``PRODUCERS``); adding an artefact is adding one function.
Names follow the harness: ``session.expected.jsonl``, ``stdout.expected.jsonl``, …;
numbered names (``session.1.expected.jsonl``) belong to child session 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from replay.agent.writer import SessionLog, pack_chunks
from replay.jsjson import dumps
from replay.log.event import Event
from replay.log.reader import Source, iter_events, read_log
from replay.output import pretty_json, utf8
from replay.render.acp.stream import normalized_lines
from replay.render.acp.translate import Mode
from replay.render.stdio import stdio_text
from replay.render.web import web_golden
from replay.snapshot.scenario import Run
from replay.todo.plan import plan_changes

Artefacts = dict[str, bytes]


def _source(log: SessionLog) -> Source:
    import io

    data = log.to_jsonl()
    return Source(f"<{log.id}>", lambda: io.BytesIO(data))


@dataclass
class RunView:
    """A run with each log read back once."""

    run: Run

    @cached_property
    def events(self) -> list[list[Event]]:
        return [list(iter_events(read_log(_source(log)).items())) for log in self.run.logs]

    @property
    def primary(self) -> list[Event]:
        return self.events[0]


def _pretty(value: Any) -> bytes:
    """The harness's sidecar layout: 2-space JSON with a trailing newline."""
    return utf8(pretty_json(value) + "\n")


def normalize_log(log: SessionLog) -> bytes:
    """The re-persisted log with volatile values normalized as the harness does:
    ``createdAt``, ``time``, ``time0`` and every ``dt`` become 0; ``seq`` is kept."""
    header = {**log.header, "createdAt": 0}
    lines = [dumps(header)]
    for record in pack_chunks(log.events):
        if "seq0" in record:
            record = {**record, "time0": 0, "data": {**record["data"], "dt": [0] * len(record["data"]["dt"])}}
        else:
            record = {**record, "time": 0}
        lines.append(dumps(record))
    return utf8("".join(line + "\n" for line in lines))


def _suffix(index: int) -> str:
    return "" if index == 0 else f".{index}"


def session_logs(view: RunView) -> Artefacts:
    return {f"session{_suffix(i)}.expected.jsonl": normalize_log(log) for i, log in enumerate(view.run.logs)}


def _tool_schemas(events: list[Event]) -> dict[str, Any] | None:
    headers = [e.data for e in events if e.type == "request/header" and isinstance(e.data, dict)]
    if not headers:
        return None
    tools = [h.get("header", {}).get("tools", []) for h in headers]
    return {"initial": tools[0], "changes": tools[1:]}


def tool_schemas(view: RunView) -> Artefacts:
    """The primary's offered tools; a child's only where they differ from the primary's."""
    out: Artefacts = {}
    primary = _tool_schemas(view.primary)
    if primary is not None:
        out["tool-schemas.expected.json"] = _pretty(primary)
    for i, events in enumerate(view.events[1:], start=1):
        child = _tool_schemas(events)
        if child is not None and child != primary:
            out[f"tool-schemas.{i}.expected.json"] = _pretty(child)
    return out


def plans(view: RunView) -> Artefacts:
    """Every plan update in order (and what caused it), and the final standing plan."""
    out: Artefacts = {}
    for i, events in enumerate(view.events):
        updates = [{"seq": c.seq, "cause": c.cause, "todos": c.todos} for c in plan_changes(events)]
        if i and not updates:
            continue
        # The standing plan is the last change's list (standing_plan, read off the same pass).
        final = updates[-1]["todos"] if updates else None
        out[f"plan{_suffix(i)}.expected.json"] = _pretty({"updates": updates, "final": final})
    return out


def web(view: RunView) -> Artefacts:
    """The web todo rows and plan panel (the harness's golden text format), in the
    scenario's locale, with a trailing newline so the file is a proper text file."""
    return {"web.expected.txt": utf8(web_golden(view.primary, view.run.scenario.locale) + "\n")}


def stdio(view: RunView) -> Artefacts:
    """The stdio transcript without colour codes."""
    return {"stdio.expected.txt": utf8(stdio_text(view.primary, color=False))}


def _acp(view: RunView, mode: Mode) -> bytes:
    log = view.run.logs[0]
    lines = normalized_lines(view.primary, session_id=log.id, header_cwd=log.header.get("cwd"), mode=mode,
                             terminal_output=view.run.scenario.client.terminal_output)
    return utf8("".join(line + "\n" for line in lines))


def acp_streams(view: RunView) -> Artefacts:
    """The ACP stream a client saw live, and the ``session/load`` replay."""
    return {"stdout.expected.jsonl": _acp(view, "live"), "load.expected.jsonl": _acp(view, "load")}


Producer = Callable[[RunView], Artefacts]

_ARTEFACT_NAME = re.compile(
    r"session(?:\.[1-9][0-9]{0,5})?\.expected\.jsonl"
    r"|(?:plan|tool-schemas)(?:\.[1-9][0-9]{0,5})?\.expected\.json"
    r"|(?:stdout|load)\.expected\.jsonl"
    r"|(?:web|stdio)\.expected\.txt")


def is_artefact_name(name: str) -> bool:
    """Whether ``name`` is one the producers below can write (a child's number included):
    what a pending golden from elsewhere may be called."""
    return _ARTEFACT_NAME.fullmatch(name) is not None


PRODUCERS: list[Producer] = [session_logs, tool_schemas, plans, acp_streams, web, stdio]


def render_artefacts(run: Run, producers: list[Producer] | None = None) -> Artefacts:
    """Every golden file a run produces, by file name, in name order."""
    view = RunView(run)
    out: Artefacts = {}
    for produce in producers if producers is not None else PRODUCERS:
        out.update(produce(view))
    return dict(sorted(out.items()))
