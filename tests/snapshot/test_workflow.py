"""The review workflow through the CLI, in a scratch copy of the repo: pending
goldens from `check --pending`, accept, reject, stale protection, review on a
pseudo-terminal, dry and selective refresh, CI hints, GitHub and JUnit reports.

Every command runs in the copy (so the default folders, `scenarios/`, `goldens/` and
`.replay/pending`, are the ones a user has): in this process through click's runner,
except `review`, which needs a terminal (a real process on a pseudo-terminal), and the
workflow of docs/guides/goldens.md, which runs every command of it as a real `python -m replay` process."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import CLEARED_ENVIRONMENT, GOLDEN_COUNT, REPO, SCENARIO_COUNT, replay_here, scratch_repo

FLIPPED = "parallel-plan-two"
ARTEFACTS = ["load.expected.jsonl", "plan.expected.json", "session.expected.jsonl", "stdio.expected.txt",
             "stdout.expected.jsonl", "tool-schemas.expected.json", "web.expected.txt"]
PENDING = Path(".replay") / "pending"
"""What the environment of a developer's or CI's run may hold that changes the output."""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return scratch_repo(tmp_path, monkeypatch)


def replay(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``replay ARGS`` in ``root`` (the working folder), in this process; a check or
    refresh on one process (``--jobs 1``: these tests are not about workers)."""
    assert Path.cwd() == root
    if args[:1] in (("check",), ("refresh",)):
        args = (args[0], "--jobs", "1", *args[1:])
    run = replay_here(*args, env=env)
    assert run.traceback is None, run.traceback
    return run.code, run.stdout.decode(), run.stderr.decode()


def replay_process(root: Path, *args: str) -> tuple[int, str, str]:
    """``python -m replay ARGS`` in ``root``: a real process, as a user runs it."""
    environ = {k: v for k, v in os.environ.items() if k not in CLEARED_ENVIRONMENT}
    proc = subprocess.run([sys.executable, "-m", "replay", *args], cwd=root, capture_output=True, text=True,
                          timeout=120, env={**environ, "PYTHONPATH": str(REPO)}, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def tree(folder: Path, lock: bool = True) -> dict[str, tuple[bytes, int]]:
    """Every file below ``folder`` (hidden ones too; the refresh lock file only with
    ``lock``): bytes and mtime."""
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file() and (lock or p.name != ".refresh.lock")}


def flip(root: Path, scenario: str = FLIPPED) -> None:
    path = root / "scenarios" / scenario / "scenario.json"
    doc = json.loads(path.read_text())
    doc["tools"]["todo_write"]["allowParallelInProgress"] = not doc["tools"]["todo_write"].get(
        "allowParallelInProgress", True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest(root: Path) -> list[dict[str, object]]:
    doc = json.loads((root / PENDING / "manifest.json").read_text())
    assert doc["format"] == 1
    return list(doc["entries"])


def changed(before: dict[str, tuple[bytes, int]], after: dict[str, tuple[bytes, int]]) -> set[str]:
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def test_the_policy_flip_flow(repo: Path) -> None:
    flip(repo)
    goldens = tree(repo / "goldens")
    # Without --pending, check writes nothing at all.
    code, out, _ = replay(repo, "check")
    assert code == 1 and not (repo / ".replay").exists()
    code, out, _ = replay(repo, "check", "--pending")
    assert code == 1
    assert tree(repo / "goldens") == goldens  # bytes and mtimes
    pending = tree(repo / PENDING)
    assert set(pending) == {"manifest.json", *(f"{FLIPPED}/{a}" for a in ARTEFACTS)}
    assert manifest(repo) == [{
        "scenario": FLIPPED, "artefact": a, "golden_sha256": sha(goldens[f"{FLIPPED}/{a}"][0]),
        "pending_sha256": sha(pending[f"{FLIPPED}/{a}"][0]), "replay_version": "0.1.0"} for a in ARTEFACTS]
    assert out.endswith(f"1 of {SCENARIO_COUNT} scenarios failed (7 golden files). Next:\n"
                        "  7 pending goldens in .replay/pending: look at each change and accept or reject it:\n"
                        "    replay review\n")

    code, out, _ = replay(repo, "accept", f"{FLIPPED}/web.expected.txt")
    assert (code, out) == (0, f"accepted goldens/{FLIPPED}/web.expected.txt\n"
                              "accepted 1, rejected 0; 6 still pending in .replay/pending\n")
    after = tree(repo / "goldens", lock=False)  # accept takes the refresh lock, as refresh does
    assert changed(goldens, after) == {f"{FLIPPED}/web.expected.txt"}
    assert after[f"{FLIPPED}/web.expected.txt"][0] == pending[f"{FLIPPED}/web.expected.txt"][0]
    assert not (repo / PENDING / FLIPPED / "web.expected.txt").exists()

    code, out, _ = replay(repo, "check")
    assert code == 1
    assert [line.split(": ")[0] for line in out.splitlines() if line.endswith(": differs")] == [
        f"    goldens/{FLIPPED}/{a}" for a in ARTEFACTS if a != "web.expected.txt"]
    assert f"✗ {FLIPPED} (1 of 7 goldens match)" in out

    code, out, _ = replay(repo, "accept")
    assert code == 0 and out.endswith("accepted 6, rejected 0; nothing left pending\n")
    assert tree(repo / PENDING) == {}  # the manifest goes with the last entry
    code, out, _ = replay(repo, "check")
    assert code == 0 and out.endswith(f"all {SCENARIO_COUNT} scenarios match their goldens\n")

    # Reject: another change, pending goldens, rejected; the goldens are untouched.
    flip(repo)
    goldens = tree(repo / "goldens")
    assert replay(repo, "check", FLIPPED, "--pending")[0] == 1
    code, out, _ = replay(repo, "reject")
    assert code == 0 and out.endswith("accepted 0, rejected 7; nothing left pending\n")
    assert f"rejected goldens/{FLIPPED}/plan.expected.json\n" in out
    assert tree(repo / "goldens") == goldens and tree(repo / PENDING) == {}
    assert replay(repo, "check", FLIPPED)[0] == 1


def test_accept_refuses_a_pending_golden_whose_golden_changed_since(repo: Path) -> None:
    flip(repo)
    assert replay(repo, "check", "--pending")[0] == 1
    edited = repo / "goldens" / FLIPPED / "web.expected.txt"
    edited.write_text(edited.read_text() + "a hand edit\n")
    kept = edited.read_bytes()
    code, out, _ = replay(repo, "accept")
    assert code == 1
    assert (f"refused goldens/{FLIPPED}/web.expected.txt\n"
            f"         goldens/{FLIPPED}/web.expected.txt changed since this pending golden was made (it was made "
            "against sha256 ") in out
    assert "refused, so newer work is not overwritten; run `replay check --pending` again, or `replay reject " \
           f"{FLIPPED}/web.expected.txt`" in out
    assert out.endswith("accepted 6, rejected 0, refused 1; 1 still pending in .replay/pending\n")
    assert edited.read_bytes() == kept
    assert [e["artefact"] for e in manifest(repo)] == ["web.expected.txt"]
    # A golden that was missing when the pending one was made, and exists now, is refused too.
    flip(repo, "zero-todos")
    (repo / "goldens" / "zero-todos" / "plan.expected.json").unlink()
    assert replay(repo, "check", "zero-todos", "--pending")[0] == 1
    (repo / "goldens" / "zero-todos" / "plan.expected.json").write_text("{}\n")
    code, out, _ = replay(repo, "accept", "zero-todos/plan.expected.json")
    assert code == 1 and "(it was made against no golden; the golden now is sha256 " in out


def test_a_partial_check_replaces_only_its_own_pending_goldens(repo: Path) -> None:
    flip(repo)
    flip(repo, "sequential-plan")
    assert replay(repo, "check", "--pending")[0] == 1
    both = {e["scenario"] for e in manifest(repo)}
    assert both == {FLIPPED, "sequential-plan"}
    flip(repo)  # parallel-plan-two matches its goldens again
    code, out, _ = replay(repo, "check", FLIPPED, "--pending")
    left = len(manifest(repo))
    assert code == 0 and out.endswith(f"1 scenario matches its goldens. Next:\n  {left} pending goldens in "
                                      ".replay/pending: look at each change and accept or reject it:\n"
                                      "    replay review\n")
    # A check without --pending says the pending goldens still wait, and how to review them.
    code, out, _ = replay(repo, "check", FLIPPED)
    assert (code, out) == (0, f"1 scenario matches its goldens. Next:\n  {left} pending goldens from an earlier run "
                              "wait in .replay/pending: look at each change and accept or reject it:\n"
                              "    replay review\n")
    assert {e["scenario"] for e in manifest(repo)} == {"sequential-plan"}
    assert not (repo / PENDING / FLIPPED).exists()
    for taken in (FLIPPED, "parallel-*", f"{FLIPPED}/web.expected.txt"):
        code, _, err = replay(repo, "check", "--pending", taken)
        assert code == 2 and f"--pending {taken}: {taken} is a scenario; write `replay check {taken} --pending`" \
            in err
    assert not (repo / "parallel-*").exists()
    code, _, err = replay(repo, "check", "--pending=goldens/pending")
    assert code == 2
    assert "Error: Invalid value for --pending: goldens/pending: inside the golden or scenario tree" in err
    assert not (repo / "goldens" / "pending").exists()


def _pty_review(root: Path, keys: list[str], *args: str) -> tuple[int, str]:
    """``replay review`` on a pseudo-terminal, typing ``keys`` one at a time, each
    after the prompt that asks for it."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal on stdin/stdout/stderr
        # SIGINT's default action, as a shell gives the command it runs on a terminal: a
        # suite started in the background (`… &`) ignores SIGINT, and a ^C typed before
        # review puts the terminal in raw mode would then be ignored, not interrupt it.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.chdir(root)
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        os.execve(sys.executable, [sys.executable, "-m", "replay", "review", *args],
                  {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"})
    out = b""

    def read(deadline: float) -> bool:
        nonlocal out
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return False
                if not chunk:
                    return False
                out += chunk
                return True
        raise AssertionError(f"review stalled; it printed:\n{out.decode(errors='replace')}")

    for typed, key in enumerate(keys):
        while out.count(b"? help > ") <= typed:
            read(time.monotonic() + 60)
        os.write(fd, key.encode())
    while read(time.monotonic() + 60):
        pass
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace").replace("\r\n", "\n")


def test_review_on_a_terminal_accepts_rejects_skips_and_quits(repo: Path) -> None:
    flip(repo)
    assert replay(repo, "check", "--pending")[0] == 1
    goldens = tree(repo / "goldens")
    pending = tree(repo / PENDING)
    # load: ? then a (accept); plan: r (reject); session: x (not a key), s (skip); stdio: q (quit).
    code, out = _pty_review(repo, ["?", "a", "r", "x", "s", "q"])
    assert code == 0, out
    assert f"[1/7] goldens/{FLIPPED}/load.expected.jsonl (differs from the golden)\n" in out
    assert f"  goldens/{FLIPPED}/load.expected.jsonl:8: event 8 removed plan: " in out
    assert "  a  accept: write the pending golden over the golden" in out  # the help, after ?
    assert "not a key here: 'x' (? for help)" in out
    assert f"[4/7] goldens/{FLIPPED}/stdio.expected.txt" in out and "[5/7]" not in out
    assert out.endswith(f"accepted goldens/{FLIPPED}/load.expected.jsonl\n"
                        f"rejected goldens/{FLIPPED}/plan.expected.json\n"
                        "accepted 1, rejected 1, skipped 1; 5 still pending in .replay/pending\n")
    after = tree(repo / "goldens", lock=False)
    assert changed(goldens, after) == {f"{FLIPPED}/load.expected.jsonl"}
    assert after[f"{FLIPPED}/load.expected.jsonl"][0] == pending[f"{FLIPPED}/load.expected.jsonl"][0]
    assert [e["artefact"] for e in manifest(repo)] == [a for a in ARTEFACTS if a not in (
        "load.expected.jsonl", "plan.expected.json")]
    # A (accept this and all after it) takes the rest in one key.
    code, out = _pty_review(repo, ["A"])
    assert code == 0 and out.endswith("accepted 5, rejected 0; nothing left pending\n")
    assert replay(repo, "check", FLIPPED)[0] == 1  # plan.expected.json was rejected: it still differs


@pytest.mark.parametrize("end", ["\x04", "\x00"])
def test_review_ends_at_the_end_of_input(repo: Path, end: str) -> None:
    """^D (or a NUL, what a closed input sends) ends the review as q does: the keys
    given count, the rest stays pending; it never loops on "not a key here"."""
    flip(repo)
    assert replay(repo, "check", "--pending")[0] == 1
    code, out = _pty_review(repo, ["a", end])
    assert code == 0, out
    assert "not a key here" not in out
    assert out.endswith(f"accepted goldens/{FLIPPED}/load.expected.jsonl\n"
                        "accepted 1, rejected 0; 6 still pending in .replay/pending\n")


def test_ctrl_c_in_review_exits_130_and_keeps_what_was_decided(repo: Path) -> None:
    flip(repo)
    assert replay(repo, "check", "--pending")[0] == 1
    code, out = _pty_review(repo, ["r", "\x03"])
    assert code == 130
    assert out.endswith("replay review: interrupted\n")
    assert [e["artefact"] for e in manifest(repo)] == ARTEFACTS[1:]  # the reject stands


def test_review_off_a_terminal_is_a_usage_error(repo: Path) -> None:
    code, out, err = replay(repo, "review")
    assert (code, out) == (2, "")
    assert err == ("replay review: needs a terminal (it asks one key per pending golden); off a terminal, use "
                   "`replay accept [SELECTOR...]` or `replay reject [SELECTOR...]`\n")


def test_refresh_dry_run_writes_nothing_and_exits_by_what_would_change(repo: Path) -> None:
    before = tree(repo / "goldens")
    code, out, _ = replay(repo, "refresh", "--dry-run")
    assert (code, out) == (0, "dry run, nothing written: would create 0, update 0, delete 0; unchanged "
                              f"{GOLDEN_COUNT} (orphans kept: 0)\n")
    flip(repo)
    code, out, _ = replay(repo, "refresh", "--dry-run", "--prune")
    assert code == 1
    assert f"would update goldens/{FLIPPED}/web.expected.txt\n      goldens/{FLIPPED}/web.expected.txt:3: " \
           "@@ -2,8 +2,5 @@\n" in out
    assert out.endswith("dry run, nothing written: would create 0, update 7, delete 0; unchanged "
                        f"{GOLDEN_COUNT - len(ARTEFACTS)} (orphans kept: 0)\n")
    assert tree(repo / "goldens") == before  # bytes and mtimes; not even the lock file
    code, out, _ = replay(repo, "refresh", FLIPPED)
    assert code == 0 and out.endswith("created 0, updated 7, unchanged 0, deleted 0 (orphans kept: 0)\n")
    assert replay(repo, "refresh", "--dry-run")[0] == 0


def test_selectors_with_globs(repo: Path) -> None:
    flip(repo)
    flip(repo, "parallel-plan-three")
    before = tree(repo / "goldens")
    code, out, _ = replay(repo, "refresh", "parallel-plan-*/web.expected.txt")
    assert code == 0 and out.endswith("created 0, updated 2, unchanged 0, deleted 0 (orphans kept: 0)\n")
    assert changed(before, tree(repo / "goldens", lock=False)) == {f"{s}/web.expected.txt" for s in (
        FLIPPED, "parallel-plan-three")}
    assert replay(repo, "check", "--pending", "--", "parallel-plan-*")[0] == 1
    assert len(manifest(repo)) == 12
    code, out, _ = replay(repo, "accept", "*/plan.expected.json", "parallel-plan-three/st*")
    assert code == 0 and out.endswith("accepted 4, rejected 0; 8 still pending in .replay/pending\n")
    code, out, _ = replay(repo, "reject", "parallel-plan-t?o")
    assert code == 0 and out.endswith("accepted 0, rejected 5; 3 still pending in .replay/pending\n")
    assert sorted(e["artefact"] for e in manifest(repo)) == [
        "load.expected.jsonl", "session.expected.jsonl", "tool-schemas.expected.json"]
    # A selector that selects nothing is a usage error naming it; so is a malformed one.
    code, _, err = replay(repo, "accept", "no-such-*")
    assert code == 2 and "no pending golden matches no-such-* in .replay/pending" in err
    code, _, err = replay(repo, "refresh", "nope/web.expected.txt")
    assert code == 2 and "no scenario named nope in scenarios" in err
    code, _, err = replay(repo, "refresh", "a/b/c")
    assert code == 2 and "a selector is SCENARIO or SCENARIO/ARTEFACT" in err


def test_under_ci_the_hint_never_writes_goldens(repo: Path) -> None:
    flip(repo)
    for env, args in (({"CI": "true"}, ()), ({}, ("--ci",))):
        code, out, _ = replay(repo, "check", *args, env=env)
        assert code == 1
        assert out.split("Next:\n")[1] == (
            "  goldens differ; CI writes none: to take this run's output, write it as pending goldens and keep "
            "them as the job's artefact:\n"
            f"    replay check {FLIPPED} --pending\n")
    code, out, _ = replay(repo, "check", "--pending", env={"CI": "1"})
    assert out.split("Next:\n")[1] == (
        "  7 pending goldens in .replay/pending: keep that folder as this job's artefact; in your checkout, "
        "download it and review it there:\n"
        "    replay review --pending DOWNLOADED_FOLDER\n")
    # CI=false is not CI.
    code, out, _ = replay(repo, "check", FLIPPED, env={"CI": "false"})
    assert f"    replay refresh {FLIPPED}\n" in out


def test_a_scenario_that_does_not_run_gets_what_to_fix_not_refresh(repo: Path) -> None:
    path = repo / "scenarios" / "zero-todos" / "scenario.json"
    doc = json.loads(path.read_text())
    doc["tools"]["todo_write"]["allowParallelInProgress"] = "sometimes"
    path.write_text(json.dumps(doc))
    shutil.copytree(repo / "goldens", repo / "my goldens")
    code, out, _ = replay(repo, "check", "zero-todos", "--goldens", "my goldens")
    assert code == 1
    assert out.split("Next:\n")[1] == (
        "  zero-todos did not run: fix what its error above says, then check it again:\n"
        "    replay check --goldens 'my goldens' zero-todos\n")
    assert out.startswith("✗ zero-todos: did not run\n    scenarios/zero-todos/scenario.json: invalid scenario: "
                          "tools.todo_write.allowParallelInProgress: Input should be a valid boolean")


def test_github_annotations_carry_the_line_and_the_step_summary_is_written(repo: Path, tmp_path: Path) -> None:
    flip(repo)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    code, out, _ = replay(repo, "check", "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 7 and all(line.startswith(f"::error file=goldens/{FLIPPED}/") for line in lines)
    assert lines[0].startswith(f"::error file=goldens/{FLIPPED}/load.expected.jsonl,line=8,title=golden differs::"
                               "line 8: event 8 removed plan: ")
    assert [line.split(",")[1] for line in lines] == ["line=8", "line=8", "line=5", "line=5", "line=7", "line=5",
                                                      "line=3"]
    text = summary.read_text()
    assert text.startswith(f"earlier step\n### replay check: 1 of {SCENARIO_COUNT} scenarios failed (7 golden "
                           "files)\n\n"
                           "| scenario | goldens | status | first change |\n| --- | --- | --- | --- |\n")
    assert (f"| {FLIPPED.replace('-', '-')} | 0/7 match | ❌ differs | `goldens/{FLIPPED}/load.expected.jsonl:8`: "
            "event 8 removed plan: ") in text
    assert "| zero-todos | 7/7 match | ✅ ok |  |\n" in text
    assert text.endswith(f"- take the new output of {FLIPPED} (every golden of it): `replay refresh {FLIPPED}`\n"
                         f"- or look at each change first: `replay check {FLIPPED} --pending && replay review`\n\n")
    # More than ten failing goldens: nine, one that sums up, and the folded list of all.
    flip(repo, "parallel-plan-three")
    code, out, _ = replay(repo, "check", "--format", "github")
    lines = out.splitlines()
    annotations = [line for line in lines if line.startswith("::error")]
    assert len(annotations) == 10 and annotations[-1].startswith("::error title=replay check::5 more goldens")
    group = lines[lines.index("::group::replay check: 14 failing goldens and scenarios") + 1:]
    assert len(group) == 15 and group[-1] == "::endgroup::"


def test_junit_validates_against_the_jenkins_xsd(repo: Path, tmp_path: Path) -> None:
    """tests/report/junit-10.xsd is the Jenkins xUnit plugin's JUnit schema, unchanged:
    jenkinsci/xunit-plugin, src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd
    at commit 0c3752259ca17669b739481b2785a3e4cea1cc0f (MIT; its notice is kept in the file)."""
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is a test extra (pip install -e '.[test]')")
    schema = xmlschema.XMLSchema(REPO / "tests" / "report" / "junit-10.xsd")
    flip(repo)
    path = repo / "scenarios" / "zero-todos" / "scenario.json"
    path.write_text(path.read_text().replace('"prompts"', '"prompt"', 1))
    report = tmp_path / "junit.xml"
    code, _, _ = replay(repo, "check", "--junit", str(report))
    assert code == 1
    schema.validate(str(report))
    doc = schema.to_dict(str(report))
    # a case per golden, but the scenario that does not run is one error case for its seven
    assert (doc["@tests"], doc["@failures"], doc["@errors"]) == (str(GOLDEN_COUNT - len(ARTEFACTS) + 1), "7", "1")
    suites = {s["@name"]: s for s in doc["testsuite"]}
    broken = suites["zero-todos"]
    assert (broken["@tests"], broken["@failures"], broken["@errors"]) == ("1", "0", "1")
    case = broken["testcase"][0]
    assert case["@name"] == "scenario.json" and case["@file"] == "scenarios/zero-todos/scenario.json"
    assert case["error"][0]["@type"] == "scenario error"
    assert case["error"][0]["@message"].startswith("scenarios/zero-todos/scenario.json: invalid scenario: ")
    flipped = {c["@name"]: c for c in suites[FLIPPED]["testcase"]}
    web = flipped["web.expected.txt"]
    assert web["@classname"] == FLIPPED and web["@file"] == f"goldens/{FLIPPED}/web.expected.txt"
    assert float(web["@time"]) >= 0 and float(suites[FLIPPED]["@time"]) > 0
    assert web["failure"][0]["@type"] == "differs"
    assert web["failure"][0]["@message"] == f"goldens/{FLIPPED}/web.expected.txt:3: differs: @@ -2,8 +2,5 @@"
    assert f"goldens/{FLIPPED}/web.expected.txt:3: @@ -2,8 +2,5 @@\n   title=Update to-do list\n" in \
        web["failure"][0]["$"]
    for suite in doc["testsuite"]:
        assert suite["@hostname"] and suite["@timestamp"][:2] == "20" and "T" in suite["@timestamp"]


def test_the_text_diff_cites_golden_lines_and_full_shows_whole_values(repo: Path) -> None:
    flip(repo)
    _, out, _ = replay(repo, "check", FLIPPED)
    line = next(x for x in out.splitlines() if "tool-schemas.expected.json:5" in x)
    assert line.startswith(f"      goldens/{FLIPPED}/tool-schemas.expected.json:5: initial[0].description: \"… ")
    golden = (repo / "goldens" / FLIPPED / "tool-schemas.expected.json").read_text().splitlines()
    assert golden[4].lstrip().startswith('"description": ')  # line 5 is where the description is
    code, full, _ = replay(repo, "check", FLIPPED, "--full")
    assert code == 1
    whole = next(x for x in full.splitlines() if "tool-schemas.expected.json:5:" in x)
    description = json.loads((repo / "goldens" / FLIPPED / "tool-schemas.expected.json").read_text())[
        "initial"][0]["description"]
    assert json.dumps(description, ensure_ascii=False) in whole and "…" not in whole


GUIDE = REPO / "docs" / "guides" / "goldens.md"
"""The guide whose "Review, accept, reject" section holds the workflow, command by command."""


def _blocks(text: str, heading: str) -> list[str]:
    """The ``sh`` blocks of the section under ``heading``, as written."""
    section = text.split(f"{heading}\n", 1)[1]
    section = section.split("\n" + heading.split(" ", 1)[0] + " ", 1)[0]
    return [chunk.split("```", 1)[0] for chunk in section.split("```sh\n")[1:]]


def _workflow_commands() -> list[list[list[str]]]:
    """The command lines of the guide's workflow blocks (comments dropped), block by block."""
    import shlex

    blocks = _blocks(GUIDE.read_text(encoding="utf-8"), "## Review, accept, reject")
    return [[shlex.split(line, comments=True) for line in block.splitlines() if line.strip()] for block in blocks]


def test_the_readme_shows_the_guides_workflow() -> None:
    """The README's everyday workflow is the guide's first block, verbatim (the one the test below runs)."""
    readme = _blocks((REPO / "README.md").read_text(encoding="utf-8"), "### Goldens moved: check → review → accept")
    guide = _blocks(GUIDE.read_text(encoding="utf-8"), "## Review, accept, reject")
    assert len(readme) == 1 and len(guide) == 2
    assert readme[0] == guide[0]


def test_the_guides_workflow_runs_as_written(repo: Path) -> None:
    """Every command of the guide's workflow, as written, in a real process: the one
    test that runs check, review, accept, reject and refresh from the command line."""
    first, second = _workflow_commands()
    assert [c[:2] for c in first] == [["replay", "check"], ["replay", "review"], ["replay", "check"]]
    flip(repo)
    codes = []
    for command in first:
        if command[1] == "review":
            codes.append(_pty_review(repo, ["A"], *command[2:])[0])
        else:
            codes.append(replay_process(repo, *command[1:])[0])
    assert codes == [1, 0, 0]  # pending written; all accepted; everything matches
    flip(repo)
    assert replay(repo, "check", "--pending")[0] == 1
    codes = [replay_process(repo, *command[1:])[0] for command in second]
    # accept one, reject the rest, the dry run sees the other six differ, the refresh writes them
    assert codes == [0, 0, 1, 0]
    assert replay(repo, "check")[0] == 0
