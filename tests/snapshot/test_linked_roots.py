"""The repo's own folders are roots replay finds on its own, and a pull request may
commit any of them as a symbolic link: ``goldens``, ``scenarios``, ``.replay`` or
``.replay/pending`` pointing at a sibling checkout. No command that writes or deletes
follows one: each is refused with its path and why, and the sibling stays byte for byte
as it was. A folder the user names on the command line is theirs (the links in its
path are followed), and what is inside it stays untrusted.

The commands run in process (``CliRunner``) in a scratch repo, the working directory
set to it, so the default folders are the ones a user has."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replay.cli import main
from tests.helpers import REPO
from tests.snapshot.test_hostile_trees import _snapshot
from tests.snapshot.test_workflow import _pty_review

FLIPPED = "parallel-plan-two"
KEPT = "recorded-parallel-plan"
LINK = ("a symbolic link; refused (replay never follows or writes through a link in a tree it does not trust: "
        "replace it with a folder, or remove it)")


def _flip(scenarios: Path) -> None:
    path = scenarios / FLIPPED / "scenario.json"
    doc = json.loads(path.read_text())
    doc["tools"]["todo_write"]["allowParallelInProgress"] = False
    path.write_text(json.dumps(doc, indent=2) + "\n")


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``repo/`` (two scenarios, their goldens, one flipped so a check leaves pending
    goldens) and ``sibling/``, a checkout of the same with pending goldens of its own;
    the working directory is ``repo``."""
    for checkout in ("repo", "sibling"):
        for name in (FLIPPED, KEPT):
            shutil.copytree(REPO / "scenarios" / name, tmp_path / checkout / "scenarios" / name)
            shutil.copytree(REPO / "goldens" / name, tmp_path / checkout / "goldens" / name)
        _flip(tmp_path / checkout / "scenarios")
    monkeypatch.chdir(tmp_path / "sibling")
    assert _run("check", "--pending").exit_code == 1  # the sibling's own pending goldens
    monkeypatch.chdir(tmp_path / "repo")
    return tmp_path


def _run(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args), env={"NO_COLOR": "1", "CI": ""})
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


def _link(place: Path, root: str) -> None:
    """``repo/ROOT`` replaced by a link to ``sibling/ROOT``."""
    target = place / "repo" / root
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(place / "sibling" / root, target_is_directory=True)


def _pending(place: Path) -> None:
    """Pending goldens in the repo (before a root is linked)."""
    assert _run("check", "--pending").exit_code == 1
    assert (place / "repo" / ".replay" / "pending" / "manifest.json").is_file()


# Each command that writes or deletes, with each root it writes or deletes under.
CASES = [
    ("goldens", ["refresh", "--prune"], False),
    ("goldens", ["refresh", FLIPPED], False),
    ("goldens", ["accept"], True),
    ("goldens", ["check", "--pending"], False),
    ("goldens", ["check"], False),
    ("scenarios", ["refresh", "--prune"], False),
    ("scenarios", ["new", "fresh"], False),
    ("scenarios", ["accept"], True),
    (".replay", ["check", "--pending"], False),
    (".replay", ["accept"], True),
    (".replay", ["reject"], True),
    (".replay/pending", ["check", "--pending"], False),
    (".replay/pending", ["accept"], True),
    (".replay/pending", ["reject"], True),
]


@pytest.mark.parametrize(("root", "command", "pending"), CASES, ids=[f"{c[0]}-{'-'.join(c[1])}" for c in CASES])
def test_a_root_that_is_a_link_is_refused_and_the_sibling_is_untouched(place: Path, root: str, command: list[str],
                                                                      pending: bool) -> None:
    if pending:
        _pending(place)
    _link(place, root)
    before = _snapshot(place / "sibling")
    result = _run(*command)
    assert result.exit_code == 1, result.output
    assert f"{root}: {LINK}" in result.output
    assert _snapshot(place / "sibling") == before


def test_a_linked_pending_folder_is_refused_by_review_too(place: Path) -> None:
    _pending(place)
    _link(place, ".replay/pending")
    before = _snapshot(place / "sibling")
    code, out = _pty_review(place / "repo", [])
    assert code == 1
    assert f"replay review: .replay/pending: {LINK}" in out
    assert _snapshot(place / "sibling") == before


def test_a_folder_the_user_names_may_be_reached_through_a_link(place: Path) -> None:
    """``--goldens`` and ``--pending`` named on the command line: the user's choice, so
    the link they typed is followed; below it nothing is (a linked scenario folder
    inside is still refused)."""
    os.symlink(place / "sibling" / "goldens", place / "their-goldens", target_is_directory=True)
    result = _run("check", "--goldens", str(place / "their-goldens"))
    assert result.exit_code == 1 and FLIPPED in result.output and "a symbolic link" not in result.output
    (place / "elsewhere").mkdir()
    (place / "elsewhere" / "web.expected.txt").write_text("precious\n")
    os.symlink(place / "elsewhere", place / "sibling" / "goldens" / "linked", target_is_directory=True)
    result = _run("refresh", "--prune", "--goldens", str(place / "their-goldens"))
    assert result.exit_code == 1
    assert f"{place / 'their-goldens' / 'linked'}: {LINK}" in result.output
    assert (place / "elsewhere" / "web.expected.txt").read_text() == "precious\n"


def test_the_pytest_plugin_never_writes_through_a_linked_goldens_root(place: Path,
                                                                      pytester: pytest.Pytester) -> None:
    root = pytester.path
    shutil.copytree(place / "repo" / "scenarios", root / "scenarios")
    (root / "goldens").symlink_to(place / "sibling" / "goldens", target_is_directory=True)
    pytester.makepyfile(test_goldens=f"""
        def test_it(replay_scenario, replay_snapshot):
            for name, data in replay_scenario({FLIPPED!r}).items():
                assert data == replay_snapshot(name=f"{FLIPPED}/{{name}}")
    """)
    before = _snapshot(place / "sibling")
    result = pytester.runpytest_inprocess("--snapshot-update", "-p", "no:randomly")
    assert result.ret != 0
    assert f"goldens: {LINK}" in "\n".join(result.outlines)
    assert _snapshot(place / "sibling") == before
