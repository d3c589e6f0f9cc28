"""Shared test helpers: the corpus location, and building bad logs from real ones."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import strategies as st

from replay.check.engine import LogReport, Policy, audit_log
from replay.goldens.diff import JSON, JSONL, TEXT, Comparator
from replay.log.reader import Limits, Source, read_log
from replay.scenarios.artefacts import comparator, is_artefact_name

REPO = Path(__file__).resolve().parent.parent

SCENARIO_COUNT = sum(1 for _ in (REPO / "scenarios").glob("*/scenario.json"))
"""The repo's scenarios: what a check of all of them reports (never a number written
into a test: a scenario added or removed changes it)."""
GOLDEN_COUNT = sum(1 for p in (REPO / "goldens").glob("*/*") if p.is_file())
"""The repo's golden files."""

CLEARED_ENVIRONMENT = ("CI", "GITHUB_STEP_SUMMARY", "NO_COLOR")
"""What a workflow test's commands must not inherit from the shell that runs the suite."""


def scratch_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch copy of the repo's scenarios and goldens, made the working folder, with
    ``CLEARED_ENVIRONMENT`` unset: where a workflow test runs its commands."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(REPO / "scenarios", root / "scenarios")
    shutil.copytree(REPO / "goldens", root / "goldens", ignore=shutil.ignore_patterns(".*"))
    monkeypatch.chdir(root)
    for name in CLEARED_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    return root


def examples(ci: int) -> int:
    """A test's number of hypothesis examples, given as the "ci" profile's and scaled to
    the profile loaded (tests/conftest.py): for the tests whose examples cost much."""
    from hypothesis import settings

    return max(1, ci * settings.default.max_examples // 200)


SURROGATES = st.characters(categories=["Cs"])
"""Lone surrogates, which ``st.characters()`` leaves out by default."""
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
CONTROLS = st.one_of(st.characters(max_codepoint=0x1F), st.characters(min_codepoint=0x7F, max_codepoint=0x9F),
                     st.sampled_from(BIDI_CONTROLS))
"""C0 controls, DEL, C1 controls and the bidi controls: what the sanitizer escapes."""
CHARACTERS = st.one_of(st.characters(codec="utf-8"), SURROGATES, CONTROLS)
"""Hostile characters: any character, with lone surrogates and controls drawn often
enough to matter (``st.text()`` never draws a surrogate and rarely a control). Build
text of them with ``hostile_text``, not ``st.text(CHARACTERS)``."""


def hostile_text(max_size: int | None = None) -> st.SearchStrategy[str]:
    """Text of ``CHARACTERS``. Not ``st.text(CHARACTERS)``: ``st.text`` merges a
    ``one_of`` of character strategies into one range of code points, which loses the
    weights, so a lone surrogate or a bidi control all but never comes up."""
    return st.lists(CHARACTERS, max_size=max_size).map("".join)


def corpus_root() -> Path:
    """The shared corpus, from ``REPLAY_CORPUS`` (default ``../shared/corpus``)."""
    return Path(os.environ.get("REPLAY_CORPUS", REPO.parent / "shared" / "corpus"))


def corpus_file(relative: str) -> Path:
    path = corpus_root() / relative
    if not path.exists():
        pytest.skip(f"corpus file {path} is absent (set REPLAY_CORPUS to the shared corpus folder)")
    return path


ACP = "sessions-2026-08-20/examples_acp-agent_tests_snapshots"
TODO_WRITE = f"{ACP}/todo-write/session.jsonl"
MULTI_TURN = f"{ACP}/multi-turn/session.jsonl"
PARALLEL_CALLS = f"{ACP}/parallel-tool-calls/session.jsonl"
SURFACE_REPLACE = f"{ACP}/agent-instructions/session.jsonl"


def records(relative: str) -> list[dict[str, Any]]:
    """A corpus log as parsed records; index 0 is the header (line 1)."""
    return [orjson.loads(line) for line in corpus_file(relative).read_bytes().split(b"\n") if line]


def dump(recs: Iterable[Any]) -> bytes:
    """Serialize records the way the harness writes them."""
    return b"".join(
        json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for r in recs
    )


def ascii_dump(recs: Iterable[Any]) -> bytes:
    """Records as JSON text with every non-ASCII character escaped (``ensure_ascii``):
    the one way to write a lone surrogate into a JSON file; big integers are written
    exactly."""
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in recs)


def bytes_source(data: bytes, path: str = "mem/session.jsonl") -> Source:
    return Source(path, lambda: io.BytesIO(data))


def audit_bytes(data: bytes, policy: Policy = Policy.PARALLEL, limits: Limits | None = None) -> LogReport:
    return audit_log(read_log(bytes_source(data), limits), policy)


def summary(report: LogReport) -> list[tuple[str, str, int | None]]:
    """(rule, severity, line) of every finding: what the tests compare exactly."""
    return [(f.rule, f.severity.value, f.line) for f in report.findings]


def index_of(recs: list[dict[str, Any]], type_: str, nth: int = 0, **data: Any) -> int:
    """Index of the nth record of a type (optionally matching data fields)."""
    seen = 0
    for i, r in enumerate(recs):
        if r.get("type") == type_ and all(
            isinstance(r.get("data"), dict) and r["data"].get(k) == v for k, v in data.items()
        ):
            if seen == nth:
                return i
            seen += 1
    raise LookupError(f"no {type_} #{nth} with {data}")


FILLER_TYPE = "plan/mode"
"""A known plugin event the core leaves unconstrained (D17): replacing an event by it
keeps seqs contiguous while removing what the event meant."""


def filler(rec: dict[str, Any]) -> dict[str, Any]:
    return {"type": FILLER_TYPE, "seq": rec["seq"], "time": rec["time"], "data": {"active": False}}


def next_seq(recs: list[dict[str, Any]]) -> int:
    last = recs[-1]
    if "seq0" in last:
        return int(last["seq0"]) + len(last["data"].get("texts") or last["data"].get("args"))
    return int(last["seq"]) + 1


@dataclass(frozen=True)
class Run:
    """One command line's exit status and what it printed; ``traceback`` is the
    formatted exception that escaped ``replay`` (``None``: none did)."""

    code: int
    stdout: bytes
    stderr: bytes
    traceback: str | None


_DRIVER = """
import base64, json, sys, traceback
from click.testing import CliRunner
from replay.cli import main
runs = []
for argv in json.loads(sys.stdin.read()):
    result = CliRunner().invoke(main, argv)
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    runs.append({"code": result.exit_code, "stdout": base64.b64encode(result.stdout_bytes).decode(),
                 "stderr": base64.b64encode(result.stderr_bytes).decode(),
                 "traceback": "".join(traceback.format_exception(escaped)) if escaped else None})
print(json.dumps(runs))
"""


def status_rank(f: dict[str, Any]) -> tuple[int, int]:
    """How the index ranks a log of an audit's JSON report (``files[i]``) by its status:
    its worst (3 unreadable, 2 errors, 1 warnings or policy, 0 ok), then its number of
    findings."""
    severities = {g["severity"] for g in f["findings"]}
    worst = 3 if f["status"] == "unreadable" else 2 if "error" in severities else 1 if severities else 0
    return worst, len(f["findings"])


def errors_first(files: list[dict[str, Any]]) -> list[str]:
    """The paths of an audit's JSON report (``files``) in the index's own order: the
    highest ``status_rank`` first, then the audit's order."""
    return [f["path"] for f in sorted(files, key=lambda f: tuple(-k for k in status_rank(f)))]


def replay_here(*argv: str, env: Mapping[str, str | None] | None = None, input: bytes | str | None = None) -> Run:
    """One ``replay`` command line in this process, through click's runner (its own
    streams and exit status; the working folder is the test's: ``monkeypatch.chdir``).
    ``env`` is set (``None``: unset) for the run only."""
    from click.testing import CliRunner

    from replay.cli import main

    result = CliRunner().invoke(main, list(argv), env=env, input=input)
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    return Run(result.exit_code, result.stdout_bytes, result.stderr_bytes,
               "".join(traceback.format_exception(escaped)) if escaped else None)


def replay_in_a_process(*argvs: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> list[Run]:
    """Run several ``replay`` command lines, one after another, in one fresh Python
    process (each through click's runner, with its own streams and exit status): a real
    process and the real ``main``, without paying the interpreter's start-up per command;
    the process must exit within ``timeout`` seconds."""
    proc = subprocess.run([sys.executable, "-c", _DRIVER], input=json.dumps(argvs).encode(), capture_output=True,
                          cwd=REPO, timeout=timeout, env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return [Run(r["code"], base64.b64decode(r["stdout"]), base64.b64decode(r["stderr"]), r["traceback"])
            for r in json.loads(proc.stdout)]


def todo_turns(turns: int, disorder: str = "none", deltas: int = 0) -> list[dict[str, Any]]:
    """A synthetic log (header first) of ``turns`` turns, each one ``todo_write`` call
    (call, ``todo/write``, result) and an answer streamed in ``deltas`` text deltas
    (``bench/timeline.py`` builds its logs the same way). ``disorder``: ``none``; ``one``
    (one ``todo/write`` in the middle carries a seq from before the log's start);
    ``reversed`` (every seq runs backwards)."""
    from bench.timeline import records as timeline_records

    order = {"none": "in order", "one": "one out of order", "reversed": "reversed"}[disorder]
    return timeline_records(turns, order, deltas)


def by_name(name: str) -> Comparator:
    """How a test's golden called ``name`` is compared: its producer's declaration, or,
    for a name no producer declares, by its suffix (the tests' own files)."""
    if is_artefact_name(name):
        return comparator(name)
    return JSONL if name.endswith(".jsonl") else JSON if name.endswith(".json") else TEXT
