"""One log through one surface, as ``replay render``, ``replay view`` and ``replay plan``
show it: the log opened (a file, ``-``, or a harness scenario folder, whose
``input.json`` gives the client's terminal capability), checked to be a session log
(anything else is named for what it looks like), and rendered as a stream of text
chunks the caller writes where it wants. The renderers themselves are pure functions
of events (``replay.render.acp``, ``.stdio``, ``.web``).

A log's HTML page (``replay view LOG``, ``render web --html``) is its page in a site
(``replay.view.site``): the log audited as ``replay audit LOG`` audits it, its page
drafted from the audit's own reading, without the links to the rest of a site."""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from replay.hints import command
from replay.jsjson import dump_parts, plain_bytes
from replay.log.discover import require_paths, shown_path
from replay.log.event import Event
from replay.log.harness import is_scenario_folder, load_harness_scenario
from replay.log.header import looks_like
from replay.log.reader import Limits, LogRead, iter_events, read_log
from replay.log.source import display_path, file_source, stdin_source
from replay.render.acp.profiles import PROFILES, detect_profile
from replay.render.choices import DEFAULT_LOCALE, DEFAULT_PROFILE, Locale, Profile, Surface

if TYPE_CHECKING:
    from replay.check.audit import AuditRequest
    from replay.check.engine import AuditResult

ProfileChoice = Profile | Literal["auto"]
"""What ``--profile`` takes: a generation of the harness's ACP agent, or ``auto`` (the one
the log's generation says)."""


class NotASessionLog(Exception):
    """The file is not a session log; the message says what it looks like."""


class BadRenderInput(Exception):
    """The input cannot be rendered as asked (a usage error: a folder that is not a
    harness scenario folder, ``--load`` for a profile that has no ``session/load``)."""


def open_log(path: str, limits: Limits) -> tuple[LogRead, bool]:
    """A session log to render (a file, ``-`` for standard input, or a harness scenario
    folder's primary log), and the client's terminal capability (a folder's
    ``input.json``; off otherwise). ``NotASessionLog`` when its first line is not a
    session header."""
    require_paths([path])
    log, terminal = _open(path, limits)
    if not log.is_session_log:
        shown = shown_path(path)
        what = (f"it looks like {looks_like(log.header.record)}" if log.header is not None
                else f"not a readable session log (run {command('audit', shown)} for why)")
        raise NotASessionLog(f"{shown}: {what}")
    return log, terminal


def _open(path: str, limits: Limits) -> tuple[LogRead, bool]:
    if path == "-":
        return read_log(stdin_source(cap=limits.max_log_bytes), limits), False
    folder = Path(path)
    if folder.is_dir():
        if not is_scenario_folder(folder):
            raise BadRenderInput(f"{path}: a folder must hold a session.jsonl (a harness scenario folder)")
        scenario = load_harness_scenario(folder)  # the folder read as conformance and the importer read it
        return read_log(scenario.source(limits.max_log_bytes), limits), scenario.terminal_output
    return read_log(file_source(folder, cap=limits.max_log_bytes), limits), False


def passes(log: LogRead) -> Callable[[], Iterator[Event]]:
    """Fresh iterations of a log's events: the log already open first, then the
    source read again (a stream was kept in a spool) for each later pass."""
    opened = [log]

    def events() -> Iterator[Event]:
        current = opened.pop() if opened else read_log(log.source, log.limits)
        return iter_events(current.items())

    return events


@dataclass(frozen=True)
class RenderRequest:
    """One ``replay render``: the surface, the log, and the surface's options."""

    surface: Surface
    path: str
    limits: Limits = field(default_factory=Limits)
    live: bool = True
    """acp: the live stream, or the ``session/load`` replay."""
    normalize: bool = False
    """acp: the goldens' placeholders for volatile values."""
    terminal_output: bool | None = None
    """acp: the client's terminal capability (``None``: the folder's, else off)."""
    profile: ProfileChoice = DEFAULT_PROFILE
    locale: Locale = DEFAULT_LOCALE
    """web: the strings."""
    html: bool = False
    """web: a self-contained HTML page instead of the golden text."""
    color: bool = False
    """stdio: colour codes."""
    terminal: bool = False
    """stdio: the text goes to a terminal."""


def render(request: RenderRequest) -> Iterator[str | bytes]:
    """The rendered output, in chunks of text or UTF-8 bytes (a long one never joined;
    ``as_text`` makes them text where text is needed)."""
    from replay.render.acp import render_acp
    from replay.render.acp.stream import normalized_lines
    from replay.render.stdio import render_stdio
    from replay.render.web import web_golden

    if request.surface == "web" and request.html:
        from replay.check.audit import AuditRequest

        _, chunks = page_of(AuditRequest((primary_log(request.path),), limits=request.limits), request.locale)
        return chunks
    log, folder_terminal = open_log(request.path, request.limits)
    assert log.header is not None
    events = passes(log)
    if request.surface == "acp":
        session_id = log.header.id or ""
        terminal = folder_terminal if request.terminal_output is None else request.terminal_output
        chosen: Profile = (detect_profile(events()) or DEFAULT_PROFILE) if request.profile == "auto" \
            else request.profile  # auto stops at the first telling event
        if not request.live and not PROFILES[chosen].has_load:
            raise BadRenderInput(f"the {chosen} ACP agent has no session/load; render it --live")
        mode: Literal["live", "load"] = "live" if request.live else "load"
        if request.normalize:
            lines = normalized_lines(events(), session_id=session_id, header_cwd=log.header.cwd, mode=mode,
                                     profile=chosen, terminal_output=terminal)
            return (part for line in lines for part in (line, "\n"))
        return json_lines(render_acp(events(), session_id=session_id, mode=mode, profile=chosen,
                                     terminal_output=terminal, cwd=log.header.cwd))
    if request.surface == "stdio":
        return iter(render_stdio(events(), color=request.color, terminal=request.terminal))
    return iter([web_golden(events(), request.locale) + "\n"])


def primary_log(path: str) -> str:
    """The log a path names: itself, or a harness scenario folder's primary log."""
    folder = Path(path)
    if path == "-" or not folder.is_dir():
        return path
    if not is_scenario_folder(folder):
        raise BadRenderInput(f"{path}: a folder must hold a session.jsonl (a harness scenario folder)")
    return str(load_harness_scenario(folder).primary_log)


def as_text(chunks: Iterable[str | bytes]) -> Iterator[str]:
    """Chunks of UTF-8 bytes or text, as text (a character cut between two chunks kept whole)."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    for chunk in chunks:
        text = chunk if isinstance(chunk, str) else decoder.decode(chunk)
        if text:
            yield text
    rest = decoder.decode(b"", final=True)
    if rest:
        yield rest


_LONG_FRAME = 1 << 20
"""The length of a line from which a frame is written in pieces (characters; bytes
where orjson wrote it)."""


def json_lines(frames: Iterable[object]) -> Iterator[str | bytes]:
    """Each frame as a ``JSON.stringify`` line (UTF-8 when orjson wrote it: see
    ``plain_bytes``); a long one (a MiB or more) written again by the exact writer, in
    pieces never joined (so that it is held once, not as bytes and as text)."""
    for frame in frames:
        line = plain_bytes(frame, newline=True)
        if line is not None and len(line) <= _LONG_FRAME:
            yield line
            continue
        del line
        parts = dump_parts(frame)
        if sum(map(len, parts)) < _LONG_FRAME:
            yield "".join(parts) + "\n"
        else:
            yield from parts
            yield "\n"


# -- one log, one page -------------------------------------------------------------------


def page_of(audit: AuditRequest, locale: Locale = DEFAULT_LOCALE) -> tuple[AuditResult, Iterator[str | bytes]]:
    """The page of one log, as the site would make it (the same audit, the same
    drafting, the same page) without the links to the rest of a site: the audit's
    result (whether it failed, as ``replay audit LOG`` would) and the page, in pieces."""
    from replay.check.audit import Audit
    from replay.check.engine import Attached, LogReport
    from replay.render.web.session_page import PageLinks, page_chunks
    from replay.view.site import Drafted, PageWatch

    for path in audit.paths:
        if path != "-":  # a file that is not a session log is named for what it looks like
            open_log(path, audit.limits)[0].close()
    drafts: list[Attached] = []
    reports: list[LogReport] = []
    result = Audit(audit, watch=PageWatch(locale)).run(reports.append, drafts.append)
    report = reports[0]
    item = drafts[0] if drafts else None
    draft = item.value.draft() if item is not None and isinstance(item.value, Drafted) else None
    failure = item.failure if item is not None else None
    return result, page_chunks(draft, report, display_path(report.path), PageLinks(), locale, failure)


@dataclass(frozen=True)
class PageRequest:
    """What ``replay view LOG`` was asked: the audit of one log, and where its page goes
    (``None``: a new temporary file)."""

    audit: AuditRequest
    output: Path | None = None
    locale: Locale = DEFAULT_LOCALE


@dataclass(frozen=True)
class PageResult:
    audit: AuditResult
    page: Path


def build_page(request: PageRequest) -> PageResult:
    """The page of one log (``page_of``), written to ``request.output`` or a new
    temporary file, nothing left behind on failure."""
    from replay.fs import write_output, write_temporary

    result, chunks = page_of(request.audit, request.locale)
    if request.output is not None:
        write_output(request.output, chunks)
        return PageResult(result, request.output)
    return PageResult(result, write_temporary("replay-view-", ".html", chunks, "the page"))


def plan_of(path: str, at: int | None = None, limits: Limits | None = None) -> Any:
    """The standing plan (the todos projection) of a log, or the plan in force right
    after the event with seq ``at``; ``None`` when there is none."""
    from replay.todo.plan import plan_at, standing_plan

    log, _ = open_log(path, limits or Limits())
    events = iter_events(log.items())
    return standing_plan(events) if at is None else plan_at(events, at)
