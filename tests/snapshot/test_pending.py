"""The pending folder is untrusted (a CI artefact downloaded from anywhere): a manifest
that is not exactly what replay writes is refused whole, with the file named, and an
entry whose bytes or golden do not fit is refused alone. Nothing is ever written
outside the golden tree."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.cli import main
from replay.fs import Tree
from replay.goldens.pending import (
    MAX_MANIFEST_BYTES,
    Manifest,
    PendingError,
    PendingWriter,
    Workflow,
    accept,
    reject,
    sha256,
)
from replay.goldens.select import Selection, SelectorError
from replay.scenarios.artefacts import is_artefact_name
from replay.scenarios.check import check_scenarios, scenario_names
from replay.scenarios.names import ScenarioNames, pending_store, workflow
from tests.helpers import REPO

SCENARIO = "zero-todos"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "scenarios" / SCENARIO, tmp_path / "scenarios" / SCENARIO)
    shutil.copytree(REPO / "goldens" / SCENARIO, tmp_path / "goldens" / SCENARIO)
    return tmp_path


def _workflow(repo: Path) -> Workflow:
    return workflow(repo / "pending", repo / "goldens", repo / "scenarios")


def _pend(repo: Path, artefact: str = "web.expected.txt", data: bytes = b"new\n") -> bytes:
    """One pending golden, made the way check --pending makes it; the golden's bytes."""
    golden = (repo / "goldens" / SCENARIO / artefact).read_bytes()
    store = pending_store(repo / "pending", repo / "scenarios")
    with store.lock():
        writer = PendingWriter(store)
        writer.add(SCENARIO, artefact, golden, data)
        writer.commit()
    return golden


def _entry(**fields: Any) -> dict[str, Any]:
    return {"scenario": SCENARIO, "artefact": "web.expected.txt", "golden_sha256": "0" * 64,
            "pending_sha256": "1" * 64, "replay_version": "0.1.0", **fields}


def _manifest(repo: Path, doc: Any) -> None:
    (repo / "pending").mkdir(exist_ok=True)
    (repo / "pending" / "manifest.json").write_text(json.dumps(doc))


@pytest.mark.parametrize(("entries", "problem"), [
    ([_entry(scenario="../goldens")], "'../goldens' is not a scenario name"),
    ([_entry(scenario=".hidden")], "'.hidden' is not a scenario name"),
    ([_entry(artefact="../../../../etc/passwd")], "'../../../../etc/passwd' is not a golden replay writes"),
    ([_entry(artefact="notes.txt")], "'notes.txt' is not a golden replay writes"),
    ([_entry(artefact="web.expected.txt/..")], "is not a golden replay writes"),
    ([_entry(golden_sha256="XYZ")], "golden_sha256: String should match pattern"),
    ([_entry(pending_sha256=None)], "pending_sha256: Input should be a valid string"),
    ([_entry(), _entry()], "zero-todos/web.expected.txt is listed twice"),
    ([_entry(path="/etc/passwd")], "path: unknown field"),
    ([{**_entry(), "golden_sha256": 1}], "golden_sha256: Input should be a valid string"),
])
def test_a_manifest_that_is_not_replays_is_refused_whole(repo: Path, entries: list[Any], problem: str) -> None:
    _manifest(repo, {"format": 1, "entries": entries})
    with pytest.raises(PendingError) as caught:
        accept(_workflow(repo))
    message = str(caught.value)
    assert message.startswith(f"{repo / 'pending' / 'manifest.json'}: not a pending-goldens manifest replay can use (")
    assert problem in message
    assert message.endswith(f"delete {repo / 'pending'} and run `replay check --pending` again")


def test_a_manifest_of_another_format_too_large_a_link_or_a_folder_is_refused(repo: Path, tmp_path: Path) -> None:
    for doc in ({"format": 2, "entries": []}, {"format": True, "entries": []}, {"format": 1.0, "entries": []}, [],
                "manifest"):
        _manifest(repo, doc)
        with pytest.raises(PendingError, match="not a pending-goldens manifest replay can use"):
            _workflow(repo).entries()
    manifest = repo / "pending" / "manifest.json"
    manifest.write_bytes(b'{"format": 1, "entries": [' + b" " * MAX_MANIFEST_BYTES + b"]}")
    with pytest.raises(PendingError, match=f"larger than {MAX_MANIFEST_BYTES} bytes; refused"):
        _workflow(repo).entries()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"format": 1, "entries": []}))
    manifest.unlink()
    manifest.symlink_to(elsewhere)
    with pytest.raises(PendingError, match="a symbolic link; refused"):
        _workflow(repo).entries()
    manifest.unlink()
    manifest.mkdir()
    with pytest.raises(PendingError, match=r"manifest\.json: cannot read it: a folder, not a regular file; refused"):
        _workflow(repo).entries()


def test_pending_bytes_that_do_not_hash_to_their_entry_are_refused(repo: Path) -> None:
    golden = _pend(repo)
    (repo / "pending" / SCENARIO / "web.expected.txt").write_bytes(b"swapped after the check\n")
    result = accept(_workflow(repo))
    assert result.failed and [d.action for d in result.decisions] == ["refused"]
    assert result.decisions[0].reason.startswith(f"{repo / 'pending'}/{SCENARIO}/web.expected.txt does not hash to "
                                                 "its manifest entry")
    assert (repo / "goldens" / SCENARIO / "web.expected.txt").read_bytes() == golden
    assert result.left == 1


def test_an_entry_for_a_scenario_that_does_not_exist_is_refused(repo: Path) -> None:
    data = b"new\n"
    store = pending_store(repo / "pending", repo / "scenarios")
    store.files.write("gone-scenario", "web.expected.txt", data)
    store.save(Manifest.model_validate({"entries": [_entry(scenario="gone-scenario", golden_sha256=None,
                                                           pending_sha256=sha256(data))]},
                                       context={"names": store.names}))
    result = accept(_workflow(repo))
    assert result.decisions[0].action == "refused"
    assert result.decisions[0].reason.startswith(f"no scenario named gone-scenario in {repo / 'scenarios'}: "
                                                 "accepting gone-scenario/web.expected.txt would make an orphan golden")
    assert not (repo / "goldens" / "gone-scenario").exists()


def test_accept_is_idempotent_when_the_golden_already_holds_the_bytes(repo: Path) -> None:
    _pend(repo)
    (repo / "goldens" / SCENARIO / "web.expected.txt").write_bytes(b"new\n")  # accepted by hand meanwhile
    result = accept(_workflow(repo))
    assert [(d.action, d.reason) for d in result.decisions] == [("accepted", "the golden already holds these bytes")]
    assert result.left == 0 and not (repo / "pending" / "manifest.json").exists()


def test_reject_never_touches_a_golden(repo: Path) -> None:
    before = {p.name: p.read_bytes() for p in (repo / "goldens" / SCENARIO).iterdir()}
    for artefact in sorted(before):
        _pend(repo, artefact, b"x\n")
    result = reject(_workflow(repo), Selection.parse([f"{SCENARIO}/*.txt"]))
    assert [d.entry.artefact for d in result.decisions] == ["stdio.expected.txt", "web.expected.txt"]
    assert result.left == len(before) - 2
    assert {p.name: p.read_bytes() for p in (repo / "goldens" / SCENARIO).iterdir()} == before
    with pytest.raises(SelectorError, match="no pending golden matches nope/\\*"):
        reject(_workflow(repo), Selection.parse(["nope/*"]))


def test_check_pending_writes_only_below_its_folder_and_replaces_its_own_entries(repo: Path) -> None:
    path = repo / "scenarios" / SCENARIO / "scenario.json"
    original = path.read_text()
    doc = json.loads(original)
    doc["tools"]["todo_write"]["allowParallelInProgress"] = False
    path.write_text(json.dumps(doc))
    store = pending_store(repo / "pending", repo / "scenarios")
    report = check_scenarios(repo / "scenarios", repo / "goldens", pending=repo / "pending")
    assert report.context.pending is not None
    assert report.context.pending.count == len([f for r in report.scenarios for f in r.files if f.failed]) > 0
    written = sorted(p.relative_to(repo / "pending").as_posix() for p in (repo / "pending").rglob("*") if p.is_file())
    assert written == sorted(["manifest.json", *(f"{SCENARIO}/{e.artefact}" for e in store.manifest().entries)])
    # A stale file (not in the manifest) of the scenario goes when the scenario is checked again.
    (repo / "pending" / SCENARIO / "web.expected.txt").unlink(missing_ok=True)
    (repo / "pending" / SCENARIO / "web.expected.txt").write_text("leftover\n")
    path.write_text(original)
    report = check_scenarios(repo / "scenarios", repo / "goldens", pending=repo / "pending")
    assert report.context.pending is not None and report.context.pending.count == 0
    assert [p.name for p in (repo / "pending").iterdir()] == []


def test_every_artefact_replay_writes_has_a_name_a_manifest_accepts() -> None:
    names = {p.name for p in (REPO / "goldens").glob("*/*")}
    assert names and all(is_artefact_name(n) for n in names)
    assert len(scenario_names(REPO / "scenarios")) == 15
    for bad in ("", ".", "..", "web.expected.txt.bak", "session.0.expected.jsonl", "plan.expected.jsonl",
                "stdout.1.expected.jsonl", "web.expected.txt\n", "x/web.expected.txt"):
        assert not is_artefact_name(bad), bad


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["scenario", "artefact", "golden_sha256", "pending_sha256",
                                        "replay_version", "extra"]),
                       st.none() | st.text(max_size=70) | st.integers() | st.sampled_from(["0" * 64, "a" * 64]),
                       max_size=6))
def test_no_manifest_entry_names_a_path_outside_the_trees(fields: dict[str, Any]) -> None:
    try:
        manifest = Manifest.model_validate_json(json.dumps({"format": 1, "entries": [fields]}),
                                                context={"names": ScenarioNames(Tree.named(REPO / "scenarios"))})
    except ValueError:
        return
    entry = manifest.entries[0]
    for name in (entry.scenario, entry.artefact):
        assert name == os.path.basename(name) and name not in ("", ".", "..") and not name.startswith(".")


def test_a_pending_folder_that_is_a_file_is_a_message_not_a_traceback(repo: Path) -> None:
    (repo / "pending").write_text("not a folder\n")
    tree = ["--scenarios", str(repo / "scenarios"), "--goldens", str(repo / "goldens")]
    result = CliRunner().invoke(main, ["check", SCENARIO, f"--pending={repo / 'pending'}", *tree])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)  # no traceback
    assert f"replay check: {repo / 'pending'}: a regular file, not a folder; refused" in result.output
    result = CliRunner().invoke(main, ["reject", "--pending", str(repo / "nowhere"), *tree])
    assert (result.exit_code, result.output) == (0, f"nothing pending in {repo / 'nowhere'}\n")
    assert not (repo / "nowhere").exists()  # looking writes nothing


def test_a_linked_folder_in_the_pending_tree_is_never_followed(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "web.expected.txt").write_text("not replay's\n")
    data = b"new\n"
    store = pending_store(repo / "pending", repo / "scenarios")
    store.files.root.mkdir(parents=True)
    (repo / "pending" / SCENARIO).symlink_to(outside)
    store.save(Manifest.model_validate({"entries": [_entry(pending_sha256=sha256(data))]},
                                       context={"names": store.names}))
    result = reject(_workflow(repo))
    assert [(d.action, d.reason.split(" (")[0]) for d in result.decisions] == [
        ("refused", f"{repo / 'pending' / SCENARIO}: a symbolic link; refused")]
    assert result.left == 1  # the manifest still lists what is still there
    assert (outside / "web.expected.txt").read_text() == "not replay's\n"


def test_a_manifest_format_of_true_is_not_1(repo: Path) -> None:
    _manifest(repo, {"format": True, "entries": []})
    with pytest.raises(PendingError) as caught:
        _workflow(repo).entries()
    assert "format: Input should be a valid integer" in str(caught.value)


def test_accept_writes_only_an_artefact_the_scenario_makes(repo: Path) -> None:
    """A child's number the scenario has no child for names no golden it makes:
    accepting it would write an orphan; refused, the entry kept for a reject."""
    data = b"{}\n"
    store = pending_store(repo / "pending", repo / "scenarios")
    with store.lock():
        writer = PendingWriter(store)
        writer.add(SCENARIO, "session.999.expected.jsonl", None, data)
        writer.add(SCENARIO, "plan.1.expected.json", None, data)
        writer.commit()
    result = accept(_workflow(repo))
    assert [(d.entry.artefact, d.action, d.reason) for d in result.decisions] == [
        (name, "refused", f"no artefact of {SCENARIO} is named {name} (it has 0 child sessions): accepting "
                          f"{SCENARIO}/{name} would make an orphan golden; `replay reject {SCENARIO}/{name}` drops it")
        for name in ("plan.1.expected.json", "session.999.expected.jsonl")]
    assert sorted(p.name for p in (repo / "goldens" / SCENARIO).iterdir()) == sorted(
        p.name for p in (REPO / "goldens" / SCENARIO).iterdir())
    assert result.left == 2


def test_a_reject_that_cannot_delete_keeps_the_manifest_true(repo: Path) -> None:
    """A folder in a pending file's place cannot be deleted as a file: that entry is
    refused and stays listed; the others are rejected and leave the manifest."""
    _pend(repo, "web.expected.txt")
    _pend(repo, "stdio.expected.txt")
    pending = repo / "pending" / SCENARIO / "web.expected.txt"
    pending.unlink()
    pending.mkdir()
    (pending / "inside").write_text("kept\n")
    result = reject(_workflow(repo))
    assert [(d.entry.artefact, d.action) for d in result.decisions] == [("stdio.expected.txt", "rejected"),
                                                                        ("web.expected.txt", "refused")]
    assert result.decisions[1].reason == f"{pending}: a folder, not the golden; refused (remove it by hand); it " \
                                         "stays pending"
    assert [e.artefact for e in _workflow(repo).entries()] == ["web.expected.txt"]
    assert (pending / "inside").read_text() == "kept\n"
    assert not (repo / "pending" / SCENARIO / "stdio.expected.txt").exists()


def test_what_review_shows_is_what_accept_writes(repo: Path) -> None:
    """Only pending bytes that hash to their manifest entry are shown, and an accept
    writes only bytes that hash to it: bytes swapped after they were shown are refused,
    never written (and bytes that do not hash to their entry are never shown)."""
    from replay.goldens.review import review

    golden = _pend(repo, data=b"shown\n")
    pending = repo / "pending" / SCENARIO / "web.expected.txt"
    shown: list[tuple[str, ...]] = []

    def ask(view: Any, position: str) -> str:
        shown.append(tuple(line for c in view.changes for line in c.lines()))
        pending.write_bytes(b"swapped after it was shown\n")  # a writer racing the review
        return "a"

    result = review(_workflow(repo), ask)
    assert len(shown) == 1 and any("shown" in line for line in shown[0])
    assert [d.action for d in result.decisions] == ["refused"]
    assert "does not hash to its manifest entry" in result.decisions[0].reason
    assert (repo / "goldens" / SCENARIO / "web.expected.txt").read_bytes() == golden
    # Bytes that do not hash to their entry are refused, not shown.
    shown.clear()
    result = review(_workflow(repo), ask)
    assert shown == [] and [d.action for d in result.decisions] == ["refused"]
    assert "does not hash to its manifest entry" in result.decisions[0].reason
    # Untouched, the bytes shown are the bytes written.
    _pend(repo, data=b"kept\n")
    result = review(_workflow(repo), lambda view, position: "a")
    assert [d.action for d in result.decisions] == ["accepted"]
    assert (repo / "goldens" / SCENARIO / "web.expected.txt").read_bytes() == b"kept\n"


@pytest.mark.parametrize("bad", ["my scenario", "_x", "ümlaut", "x" * 101])
def test_a_scenario_folder_a_manifest_could_not_name_is_refused_at_discovery(tmp_path: Path, bad: str,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Its run is refused with the reason; the other scenarios' report, JUnit and
    pending manifest are complete (before, the manifest's validation raised midway)."""
    for name in ("parallel-plan-two", SCENARIO):
        shutil.copytree(REPO / "scenarios" / name, tmp_path / "scenarios" / name)
        shutil.copytree(REPO / "goldens" / name, tmp_path / "goldens" / name)
    shutil.copytree(REPO / "scenarios" / SCENARIO, tmp_path / "scenarios" / bad)
    spec = tmp_path / "scenarios" / "parallel-plan-two" / "scenario.json"
    doc = json.loads(spec.read_text())
    doc["tools"]["todo_write"]["allowParallelInProgress"] = False
    spec.write_text(json.dumps(doc))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--pending", "--junit", "junit.xml"], env={"NO_COLOR": "1"})
    assert result.exit_code == 1, result.output
    assert (f"scenarios/{bad}: not a scenario name: a scenario is a folder named with letters, digits, '.', '_' and "
            "'-', starting with a letter or digit, at most 100 characters; rename the folder") in result.output
    assert (tmp_path / "junit.xml").read_text().count("<testcase") > 0
    entries = json.loads((tmp_path / ".replay" / "pending" / "manifest.json").read_text())["entries"]
    assert {e["scenario"] for e in entries} == {"parallel-plan-two"}
    assert not (tmp_path / ".replay" / "pending" / bad).exists()
