"""Scenarios: ``scenarios/<name>/scenario.json`` and what a keyless run of one gives.

A scenario names its prompts (one per turn), the agent's tools, the locale and client
capabilities of the renderers, the session's working directory, and its model: a
script of calls, or ``recorded`` — the assistant output read back from the scenario's
``session.jsonl`` (and ``session.N.jsonl`` for children), which then also answers the
calls of the tools listed under ``tools.recorded`` and brings back every event the
loop does not write itself. Children (subagents) have their own tools and model.

The format is documented in ``docs/scenarios.md``; its JSON Schema, generated from
the models below, ships as ``replay/scenarios/scenario.schema.json`` (regenerate it
with ``python -m replay.scenarios.scenario``) and is printed by
``replay schema scenario``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from replay.agent.loop import Agent, RunError
from replay.agent.model import (
    Deriver,
    Model,
    ModelError,
    PackedCalls,
    RecordedModel,
    ScriptedCall,
    ScriptedModel,
    apply_override,
)
from replay.agent.recording import Recording, RecordingFold, referenced_seqs
from replay.agent.title import TitleModel
from replay.agent.tools import RecordedTool, SubagentTool, TodoTool, Tool, ToolReply
from replay.agent.writer import Clock, Ids, SessionLog
from replay.fs import FsError, Tree, write_output
from replay.hints import command
from replay.jsjson import parse
from replay.log.event import Event
from replay.log.reader import Source, iter_events, read_log
from replay.log.source import SESSION_LOG, child_log, tree_source
from replay.log.values import CWD_PLACEHOLDER
from replay.render.acp.profiles import detect_profile
from replay.render.choices import DEFAULT_LOCALE, Locale
from replay.todo.tool import TOOL_NAME, Config
from replay.validation import UNKNOWN, validation_problems
from replay.words import counted

SCENARIO_FILE = "scenario.json"
SCHEMA_FILE = "scenario.schema.json"
"""The schema's name: shipped in this package, and copied next to the scenario folders."""
SCHEMA_REF = f"../{SCHEMA_FILE}"
"""The ``$schema`` a scenario carries: the copy in the folder of scenario folders."""
MAX_JSON_BYTES = 16 << 20
"""The largest ``scenario.json`` or override file read."""


class _Strict(BaseModel):
    """Every field of the format: no unknown field, and no value of another JSON type
    taken for the one asked (``1`` is not ``true``, ``"3"`` is not ``3``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, use_attribute_docstrings=True)


class TodoWriteConfig(_Strict):
    """The ``todo_write`` tool, run for real."""

    allow_parallel_in_progress: bool = Field(alias="allowParallelInProgress")
    """The deployment's policy: `true` lets several todos be `in_progress` at once; `false` rejects a list with
    more than one. Required: it is a choice, and the offered description's policy sentence follows it."""


class SubagentConfig(_Strict):
    """The ``subagent`` tool with options."""

    max_depth: int | None = Field(default=None, alias="maxDepth", ge=1)
    """Refuse a child deeper than this delegation depth, as the harness's `maxDepth` does. No limit when absent."""


class ToolsConfig(_Strict):
    """The tools the session offers. `todo_write` and `subagent` run for real; the tools in `recorded` answer from
    the recording."""

    todo_write: TodoWriteConfig | None = None
    """Offer `todo_write` under this policy. Absent: not offered."""
    subagent: bool | SubagentConfig = False
    """Offer `subagent` (`true`, or an object with options): each call runs the next entry of `children`."""
    recorded: list[str] = Field(default_factory=list)
    """Tools the loop does not model (`bash`, `read`, `edit`, …): a call gets the result the recording holds for
    its call id, with the recorded error flag and duration. Needs a recorded model."""

    @model_validator(mode="after")
    def _distinct(self) -> ToolsConfig:
        if TOOL_NAME in self.recorded:
            raise ValueError("recorded: todo_write always runs for real (its policy decides); configure it under "
                             "todo_write")
        if "subagent" in self.recorded and self.offers_subagent:
            raise ValueError("subagent is either run for real (subagent) or answered from the recording "
                             "(recorded), not both")
        if len(set(self.recorded)) != len(self.recorded):
            raise ValueError("recorded: a tool is listed twice")
        return self

    @property
    def subagent_max_depth(self) -> int | None:
        return self.subagent.max_depth if isinstance(self.subagent, SubagentConfig) else None

    @property
    def offers_subagent(self) -> bool:
        return self.subagent is not False


class ToolCallSpec(_Strict):
    """One tool call of a scripted step."""

    name: str
    """The tool called."""
    arguments: Any = None
    """An object (serialized compactly) or a string sent verbatim, as a model might. Absent: `{}`."""


class ErrorSpec(_Strict):
    """The provider failure that ends a scripted step (and its turn)."""

    message: str
    code: str = "UNKNOWN"


class StepSpec(_Strict):
    """One scripted model call: the content of one step. A step with tool calls is followed by another step of
    the same turn; a step with text and no tool calls ends the turn."""

    reasoning: str | None = None
    """Reasoning streamed first (a `reasoning` block)."""
    text: str | None = None
    """The reply text (a `text` block)."""
    tool_calls: list[ToolCallSpec] = Field(default_factory=list, alias="toolCalls")
    """Tool calls, run in order after the step's text; their call ids are `call_01`, `call_02`, … (`call_cN_01`
    in child N)."""
    error: ErrorSpec | None = None
    """The stream fails after its content: the turn ends with this error."""
    finish: Literal["stop", "tool-calls", "max-tokens"] | None = None
    """Overrides the finish kind (`max-tokens` ends the turn with that reason)."""


class TitleSpec(_Strict):
    """The harness's session-title model: an auxiliary route of its own (in the harness's keyless suite, a second
    replay provider that plays `replay.override.json`). Each `session/title-llm-request` the recording holds is
    asked of it, and the provider `session/title` answering that request carries its title; a call that fails,
    calls a tool or gives no text leaves the title out, as the harness does."""

    override: str
    """The title model's calls: a harness override (relative to the scenario folder) applied to the calls derived
    from the recording, as the harness's title replay applies it (an array of entries replaces them)."""
    max_title_bytes: int | None = Field(default=None, alias="maxTitleBytes", ge=1)
    """The deployment's byte budget for an accepted title (`maxTitleBytes`); the title is cut on a character
    boundary. No limit when absent."""

    @model_validator(mode="after")
    def _inside(self) -> TitleSpec:
        _check_relative(self.override)
        return self


class ModelSpec(_Strict):
    """The model: a script, or a recording. Never a network service."""

    script: list[StepSpec] | None = None
    """The calls of a scripted model, in order, across all turns."""
    recorded: bool = False
    """Play the model from a recorded harness log: its `assistant/chunk` events, call by call."""
    log: str | None = None
    """The recorded log, relative to the scenario folder. Default: `session.jsonl` for the primary session,
    `session.N.jsonl` for child N."""
    override: str | None = None
    """A harness `replay.override.json` (relative to the scenario folder) that replaces (an array of entries) or
    patches (`{"patches": […]}`) the calls derived from the recording."""
    title: TitleSpec | None = None
    """The session-title model that answers the recording's title requests. Absent: the recorded titles are
    replayed as they are."""

    @model_validator(mode="after")
    def _one_kind(self) -> ModelSpec:
        if (self.script is None) == (not self.recorded):
            raise ValueError('a model is either "script": [...] or "recorded": true')
        if not self.recorded and (self.log is not None or self.override is not None or self.title is not None):
            raise ValueError("log, override and title belong to a recorded model")
        for name in (self.log, self.override):
            if name is not None:
                _check_relative(name)
        return self


def _check_relative(name: str) -> None:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\\" in name:
        raise ValueError(f"{name!r} must be a path inside the scenario folder (relative, no '..')")


def _needs_recording(tools: ToolsConfig, model: ModelSpec) -> None:
    if tools.recorded and not model.recorded:
        raise ValueError("tools.recorded needs a recorded model: only a recording can answer those calls")


class ChildSpec(_Strict):
    """A subagent child: the session the n-th `subagent` call of the run starts (in the order the calls run,
    nested children included)."""

    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    model: ModelSpec
    """The child's model; a recorded child reads `session.N.jsonl` unless `log` names another file."""

    @model_validator(mode="after")
    def _recording(self) -> ChildSpec:
        _needs_recording(self.tools, self.model)
        return self


class ClientSpec(_Strict):
    """The ACP client's capabilities, as its `initialize` said them."""

    terminal_output: bool = Field(default=False, alias="terminalOutput")
    """The client opted in to terminal cards (`clientCapabilities._meta.terminal_output`)."""


class Scenario(_Strict):
    """A replay scenario: `scenarios/<name>/scenario.json`. `replay refresh <name>` runs it keylessly and writes
    its goldens; `replay check <name>` compares them."""

    schema_ref: str | None = Field(default=None, alias="$schema")
    """The JSON Schema editors validate and complete this file with (`replay new` writes it)."""
    description: str
    """What the scenario shows; required."""
    prompts: list[str]
    """The user's prompts, one per turn, in order. Empty: the session never ran a turn (its log is its header)."""
    tools: ToolsConfig
    """The tools of the primary session."""
    locale: Locale = DEFAULT_LOCALE
    """The web renderer's strings (`web.expected.txt`)."""
    client: ClientSpec = Field(default_factory=ClientSpec)
    """The ACP client's capabilities (`stdout.expected.jsonl`, `load.expected.jsonl`)."""
    cwd: str | None = CWD_PLACEHOLDER
    """The working directory the session headers record (`null`: none). An imported log keeps the one it
    recorded."""
    model: ModelSpec
    """The primary session's model."""
    children: list[ChildSpec] = Field(default_factory=list)
    """The subagent children, in the order the run starts them."""

    @model_validator(mode="after")
    def _recording(self) -> Scenario:
        _needs_recording(self.tools, self.model)
        return self


class ScenarioError(Exception):
    """A scenario that cannot be loaded or run; the message names the file (and the
    turn, step and call) and says what to fix."""


def scenario_problems(exc: ValidationError, text: bytes | str = b"") -> str:
    """What is wrong with a scenario file (``text``), in its own words
    (``replay.validation``): each problem, and once, where the fields are listed when
    one is unknown."""
    ok, document = parse(text.decode("utf-8", "replace") if isinstance(text, bytes) else text)
    problems = validation_problems(exc, Scenario, document if ok else None)
    listed = f"; see {command('schema', 'scenario')} for the fields" if any(UNKNOWN in p for p in problems) else ""
    return "; ".join(problems) + listed


def load_scenario(folder: Path, root: Tree | Path | None = None) -> Scenario:
    """The scenario of ``folder``, read through its tree (``root``; default: the
    folder's parent, as named)."""
    return _load(_Folder.of(folder, root))


def _load(folder: _Folder) -> Scenario:
    path = folder.at(SCENARIO_FILE)
    try:
        text = folder.read(SCENARIO_FILE, "the scenario")
    except FsError as exc:
        raise ScenarioError(str(exc)) from None
    if text is None:
        raise ScenarioError(f"{path}: cannot read the scenario (No such file or directory)")
    try:
        return Scenario.model_validate_json(text)
    except ValidationError as exc:
        raise ScenarioError(f"{path}: invalid scenario: {scenario_problems(exc, text)}") from None


def _optional(prop: dict[str, Any]) -> dict[str, Any]:
    """An optional field (``X | None = None``) as the schema offers it: ``X``, absent
    meaning unset — an editor should not suggest ``null``."""
    any_of = prop.get("anyOf")
    if prop.get("default", ...) is not None or not isinstance(any_of, list) or len(any_of) != 2 \
            or {"type": "null"} not in any_of:
        return prop
    (kept,) = [s for s in any_of if s != {"type": "null"}]
    return {**kept, **{k: v for k, v in prop.items() if k not in ("anyOf", "default")}}


def _tidy(node: Any) -> Any:
    """Descriptions on one line; no generated per-property titles (``Terminaloutput``);
    optional fields without ``null``."""
    if isinstance(node, list):
        return [_tidy(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "description" and isinstance(value, str):
            out[key] = " ".join(value.split())
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _tidy(_optional({k: v for k, v in prop.items() if k != "title"}))
                        for name, prop in value.items()}
        else:
            out[key] = _tidy(value)
    return out


def json_schema() -> dict[str, Any]:
    """The scenario format as a JSON Schema (draft 2020-12), generated from the models."""
    generated = _tidy(Scenario.model_json_schema(by_alias=True))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **generated, "title": "replay scenario"}


def schema_text() -> str:
    """The schema as it is shipped: 2-space JSON with a trailing newline."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def shipped_schema() -> str:
    """The schema file shipped in the package (what ``replay schema scenario`` prints)."""
    return resources.files("replay.scenarios").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


@dataclass
class Run:
    """The logs a keyless run wrote: the primary first, then children in spawn order."""

    name: str
    scenario: Scenario
    logs: list[SessionLog]


@dataclass
class _Session:
    """What one session of a run is built from."""

    model: Model
    tools: list[Tool]
    provider: str = "replay"
    model_name: str = "scripted"
    recording: Recording | None = None
    title: TitleModel | None = None
    persist_throw: bool = False


@dataclass(frozen=True)
class _Folder:
    """A scenario folder, ``name`` in the scenario tree: every file it names is read
    through the tree (``replay.fs``), never through a link, under a cap."""

    tree: Tree
    name: str

    @classmethod
    def of(cls, folder: Path, root: Tree | Path | None) -> _Folder:
        tree = root if isinstance(root, Tree) else Tree.named(root if root is not None else folder.parent)
        return cls(tree, folder.name)

    def parts(self, relative: str) -> tuple[str, ...]:
        return (self.name, *PurePosixPath(relative).parts)

    def at(self, relative: str) -> Path:
        return self.tree.at(*self.parts(relative))

    def read(self, relative: str, what: str, limit: int = MAX_JSON_BYTES) -> bytes | None:
        return self.tree.read(*self.parts(relative), limit=limit, what=what)

    def source(self, relative: str) -> Source:
        return tree_source(self.tree, self.parts(relative))


@dataclass(frozen=True)
class _Recorded:
    """A recorded log, read again as a stream for each thing a run needs from it: a
    long recording is never held whole."""

    source: Source
    seed: int

    def events(self) -> Iterator[Event]:
        return iter_events(read_log(self.source).items())


def _read_recording(folder: _Folder, relative: str) -> _Recorded:
    path = folder.at(relative)
    try:
        exists = folder.tree.exists(*folder.parts(relative))
    except FsError as exc:
        raise ScenarioError(str(exc)) from None
    if not exists:
        raise ScenarioError(f"{path}: the recorded model log is missing")
    try:
        folder.tree.open(*folder.parts(relative), what="the recorded model log").close()
    except FsError as exc:  # a link, a FIFO: said as such, not as "not a session log"
        raise ScenarioError(str(exc)) from None
    log = read_log(folder.source(relative))
    if log.header is None:
        raise ScenarioError(f"{path}: not a session log (run {command('audit', str(path))})")
    seed = log.header.record.get("seedLength")
    return _Recorded(folder.source(relative), seed if isinstance(seed, int) else 0)


def _names(events: Iterable[Event]) -> tuple[str, str]:
    """The provider and model names the recording's first assistant message carries."""
    for ev in events:
        message = ev.data.get("message") if ev.type == "assistant/message" and isinstance(ev.data, dict) else None
        source = message.get("source") if isinstance(message, dict) else None
        if isinstance(source, dict):
            provider, model_name = source.get("provider"), source.get("model")
            if isinstance(provider, str) and provider and isinstance(model_name, str) and model_name:
                return provider, model_name
            break
    return "replay", "recorded"


def _tools(config: ToolsConfig, recording: Recording | None) -> list[Tool]:
    tools: list[Tool] = []
    if config.todo_write is not None:
        tools.append(TodoTool(Config(config.todo_write.allow_parallel_in_progress)))
    if config.offers_subagent:
        tools.append(SubagentTool(config.subagent_max_depth))
    calls = recording.calls if recording is not None else {}
    tools.extend(RecordedTool(name, calls) for name in config.recorded)
    return tools


def _override_doc(folder: _Folder, override: str | None) -> Any:
    """The harness override a model names, read (``None``: it names none)."""
    if override is None:
        return None
    where = folder.at(override)
    try:
        raw = folder.read(override, "the override")
    except FsError as exc:
        raise ScenarioError(str(exc)) from None
    if raw is None:
        raise ScenarioError(f"{where}: cannot read the override (No such file or directory)")
    ok, doc = parse(raw.decode("utf-8", "replace"))
    if not ok:
        raise ScenarioError(f"{where}: the override is not JSON")
    return doc


def _recorded_model(folder: _Folder, override: str | None, doc: Any, log: str,
                    derived: PackedCalls | ModelError) -> RecordedModel:
    """The calls derived from the recording, after the override (``doc``, read from
    ``override``): an override that replaces them all (an array) needs no derivation —
    the recording may be one the harness could not derive from either."""
    try:
        if isinstance(doc, list):
            return RecordedModel(apply_override([], doc))
    except ModelError as exc:
        raise ScenarioError(f"{folder.at(override or log)}: {exc}") from None
    if isinstance(derived, ModelError):
        raise ScenarioError(f"{folder.at(log)}: {derived}") from None
    model = RecordedModel(derived)
    if override is None:
        return model
    try:
        return model.with_override(doc)
    except ModelError as exc:
        raise ScenarioError(f"{folder.at(override)}: {exc}") from None


def _read_recorded(recorded: _Recorded, referenced: set[int]) -> tuple[PackedCalls | ModelError, Recording]:
    """The model calls a recording derives (or why it cannot derive them) and the
    recording itself, read in one pass: each event's data is decoded once, if at all."""
    derive: Deriver | None = Deriver()
    fold = RecordingFold(referenced)
    failed: ModelError | None = None
    seed = recorded.seed
    for ev in recorded.events():
        if ev.seq < seed:
            continue
        fold.add(ev)
        if derive is not None:
            try:
                derive.add(ev)
            except ModelError as exc:  # said only if a model needs the derivation
                failed, derive = exc, None
    if derive is not None:
        try:
            return derive.finish(), fold.recording
        except ModelError as exc:
            failed = exc
    assert failed is not None
    return failed, fold.recording


def _session(tools: ToolsConfig, spec: ModelSpec, folder: _Folder, default_log: str, prefix: str) -> _Session:
    if not spec.recorded:
        script = [ScriptedCall(s.reasoning, s.text, [(c.name, c.arguments if c.arguments is not None else {})
                                                      for c in s.tool_calls],
                               (s.error.message, s.error.code) if s.error else None, s.finish)
                  for s in spec.script or []]
        return _Session(ScriptedModel(script, call_prefix=prefix), _tools(tools, None))
    log = spec.log or default_log
    recorded = _read_recording(folder, log)
    doc = _override_doc(folder, spec.override)
    derived, recording = _read_recorded(recorded, referenced_seqs(recorded.events(), recorded.seed))
    model = _recorded_model(folder, spec.override, doc, log, derived)
    title = None
    if spec.title is not None:
        title_doc = _override_doc(folder, spec.title.override)
        title = TitleModel(_recorded_model(folder, spec.title.override, title_doc, log, derived),
                           spec.title.max_title_bytes)
    provider, model_name = _names(recorded.events())
    # Today's harness persists a stream that threw as an error finish chunk; its 2026-07 generation did not.
    current = detect_profile(recorded.events()) == "2026-08"
    return _Session(model, _tools(tools, recording), provider, model_name, recording, title, current)


@dataclass
class _Runner:
    """One keyless run of a scenario: its clock, ids, logs, and the sessions' models."""

    folder: _Folder
    scenario: Scenario
    name: str
    keep: bool = True
    """Whether the logs keep their events (``False``: a test run, whose logs only count them)."""
    clock: Clock = field(default_factory=Clock)
    logs: list[SessionLog] = field(default_factory=list)
    models: list[tuple[str, Model]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.ids = Ids(self.name)

    def _add_models(self, who: str, session: _Session) -> None:
        """The models whose calls must all be used by the end of the run."""
        self.models.append((who, session.model))
        if session.title is not None:
            self.models.append((f"the title model of {who}", session.title.model))

    def spawn(self, parent: Agent, prompt: str, label: str | None) -> ToolReply:
        index = len(self.logs)
        children = self.scenario.children
        if index > len(children):
            return ToolReply(f"Error: no subagent is configured for call {index} (add one to children)", True)
        spec = children[index - 1]
        child = SessionLog.new(self.ids.next(), self.clock, cwd=self.scenario.cwd, parent=parent.log.id,
                               depth=int(parent.log.header["delegationDepth"]) + 1, keep=self.keep)
        self.logs.append(child)
        session = _session(spec.tools, spec.model, self.folder, child_log(index), f"call_c{index}")
        self._add_models(f"child {index}", session)
        agent = Agent(child, session.model, session.tools, self.ids, session.provider, session.model_name,
                      spawn_child=self.spawn, recording=session.recording, label=f"child {index}",
                      title_model=session.title, persist_throw=session.persist_throw)
        text = agent.run_turn(prompt)
        agent.finish()
        return ToolReply(text or "(the subagent finished without a final answer)")

    def run(self) -> Run:
        primary = SessionLog.new(self.ids.next(), self.clock, cwd=self.scenario.cwd, keep=self.keep)
        self.logs.append(primary)
        session = _session(self.scenario.tools, self.scenario.model, self.folder, SESSION_LOG, "call")
        self._add_models("the primary session", session)
        agent = Agent(primary, session.model, session.tools, self.ids, session.provider, session.model_name,
                      spawn_child=self.spawn, recording=session.recording, title_model=session.title,
                      persist_throw=session.persist_throw)
        for prompt in self.scenario.prompts:
            agent.run_turn(prompt)
        agent.finish()
        for who, used in self.models:
            if used.unused():
                raise ScenarioError(f"the model of {who} has {counted(used.unused(), 'call')} the run never asked "
                                    "for: the run diverged from the recording or script (re-record, or fix the script)")
        return Run(self.name, self.scenario, self.logs)


def run_scenario(folder: Path, root: Tree | Path | None = None, name: str | None = None, *,
                 keep: bool = True) -> Run:
    """Run a scenario keylessly. Deterministic: the clock, ids and call ids are seeded
    by the scenario's name (``name``; default: the folder's), so a run gives the same
    logs on any machine. ``root`` is the scenario tree (default: the folder's parent,
    as named); the folder and every file it names are read through it: a link is
    refused, never followed. ``keep=False``: a test run, whose logs keep no events (it
    tells whether the scenario runs, in memory that does not grow with its logs)."""
    where = _Folder.of(folder, root)
    scenario = _load(where)
    spec = where.at(SCENARIO_FILE)
    try:
        return _Runner(where, scenario, name or where.name, keep).run()
    except RunError as exc:
        raise ScenarioError(f"{spec}: {exc}") from None
    except ScenarioError as exc:
        message = str(exc)
        raise ScenarioError(message if message.startswith(str(where.tree.at(where.name))) else f"{spec}: {message}") \
            from None


def _write_schema() -> None:
    target = Path(__file__).with_name(SCHEMA_FILE)
    write_output(target, [schema_text()])
    print(f"wrote {target}")


_SCENARIO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
STAGING = ".new-"
"""The prefix of the hidden folder of the scenario tree ``replay new`` writes a scenario in
before it publishes it (``.new-<pid>-<random>-<name>``): never a scenario, whatever it holds."""
SCENARIO_NAME_RULE = ("not a scenario name: a scenario is a folder named with letters, digits, '.', '_' and '-', "
                      "starting with a letter or digit, at most 100 characters")
"""What ``is_scenario_name`` asks, in words (``replay new``, a check, a pending manifest)."""


def is_scenario_name(name: str) -> bool:
    """A name ``replay new`` accepts and a scenario folder must have: a plain folder
    name (letters, digits, ``.``, ``_``, ``-``; not starting with a dot, dash or
    underscore; at most 100 characters). ASCII only: the name goes into ids, paths and
    pending manifests on every system."""
    return _SCENARIO_NAME.fullmatch(name) is not None


if __name__ == "__main__":
    _write_schema()
