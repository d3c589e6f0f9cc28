"""The fresh-machine contract: the README's two commands, `.ci/run` and the lock agree.

These cannot run the commands themselves (that needs a network and a fresh machine); they pin
what makes the commands work on one: each is self-contained, goes through a venv (so Debian's
externally managed ``python3`` accepts it), installs from the lock, and `.ci/run` runs the second
one verbatim. The lock must satisfy every range ``pyproject.toml`` declares.
"""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.helpers import REPO

VENV = "python3 -m venv .venv && "


def _quick_start_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S)]


def _locked() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", line
        pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def test_quick_start_is_exactly_two_self_contained_venv_commands() -> None:
    commands = _quick_start_commands()
    assert len(commands) == 2, commands
    for command in commands:
        assert "\n" not in command, command
        assert command.startswith(VENV), command
        # After the venv exists, nothing runs through a bare interpreter or an activated venv.
        rest = command.removeprefix(VENV)
        assert all(step.strip().startswith(".venv/bin/") for step in rest.split("&&")), command
        assert "-c constraints.txt" in command, command
    assert commands[0].endswith(".venv/bin/replay check")
    assert "'.[test]'" in commands[1] and commands[1].endswith(".venv/bin/python -m pytest -n auto")


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    last = [line for line in ci.splitlines() if line.strip() and not line.startswith("#")][-1]
    assert last == _quick_start_commands()[1]


def test_the_lock_satisfies_every_declared_range() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        declared.extend(Requirement(r) for r in extra)
    pins = _locked()
    for requirement in declared:
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} is not in constraints.txt (run: nox -s lock)"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {name}=={pins[name]}, outside {requirement} (run: nox -s lock)"
        )


def test_click_has_its_announced_upper_bound() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (click,) = [Requirement(r) for r in project["dependencies"] if r.startswith("click")]
    assert not click.specifier.contains("9.0") and click.specifier.contains("8.5.1")
