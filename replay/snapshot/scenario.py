"""Scenarios: ``scenarios/<name>/scenario.json`` and what a keyless run of one gives.

A scenario names its prompts (one per turn), the agent's tool configuration (at least
``todo_write.allowParallelInProgress``), the locale and client capabilities of the
renderers, and its model: a script of calls, or ``recorded`` — the assistant output
read back from ``session.jsonl`` (and ``session.N.jsonl`` for children) in the
scenario folder. Children (subagents) have their own tools and model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from replay.agent.loop import Agent
from replay.agent.model import Model, ModelError, RecordedModel, ScriptedCall, ScriptedModel
from replay.agent.tools import SubagentTool, TodoTool, Tool, ToolOutcome
from replay.agent.writer import Clock, Ids, SessionLog
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.todo.tool import Config

SCENARIO_FILE = "scenario.json"
CWD_PLACEHOLDER = "{{cwd}}"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class TodoWriteConfig(_Strict):
    allow_parallel_in_progress: bool = Field(alias="allowParallelInProgress")


class ToolsConfig(_Strict):
    todo_write: TodoWriteConfig | None = None
    subagent: bool = False
    """Offer the ``subagent`` tool (children are configured under ``children``)."""


class ToolCallSpec(_Strict):
    name: str
    arguments: Any = None
    """An object (serialized compactly) or a string sent verbatim, as a model might."""


class ErrorSpec(_Strict):
    message: str
    code: str = "UNKNOWN"


class StepSpec(_Strict):
    reasoning: str | None = None
    text: str | None = None
    tool_calls: list[ToolCallSpec] = Field(default_factory=list, alias="toolCalls")
    error: ErrorSpec | None = None
    finish: Literal["stop", "tool-calls", "max-tokens"] | None = None


class ModelSpec(_Strict):
    script: list[StepSpec] | None = None
    """The calls of a scripted model, in order."""
    recorded: bool = False
    """Read the assistant output back from the scenario's recorded ``session.jsonl``."""


class ChildSpec(_Strict):
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    model: ModelSpec = Field(default_factory=ModelSpec)


class ClientSpec(_Strict):
    terminal_output: bool = Field(default=False, alias="terminalOutput")


class Scenario(_Strict):
    description: str
    prompts: list[str] = Field(min_length=1)
    tools: ToolsConfig
    locale: Literal["en", "zh"] = "en"
    client: ClientSpec = Field(default_factory=ClientSpec)
    model: ModelSpec
    children: list[ChildSpec] = Field(default_factory=list)


class ScenarioError(Exception):
    """A scenario that cannot be loaded or run; the message says what to fix."""


def load_scenario(folder: Path) -> Scenario:
    path = folder / SCENARIO_FILE
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the scenario ({exc.strerror or exc})") from None
    try:
        return Scenario.model_validate_json(text)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors())
        raise ScenarioError(f"{path}: invalid scenario: {problems}") from None


@dataclass
class Run:
    """The logs a keyless run wrote: the primary first, then children in spawn order."""

    name: str
    scenario: Scenario
    logs: list[SessionLog]


def _tools(config: ToolsConfig) -> list[Tool]:
    tools: list[Tool] = []
    if config.todo_write is not None:
        tools.append(TodoTool(Config(config.todo_write.allow_parallel_in_progress)))
    if config.subagent:
        tools.append(SubagentTool())
    return tools


def _recorded(path: Path) -> tuple[RecordedModel, str, str]:
    """A recorded model, with the provider and model names the recording carries."""
    if not path.exists():
        raise ScenarioError(f"{path}: the recorded model log is missing")
    log = read_log(file_source(path))
    if log.header is None:
        raise ScenarioError(f"{path}: not a session log (run `replay audit {path}`)")
    events = list(iter_events(log.items()))
    seed = log.header.record.get("seedLength")
    provider, model_name = "replay", "recorded"
    for ev in events:
        message = ev.data.get("message") if ev.type == "assistant/message" and isinstance(ev.data, dict) else None
        source = message.get("source") if isinstance(message, dict) else None
        if isinstance(source, dict):
            found_provider, found_model = source.get("provider"), source.get("model")
            if isinstance(found_provider, str) and found_provider and isinstance(found_model, str) and found_model:
                provider, model_name = found_provider, found_model
            break
    try:
        return RecordedModel.from_events(events, seed if isinstance(seed, int) else 0), provider, model_name
    except ModelError as exc:
        raise ScenarioError(f"{path}: {exc}") from None


def _model(spec: ModelSpec, folder: Path, log_name: str, prefix: str) -> tuple[Model, str, str]:
    if spec.recorded:
        return _recorded(folder / log_name)
    if spec.script is None:
        raise ScenarioError(f"{folder / SCENARIO_FILE}: a model needs a script or recorded: true")
    script = [ScriptedCall(s.reasoning, s.text, [(c.name, c.arguments if c.arguments is not None else {})
                                                  for c in s.tool_calls],
                           (s.error.message, s.error.code) if s.error else None, s.finish) for s in spec.script]
    return ScriptedModel(script, call_prefix=prefix), "replay", "scripted"


def run_scenario(folder: Path) -> Run:
    """Run a scenario keylessly. Deterministic: the clock, ids and call ids are seeded
    by the scenario's name, so a run gives the same logs on any machine."""
    scenario = load_scenario(folder)
    name = folder.name
    clock = Clock()
    ids = Ids(name)
    primary = SessionLog.new(ids.next(), clock, cwd=CWD_PLACEHOLDER)
    logs = [primary]
    children = list(scenario.children)

    def spawn(parent: Agent, prompt: str, label: str | None) -> ToolOutcome:
        index = len(logs)
        if index > len(children):
            return ToolOutcome(f"Error: no subagent is configured for call {index} (add one to children)", True)
        spec = children[index - 1]
        child = SessionLog.new(ids.next(), clock, cwd=CWD_PLACEHOLDER, parent=parent.log.id,
                               depth=int(parent.log.header["delegationDepth"]) + 1)
        logs.append(child)
        model, provider, model_name = _model(spec.model, folder, f"session.{index}.jsonl", f"call_c{index}")
        agent = Agent(child, model, _tools(spec.tools), ids, provider, model_name, spawn_child=spawn)
        text = agent.run_turn(prompt)
        models.append((f"child {index}", model))
        return ToolOutcome(text or "(the subagent finished without a final answer)")

    model, provider, model_name = _model(scenario.model, folder, "session.jsonl", "call")
    models: list[tuple[str, Model]] = [("the primary session", model)]
    agent = Agent(primary, model, _tools(scenario.tools), ids, provider, model_name, spawn_child=spawn)
    try:
        for prompt in scenario.prompts:
            agent.run_turn(prompt)
    except ModelError as exc:
        raise ScenarioError(f"{folder}: {exc}") from None
    for who, used in models:
        if used.unused():
            raise ScenarioError(f"{folder}: the model of {who} has {used.unused()} call(s) the run never asked "
                                "for: the run diverged from the recording or script (re-record, or fix the "
                                "script)")
    return Run(name, scenario, logs)
