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

A scenario folder is published whole (written to a temporary folder, then renamed),
never over an existing one, and ``scenarios/scenario.schema.json`` — what each
``scenario.json``'s ``$schema`` points at — is written or brought up to date.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.agent.model import ModelError, RecordedModel, apply_override
from replay.agent.recording import Recording
from replay.agent.title import REQUEST as TITLE_REQUEST
from replay.agent.title import TITLE, title_of
from replay.check.engine import LogReport, audit_sources
from replay.findings import Severity
from replay.jsjson import parse
from replay.log.event import Event
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.log.values import CWD_PLACEHOLDER
from replay.output import pretty_json, utf8
from replay.snapshot.harness import terminal_capability
from replay.snapshot.scenario import (
    SCENARIO_FILE,
    SCHEMA_FILE,
    SCHEMA_REF,
    Scenario,
    is_scenario_name,
    read_bounded,
    shipped_schema,
)
from replay.snapshot.store import GoldenStore, StoreError
from replay.todo.tool import TOOL_NAME, policy_of_description

OVERRIDE_FILE = "replay.override.json"
_LOG_NAME = re.compile(r"session(?:\.([1-9][0-9]*))?\.jsonl(\.zstd|\.zst)?")
_MAX_DEPTH = re.compile(r"exceeds maxDepth ([0-9]+)")
_SINGLE_REJECTION = "at most one task may be in_progress"


class NewScenarioError(Exception):
    """``replay new`` cannot do what was asked (a usage error: the name is taken or
    not a folder name, the input is not a log); the message says what to do."""


class ImportRefused(Exception):
    """The audit found error findings in a log to import (``--force`` imports anyway)."""

    def __init__(self, reports: list[LogReport]) -> None:
        errors = sum(r.count(Severity.ERROR) or 1 for r in reports)
        super().__init__(f"the audit found {errors} error finding(s) in {len(reports)} log(s): today's harness "
                         "would refuse to load them; fix them (see above), or import anyway with --force")
        self.reports = reports


@dataclass
class NewScenario:
    """What ``replay new`` wrote, and what an import decided or noticed."""

    name: str
    folder: Path
    files: list[str]
    notes: list[str] = field(default_factory=list)
    forced: list[LogReport] = field(default_factory=list)
    """Logs with error findings imported anyway (``--force``)."""


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


def scaffold(scenarios_root: Path, name: str) -> NewScenario:
    """Write ``scenarios_root/name/scenario.json`` from the scaffold; never overwrites."""
    target = _target(scenarios_root, name)
    files: dict[str, bytes | Path] = {SCENARIO_FILE: _scenario_json(scaffold_document())}
    notes = _publish(scenarios_root, target, files)
    return NewScenario(name, target, sorted(files), notes)


def _target(scenarios_root: Path, name: str) -> Path:
    if not is_scenario_name(name):
        raise NewScenarioError(f"{name!r} is not a scenario name: use letters, digits, '.', '_' and '-' (a plain "
                               "folder name, at most 100 characters)")
    target = scenarios_root / name
    if target.exists() or target.is_symlink():
        raise NewScenarioError(f"{target} already exists: pick another name, or delete it first (replay new never "
                               "overwrites a scenario)")
    return target


def _publish(scenarios_root: Path, target: Path, files: dict[str, bytes | Path]) -> list[str]:
    """Write the folder whole: into a temporary sibling, then renamed into place."""
    notes = []
    try:
        scenarios_root.mkdir(parents=True, exist_ok=True)
        notes.extend(_ensure_schema(scenarios_root))
        temp = scenarios_root / f".new-{target.name}-{secrets.token_hex(6)}"
        temp.mkdir()  # the mode follows the umask, as the renamed folder will keep it
    except OSError as exc:
        raise NewScenarioError(f"{scenarios_root}: cannot write there ({exc.strerror or exc})") from None
    try:
        for name, data in files.items():
            if isinstance(data, Path):
                shutil.copyfile(data, temp / name)
            else:
                (temp / name).write_bytes(data)
        if target.exists() or target.is_symlink():
            raise NewScenarioError(f"{target} appeared while it was being written; nothing was changed")
        os.rename(temp, target)
    except BaseException as exc:
        shutil.rmtree(temp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise NewScenarioError(f"{target}: cannot write the scenario ({exc.strerror or exc})") from None
        raise
    return notes


def _ensure_schema(scenarios_root: Path) -> list[str]:
    """``scenarios_root/scenario.schema.json`` (the shipped schema), written when
    missing or outdated: read under a cap, written atomically, never through a link."""
    path = scenarios_root / SCHEMA_FILE
    text = shipped_schema().encode()
    with contextlib.suppress(OSError):
        if read_bounded(path, len(text)) == text:
            return []
    existed = path.exists() or path.is_symlink()
    try:
        GoldenStore(scenarios_root).write_top(SCHEMA_FILE, text)
    except StoreError as exc:
        raise NewScenarioError(str(exc)) from None
    return [f"{'updated' if existed else 'wrote'} {path} (the JSON Schema each scenario.json's $schema points at)"]


@dataclass
class _Log:
    """One log of the import: where it came from, its name in the scenario, what it holds."""

    source: Path
    name: str
    header: dict[str, Any]
    events: list[Event]
    recording: Recording

    @property
    def id(self) -> Any:
        return self.header.get("id")

    @property
    def parent(self) -> Any:
        return self.header.get("parentSession")

    @property
    def seed(self) -> int:
        seed = self.header.get("seedLength")
        return seed if isinstance(seed, int) else 0

    def own(self) -> Iterable[Event]:
        return (e for e in self.events if e.seq >= self.seed)


@dataclass
class _Input:
    primary: Path
    children: list[Path]
    steps: Any
    override: Path | None


def _locate(source: Path) -> _Input:
    """The logs (and harness side files) an import reads."""
    if source.is_dir():
        candidates = [source / n for n in ("session.jsonl", "session.jsonl.zstd", "session.jsonl.zst")]
        primary = next((p for p in candidates if p.is_file()), None)
        if primary is None:
            raise NewScenarioError(f"{source}: a folder to import must hold a session.jsonl (a harness scenario "
                                   "folder)")
    elif source.is_file():
        primary = source
    else:
        raise NewScenarioError(f"{source}: no such file or folder")
    match = _LOG_NAME.fullmatch(primary.name)
    if match is None or match.group(1) is not None:
        return _Input(primary, [], None, None)  # a lone log: no harness folder around it
    folder = primary.parent
    numbered = [(int(m.group(1)), p) for p in folder.iterdir()
                if (m := _LOG_NAME.fullmatch(p.name)) is not None and m.group(1) is not None and p.is_file()]
    override = folder / OVERRIDE_FILE
    return _Input(primary, [p for _, p in sorted(numbered)], _steps(folder / "input.json"),
                  override if override.is_file() else None)


def _audit(paths: list[Path]) -> list[LogReport]:
    """The reports of the logs with error findings (or unreadable)."""
    return [r for r in audit_sources([file_source(p) for p in paths])
            if r.status == "unreadable" or r.count(Severity.ERROR)]


def _steps(path: Path) -> Any:
    """The parsed ``input.json`` of a harness folder; ``None`` when absent or not JSON."""
    try:
        ok, value = parse(read_bounded(path).decode("utf-8", "replace"))
    except OSError:
        return None
    return value if ok else None


def _read(path: Path, name: str) -> _Log:
    log = read_log(file_source(path))
    if log.header is None:
        raise NewScenarioError(f"{path}: not a session log (run `replay audit {path}` for why)")
    header = dict(log.header.record)
    events = list(iter_events(log.items()))
    seed = header.get("seedLength")
    return _Log(path, name, header, events, Recording.from_events(events, seed if isinstance(seed, int) else 0))


def _text(content: Any) -> tuple[str, bool]:
    """The text of a prompt's content blocks, and whether other blocks were dropped."""
    blocks = content if isinstance(content, list) else []
    texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"
             and isinstance(b.get("text"), str)]
    return "\n".join(texts), len(texts) != len(blocks)


def _prompts(log: _Log, notes: list[str]) -> list[str]:
    """Each turn's prompt: its first user message from the user, or the prompt a hook blocked."""
    prompts: list[str] = []
    found: dict[int, str] = {}
    turn: int | None = None
    for ev in log.own():
        data = ev.data if isinstance(ev.data, dict) else {}
        if ev.type == "turn/start":
            turn = len(prompts)
            prompts.append("")
        elif ev.type == "turn/end":
            turn = None
        elif turn is not None and turn not in found and ev.type in ("user/message", "prompt/blocked"):
            source = data.get("source")
            if isinstance(source, dict) and source.get("kind") == "user":
                found[turn], dropped = _text(data.get("content"))
                prompts[turn] = found[turn]
                if dropped:
                    notes.append(f"{log.name}: turn {turn + 1}'s prompt has blocks other than text; the scenario "
                                 "keeps its text")
    return prompts


def _called(log: _Log) -> list[str]:
    return list(dict.fromkeys(str(e.data.get("name")) for e in log.own()
                              if e.type == "tool/call" and isinstance(e.data, dict)))


def _offered(log: _Log) -> list[dict[str, Any]]:
    """The tool entries the request headers offered (none when the headers hold ``{{tools}}``)."""
    out: dict[str, dict[str, Any]] = {}
    for ev in log.own():
        header = ev.data.get("header") if ev.type == "request/header" and isinstance(ev.data, dict) else None
        tools = header.get("tools") if isinstance(header, dict) else None
        for entry in tools if isinstance(tools, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                out.setdefault(entry["name"], entry)
    return list(out.values())


def _policy(logs: list[_Log], notes: list[str]) -> bool:
    """``allowParallelInProgress``: the recorded description's sentence, else what the calls show."""
    for log in logs:
        for entry in _offered(log):
            text = entry.get("description")
            if entry["name"] == TOOL_NAME and isinstance(text, str):
                found = policy_of_description(text)
                if found is not None:
                    notes.append(f"todo_write policy allowParallelInProgress={str(found).lower()}: read from the "
                                 f"recorded description ({log.name})")
                    return found
    parallel = any(sum(1 for t in ev.data.get("todos", []) if isinstance(t, dict) and t.get("status") == "in_progress")
                   > 1 for log in logs for ev in log.own() if ev.type == "todo/write" and isinstance(ev.data, dict))
    rejected = any(_SINGLE_REJECTION in c.outcome.text for log in logs for c in log.recording.calls.values()
                   if c.name == TOOL_NAME)
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
    names = list(dict.fromkeys([e["name"] for e in _offered(log)] + _called(log)))
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


def _arguments(ev: Event) -> Any:
    raw = ev.data.get("arguments") if isinstance(ev.data, dict) else None
    ok, value = parse(raw) if isinstance(raw, str) else (False, None)
    return value if ok else None


def _final_text(log: _Log) -> str:
    """What the run's one-shot ``subagent`` returns for a child: its last reply text."""
    text = ""
    for ev in log.own():
        message = ev.data.get("message") if ev.type == "assistant/message" and isinstance(ev.data, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        found = "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text") \
            if isinstance(content, list) else ""
        text = found or text
    return text or "(the subagent finished without a final answer)"


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
    prompts = {id(c): _prompts(c, []) for c in unclaimed}
    out = _Spawns()

    def walk(log: _Log) -> None:
        for ev in log.own():
            if ev.type != "tool/call" or not isinstance(ev.data, dict) or ev.data.get("name") != "subagent":
                continue
            call_id = ev.data.get("callId")
            recorded = log.recording.calls.get(call_id) if isinstance(call_id, str) else None
            args = _arguments(ev)
            prompt = args.get("prompt") if isinstance(args, dict) else None
            child = next((c for c in unclaimed if c.parent == log.id and prompts[id(c)][:1] == [prompt]), None)
            refused = _MAX_DEPTH.search(recorded.outcome.text) if recorded is not None else None
            if child is None and refused is not None and recorded is not None and recorded.outcome.is_error:
                out.max_depth = int(refused.group(1))
                continue
            if child is None or recorded is None:
                out.problem = out.problem or f"{log.name}: subagent call {call_id} has no child log it started"
                continue
            unclaimed.remove(child)
            out.children.append(child)
            expected = [{"type": "text", "text": _final_text(child)}]
            if len(prompts[id(child)]) != 1 or recorded.outcome.is_error or recorded.outcome.content != expected:
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


def _plays_titles(primary: _Log, path: Path) -> bool:
    """Whether the override scripts the session-title model: played as the title
    route's calls (applied to the calls derived from the log, as the harness's title
    replay applies it), it answers each recorded title request and gives exactly
    the recorded provider titles."""
    requests = sum(1 for ev in primary.own() if ev.type == TITLE_REQUEST)
    if not requests:
        return False
    recorded = [ev.data.get("title") for ev in primary.own() if ev.type == TITLE and isinstance(ev.data, dict)
                and isinstance(ev.data.get("source"), dict) and ev.data["source"].get("kind") == "provider"]
    try:
        ok, doc = parse(read_bounded(path).decode("utf-8", "replace"))
        derived = [] if ok and isinstance(doc, list) else RecordedModel.from_events(primary.events, primary.seed).calls
        calls = apply_override(derived, doc) if ok else None
    except (OSError, ModelError):
        return False
    if calls is None or len(calls) != requests:
        return False
    return [t for t in map(title_of, calls) if t is not None] == recorded


@dataclass(frozen=True)
class _OverrideUse:
    agent: str | None = None
    """The override plays the agent's model."""
    title: str | None = None
    """The override plays the session-title model."""


def _override(primary: _Log, path: Path, notes: list[str], use: bool) -> _OverrideUse:
    """Which model the override plays: the agent's when the recording alone cannot
    play it; with ``use``, the one it scripts (the session-title model's, or else the
    agent's); otherwise none — the recording holds what the override made the models
    do."""
    try:
        RecordedModel.from_events(primary.events, primary.seed)
    except ModelError:
        notes.append(f"{OVERRIDE_FILE}: copied and used: the recording alone cannot play the model")
        return _OverrideUse(agent=OVERRIDE_FILE)
    titles = _plays_titles(primary, path)
    if use and titles:
        notes.append(f"{OVERRIDE_FILE}: copied and used as the session-title model (it gives the recorded provider "
                     "titles; the agent's calls derive from the log, as in the harness's keyless suite)")
        return _OverrideUse(title=OVERRIDE_FILE)
    if use:
        notes.append(f"{OVERRIDE_FILE}: copied and used: it plays the model in place of the recorded calls")
        return _OverrideUse(agent=OVERRIDE_FILE)
    if titles:
        notes.append(f"{OVERRIDE_FILE}: copied, not used: it scripts the session-title model, and the recording "
                     f'holds the titles it gave (set "title": {{"override": "{OVERRIDE_FILE}"}} in the model, or '
                     "import with --use-override, to use it)")
    else:
        notes.append(f"{OVERRIDE_FILE}: copied, not used: the recording plays the model without it (set "
                     f'"override": "{OVERRIDE_FILE}" in the model, or import with --use-override, to use it)')
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


def _scenario_name(path: Path) -> str:
    """The name a log gets in the scenario: its harness name, compression kept."""
    match = _LOG_NAME.fullmatch(path.name)
    suffix = (match.group(2) or "") if match else (".zstd" if path.name.endswith((".zstd", ".zst")) else "")
    return path.name if match else f"session.jsonl{suffix}"


def import_log(scenarios_root: Path, name: str, source: Path, *, force: bool = False,
               locale: str = "en", use_override: bool = False) -> NewScenario:
    """Import a harness session as the recorded scenario ``scenarios_root/name``.
    ``use_override``: the harness folder's ``replay.override.json`` plays the model
    it scripts, as in the harness's keyless suite, even where the recording alone
    could play it."""
    target = _target(scenarios_root, name)
    found = _locate(source)
    paths = [found.primary, *found.children]
    failing = _audit(paths)
    if failing and not force:
        raise ImportRefused(failing)
    notes: list[str] = []
    if failing:
        rules = sorted({f.rule for r in failing for f in r.findings if f.severity is Severity.ERROR})
        notes.append(f"imported despite error findings (--force) in {len(failing)} log(s): rules "
                     f"{', '.join(rules) or 'unreadable'}")
    primary = _read(found.primary, _scenario_name(found.primary))
    children = [_read(p, p.name) for p in found.children]
    subagent, spawned = _subagent(primary, children, notes)
    sessions = [primary, *spawned]
    policy = _policy(sessions, notes) if any(TOOL_NAME in _called(s) + [e["name"] for e in _offered(s)]
                                              for s in sessions) else None
    files: dict[str, bytes | Path] = {log.name: log.source for log in [primary, *children]}
    override = None
    if found.override is not None:
        files[OVERRIDE_FILE] = found.override
        override = _override(primary, found.override, notes, use_override)
    prompts = _prompts(primary, notes)
    cwd = primary.header.get("cwd")
    doc: dict[str, Any] = {
        "$schema": SCHEMA_REF,
        "description": f"Imported from the harness session {source.name}: {len(prompts)} turn(s); the recording "
                       "plays the model and answers the tools the loop does not model.",
        "prompts": prompts,
        "tools": _tools(primary, policy, subagent),
    }
    if locale != "en":
        doc["locale"] = locale
    if terminal_capability(found.steps):
        doc["client"] = {"terminalOutput": True}
    if cwd != CWD_PLACEHOLDER:
        doc["cwd"] = cwd if isinstance(cwd, str) else None
    doc["model"] = _model(primary, "session.jsonl", override)
    if spawned:
        doc["children"] = [{"tools": _tools(c, policy, subagent), "model": {"recorded": True, "log": c.name}}
                           for c in spawned]
    files[SCENARIO_FILE] = _scenario_json(doc)
    notes.extend(_publish(scenarios_root, target, files))
    return NewScenario(name, target, sorted(files), notes, failing)
