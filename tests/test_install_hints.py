"""The commands that install an optional extra: every one the code prints names the
distribution and an extra ``pyproject.toml`` declares, and works from where replay came
from (a checkout: installed again from it, with its lock; else the package index)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from replay import extras
from replay.cli import main
from replay.extras import installed_from, local_folder
from replay.hints import DISTRIBUTION, Checkout, install_command
from tests.helpers import REPO

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
HINT_CALLS = {"require": 1, "missing": 1, "install_hint": 0, "install_command": 0}
"""The functions whose call names an extra, and the position of the extra among the arguments."""
SOURCES = [*sorted((REPO / "replay").rglob("*.py")), *sorted((REPO / "bench").rglob("*.py"))]


def _hints() -> Iterator[tuple[str, ast.Call, str]]:
    """Every call that names an extra, in replay/ and bench/: where, the call, the extra."""
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name not in HINT_CALLS or (path.name == "extras.py" and name != "require" and node.args
                                          and isinstance(node.args[0], ast.Name)):
                continue  # extras.py passes its own parameters along
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            arg = node.args[HINT_CALLS[name]] if len(node.args) > HINT_CALLS[name] else None
            assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
                f"{where}: the extra is not a string literal (this test could not check it)")
            yield where, node, arg.value


def _installs(extra: str) -> set[str]:
    """Every distribution ``pip install 'NAME[extra]'`` installs, by the metadata of what is
    installed here (the test extras hold every extra a hint names)."""
    wanted = [(Requirement(r), frozenset[str]()) for r in PROJECT["optional-dependencies"][extra]]
    found: set[str] = set()
    while wanted:
        requirement, via = wanted.pop()
        name = canonicalize_name(requirement.name)
        if requirement.marker is not None and not any(
                requirement.marker.evaluate({"extra": e}) for e in via or {""}):
            continue
        if name in found:
            continue
        found.add(name)
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        wanted.extend((Requirement(r), frozenset(requirement.extras)) for r in requires)
    return found


def test_the_distribution_is_pyproject_s_name() -> None:
    assert DISTRIBUTION == PROJECT["name"] == "deepseek-harness-replay"


def test_every_install_hint_names_an_extra_that_installs_the_missing_module() -> None:
    hints = list(_hints())
    assert {extra for _, _, extra in hints} == {"remote", "dask", "pytest", "export"}
    packages = importlib.metadata.packages_distributions()
    for where, call, extra in hints:
        assert extra in PROJECT["optional-dependencies"], f"{where}: no extra {extra!r} in pyproject.toml"
        module = call.args[0]
        if HINT_CALLS[getattr(call.func, "id", getattr(call.func, "attr", ""))] == 1:
            assert isinstance(module, ast.Constant) and isinstance(module.value, str), where
            providers = {canonicalize_name(d) for d in packages.get(module.value.partition(".")[0], [])}
            assert providers, f"{where}: {module.value} is not installed (the test extras should hold it)"
            assert providers & _installs(extra), f"{where}: the extra {extra!r} does not install {module.value}"


_OLD_NAME = re.compile(r"(?<![\w.-])replay\[|pip install (-\S+ )*'?replay(?![\w.-])")
"""An install spelt with the import package's name: on the index, that is another project."""


def test_no_message_or_doc_installs_replay_by_the_import_package_s_name() -> None:
    texts = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), *SOURCES,
             *sorted((REPO / "tests").rglob("*.py"))]
    texts += [p for p in (REPO / "CHANGELOG.md",) if p.exists()]
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()}" for path in texts if path != Path(__file__)
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if _OLD_NAME.search(line)]
    assert found == []


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    """The string literals of a module that are not docstrings (f-string parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def test_only_the_hints_module_spells_pip_install() -> None:
    """Every install command the code prints comes from ``replay.hints.install_command``."""
    found = [f"{path.relative_to(REPO)}:{line}: {text!r}" for path in SOURCES if path.name != "hints.py"
             for line, text in _strings(path) if "pip install" in text]
    assert found == []


ROOT = Path("/home/u/harness-replay")


@pytest.mark.parametrize(("checkout", "python", "cwd", "expected"), [
    # Installed from the index or a wheel file: from the index, by the distribution's name.
    (None, "/opt/tools/bin/python", ROOT, "`pip install 'deepseek-harness-replay[remote]'`"),
    # The README's test command: an editable install in the checkout's venv, from the checkout.
    (Checkout(ROOT, editable=True, locked=True), f"{ROOT}/.venv/bin/python", ROOT,
     "`.venv/bin/python -m pip install -c constraints.txt -e '.[remote]'`"),
    # The README's first command: a plain install of the checkout.
    (Checkout(ROOT, editable=False, locked=True), f"{ROOT}/.venv/bin/python", ROOT,
     "`.venv/bin/python -m pip install -c constraints.txt '.[remote]'`"),
    # Anywhere else: absolute paths, the same command.
    (Checkout(ROOT, editable=True, locked=True), f"{ROOT}/.venv/bin/python", Path("/tmp/logs"),
     f"`{ROOT}/.venv/bin/python -m pip install -c {ROOT}/constraints.txt -e '{ROOT}[remote]'`"),
    (Checkout(ROOT, editable=False, locked=True), f"{ROOT}/.venv/bin/python", ROOT / "scenarios",
     f"`{ROOT}/.venv/bin/python -m pip install -c {ROOT}/constraints.txt '{ROOT}[remote]'`"),
    # Inside the folder: a program and a folder never as a bare name (a lookup on PATH, on the index).
    (Checkout(ROOT / "replay", editable=False, locked=False), "python", ROOT,
     "`./python -m pip install './replay[remote]'`"),
    (Checkout(ROOT, editable=False, locked=True), "venv/bin/python", ROOT,
     "`venv/bin/python -m pip install -c constraints.txt '.[remote]'`"),
    (Checkout(Path("/src/it's here"), editable=True, locked=False), "/usr/bin/python3", ROOT,
     "`/usr/bin/python3 -m pip install -e '/src/it'\"'\"'s here[remote]'`"),
])
def test_the_install_command_from_where_replay_came_from(checkout: Checkout | None, python: str, cwd: Path,
                                                          expected: str) -> None:
    assert install_command("remote", checkout, python, cwd) == expected


@pytest.mark.parametrize(("record", "expected"), [
    ('{"url": "file:///home/u/harness-replay", "dir_info": {"editable": true}}', (ROOT, True)),
    ('{"url": "file:///home/u/harness-replay", "dir_info": {}}', (ROOT, False)),
    ('{"url": "file://localhost/home/u/harness-replay", "dir_info": {"editable": false}}', (ROOT, False)),
    ('{"url": "file:///home/u/my%20replay", "dir_info": {}}', (Path("/home/u/my replay"), False)),
    # Anything but a local folder: not a checkout.
    ('{"url": "file:///tmp/d/x-0.1.0-py3-none-any.whl", "archive_info": {"hashes": {}}}', None),
    ('{"url": "https://example.org/x.tar.gz", "archive_info": {}}', None),
    ('{"url": "https://example.org/x.git", "vcs_info": {"vcs": "git", "commit_id": "0"}}', None),
    ('{"url": "file://otherhost/home/u", "dir_info": {}}', None),
    ('{"url": "file:relative", "dir_info": {}}', None),
    ('{"url": 7, "dir_info": {}}', None),
    ('{"url": "file:///home/u", "dir_info": true}', None),
    ('["file:///home/u"]', None),
    ("{", None),
    ("", None),
    (None, None),
])
def test_a_checkout_is_a_local_folder_in_pip_s_record(record: str | None, expected: tuple[Path, bool] | None) -> None:
    assert local_folder(record) == expected


def test_this_checkout_is_where_the_suite_s_replay_came_from() -> None:
    """The README's test command installs the checkout editable: its hints name the checkout."""
    found = installed_from()
    assert found is not None and found.root.resolve() == REPO, found
    assert found.editable and found.locked


def test_a_missing_extra_says_the_command_that_installs_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec now fails
    monkeypatch.setattr(extras, "installed_from", lambda: None)
    result = CliRunner().invoke(main, ["audit", "s3://bucket/logs"])
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        2, "Error: reading URLs needs fsspec: `pip install 'deepseek-harness-replay[remote]'`")
    (tmp_path / "constraints.txt").write_text("")
    monkeypatch.setattr(extras, "installed_from", lambda: Checkout(tmp_path, editable=True, locked=True))
    monkeypatch.setattr(sys, "executable", str(tmp_path / ".venv" / "bin" / "python"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["audit", "s3://bucket/logs"])
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        2, "Error: reading URLs needs fsspec: `.venv/bin/python -m pip install -c constraints.txt -e '.[remote]'`")


def test_a_missing_backend_of_the_remote_extra_says_the_same_command(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("fsspec", reason="fsspec is the remote extra")
    # fsspec is there, its Google Cloud Storage backend is not (no test imports it: fsspec keeps a
    # backend it imported once, whatever sys.modules says later).
    monkeypatch.setitem(sys.modules, "gcsfs", None)
    monkeypatch.setattr(extras, "installed_from", lambda: None)
    result = CliRunner().invoke(main, ["audit", "gs://bucket/logs"])
    last = result.output.splitlines()[-1]
    assert result.exit_code == 2
    assert last.startswith("Error: reading gs:// URLs needs a backend fsspec could not import (")
    assert last.endswith("): `pip install 'deepseek-harness-replay[remote]'`")
