"""New scenarios: a scaffold (``replay new NAME``), and the import of a real harness
session as a recorded scenario (``replay new NAME --from-log PATH``).

An import reads a ``session.jsonl`` / ``.jsonl.zstd`` — or a harness scenario folder,
with its children ``session.N.jsonl``, its ``input.json`` and its
``replay.override.json`` — audits every log first (error findings refuse the import
unless forced), and writes ``scenarios/NAME/``: the logs copied byte for byte, and a
``scenario.json`` whose model is ``recorded``. From the recording it derives:

* the prompts — each turn's first user message (a prompt a hook blocked: its
  ``prompt/blocked`` content);
* the tools — those the request headers offered and those the log called;
  ``todo_write`` and ``subagent`` run for real, every other one answers from the
  recording (``tools.recorded``); ``todo_write``'s policy is read from the recorded
  description's policy sentence, or else from what the recorded calls show; a
  ``subagent`` depth limit from a recorded ``exceeds maxDepth`` refusal;
* the children — each ``subagent`` call is matched (by its prompt) to the child log
  it started, in the order the run will start them; fork and workflow children are
  copied but not re-run (their tools answer from the recording);
* the working directory, and the client's terminal capability from ``input.json``;
* the override: used when the recording alone cannot play the model, or when asked
  (``use_override``, ``--use-override``): then it plays the model it scripts, as in the
  harness's keyless suite — the session-title model when it gives exactly the recorded
  provider titles, the agent's otherwise.

The folder to import is not trusted: only its regular files are copied (a link is
never followed: a linked log is refused, a linked side file left out with a note),
each under a cap and read once, into a hidden folder of the scenario tree; the
audit, the derivation and a keyless test run all read those copies, so the bytes
audited are the bytes kept. Everything is read as a stream (memory does not grow with
the log). An import whose scenario cannot run (the recording and the chosen model
diverge) is refused, ``--force`` or not. The scenario folder is then published whole
(the hidden folder renamed), never over an existing one, and
``scenarios/scenario.schema.json`` — what each ``scenario.json``'s ``$schema`` points
at — is written or brought up to date; on any failure nothing is left behind.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from replay.agent.model import ModelError, RecordedModel, apply_override
from replay.agent.recording import call_id_of, outcome_of
from replay.agent.title import REQUEST as TITLE_REQUEST
from replay.agent.title import TITLE, title_of
from replay.agent.tools import ToolReply
from replay.check.engine import LogReport, audit_sources
from replay.describe import kind, reason
from replay.findings import Severity
from replay.fs import FsError, Tree, abandoned
from replay.goldens.store import as_tree
from replay.hints import command, line
from replay.jsjson import parse
from replay.log.bounded import BLOCK
from replay.log.event import Event
from replay.log.harness import LOG_NAME, MAX_SIDE_BYTES, OVERRIDE_NAME, harness_files, terminal_capability
from replay.log.header import looks_like
from replay.log.reader import Limits, LogRead, Source, iter_events, read_log
from replay.log.source import SESSION_LOG, TreeFile
from replay.log.values import CWD_PLACEHOLDER
from replay.output import pretty_json, utf8
from replay.scenarios.scenario import (
    MAX_JSON_BYTES,
    SCENARIO_FILE,
    SCENARIO_NAME_RULE,
    SCHEMA_FILE,
    SCHEMA_REF,
    STAGING,
    Run,
    Scenario,
    ScenarioError,
    is_scenario_name,
    run_scenario,
    shipped_schema,
)
from replay.todo.tool import TOOL_NAME, policy_of_description
from replay.words import counted

MAX_LOG_BYTES = Limits().max_log_bytes
"""The largest log an import copies (the audit's log cap)."""
_MAX_DEPTH = re.compile(r"exceeds maxDepth ([0-9]+)")
_SINGLE_REJECTION = "at most one task may be in_progress"


class NewScenarioError(Exception):
    """``replay new`` cannot do what was asked (a usage error: the name is taken or
    not a folder name, the input is not a log); the message says what to do."""


class ImportRefused(Exception):
    """The audit found error findings in a log to import (``--force`` imports anyway),
    or the imported scenario cannot run; nothing was written."""

    def __init__(self, reports: list[LogReport], run_error: str | None = None) -> None:
        errors = sum(r.count(Severity.ERROR) or 1 for r in reports)
        super().__init__(f"the imported scenario would not run: {run_error}; nothing was written" if run_error
                         else f"the audit found {counted(errors, 'error finding')} in {counted(len(reports), 'log')}: "
                              "today's harness would refuse to load them; fix them (see above), or import anyway "
                              "with --force")
        self.reports = reports
        self.run_error = run_error
        """Why the imported scenario's keyless test run failed (``None``: the audit refused it)."""


@dataclass
class NewScenario:
    """What ``replay new`` wrote, and what an import decided or noticed."""

    name: str
    folder: Path
    files: list[str]
    notes: list[str] = field(default_factory=list)
    forced: list[LogReport] = field(default_factory=list)
    """Logs with error findings imported anyway (``--force``)."""
    run: Run | None = None
    """The keyless test run of the imported scenario (``None``: a scaffold)."""


def _scenario_json(doc: dict[str, Any]) -> bytes:
    Scenario.model_validate(doc)  # what this module writes, the loader reads
    return utf8(pretty_json(doc) + "\n")  # a lone surrogate (the log's prompt) as its JSON escape


def scaffold_document() -> dict[str, Any]:
    """The scaffold: a scripted model with one ``todo_write`` call and a closing text."""
    return {
        "$schema": SCHEMA_REF,
        "description": "A new scenario: the model plans two tasks with todo_write, then closes the turn.",
        "prompts": ["Plan the work, then say when the plan is in place."],
        "tools": {"todo_write": {"allowParallelInProgress": True}},
        "model": {"script": [
            {"toolCalls": [{"name": "todo_write", "arguments": {"todos": [
                {"content": "outline the change", "status": "in_progress"},
                {"content": "write the tests", "status": "pending"}]}}]},
            {"text": "The plan is in place."},
        ]},
    }


def scaffold(scenarios_root: Tree | Path, name: str) -> NewScenario:
    """Write ``scenarios_root/name/scenario.json`` from the scaffold; never overwrites."""
    tree = as_tree(scenarios_root)
    target = _target(tree, name)
    with _Staging(tree, name) as staging:
        staging.write(SCENARIO_FILE, _scenario_json(scaffold_document()))
        notes = staging.publish()
    return NewScenario(name, target, [SCENARIO_FILE], notes)


def _target(tree: Tree, name: str) -> Path:
    if not is_scenario_name(name):
        raise NewScenarioError(f"{name!r}: {SCENARIO_NAME_RULE}")
    target = tree.at(name)
    if tree.exists(name):
        raise NewScenarioError(f"{target} already exists: pick another name, or delete it first ({line('new')} "
                               "never overwrites a scenario)")
    return target


class _Staging:
    """The hidden folder of the scenario tree a new scenario is written in; published
    whole (renamed to its name) or, on any failure, removed with all it holds."""

    def __init__(self, tree: Tree, name: str) -> None:
        self.tree = tree
        self.name = name
        self.folder = f"{STAGING}{os.getpid()}-{secrets.token_hex(6)}-{name}"
        self.files: list[str] = []
        self.notes: list[str] = []

    def __enter__(self) -> _Staging:
        self.notes = _clean_staging(self.tree)
        try:
            self.tree.make_folder(self.folder)
        except OSError as exc:
            raise FsError(f"{self.tree}: cannot write there ({reason(exc)})") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self.tree.remove_tree(self.folder)  # nothing, once published

    def write(self, name: str, data: bytes | Iterable[bytes]) -> None:
        self.tree.write(self.folder, name, data=data)
        self.files.append(name)

    def source(self, name: str, shown: str) -> Source:
        """A staged log, read through the tree, named ``shown`` in reports."""
        return Source(shown, TreeFile(self.tree, (self.folder, name)), is_file=True)

    def publish(self) -> list[str]:
        notes = [*self.notes, *_ensure_schema(self.tree)]
        try:
            self.tree.rename_new(self.folder, self.name)
        except FileExistsError:
            raise NewScenarioError(f"{self.tree.at(self.name)} appeared while it was being written; nothing was "
                                   "changed") from None
        return notes


def _clean_staging(tree: Tree) -> list[str]:
    """Remove the staging folders of imports that are no longer running (killed before
    they published); one named as an older replay named them (no process id) is said,
    for the user to delete."""
    notes = []
    for entry in tree.entries():
        if not entry.is_dir or not entry.name.startswith(STAGING):
            continue
        if abandoned(entry.name, STAGING):
            tree.remove_tree(entry.name)
        elif not entry.name[len(STAGING):].split("-", 1)[0].isdigit():
            notes.append(f"{tree.at(entry.name)} is what an interrupted {command('new')} left (it is never read "
                         "as a scenario): delete it")
    return notes


def _ensure_schema(tree: Tree) -> list[str]:
    """``scenarios_root/scenario.schema.json`` (the shipped schema), written when
    missing or outdated: read under a cap, written atomically, never through a link."""
    text = shipped_schema().encode()
    try:
        if tree.read(SCHEMA_FILE, limit=len(text)) == text:
            return []
    except FsError:
        pass  # not the shipped schema (a link, something larger): replaced below
    existed = tree.exists(SCHEMA_FILE)
    tree.write(SCHEMA_FILE, data=text)
    return [f"{'updated' if existed else 'wrote'} {tree.at(SCHEMA_FILE)} (the JSON Schema each scenario.json's "
            "$schema points at)"]


# -- what an import reads -------------------------------------------------------------------


@dataclass(frozen=True)
class _File:
    """A file to import: ``path`` as the user will recognize it; opened by name (a
    file the user named: the links in its path are followed) or, in a folder to
    import, through that folder's tree (never through a link)."""

    path: Path
    tree: Tree | None = None

    def open(self) -> BinaryIO:
        if self.tree is not None:
            return self.tree.open(self.path.name, what="the file")
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise FsError(f"{self.path}: cannot read the file ({reason(exc)})") from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            raise FsError(f"{self.path}: {kind(mode)}, not a regular file; an import copies regular files only")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")

    def blocks(self, cap: int) -> Iterator[bytes]:
        """The file's bytes in blocks, at most ``cap`` (``FsError`` past it)."""
        with self.open() as stream:
            total = 0
            while True:
                try:
                    block = stream.read(BLOCK)
                except OSError as exc:
                    raise FsError(f"{self.path}: cannot read the file ({reason(exc)})") from None
                if not block:
                    return
                total += len(block)
                if total > cap:
                    raise FsError(f"{self.path}: larger than {cap} bytes; not imported")
                yield block


@dataclass
class _Input:
    primary: _File
    children: list[_File]
    input: _File | None
    override: _File | None
    notes: list[str]


def _locate(source: Path) -> _Input:
    """The logs (and harness side files) an import reads: a log the user named, or a
    harness scenario folder's regular files (a link is refused when it is the primary
    log, left out with a note otherwise). A log named ``session.jsonl`` (or its zstd
    twin) brings its folder's children and side files along."""
    if source.is_dir():
        return _locate_folder(source, None)
    if not os.path.lexists(source):
        raise NewScenarioError(f"{source}: no such file or folder")
    match = LOG_NAME.fullmatch(source.name)
    if match is None or match.group(1) is not None:
        return _Input(_File(source), [], None, None, [])  # a lone log: no harness folder around it
    return _locate_folder(source.parent, _File(source))


def _locate_folder(folder: Path, primary: _File | None) -> _Input:
    """The harness folder's files, by the rules every reader of one follows
    (``replay.log.harness.harness_files``)."""
    try:
        files = harness_files(folder, primary.path.name if primary is not None else None, importing=True)
    except FsError as exc:
        raise NewScenarioError(str(exc)) from None

    def file(name: str | None) -> _File | None:
        return None if name is None else _File(folder / name, files.tree)

    return _Input(primary or _File(folder / files.primary, files.tree), [_File(folder / c, files.tree)
                                                                          for c in files.children],
                  file(files.input), file(files.override), list(files.notes))


def _scenario_name(path: Path) -> str:
    """The name a log gets in the scenario: its harness name, compression kept."""
    match = LOG_NAME.fullmatch(path.name)
    suffix = (match.group(2) or "") if match else (".zstd" if path.name.endswith((".zstd", ".zst")) else "")
    return path.name if match else f"{SESSION_LOG}{suffix}"


# -- what a log holds, read as a stream ----------------------------------------------------


@dataclass
class _Log:
    """One log of the import, summarized in one streaming pass: what the derivation
    needs, never the whole log."""

    source: Source
    name: str
    header: dict[str, Any] = field(default_factory=dict)
    prompts: list[str] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    """The turns (0-based) whose prompt had blocks other than text."""
    called: dict[str, None] = field(default_factory=dict)
    offered: dict[str, dict[str, Any]] = field(default_factory=dict)
    parallel_todos: bool = False
    outcomes: dict[str, tuple[str, ToolReply]] = field(default_factory=dict)
    """The recorded results of the ``todo_write`` and ``subagent`` calls: name and outcome, by call id."""
    subagent_calls: list[tuple[Any, Any]] = field(default_factory=list)
    """Each ``subagent`` call in order: its call id and parsed arguments."""
    final_text: str = ""
    title_requests: int = 0
    provider_titles: list[Any] = field(default_factory=list)

    @property
    def id(self) -> Any:
        return self.header.get("id")

    @property
    def parent(self) -> Any:
        return self.header.get("parentSession")

    @property
    def seed(self) -> int:
        seed = self.header.get("seedLength")
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0

    def events(self) -> Iterator[Event]:
        """The log's own events (after a fork's seed), read again from its copy."""
        log = read_log(self.source)
        return (e for e in iter_events(log.items()) if e.seq >= self.seed)


def _session_log(source: Source) -> LogRead:
    """The log, read; ``NewScenarioError`` naming what it looks like when it is none."""
    log = read_log(source)
    if log.header is not None and not log.is_session_log:
        raise NewScenarioError(f"{source.path}: it looks like {looks_like(log.header.record)}")
    return log


_SUMMARIZED = frozenset({"user/message", "prompt/blocked", "tool/call", "tool/result", "request/header",
                         "todo/write", "assistant/message", TITLE})
"""The types whose data ``_summarize`` reads."""


def _summarize(source: Source, name: str) -> _Log:
    log = _session_log(source)
    if log.header is None:
        raise NewScenarioError(f"{source.path}: not a session log (run {command('audit', source.path)} for why)")
    found = _Log(source, name, dict(log.header.record))
    turn: int | None = None
    prompted: set[int] = set()
    calls: dict[str, tuple[str, Any]] = {}
    events = 0
    for ev in iter_events(log.items()):
        events += 1
        if ev.seq < found.seed:
            continue
        # A stream chunk, a step's bounds: nothing read of them, their data not decoded.
        data = ev.data if ev.type in _SUMMARIZED and isinstance(ev.data, dict) else {}
        if ev.type == "turn/start":
            turn = len(found.prompts)
            found.prompts.append("")
        elif ev.type == "turn/end":
            turn = None
        elif turn is not None and turn not in prompted and ev.type in ("user/message", "prompt/blocked"):
            source_of = data.get("source")
            if isinstance(source_of, dict) and source_of.get("kind") == "user":
                prompted.add(turn)
                found.prompts[turn], dropped = _text(data.get("content"))
                if dropped:
                    found.dropped.append(turn)
        if ev.type == "tool/call" and isinstance(ev.data, dict):
            tool = str(data.get("name"))
            found.called.setdefault(tool, None)
            call_id = data.get("callId")
            if tool in (TOOL_NAME, "subagent") and isinstance(call_id, str):
                calls[call_id] = (tool, ev.time)
            if tool == "subagent":
                found.subagent_calls.append((call_id, _arguments(ev)))
        elif ev.type == "tool/result" and isinstance(ev.data, dict):
            call_id = call_id_of(data)
            if isinstance(call_id, str) and call_id in calls:
                tool, time = calls.pop(call_id)
                found.outcomes[call_id] = (tool, outcome_of(ev, time))
        elif ev.type == "request/header":
            header = data.get("header")
            tools = header.get("tools") if isinstance(header, dict) else None
            for entry in tools if isinstance(tools, list) else []:
                if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                    found.offered.setdefault(entry["name"], entry)
        elif ev.type == "todo/write":
            todos = data.get("todos")
            found.parallel_todos = found.parallel_todos or sum(
                1 for t in todos if isinstance(t, dict) and t.get("status") == "in_progress") > 1 \
                if isinstance(todos, list) else found.parallel_todos
        elif ev.type == "assistant/message":
            message = data.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            text = "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text") \
                if isinstance(content, list) else ""
            found.final_text = text or found.final_text
        elif ev.type == TITLE_REQUEST:
            found.title_requests += 1
        elif ev.type == TITLE and isinstance(data.get("source"), dict) and data["source"].get("kind") == "provider":
            found.provider_titles.append(data.get("title"))
    if found.seed > events:
        raise NewScenarioError(f"{source.path}: its header's seedLength ({found.seed}) is more than the log's "
                               f"{counted(events, 'event')}: a fork's seed is events of the log itself, so no event "
                               "would be its own (fix the header, or import its parent)")
    return found


def _text(content: Any) -> tuple[str, bool]:
    """The text of a prompt's content blocks, and whether other blocks were dropped."""
    blocks = content if isinstance(content, list) else []
    texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"
             and isinstance(b.get("text"), str)]
    return "\n".join(texts), len(texts) != len(blocks)


def _arguments(ev: Event) -> Any:
    raw = ev.data.get("arguments") if isinstance(ev.data, dict) else None
    ok, value = parse(raw) if isinstance(raw, str) else (False, None)
    return value if ok else None


def _prompt_notes(log: _Log) -> list[str]:
    return [f"{log.name}: turn {turn + 1}'s prompt has blocks other than text; the scenario keeps its text"
            for turn in log.dropped]


def _policy(logs: list[_Log], notes: list[str]) -> bool:
    """``allowParallelInProgress``: the recorded description's sentence, else what the calls show."""
    for log in logs:
        entry = log.offered.get(TOOL_NAME)
        text = entry.get("description") if entry is not None else None
        if isinstance(text, str):
            found = policy_of_description(text)
            if found is not None:
                notes.append(f"todo_write policy allowParallelInProgress={str(found).lower()}: read from the "
                             f"recorded description ({log.name})")
                return found
    parallel = any(log.parallel_todos for log in logs)
    rejected = any(_SINGLE_REJECTION in outcome.text for log in logs for tool, outcome in log.outcomes.values()
                   if tool == TOOL_NAME)
    if rejected and not parallel:
        notes.append("todo_write policy allowParallelInProgress=false: the recording's headers do not say it; a "
                     "recorded call was refused for parallel in_progress items")
        return False
    why = "a recorded list has several in_progress items" if parallel else "nothing recorded contradicts it"
    notes.append(f"todo_write policy allowParallelInProgress=true: the recording's headers do not say it; {why} "
                 "(edit scenario.json to choose)")
    return True


def _tools(log: _Log, policy: bool | None, subagent: bool | dict[str, Any] | None) -> dict[str, Any]:
    """A session's tools; ``subagent`` is ``None`` when the recording answers its calls."""
    names = list(dict.fromkeys([*log.offered, *log.called]))
    tools: dict[str, Any] = {}
    if TOOL_NAME in names:
        tools[TOOL_NAME] = {"allowParallelInProgress": policy}
    real = "subagent" in names and subagent is not None
    if real:
        tools["subagent"] = subagent
    recorded = [n for n in names if n != TOOL_NAME and not (n == "subagent" and real)]
    if recorded:
        tools["recorded"] = recorded
    return tools


@dataclass
class _Spawns:
    """How the recorded ``subagent`` calls map onto the run's one-shot subagent tool."""

    children: list[_Log] = field(default_factory=list)
    """The child logs, in the order the run starts them."""
    max_depth: int | None = None
    problem: str | None = None
    """Why the run's tool cannot reproduce some call (then the recording answers them all)."""


def _spawns(primary: _Log, children: list[_Log]) -> _Spawns:
    """Match each ``subagent`` call (depth first, as the run goes) to the unclaimed
    child of its caller whose first prompt is the call's prompt, and check that the
    run's tool returns what the recording did: the child's last reply, or a
    ``maxDepth`` refusal."""
    unclaimed = [c for c in children if c.seed == 0]
    out = _Spawns()

    def walk(log: _Log) -> None:
        for call_id, args in log.subagent_calls:
            got = log.outcomes.get(call_id) if isinstance(call_id, str) else None
            recorded = got[1] if got is not None else None
            prompt = args.get("prompt") if isinstance(args, dict) else None
            child = next((c for c in unclaimed if c.parent == log.id and c.prompts[:1] == [prompt]), None)
            refused = _MAX_DEPTH.search(recorded.text) if recorded is not None else None
            if child is None and refused is not None and recorded is not None and recorded.is_error:
                out.max_depth = int(refused.group(1))
                continue
            if child is None or recorded is None:
                out.problem = out.problem or f"{log.name}: subagent call {call_id} has no child log it started"
                continue
            unclaimed.remove(child)
            out.children.append(child)
            expected = [{"type": "text", "text": child.final_text or "(the subagent finished without a final answer)"}]
            if len(child.prompts) != 1 or recorded.is_error or recorded.content != expected:
                out.problem = out.problem or (f"{log.name}: subagent call {call_id} returned more than its child's "
                                              "last reply (a continuable child, a diagnostic)")
            walk(child)

    walk(primary)
    return out


def _subagent(primary: _Log, children: list[_Log],
              notes: list[str]) -> tuple[bool | dict[str, Any] | None, list[_Log]]:
    """The ``subagent`` configuration (``None``: answered from the recording) and the
    children the run starts, in order; the children left out are noted."""
    spawns = _spawns(primary, children)
    subagent: bool | dict[str, Any] | None = {"maxDepth": spawns.max_depth} if spawns.max_depth else True
    if spawns.problem is not None:
        subagent, spawns.children = None, []
        notes.append(f"subagent answers from the recording (tools.recorded) and its children are not re-run: "
                     f"{spawns.problem}, which the run's one-shot subagent does not reproduce")
    for c in children:
        if c not in spawns.children:
            why = f"a fork child (seedLength {c.seed})" if c.seed else "the run does not start it"
            notes.append(f"{c.name}: {why}; copied, not re-run (the call that started it answers from the "
                         "recording)")
    return subagent, spawns.children


def _plays_titles(primary: _Log, doc: Any) -> bool:
    """Whether the override scripts the session-title model: played as the title
    route's calls (applied to the calls derived from the log, as the harness's title
    replay applies it), it answers each recorded title request and gives exactly
    the recorded provider titles."""
    if not primary.title_requests:
        return False
    try:
        derived = [] if isinstance(doc, list) else RecordedModel.from_events(primary.events()).calls
        calls = apply_override(derived, doc)
    except ModelError:
        return False
    if len(calls) != primary.title_requests:
        return False
    return [t for t in map(title_of, calls) if t is not None] == primary.provider_titles


@dataclass(frozen=True)
class _OverrideUse:
    agent: str | None = None
    """The override plays the agent's model."""
    title: str | None = None
    """The override plays the session-title model."""


def _override(primary: _Log, raw: bytes | None, notes: list[str], use: bool) -> _OverrideUse:
    """Which model the override plays: the agent's when the recording alone cannot
    play it; with ``use``, the one it scripts (the session-title model's, or else the
    agent's); otherwise none — the recording holds what the override made the models
    do."""
    try:
        RecordedModel.from_events(primary.events())
    except ModelError:
        notes.append(f"{OVERRIDE_NAME}: copied and used: the recording alone cannot play the model")
        return _OverrideUse(agent=OVERRIDE_NAME)
    ok, doc = parse(raw.decode("utf-8", "replace")) if raw is not None else (False, None)
    titles = ok and _plays_titles(primary, doc)
    if use and titles:
        notes.append(f"{OVERRIDE_NAME}: copied and used as the session-title model (it gives the recorded provider "
                     "titles; the agent's calls derive from the log, as in the harness's keyless suite)")
        return _OverrideUse(title=OVERRIDE_NAME)
    if use:
        notes.append(f"{OVERRIDE_NAME}: copied and used: it plays the model in place of the recorded calls")
        return _OverrideUse(agent=OVERRIDE_NAME)
    if titles:
        notes.append(f"{OVERRIDE_NAME}: copied, not used: it scripts the session-title model, and the recording "
                     f'holds the titles it gave (set "title": {{"override": "{OVERRIDE_NAME}"}} in the model, or '
                     "import with --use-override, to use it)")
    else:
        notes.append(f"{OVERRIDE_NAME}: copied, not used: the recording plays the model without it (set "
                     f'"override": "{OVERRIDE_NAME}" in the model, or import with --use-override, to use it)')
    return _OverrideUse()


def _model(log: _Log, default: str, override: _OverrideUse | None = None) -> dict[str, Any]:
    model: dict[str, Any] = {"recorded": True}
    if log.name != default:
        model["log"] = log.name
    if override is not None and override.agent is not None:
        model["override"] = override.agent
    if override is not None and override.title is not None:
        model["title"] = {"override": override.title}
    return model


def _copy(staging: _Staging, file: _File, name: str, cap: int) -> None:
    """Copy one file into the staging folder; a source that cannot be read (a FIFO,
    over the cap) is the user's input problem, ``NewScenarioError``."""
    try:
        blocks = file.blocks(cap)
        staging.write(name, _source_blocks(blocks))
    except _SourceError as exc:
        raise NewScenarioError(str(exc)) from None


class _SourceError(Exception):
    """The file to import could not be read (not the scenario tree's fault)."""


def _source_blocks(blocks: Iterator[bytes]) -> Iterator[bytes]:
    try:
        yield from blocks
    except FsError as exc:
        raise _SourceError(str(exc)) from None


def _staged_json(staging: _Staging, file: _File, name: str) -> bytes:
    """The override, copied once; the copy's bytes."""
    _copy(staging, file, name, MAX_JSON_BYTES)
    try:
        data = staging.tree.read(staging.folder, name, limit=MAX_JSON_BYTES)
    except FsError as exc:
        raise NewScenarioError(str(exc)) from None
    return data or b""


def _read_json(file: _File) -> Any:
    """A side file read, not copied (``input.json``): its JSON, ``None`` when it is none."""
    try:
        ok, value = parse(b"".join(file.blocks(MAX_SIDE_BYTES)).decode("utf-8", "replace"))
    except FsError:
        return None
    return value if ok else None


def import_log(scenarios_root: Tree | Path, name: str, source: Path, *, force: bool = False,
               locale: str = "en", use_override: bool = False, keep_run: bool = False) -> NewScenario:
    """Import a harness session as the recorded scenario ``scenarios_root/name``.
    ``use_override``: the harness folder's ``replay.override.json`` plays the model
    it scripts, as in the harness's keyless suite, even where the recording alone
    could play it. The keyless test run keeps its logs (``NewScenario.run``) only
    with ``keep_run``."""
    tree = as_tree(scenarios_root)
    target = _target(tree, name)
    found = _locate(source)
    notes = list(found.notes)
    with _Staging(tree, name) as staging:
        logs = [(found.primary, _scenario_name(found.primary.path)),
                *((child, child.path.name) for child in found.children)]
        for file, stored in logs:
            _copy(staging, file, stored, MAX_LOG_BYTES)
        sources = [staging.source(stored, str(file.path)) for file, stored in logs]
        for src in sources:
            _session_log(src)
        failing = [r for r in audit_sources(sources) if r.status == "unreadable" or r.count(Severity.ERROR)]
        if failing and not force:
            raise ImportRefused(failing)
        if failing:
            rules = sorted({f.rule for r in failing for f in r.findings if f.severity is Severity.ERROR})
            notes.append(f"imported despite error findings (--force) in {counted(len(failing), 'log')}: rules "
                         f"{', '.join(rules) or 'unreadable'}")
        steps = _read_json(found.input) if found.input is not None else None
        override_raw = _staged_json(staging, found.override, OVERRIDE_NAME) if found.override is not None else None
        primary, *children = (_summarize(src, stored) for src, (_, stored) in zip(sources, logs, strict=True))
        notes.extend(_prompt_notes(primary))
        subagent, spawned = _subagent(primary, children, notes)
        sessions = [primary, *spawned]
        policy = _policy(sessions, notes) if any(TOOL_NAME in s.called or TOOL_NAME in s.offered
                                                  for s in sessions) else None
        override = _override(primary, override_raw, notes, use_override) if override_raw is not None else None
        cwd = primary.header.get("cwd")
        doc: dict[str, Any] = {
            "$schema": SCHEMA_REF,
            "description": f"Imported from the harness session {source.name}: "
                           f"{counted(len(primary.prompts), 'turn')}; the recording plays the model and answers the "
                           "tools the loop does not model.",
            "prompts": primary.prompts,
            "tools": _tools(primary, policy, subagent),
        }
        if locale != "en":
            doc["locale"] = locale
        if terminal_capability(steps):
            doc["client"] = {"terminalOutput": True}
        if cwd != CWD_PLACEHOLDER:
            doc["cwd"] = cwd if isinstance(cwd, str) else None
        doc["model"] = _model(primary, SESSION_LOG, override)
        if spawned:
            doc["children"] = [{"tools": _tools(c, policy, subagent), "model": {"recorded": True, "log": c.name}}
                               for c in spawned]
        staging.write(SCENARIO_FILE, _scenario_json(doc))
        try:
            run = run_scenario(tree.at(staging.folder), tree, name, keep=keep_run)
        except ScenarioError as exc:
            raise ImportRefused(failing, str(exc).replace(staging.folder, name)) from None
        notes.extend(staging.publish())
    return NewScenario(name, target, sorted(staging.files), notes, failing, run if keep_run else None)
