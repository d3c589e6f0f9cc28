"""The tutorial (docs/tutorial.md) as a new user follows it, in a scratch copy of the repo:
each of its commands, as written, says and does what the page shows.

The commands run in this process through click's runner (``replay review`` and ``--open``
aside: they need a terminal and a browser; the review workflow's own test runs review on a
pseudo-terminal), with ``--jobs 1`` added where a command takes it (the output is the same
for any number); the shell lines of step 6 run in bash, with the page's folder
``/tmp/logs`` replaced by one of the test's own."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO, SCENARIO_COUNT, replay_here, scratch_repo

TUTORIAL = (REPO / "docs" / "tutorial.md").read_text(encoding="utf-8")
PAGE_LOGS = "/tmp/logs"


def _step(number: int) -> str:
    return TUTORIAL.split(f"\n## {number}. ", 1)[1].split("\n## ", 1)[0]


def _blocks(section: str, kind: str) -> list[str]:
    return [chunk.split("```", 1)[0] for chunk in section.split(f"```{kind}\n")[1:]]


def _lines(block: str) -> list[list[str]]:
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def _run(argv: list[str]) -> tuple[int, str]:
    assert argv[0] == "replay", argv
    args = argv[1:]
    if args[0] in ("check", "refresh"):
        args = [*args, "--jobs", "1"]
    run = replay_here(*args)
    assert run.traceback is None, run.traceback
    return run.code, run.stdout.decode()


def _shown(expected: str, actual: str) -> None:
    """The output a text block shows is the command's: line for line, a "…" line standing for
    lines left out."""
    want, got = expected.rstrip("\n").split("\n"), actual.rstrip("\n").split("\n")
    at = 0
    skipping = False
    for line in want:
        if line == "…":
            skipping = True
            continue
        if skipping:
            assert line in got[at:], (line, actual)
            at = got.index(line, at)
            skipping = False
        assert got[at] == line, (at, got[at], line)
        at += 1
    assert at == len(got), actual


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return scratch_repo(tmp_path, monkeypatch)


@pytest.mark.slow
def test_the_tutorial_runs_as_written(repo: Path, tmp_path: Path) -> None:
    # 1. The first command's check, on the fresh checkout.
    [install] = _blocks(_step(1), "sh")
    assert install.strip().endswith("&& replay check")
    [said] = _blocks(_step(1), "text")
    assert said == f"all {SCENARIO_COUNT} scenarios match their goldens\n"
    assert _run(["replay", "check"]) == (0, said)

    # 3. The change (the page's sed expression, applied here), and the check that fails.
    [change] = _blocks(_step(3), "sh")
    edit, check = _lines(change)
    assert edit[:2] == ["sed", "-i"] and check == ["replay", "check"]
    _, old, new, _ = edit[2].split("/")
    scenario = repo / edit[3]
    text = scenario.read_text(encoding="utf-8")
    assert text.count(old) == 1
    scenario.write_text(text.replace(old, new), encoding="utf-8")
    [failed] = _blocks(_step(3), "text")
    code, out = _run(check)
    assert code == 1
    _shown(failed, out)

    # 4. Pending goldens, then (review needs a terminal) accepted as the page says without one.
    [workflow] = _blocks(_step(4), "sh")
    pending, review, again = _lines(workflow)
    assert review == ["replay", "review"]
    assert _run(pending)[0] == 1
    assert (repo / ".replay" / "pending" / "manifest.json").is_file()
    assert "`replay accept 'parallel-plan-two/web.expected.txt'`, then `replay accept`" in " ".join(_step(4).split())
    assert _run(["replay", "accept", "parallel-plan-two/web.expected.txt"])[0] == 0
    assert _run(["replay", "accept"])[0] == 0
    assert f"# all {SCENARIO_COUNT} scenarios match their goldens" in workflow
    assert _run(again) == (0, f"all {SCENARIO_COUNT} scenarios match their goldens\n")

    # 5. A scaffold and an imported session, each refreshed and checked.
    scaffold, imported = _blocks(_step(5), "sh")
    for commands in (_lines(scaffold), _lines(imported)):
        results = [_run(command) for command in commands]
        assert [code for code, _ in results] == [0, 0, 0], results
        assert results[2][1] == "1 scenario matches its goldens\n"
    assert "# 1 scenario matches its goldens" in scaffold

    # 6. The archive: made by the page's shell lines, then audited.
    archive, view = _blocks(_step(6), "sh")
    logs = tmp_path / "logs"
    *shell, audit = archive.strip().split("\n")
    subprocess.run(["bash", "-euc", "\n".join(shell).replace(PAGE_LOGS, str(logs))], check=True, cwd=repo,
                   timeout=60)
    [report] = _blocks(_step(6), "text")
    code, out = _run([part.replace(PAGE_LOGS, str(logs)) for part in shlex.split(audit)])
    assert code == 1
    assert out == report.replace(PAGE_LOGS, str(logs))
    [[*page, opened]] = _lines(view)
    assert opened == "--open"
    code, out = _run(page)
    assert code == 0 and out.endswith(".html\n") and Path(out.strip()).is_file()
    Path(out.strip()).unlink()
