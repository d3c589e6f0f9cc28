"""A harness scenario folder (acp-and-snapshots.md §B.2), as far as replaying its ACP
stream needs:

* ``session.jsonl``: the primary log; ``session.N.jsonl`` are child logs (subagents),
  which contribute nothing to the parent's ACP stream;
* ``input.json``: the steps; its ``initialize`` step says whether the client opted in
  to terminal cards (old op ``{"op":"initialize","terminalOutput":true}``, or
  ``clientCapabilities._meta.terminal_output``), and its prompts say whether a slash
  command ran (its output is never logged);
* ``stdout.expected.jsonl`` (or the older ``stdout.golden.jsonl``): the recorded,
  normalized JSON-RPC stdout;
* ``live.expected.jsonl`` / ``load.expected.jsonl``: the normalized ``session/update``
  lines alone, live and as a ``session/load`` replay (the answer-key folders);
* ``replay.override.json``: the replay script replaces (or patches) the model calls
  the log records, so the log alone does not determine the stream.

Reading is I/O; everything that interprets the files is a pure function of their
parsed content.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay.jsjson import parse
from replay.log.source import SESSION_LOG

PRIMARY_LOG = SESSION_LOG
GOLDEN_NAMES = ("stdout.expected.jsonl", "stdout.golden.jsonl")
LIVE_GOLDEN = "live.expected.jsonl"
LOAD_GOLDEN = "load.expected.jsonl"
INPUT_NAME = "input.json"
OVERRIDE_NAME = "replay.override.json"
_CHILD_LOG = re.compile(r"session\.([1-9][0-9]*)\.jsonl")
_PROMPT_OPS = frozenset({"prompt", "promptExpectError", "promptAndCancel", "promptAndWaitForAgentMessage"})


@dataclass(frozen=True, slots=True)
class HarnessScenario:
    """One scenario folder. ``input`` is the parsed ``input.json`` (``None`` when
    absent); ``golden`` the stdout golden, ``live_golden`` / ``load_golden`` the
    update-only goldens and ``override`` the replay override (each ``None`` when
    absent)."""

    name: str
    folder: Path
    primary_log: Path
    child_logs: tuple[Path, ...]
    golden: Path | None
    input: Any
    live_golden: Path | None = None
    load_golden: Path | None = None
    override: Path | None = None

    @property
    def has_golden(self) -> bool:
        return self.golden is not None or self.live_golden is not None or self.load_golden is not None

    @property
    def terminal_output(self) -> bool:
        return terminal_capability(self.input)

    @property
    def slash_commands(self) -> tuple[str, ...]:
        return slash_prompts(self.input)


def terminal_capability(steps_doc: Any) -> bool:
    """The client's terminal-output flag from the first ``initialize`` step (off
    without an ``input.json`` or an ``initialize`` step)."""
    for step in _steps(steps_doc):
        if step.get("op") != "initialize":
            continue
        if step.get("terminalOutput") is True:
            return True
        caps = step.get("clientCapabilities")
        meta = caps.get("_meta") if isinstance(caps, dict) else None
        return isinstance(meta, dict) and meta.get("terminal_output") is True
    return False


def slash_prompts(steps_doc: Any) -> tuple[str, ...]:
    """The prompts that are slash commands (text starting with ``/``): the bridge runs
    them as commands, whose output is never written to the log."""
    found = []
    for step in _steps(steps_doc):
        op = step.get("op")
        text: Any = None
        if op in _PROMPT_OPS:
            text = step.get("text")
        elif op == "promptContent":
            content = step.get("content")
            first = content[0] if isinstance(content, list) and content else None
            text = first.get("text") if isinstance(first, dict) and first.get("type") == "text" else None
        if isinstance(text, str) and text.startswith("/"):
            found.append(text)
    return tuple(found)


def _steps(steps_doc: Any) -> Iterator[dict[str, Any]]:
    steps = steps_doc.get("steps") if isinstance(steps_doc, dict) else None
    if isinstance(steps, list):
        yield from (s for s in steps if isinstance(s, dict))


def is_scenario_folder(folder: Path) -> bool:
    return (folder / PRIMARY_LOG).is_file()


def golden_path(folder: Path) -> Path | None:
    for name in GOLDEN_NAMES:
        if (folder / name).is_file():
            return folder / name
    return None


def load_harness_scenario(folder: Path) -> HarnessScenario:
    """Read one scenario folder (``input.json`` parsed; logs and golden located)."""
    children = sorted(
        (p for p in folder.iterdir() if _CHILD_LOG.fullmatch(p.name)),
        key=lambda p: int(_CHILD_LOG.fullmatch(p.name).group(1)),  # type: ignore[union-attr]
    )
    steps = _read_input(folder / INPUT_NAME)
    return HarnessScenario(folder.name, folder, folder / PRIMARY_LOG, tuple(children), golden_path(folder), steps,
                           _file(folder / LIVE_GOLDEN), _file(folder / LOAD_GOLDEN), _file(folder / OVERRIDE_NAME))


def _file(path: Path) -> Path | None:
    return path if path.is_file() else None


def _read_input(path: Path) -> Any:
    """The parsed ``input.json``; ``None`` when it is absent or not JSON (the scenario
    then renders as a client without capabilities)."""
    try:
        ok, value = parse(path.read_bytes().decode("utf-8", "replace"))
    except OSError:
        return None
    return value if ok else None


def find_harness_scenarios(roots: Iterable[Path]) -> list[HarnessScenario]:
    """Every scenario folder (one holding ``session.jsonl``) at or below the roots,
    in a stable order."""
    found: list[HarnessScenario] = []
    for root in roots:
        folders = [root] if is_scenario_folder(root) else []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            if PRIMARY_LOG in filenames and Path(dirpath) != root:
                folders.append(Path(dirpath))
        found.extend(load_harness_scenario(f) for f in sorted(folders))
    return found


def update_lines(stdout: str, *, exclude: Iterable[str] = (), requests: Iterable[str] = ()) -> list[str]:
    """The ``session/update`` notification lines of a JSON-RPC transcript, verbatim,
    minus those whose ``sessionUpdate`` is in ``exclude``, and the agent's requests
    whose method is in ``requests``, in transcript order."""
    skip = frozenset(exclude)
    wanted = frozenset(requests)
    lines = []
    for line in stdout.split("\n"):
        if not line.strip():
            continue
        try:
            frame = json.loads(line)
        except ValueError:
            continue
        if not isinstance(frame, dict):
            continue
        if frame.get("method") in wanted and "id" in frame:
            lines.append(line)
            continue
        if frame.get("method") != "session/update":
            continue
        params = frame.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        if not isinstance(kind, str) or kind not in skip:
            lines.append(line)
    return lines


def golden_update_lines(scenario: HarnessScenario, *, exclude: Iterable[str] = (),
                        requests: Iterable[str] = ()) -> list[str]:
    """The live stream the scenario's golden holds: ``live.expected.jsonl`` when there
    is one, else the updates (and ``requests``) of the stdout transcript."""
    path = scenario.live_golden or scenario.golden
    if path is None:
        return []
    return update_lines(path.read_bytes().decode("utf-8", "replace"), exclude=exclude, requests=requests)


def golden_load_lines(scenario: HarnessScenario, *, exclude: Iterable[str] = ()) -> list[str] | None:
    """The ``session/load`` replay the scenario's golden holds; ``None`` without one."""
    if scenario.load_golden is None:
        return None
    return update_lines(scenario.load_golden.read_bytes().decode("utf-8", "replace"), exclude=exclude)
