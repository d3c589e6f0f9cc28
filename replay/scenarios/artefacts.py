"""What a scenario run renders into golden files, one producer per artefact.

Every producer reads the run's logs back through the same reader a user's log goes
through (``replay.log``), so goldens exercise the real read path. Producers are small
units in one registry (``PRODUCERS``), each declaring the file names it writes;
adding an artefact is adding one producer (what pending goldens may be called follows).
Names follow the harness: ``session.expected.jsonl``, ``stdout.expected.jsonl``, …;
numbered names (``session.1.expected.jsonl``) belong to child session 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from replay.agent.writer import SessionLog, pack_chunks
from replay.goldens.diff import JSON, TEXT, Comparator
from replay.goldens.values import Focus, Positioned
from replay.jsjson import dumps
from replay.log.event import Event
from replay.log.reader import Source, iter_events, read_log
from replay.output import pretty_json, utf8
from replay.render.acp.stream import normalized_lines
from replay.render.acp.translate import Mode
from replay.render.stdio import stdio_text
from replay.render.web import web_golden
from replay.scenarios.scenario import Run
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


def normalize_record(record: dict[str, Any]) -> dict[str, Any]:
    """A record with its volatile values normalized as the harness's goldens have them:
    ``createdAt`` (the header), ``time``, ``time0`` and every ``dt`` (a packed row)
    become 0; ``seq`` is kept."""
    if record.get("type") == "session" and "createdAt" in record:
        return {**record, "createdAt": 0}
    if "seq0" in record:
        data = record.get("data")
        dt = data.get("dt") if isinstance(data, dict) else None
        record = {**record, "time0": 0}
        if isinstance(dt, list) and isinstance(data, dict):
            record["data"] = {**data, "dt": [0] * len(dt)}
        return record
    return {**record, "time": 0} if "time" in record else record


def normalize_log(log: SessionLog) -> bytes:
    """The re-persisted log with volatile values normalized (``normalize_record``)."""
    lines = [dumps(normalize_record(log.header))]
    lines.extend(dumps(normalize_record(record)) for record in pack_chunks(log.events))
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


MAX_CHILD = 999_999
"""The highest child number a golden's name may carry (``session.999999.expected.jsonl``)."""
_SESSION = "{n}"
"""In a producer's file name: the session's suffix, ``""`` for the primary, ``.N`` for child N."""


class LogPositions(Focus):
    """A session log's records: an event is named by its type and compared without its
    positions (``seq``, a packed row's ``seq0``, a summary's ``sourceEventSeqs``), so one
    inserted event is one change, and the shift of every later ``seq`` one line."""

    position = "seq"
    sources = "sourceEventSeqs"
    _POSITIONS = ("seq", "seq0", "sourceEventSeqs")

    def named(self, record: Any) -> tuple[str, Any]:
        if isinstance(record, dict) and isinstance(record.get("type"), str) and "data" in record:
            return str(record["type"]), {k: v for k, v in record.items() if k != "type"}
        return "", record

    def positioned(self, record: Any) -> Positioned:
        if isinstance(record, dict) and any(k in record for k in self._POSITIONS):
            return Positioned({k: v for k, v in record.items() if k not in self._POSITIONS},
                              record.get("seq", record.get("seq0")), record.get("sourceEventSeqs"))
        return Positioned(record)


class AcpUpdates(Focus):
    """An ACP stream's lines: a ``session/update`` notification is its update, named by
    its ``sessionUpdate``; another message is compared whole, and its kind is its method."""

    def named(self, record: Any) -> tuple[str, Any]:
        params = record.get("params") if isinstance(record, dict) else None
        update = params.get("update") if isinstance(params, dict) else None
        if isinstance(update, dict):
            kind = update.get("sessionUpdate")
            return (str(kind) if isinstance(kind, str) else "update"), {k: v for k, v in update.items()
                                                                      if k != "sessionUpdate"}
        return "", record

    def kind(self, record: Any) -> str:
        head = self.named(record)[0]
        if head or not isinstance(record, dict):
            return head
        return str(record["method"]) if isinstance(record.get("method"), str) else ""


SESSION_LOG = Comparator("jsonl", LogPositions())
ACP_STREAM = Comparator("jsonl", AcpUpdates())


@dataclass(frozen=True)
class Producer:
    """One kind of artefact: the golden file names it writes (a ``{n}`` in a name
    stands for each session's suffix: none for the primary, ``.N`` for child N), and
    the function that renders them from a run. The names are its declaration: a
    pending golden from elsewhere may carry only a name some producer declares."""

    names: tuple[str, ...]
    render: Callable[[RunView], Artefacts]
    compare: Comparator
    """How its goldens are compared (``replay check``, ``review``, ``replay diff``,
    conformance and the pytest plugin all ask for it)."""

    def makes(self, name: str, children: int = MAX_CHILD) -> bool:
        """Whether ``name`` is one of this producer's files for a run with at most
        ``children`` child sessions."""
        for template in self.names:
            head, sep, tail = template.partition(_SESSION)
            if not sep:
                if name == template:
                    return True
                continue
            if not (name.startswith(head) and name.endswith(tail) and len(name) >= len(head) + len(tail)):
                continue
            middle = name[len(head):len(name) - len(tail)]
            if middle == "":
                return True
            number = middle[1:]
            if middle[0] == "." and number.isascii() and number.isdigit() and number[0] != "0" \
                    and len(number) <= len(str(MAX_CHILD)) and int(number) <= children:
                return True
        return False


PRODUCERS: list[Producer] = [
    Producer(("session{n}.expected.jsonl",), session_logs, SESSION_LOG),
    Producer(("tool-schemas{n}.expected.json",), tool_schemas, JSON),
    Producer(("plan{n}.expected.json",), plans, JSON),
    Producer(("stdout.expected.jsonl", "load.expected.jsonl"), acp_streams, ACP_STREAM),
    Producer(("web.expected.txt",), web, TEXT),
    Producer(("stdio.expected.txt",), stdio, TEXT),
]


def comparator(name: str) -> Comparator:
    """How the golden called ``name`` is compared: as its producer declares; a file no
    producer declares (never compared by a check: it is an orphan) as text."""
    return next((p.compare for p in PRODUCERS if p.makes(name)), TEXT)


def is_artefact_name(name: str, children: int = MAX_CHILD) -> bool:
    """Whether ``name`` is a file some producer declares (for a run with at most
    ``children`` child sessions): what a pending golden may be called."""
    return any(p.makes(name, children) for p in PRODUCERS)


class UndeclaredArtefact(Exception):
    """A producer wrote a file name it does not declare (a bug in replay)."""


def render_artefacts(run: Run, producers: list[Producer] | None = None) -> Artefacts:
    """Every golden file a run produces, by file name, in name order."""
    view = RunView(run)
    out: Artefacts = {}
    children = len(run.logs) - 1
    for producer in producers if producers is not None else PRODUCERS:
        made = producer.render(view)
        for name in made:
            if not producer.makes(name, children):
                raise UndeclaredArtefact(f"{producer.render.__name__} wrote {name}, which it does not declare")
        out.update(made)
    return dict(sorted(out.items()))
