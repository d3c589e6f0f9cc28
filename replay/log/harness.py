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

from replay.describe import kind, reason
from replay.fs import FsError, Tree
from replay.jsjson import parse
from replay.log.bounded import BLOCK, Records
from replay.log.reader import Limits, Source
from replay.log.source import DEFAULT_CAP, SESSION_LOG, STORED_NAMES, file_source, tree_source

PRIMARY_LOG = SESSION_LOG
PRIMARY_NAMES = (*STORED_NAMES, f"{SESSION_LOG}.zst")
"""The primary log of a harness scenario folder, by the names the harness stores it under."""
LOG_NAME = re.compile(r"session(?:\.([1-9][0-9]*))?\.jsonl(\.zstd|\.zst)?")
"""A log of a harness scenario folder: the primary (no number) or child N, plain or zstd."""
MAX_SIDE_BYTES = 16 << 20
"""The largest ``input.json`` or ``replay.override.json`` read."""
GOLDEN_NAMES = ("stdout.expected.jsonl", "stdout.golden.jsonl")
LIVE_GOLDEN = "live.expected.jsonl"
LOAD_GOLDEN = "load.expected.jsonl"
INPUT_NAME = "input.json"
OVERRIDE_NAME = "replay.override.json"
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
    tree: Tree | None = None
    """The folder, read through ``replay.fs`` (``None``: built by hand, read by path)."""
    notes: tuple[str, ...] = ()
    """The side files left out, and why."""

    def source(self, cap: int = DEFAULT_CAP) -> Source:
        """The primary log, read through the folder's tree (never through a link)."""
        if self.tree is None:
            return file_source(self.primary_log, cap=cap)
        return tree_source(self.tree, (self.primary_log.name,))

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


class HarnessRefused(FsError):
    """A harness scenario folder replay will not read, and why (the file named)."""


@dataclass(frozen=True, slots=True)
class HarnessFiles:
    """What a harness scenario folder holds, by the rules every reader of one follows
    (``render``, ``conformance``, ``new --from-log``): listed through ``replay.fs``
    without following a link; the primary log (``session.jsonl``, or its zstd twin) and
    the children are regular files; a side file that is not one is left out, with a
    note that says so."""

    tree: Tree
    primary: str
    children: tuple[str, ...]
    input: str | None
    override: str | None
    goldens: tuple[str | None, str | None, str | None]
    """The stdout, ``live`` and ``load`` goldens' names."""
    notes: tuple[str, ...]


def harness_files(folder: Path, primary: str | None = None, importing: bool = False) -> HarnessFiles:
    """The files of the harness scenario folder ``folder`` (a folder the user named: the
    links in its path are followed, none inside it); ``primary``: the log the user named
    in it. ``HarnessRefused`` when its primary log is missing or is not a regular file
    (``importing``: the words say an import copies the files)."""
    reads = "an import copies" if importing else "replay reads"
    tree = Tree.named(folder)
    entries = {e.name: e for e in tree.entries()}
    notes: list[str] = []

    def regular(name: str, needed: bool) -> str | None:
        entry = entries.get(name)
        if entry is None:
            return None
        if entry.is_file:
            return name
        what = f"{kind(entry.mode)}; {reads} only the regular files inside the folder"
        if needed:
            raise HarnessRefused(f"{folder / name}: {what}: replace it with the file")
        notes.append(f"{name}: not {'copied' if importing else 'read'} ({what})")
        return None

    chosen = regular(primary, True) if primary is not None else \
        next((n for n in PRIMARY_NAMES if regular(n, True) is not None), None)
    if chosen is None:
        raise HarnessRefused(f"{folder}: a folder {'to import ' if importing else ''}must hold a {SESSION_LOG} (a "
                             "harness scenario folder)")
    numbered = sorted((int(m.group(1)), name) for name in entries
                      if (m := LOG_NAME.fullmatch(name)) is not None and m.group(1) is not None)
    children = tuple(c for _, name in numbered if (c := regular(name, False)) is not None)
    stdout = next((g for name in GOLDEN_NAMES if (g := regular(name, False)) is not None), None)
    return HarnessFiles(tree, chosen, children, regular(INPUT_NAME, False), regular(OVERRIDE_NAME, False),
                        (stdout, regular(LIVE_GOLDEN, False), regular(LOAD_GOLDEN, False)), tuple(notes))


def is_scenario_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a primary log by any of its names (what it is, and
    whether it may be read, is ``harness_files``'s to say)."""
    return any(os.path.lexists(folder / name) for name in PRIMARY_NAMES)


def load_harness_scenario(folder: Path) -> HarnessScenario:
    """Read one scenario folder (``input.json`` parsed, under ``MAX_SIDE_BYTES``; logs
    and goldens located by ``harness_files``'s rules)."""
    files = harness_files(folder)

    def path(name: str | None) -> Path | None:
        return None if name is None else folder / name

    golden, live, load = files.goldens
    notes = list(files.notes)
    steps = _read_input(files, notes)
    return HarnessScenario(folder.name, folder, folder / files.primary, tuple(folder / c for c in files.children),
                           path(golden), steps, path(live), path(load), path(files.override), files.tree,
                           tuple(notes))


def _read_input(files: HarnessFiles, notes: list[str]) -> Any:
    """The parsed ``input.json``; ``None`` when it is absent or not JSON (the scenario
    then renders as a client without capabilities), or cannot be read (past
    ``MAX_SIDE_BYTES``: as the importer, it is left out, and ``notes`` says why)."""
    if files.input is None:
        return None
    try:
        raw = files.tree.read(files.input, limit=MAX_SIDE_BYTES, what="the steps file")
    except FsError as exc:
        notes.append(f"{files.input}: not read ({exc})")
        return None
    if raw is None:
        return None
    ok, value = parse(raw.decode("utf-8", "replace"))
    return value if ok else None


def find_harness_scenarios(roots: Iterable[Path]) -> list[HarnessScenario]:
    """Every scenario folder (one holding a primary log by any of its names) at or
    below the roots, in a stable order."""
    found: list[HarnessScenario] = []
    for root in roots:
        folders = [root] if is_scenario_folder(root) else []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            if Path(dirpath) != root and any(n in filenames for n in PRIMARY_NAMES):
                folders.append(Path(dirpath))
        found.extend(load_harness_scenario(f) for f in sorted(folders))
    return found


def update_lines(stdout: str, *, exclude: Iterable[str] = (), requests: Iterable[str] = (),
                 where: str = "the stream") -> list[str]:
    """The ``session/update`` notification lines of a JSON-RPC transcript, verbatim,
    minus those whose ``sessionUpdate`` is in ``exclude``, and the agent's requests
    whose method is in ``requests``, in transcript order."""
    return list(_kept(stdout.split("\n"), exclude, requests, where))


def _kept(lines: Iterable[str], exclude: Iterable[str], requests: Iterable[str], where: str) -> Iterator[str]:
    """``update_lines`` of lines as they come; a line nested too deep to parse is
    ``HarnessRefused`` at ``where``'s line (never a ``RecursionError``)."""
    skip = frozenset(exclude)
    wanted = frozenset(requests)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            frame = json.loads(line)
        except ValueError:
            continue
        except RecursionError:
            raise HarnessRefused(f"{where}:{number}: a line nested too deep to parse; refused") from None
        if not isinstance(frame, dict):
            continue
        if frame.get("method") in wanted and "id" in frame:
            yield line
            continue
        if frame.get("method") != "session/update":
            continue
        params = frame.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        if not isinstance(kind, str) or kind not in skip:
            yield line


def golden_lines(scenario: HarnessScenario, path: Path, limits: Limits | None = None) -> Iterator[str]:
    """A golden's lines as they are read, never held whole: through the folder's tree
    (never through a link), a line past the record cap or a golden past the log cap
    refused (``HarnessRefused``)."""
    limits = limits or Limits()
    tree = scenario.tree if scenario.tree is not None else Tree.named(path.parent)
    try:
        stream = tree.open(path.name, what="the golden")
    except FileNotFoundError as exc:
        raise HarnessRefused(f"{path}: cannot read the golden ({reason(exc)})") from None
    records = Records(limits.max_record_bytes)
    too_long = f"{path}: a line longer than {limits.max_record_bytes:,} bytes; refused"
    total = 0
    with stream:
        while block := stream.read(BLOCK):
            total += len(block)
            if total > limits.max_log_bytes:
                raise HarnessRefused(f"{path}: larger than {limits.max_log_bytes:,} bytes; refused")
            for line in records.split(block):
                if line is None:
                    raise HarnessRefused(too_long)
                yield line.decode("utf-8", "replace")
    if records.pending:
        tail = records.tail()
        if tail is None:
            raise HarnessRefused(too_long)
        yield tail.decode("utf-8", "replace")


def golden_update_lines(scenario: HarnessScenario, *, exclude: Iterable[str] = (),
                        requests: Iterable[str] = ()) -> list[str]:
    """The live stream the scenario's golden holds: ``live.expected.jsonl`` when there
    is one, else the updates (and ``requests``) of the stdout transcript; read as it
    streams (only the lines kept are held)."""
    path = scenario.live_golden or scenario.golden
    if path is None:
        return []
    return list(_kept(golden_lines(scenario, path), exclude, requests, str(path)))


def golden_load_lines(scenario: HarnessScenario, *, exclude: Iterable[str] = ()) -> list[str] | None:
    """The ``session/load`` replay the scenario's golden holds; ``None`` without one."""
    if scenario.load_golden is None:
        return None
    path = scenario.load_golden
    return list(_kept(golden_lines(scenario, path), exclude, (), str(path)))
