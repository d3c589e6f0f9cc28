"""Growing the suite from real sessions: `replay new` (scaffold and --from-log import),
and the round trip that proves an import: the keyless refresh re-persists a log whose
live ACP stream is byte for byte what the harness recorded."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from replay.check.engine import audit_log
from replay.cli import main
from replay.findings import Severity
from replay.log.harness import find_harness_scenarios, load_harness_scenario
from replay.log.reader import iter_events, read_log
from replay.log.source import file_source
from replay.render.acp.profiles import Profile
from replay.scenarios.check import check_scenarios, refresh_scenarios
from replay.scenarios.conformance import ConformanceResult, check_conformance, corpus_profile, round_trip
from replay.scenarios.importer import ImportRefused, import_log, scaffold_document
from replay.scenarios.scenario import ScenarioError, run_scenario, shipped_schema
from tests.helpers import ACP, REPO, corpus_file, corpus_root

ROOTS = ("acp-2026-07-23", "acp-2026-06-29")
FORCED = {
    # 2026-07-23: legacy event types today's harness refuses (B6: context/message, prompt/blocked)
    "acp-2026-07-23/code-mode-workspace-context", "acp-2026-07-23/hook-cc-posttool-context",
    "acp-2026-07-23/hook-cc-promptsubmit-block", "acp-2026-07-23/hook-cc-promptsubmit-context",
    "acp-2026-07-23/hook-codex-posttool-context", "acp-2026-07-23/hook-codex-promptsubmit-block",
    "acp-2026-07-23/modes-advertise", "acp-2026-07-23/permission-switching", "acp-2026-07-23/workspace-context",
    # 2026-06-29: headers written before delegationDepth was recorded (A4), model sources without names (B5)
    "acp-2026-06-29/cancel", "acp-2026-06-29/error-finish", "acp-2026-06-29/handshake",
    "acp-2026-06-29/multi-turn", "acp-2026-06-29/reject-extra-dirs", "acp-2026-06-29/subagent-fork",
    "acp-2026-06-29/subagent-multi", "acp-2026-06-29/subagent-spawn", "acp-2026-06-29/text-turn",
    "acp-2026-06-29/todo-plan",
}


def _derivable() -> list[str]:
    """Every scenario of the two ACP corpora that conformance calls derivable."""
    found = []
    for root in ROOTS:
        folder = corpus_root() / root
        if folder.is_dir():
            found.extend(f"{root}/{s.name}" for s in find_harness_scenarios([folder])
                         if s.has_golden and check_conformance(s, keyless=False).status != "not derivable")
    return found


DERIVABLE = _derivable()
_PROFILES: dict[Path, Profile | None] = {}


def _profile(root: Path) -> Profile | None:
    """The corpus's profile, as conformance chooses it."""
    if root not in _PROFILES:
        _PROFILES[root] = corpus_profile(s for s in find_harness_scenarios([root]) if s.has_golden)
    return _PROFILES[root]


def _exact(result: ConformanceResult) -> list[str]:
    """What differs, per stream (empty when every stream is byte-exact)."""
    return [f"{m.mode}: {m.what_differs}" for m in result.modes if not m.exact] + (
        [] if result.modes else ["no stream compared"])


def test_both_corpora_are_imported_whole() -> None:
    if not DERIVABLE:
        pytest.skip(f"the ACP corpora are absent under {corpus_root()} (set REPLAY_CORPUS)")
    assert len(DERIVABLE) == 58
    assert set(DERIVABLE) >= FORCED


def _types(path: Path) -> list[str]:
    return [e.type for e in iter_events(read_log(file_source(path)).items())]


def _error_rules(path: Path) -> set[str]:
    return {f.rule for f in audit_log(read_log(file_source(path))).findings if f.severity is Severity.ERROR}


@pytest.mark.parametrize("case", DERIVABLE)
def test_an_imported_harness_session_round_trips(tmp_path: Path, case: str) -> None:
    harness = load_harness_scenario(corpus_root() / case)
    scenarios, goldens = tmp_path / "scenarios", tmp_path / "goldens"
    name = harness.name
    if case in FORCED:
        with pytest.raises(ImportRefused):
            import_log(scenarios, name, harness.folder)
        assert not (scenarios / name).exists()
    result = import_log(scenarios, name, harness.folder, force=case in FORCED)
    assert bool(result.forced) is (case in FORCED)
    refreshed = refresh_scenarios(scenarios, goldens, [name])
    assert not refreshed.failed, refreshed.scenarios[0].error
    proof = round_trip(harness, goldens / name / "session.expected.jsonl", _profile(harness.folder.parent))
    assert _exact(proof) == [] and [m.mode for m in proof.modes] == ["live", "load"]
    # The re-persisted logs hold the recordings' events in the recordings' order, and no
    # error finding a recording did not have.
    doc = json.loads((scenarios / name / "scenario.json").read_text(encoding="utf-8"))
    pairs = [(harness.primary_log, "session.expected.jsonl")] + [
        (harness.folder / child["model"]["log"], f"session.{i}.expected.jsonl")
        for i, child in enumerate(doc.get("children", []), start=1)]
    assert sorted(p.name for p in (goldens / name).glob("session*.expected.jsonl")) == sorted(g for _, g in pairs)
    for recorded, golden in pairs:
        assert _types(goldens / name / golden) == _types(recorded), golden
        assert _error_rules(goldens / name / golden) <= _error_rules(recorded), golden
    assert not check_scenarios(scenarios, goldens, [name]).failed


def _run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A scratch project folder, made the working directory."""
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)


def test_new_demo_refresh_check_then_new_demo_again_refuses(scratch: Path) -> None:
    code, out = _run_cli("new", "demo")
    assert (code, out) == (0, "created scenarios/demo/scenario.json\n"
                              "note: wrote scenarios/scenario.schema.json (the JSON Schema each scenario.json's "
                              "$schema points at)\n"
                              "next:\n"
                              "  replay refresh demo    # run it keylessly and write its goldens\n"
                              "  replay check demo      # compare the goldens with a fresh run\n")
    assert _run_cli("refresh", "demo")[0] == 0
    assert _run_cli("check", "demo") == (0, "1 scenario matches its goldens\n")
    assert _run_cli("check", "-v", "demo") == (0, "✓ demo (7 of 7 goldens match)\n\n1 scenario matches its goldens\n")
    before = (scratch / "scenarios" / "demo" / "scenario.json").read_bytes()
    code, out = _run_cli("new", "demo")
    assert code == 2
    assert out.endswith("Error: scenarios/demo already exists: pick another name, or delete it first (replay new "
                        "never overwrites a scenario)\n")
    assert (scratch / "scenarios" / "demo" / "scenario.json").read_bytes() == before
    doc = json.loads(before)
    assert doc == scaffold_document() and doc["$schema"] == "../scenario.schema.json"
    assert (scratch / "scenarios" / "scenario.schema.json").read_text(encoding="utf-8") == shipped_schema()
    assert list(Draft202012Validator(json.loads(shipped_schema())).iter_errors(doc)) == []


def test_new_names_the_scenarios_folder_it_was_given(tmp_path: Path) -> None:
    code, out = _run_cli("new", "x", "--scenarios", str(tmp_path / "my scenarios"))
    assert code == 0
    assert f"  replay refresh --scenarios '{tmp_path}/my scenarios' x " in out


@pytest.mark.parametrize("name", ["../escape", ".hidden", "-dash", "a/b", "x" * 101])
def test_new_refuses_a_name_that_is_not_a_folder_name(tmp_path: Path, name: str) -> None:
    code, out = _run_cli("new", "--scenarios", str(tmp_path), "--", name)
    assert code == 2 and f"{name!r}: not a scenario name: a scenario is a folder named with letters" in out
    assert list(tmp_path.iterdir()) == []


def test_new_never_writes_through_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "demo").symlink_to(outside)
    code, out = _run_cli("new", "demo", "--scenarios", str(tmp_path / "scenarios"))
    assert code == 2 and "already exists" in out
    assert list(outside.iterdir()) == []


def test_an_import_with_audit_errors_is_refused_with_the_findings_then_forced(tmp_path: Path) -> None:
    source = corpus_file("acp-2026-06-29/text-turn")
    scenarios = str(tmp_path / "scenarios")
    result = CliRunner().invoke(main, ["new", "t", "--from-log", str(source), "--scenarios", scenarios,
                                       "--no-color"])
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{source}/session.jsonl (33 events; 2 errors, 3 warnings)\n"
                                    "  line 1: A4 error: today's harness refuses this session header: it has no "
                                    '"delegationDepth" field')
    assert result.stderr == ("replay new: the audit found 2 error findings in 1 log: today's harness would "
                             "refuse to load them; fix them (see above), or import anyway with --force\n")
    assert not (tmp_path / "scenarios" / "t").exists()
    result = CliRunner().invoke(main, ["new", "t", "--from-log", str(source), "--scenarios", scenarios, "--force",
                                       "--no-color"])
    assert result.exit_code == 0
    assert "note: imported despite error findings (--force) in 1 log: rules A4, B5\n" in result.stdout
    assert sorted(p.name for p in (tmp_path / "scenarios" / "t").iterdir()) == ["scenario.json", "session.jsonl"]


@pytest.mark.parametrize(("args", "problem"), [
    (["--force"], "--force, --use-override and --locale belong to an import (--from-log PATH)"),
    (["--use-override"], "--force, --use-override and --locale belong to an import (--from-log PATH)"),
    (["--from-log", "."], ": a folder to import must hold a session.jsonl (a harness scenario folder)"),
])
def test_new_usage_errors(scratch: Path, args: list[str], problem: str) -> None:
    code, out = _run_cli("new", "x", *args)
    assert code == 2 and problem in out


def test_an_import_says_what_it_decided(tmp_path: Path) -> None:
    source = corpus_file("acp-2026-07-23/subagent-mixed")
    result = import_log(tmp_path, "mixed", source)
    doc = json.loads((tmp_path / "mixed" / "scenario.json").read_text(encoding="utf-8"))
    assert doc["tools"] == {"subagent": True, "recorded": ["subagent_fork"]}
    assert doc["children"] == [{"tools": {}, "model": {"recorded": True, "log": "session.1.jsonl"}}]
    assert doc["cwd"] == "/tmp/acp-snap-cwd-i43JSF"
    assert result.files == ["scenario.json", "session.1.jsonl", "session.2.jsonl", "session.jsonl"]
    assert result.notes[0] == ("session.2.jsonl: a fork child (seedLength 32); copied, not re-run (the call that "
                               "started it answers from the recording)")
    for name in ("session.jsonl", "session.1.jsonl", "session.2.jsonl"):
        assert (tmp_path / "mixed" / name).read_bytes() == (source / name).read_bytes()


def test_a_terminal_client_and_an_override_come_from_the_harness_folder(tmp_path: Path) -> None:
    doc_of = lambda n: json.loads((tmp_path / n / "scenario.json").read_text(encoding="utf-8"))  # noqa: E731
    import_log(tmp_path, "card", corpus_file("acp-2026-07-23/fs-terminal-card"))
    assert doc_of("card")["client"] == {"terminalOutput": True}
    result = import_log(tmp_path, "cancel", corpus_file(f"{ACP}/cancel"))
    assert "override" not in doc_of("cancel")["model"]
    assert (tmp_path / "cancel" / "replay.override.json").is_file()
    assert ("replay.override.json: copied, not used: the recording plays the model without it (set \"override\": "
            "\"replay.override.json\" in the model, or import with --use-override, to use it)") in result.notes


def test_an_override_can_play_the_model(tmp_path: Path) -> None:
    """The harness's 2026-08 overrides drive the same run as the recording they made."""
    for name in ("error-finish", "cancel-tool-calls", "agent-instructions"):
        harness = load_harness_scenario(corpus_file(f"{ACP}/{name}"))
        import_log(tmp_path / "scenarios", name, harness.folder)
        path = tmp_path / "scenarios" / name / "scenario.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["model"]["override"] = "replay.override.json"
        path.write_text(json.dumps(doc))
        assert not refresh_scenarios(tmp_path / "scenarios", tmp_path / "goldens", [name]).failed
        proof = round_trip(harness, tmp_path / "goldens" / name / "session.expected.jsonl")
        assert _exact(proof) == [], name


def test_a_compressed_log_imports_like_the_plain_one(tmp_path: Path) -> None:
    source = corpus_file("acp-2026-07-23/fs-edit/session.jsonl")
    packed = tmp_path / "in" / "session.jsonl.zstd"
    packed.parent.mkdir()
    header, rest = source.read_bytes().split(b"\n", 1)  # the harness's frames: the header, then a batch
    packed.write_bytes(b"".join(zstandard.ZstdCompressor(write_checksum=True).compress(part)
                                for part in (header + b"\n", rest)))
    trees = []
    for i, log in enumerate((source, packed)):
        root = tmp_path / f"t{i}"
        import_log(root / "scenarios", "fs-edit", log)
        assert not refresh_scenarios(root / "scenarios", root / "goldens", ["fs-edit"]).failed
        trees.append({p.name: p.read_bytes() for p in (root / "goldens" / "fs-edit").iterdir()})
    assert trees[0] == trees[1]
    doc = json.loads((tmp_path / "t1" / "scenarios" / "fs-edit" / "scenario.json").read_text(encoding="utf-8"))
    assert doc["model"] == {"recorded": True, "log": "session.jsonl.zstd"}


def test_a_recorded_log_may_not_leave_the_scenario_folder(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "session.jsonl").symlink_to(corpus_file("acp-2026-07-23/text-turn/session.jsonl"))
    (folder / "scenario.json").write_text(json.dumps({"description": "d", "prompts": ["p"], "tools": {},
                                                      "model": {"recorded": True}}))
    with pytest.raises(ScenarioError) as exc:
        run_scenario(folder)
    assert str(exc.value) == (f"{folder}/session.jsonl: a symbolic link; refused (replay never follows or writes "
                              "through a link in a tree it does not trust: replace it with the file, or remove it)")


def _flip(scenario: Path) -> None:
    doc = json.loads(scenario.read_text(encoding="utf-8"))
    for tools in [doc["tools"], *(c["tools"] for c in doc.get("children", []))]:
        if "todo_write" in tools:
            tools["todo_write"]["allowParallelInProgress"] = not tools["todo_write"]["allowParallelInProgress"]
    scenario.write_text(json.dumps(doc, indent=2))


def _statuses(tree: Path, name: str) -> dict[str, str]:
    (result,) = check_scenarios(tree / "scenarios", tree / "goldens", [name]).scenarios
    assert result.error is None
    return {f.name: f.status for f in result.files}


POLICY_GOLDENS = {"load.expected.jsonl", "plan.expected.json", "session.expected.jsonl", "stdio.expected.txt",
                  "stdout.expected.jsonl", "web.expected.txt"}


@pytest.mark.parametrize(("source", "depends"), [
    # a harness log: two todos in progress; its headers hold "{{tools}}", so the offered tools do not show it
    (f"{ACP}/todo-write", POLICY_GOLDENS),
    # a log whose header holds the tool schemas: the todo_write description's policy sentence shows it too
    ("repo:recorded-parallel-plan/session.jsonl", POLICY_GOLDENS | {"tool-schemas.expected.json"}),
])
def test_flipping_the_policy_fails_exactly_the_goldens_that_depend_on_it(
        tmp_path: Path, source: str, depends: set[str]) -> None:
    path = REPO / "scenarios" / source.removeprefix("repo:") if source.startswith("repo:") else corpus_file(source)
    import_log(tmp_path / "scenarios", "flip", path)
    assert refresh_scenarios(tmp_path / "scenarios", tmp_path / "goldens", ["flip"]).counts()["created"] == 7
    assert set(_statuses(tmp_path, "flip").values()) == {"ok"}
    _flip(tmp_path / "scenarios" / "flip" / "scenario.json")
    statuses = _statuses(tmp_path, "flip")
    assert {n for n, s in statuses.items() if s == "differs"} == depends
    assert {n for n, s in statuses.items() if s != "differs"} == set(statuses) - depends
    assert not refresh_scenarios(tmp_path / "scenarios", tmp_path / "goldens", ["flip"]).failed
    assert set(_statuses(tmp_path, "flip").values()) == {"ok"}


def test_the_imported_scenario_validates_against_the_schema(tmp_path: Path) -> None:
    import_log(tmp_path, "adv", corpus_file("acp-2026-07-23/advanced-toolchain"))
    doc: Any = json.loads((tmp_path / "adv" / "scenario.json").read_text(encoding="utf-8"))
    assert list(Draft202012Validator(json.loads(shipped_schema())).iter_errors(doc)) == []
    assert doc["tools"] == {"subagent": True, "recorded": ["cordis_mount", "run_code", "workflow", "cordis_unmount"]}


@pytest.mark.slow
def test_the_2026_08_sessions_round_trip_too(tmp_path: Path) -> None:
    """Every 2026-08-20 ACP scenario imports and refreshes keylessly — the recording
    plays the model, overrides included — and round-trips against the harness's goldens."""
    root = corpus_root() / ACP
    if not root.is_dir():
        pytest.skip(f"{root} is absent (set REPLAY_CORPUS)")
    scenarios, goldens = tmp_path / "scenarios", tmp_path / "goldens"
    found = [s for s in find_harness_scenarios([root]) if s.has_golden]
    assert len(found) == 84
    for harness in found:
        import_log(scenarios, harness.name, harness.folder, force=True)
    assert not refresh_scenarios(scenarios, goldens).failed
    differ = {h.name: problems for h in found
              if (problems := _exact(round_trip(h, goldens / h.name / "session.expected.jsonl", _profile(root))))}
    assert differ == {}
    shutil.rmtree(tmp_path)


def test_an_override_is_used_when_the_recording_alone_cannot_play_the_model(tmp_path: Path) -> None:
    """A harness folder whose log lost step 1's finish chunk, with an override holding the
    calls: the import uses the override, and the run still reproduces the session."""
    source = corpus_file("acp-2026-07-23/fs-edit")
    folder = tmp_path / "harness" / "fs-edit"
    shutil.copytree(source, folder)
    lines = (folder / "session.jsonl").read_bytes().split(b"\n")
    calls = [[json.loads(line)["data"]["chunk"]] for line in lines[1:] if b'"assistant/chunk"' in line]
    entries: list[dict[str, Any]] = [{"kind": "chunks", "chunks": []}]
    for (chunk,) in calls:
        entries[-1]["chunks"].append(chunk)
        if chunk["type"] == "finish":
            entries.append({"kind": "chunks", "chunks": []})
    (folder / "replay.override.json").write_text(json.dumps(entries[:-1]))
    first_finish = next(i for i, line in enumerate(lines) if b'"finish"' in line)
    (folder / "session.jsonl").write_bytes(b"\n".join(lines[:first_finish] + lines[first_finish + 1:]))
    result = import_log(tmp_path / "scenarios", "fs-edit", folder, force=True)
    assert "replay.override.json: copied and used: the recording alone cannot play the model" in result.notes
    doc = json.loads((tmp_path / "scenarios" / "fs-edit" / "scenario.json").read_text(encoding="utf-8"))
    assert doc["model"] == {"recorded": True, "override": "replay.override.json"}
    assert not refresh_scenarios(tmp_path / "scenarios", tmp_path / "goldens", ["fs-edit"]).failed
    proof = round_trip(load_harness_scenario(source), tmp_path / "goldens" / "fs-edit" / "session.expected.jsonl")
    assert _exact(proof) == []


# -- an import copies only what is inside, once ---------------------------------------------

RALPH = "sessions-2026-08-20/examples_headless-agent_tests_snapshots/ralph-loop"
SECRET = b"[default]\naws_secret_access_key = hunter2-SECRET\n"


def _harness_copy(tmp_path: Path, relative: str) -> Path:
    folder = tmp_path / "source"
    shutil.copytree(corpus_file(relative), folder)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "credentials").write_bytes(SECRET)
    return folder


def _everything(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink())


@pytest.mark.parametrize("side", ["replay.override.json", "session.1.jsonl", "input.json"])
def test_an_import_never_copies_a_file_that_links_out_of_the_folder(tmp_path: Path, side: str) -> None:
    folder = _harness_copy(tmp_path, RALPH)
    (folder / side).unlink()
    (folder / side).symlink_to(tmp_path / "home" / "credentials")
    scenarios = tmp_path / "scenarios"
    result = import_log(scenarios, "r", folder, force=True)
    assert side not in result.files
    assert f"{side}: not copied (a symbolic link; an import copies only the regular files inside the folder)" \
        in result.notes
    assert b"hunter2" not in _everything(scenarios)
    assert not any(p.is_symlink() for p in scenarios.rglob("*"))


def test_an_import_of_a_primary_log_that_links_out_is_refused(tmp_path: Path) -> None:
    folder = _harness_copy(tmp_path, RALPH)
    (folder / "session.jsonl").unlink()
    (folder / "session.jsonl").symlink_to(tmp_path / "home" / "credentials")
    code, out = _run_cli("new", "r", "--from-log", str(folder), "--force", "--scenarios", str(tmp_path / "s"))
    assert code == 2
    assert (f"{folder / 'session.jsonl'}: a symbolic link; an import copies only the regular files inside the "
            "folder: replace it with the file") in out
    assert not (tmp_path / "s").exists() or list((tmp_path / "s").iterdir()) == []


def test_the_bytes_audited_are_the_bytes_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The log is read once, into the new scenario: a source that changes after that
    (here: replaced by a secret once copied) changes nothing the import audits or keeps."""
    folder = tmp_path / "source"
    folder.mkdir()
    original = corpus_file(f"{ACP}/todo-write/session.jsonl").read_bytes()
    (folder / "session.jsonl").write_bytes(original)
    import replay.scenarios.importer as importer

    real_copy = importer._copy

    def copy_then_swap(staging: Any, file: Any, name: str, cap: int) -> None:
        real_copy(staging, file, name, cap)
        (folder / "session.jsonl").write_bytes(SECRET)

    monkeypatch.setattr(importer, "_copy", copy_then_swap)
    result = import_log(tmp_path / "scenarios", "t", folder)
    assert (result.folder / "session.jsonl").read_bytes() == original
    assert result.forced == []


def test_a_log_over_the_cap_is_not_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import replay.scenarios.importer as importer

    log = corpus_file(f"{ACP}/todo-write/session.jsonl")
    monkeypatch.setattr(importer, "MAX_LOG_BYTES", 1000)
    code, out = _run_cli("new", "t", "--from-log", str(log), "--scenarios", str(tmp_path / "s"))
    assert code == 2
    assert f"{log}: larger than 1000 bytes; not imported" in out
    assert list((tmp_path / "s").iterdir()) == []


def test_an_import_that_cannot_run_is_refused_even_forced_and_leaves_nothing(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    code, out = _run_cli("new", "r", "--from-log", str(corpus_file(RALPH)), "--use-override", "--force",
                         "--scenarios", str(scenarios))
    assert code == 1
    assert out.endswith(f"replay new: the imported scenario would not run: {scenarios / 'r' / 'scenario.json'}: the "
                        "model of the primary session has 2 calls the run never asked for: the run diverged from "
                        "the recording or script (re-record, or fix the script); nothing was written\n")
    assert list(scenarios.iterdir()) == []
    # Without the override, the recording plays the model: the same log imports and runs.
    assert _run_cli("new", "r", "--from-log", str(corpus_file(RALPH)), "--force", "--scenarios",
                    str(scenarios))[0] == 0
    assert check_scenarios(scenarios, tmp_path / "goldens", ["r"]).scenarios[0].error is None


@pytest.mark.parametrize(("relative", "looks"), [
    ("acp-2026-07-23/todo-plan/stdout.expected.jsonl", "an ACP transcript (JSON-RPC messages"),
    ("acp-2026-07-23/todo-plan/session.jsonl", None),
])
def test_new_from_something_that_is_not_a_session_log_says_what_it_looks_like(tmp_path: Path, relative: str,
                                                                               looks: str | None) -> None:
    path = corpus_file(relative)
    if looks is None:  # the log without its header line
        lines = path.read_bytes().split(b"\n", 1)
        path = tmp_path / "headless.jsonl"
        path.write_bytes(lines[1])
        looks = "a session log's events without its session header"
    for force in ([], ["--force"]):
        code, out = _run_cli("new", "x", "--from-log", str(path), *force, "--scenarios", str(tmp_path / "s"))
        assert code == 2
        assert f"{path}: it looks like {looks}" in out
