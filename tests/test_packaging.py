"""The wheel is the product. Built as a release builds it (the sdist, then the wheel from
the sdist), installed into a fresh virtual environment in a temporary folder far from the
checkout, and used from there as a user would: every data file the code reads (rule texts,
schemas, the page's assets, the presenters' tool schemas) must have come with the wheel.

The build runs without isolation, against the locked setuptools (no network; ``nox -s build``
builds in isolation with the newest setuptools and fails on its warnings). The fresh venv
gets replay from the wheel alone (``--no-index --no-deps``); its dependencies are the ones
already installed for the suite, seen through a ``.pth`` file naming this interpreter's
site-packages, so nothing is downloaded. Only replay's own files are the wheel's: the venv's
site-packages comes first on ``sys.path``, and the suite's editable install of the checkout
only works through its own ``.pth`` hook, which a folder named by a ``.pth`` never runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
import trove_classifiers
from click.testing import CliRunner

from replay import __version__
from replay.cli import main
from replay.hints import DISTRIBUTION
from replay.render.web import page_assets
from tests.helpers import REPO, TODO_WRITE, corpus_file

pytestmark = pytest.mark.slow

LEFT_BEHIND = (".git", ".nox", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache",
               ".ruff_cache", ".hypothesis", ".replay")
"""What a checkout holds that no fresh clone does (venvs are found by their pyvenv.cfg)."""
SECONDS = 300
"""A hang guard for one build, install or command."""


def _checkout_copy(dest: Path) -> Path:
    """The checkout's files, as a fresh clone has them, in ``dest``: a build writes into its
    source folder (``build/``, ``*.egg-info``), and leftovers there would go into a wheel."""
    skip = shutil.ignore_patterns(*LEFT_BEHIND)

    def ignore(folder: str, names: list[str]) -> set[str]:
        return set(skip(folder, names)) | {n for n in names if (Path(folder) / n / "pyvenv.cfg").exists()}

    shutil.copytree(REPO, dest, ignore=ignore, symlinks=True)
    return dest


def _run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=SECONDS)
    assert proc.returncode == 0, f"{' '.join(map(str, args))} (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _build(source: Path, out: Path, *only: str) -> Path:
    """``python -m build`` of ``source`` into ``out`` (both distributions, or ``only`` one)."""
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, *only, source], cwd=source)
    return out


def _wheel(folder: Path) -> zipfile.ZipFile:
    (wheel,) = folder.glob("*.whl")
    return zipfile.ZipFile(wheel)


def _in_process(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """What the checkout's replay says (the suite's own install, in this process)."""
    with monkeypatch.context() as m:
        m.chdir(cwd)
        result = CliRunner().invoke(main, args)
    return result.exit_code, result.output


def test_the_wheel_installed_far_from_the_checkout_has_everything_replay_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not tmp_path.is_relative_to(REPO)
    source = _checkout_copy(tmp_path / "clone")
    dist = _build(source, tmp_path / "dist")  # the sdist, then the wheel built from the sdist
    (sdist,) = dist.glob("*.tar.gz")
    wheel = _wheel(dist)
    assert Path(wheel.filename or "").name == f"{DISTRIBUTION.replace('-', '_')}-{__version__}-py3-none-any.whl"

    # The sdist builds the same wheel as the tree does.
    assert wheel.namelist() == _wheel(_build(source, tmp_path / "tree", "--wheel")).namelist()
    # The wheel holds replay, every file of the package folder, and nothing else.
    info = f"{DISTRIBUTION.replace('-', '_')}-{__version__}.dist-info"
    package = {p.relative_to(REPO).as_posix() for p in (REPO / "replay").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    names = set(wheel.namelist())
    assert sorted(package - names) == [], "the wheel lacks these (list them in [tool.setuptools.package-data])"
    assert sorted(names - package) == [f"{info}/{name}" for name in (
        "METADATA", "RECORD", "WHEEL", "entry_points.txt", "licenses/LICENSE", "top_level.txt")]
    with tarfile.open(sdist) as archive:
        top = f"{DISTRIBUTION.replace('-', '_')}-{__version__}"
        assert {f"{top}/{name}" for name in ("LICENSE", "README.md", "pyproject.toml", "PKG-INFO")} <= set(
            archive.getnames())
    metadata = wheel.read(f"{info}/METADATA").decode()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert f"Name: {project['name']}\n" in metadata and f"Version: {__version__}\n" in metadata
    assert "License-Expression: Apache-2.0\n" in metadata and "License-File: LICENSE\n" in metadata
    assert [c for c in project["classifiers"] if c not in trove_classifiers.classifiers] == []

    # A fresh venv, replay from the wheel alone, the suite's dependencies beside it.
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=tmp_path)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--isolated", "--python", python, "install", "-q", "--no-index",
          "--no-deps", "--find-links", dist, f"{DISTRIBUTION}=={__version__}"], cwd=tmp_path)
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=tmp_path).strip())
    ours = dict.fromkeys(sysconfig.get_path(k) for k in ("purelib", "platlib"))
    (site / "_suite_dependencies.pth").write_text("".join(f"{p}\n" for p in ours), encoding="utf-8")

    work, mirror = tmp_path / "work", tmp_path / "mirror"  # where the wheel's replay runs, and the checkout's
    work.mkdir()
    mirror.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "REPLAY_"))}
    env.update(TMPDIR=str(tmp_path), NO_COLOR="1")
    replay = venv / "bin" / "replay"

    def both(*args: str) -> str:
        """The wheel's replay says exactly what the checkout's says."""
        out = _run([replay, *args], cwd=work, env=env)
        assert _in_process(list(args), mirror, monkeypatch) == (0, out), args
        return out

    where, hint = _run([python, "-c", "import replay, replay.extras as e; print(replay.__file__); "
                        "print(e.install_hint('remote'))"], cwd=work, env=env).splitlines()
    assert Path(where) == site / "replay" / "__init__.py"
    assert hint == "`pip install 'deepseek-harness-replay[remote]'`"  # not a checkout: from the index

    assert _run([replay, "--version"], cwd=work, env=env) == f"replay, version {__version__}\n"
    assert both("rules", "A4").startswith("A4: ")  # the rule texts
    assert both("schema", "scenario") == (REPO / "replay/scenarios/scenario.schema.json").read_text(encoding="utf-8")
    # A scaffold, run keylessly: the scenario schema, the presenters' tool schemas, the page's
    # assets all go into goldens, byte for byte those the checkout writes.
    both("new", "demo")
    both("refresh")
    both("check")
    written = {p.relative_to(work): p.read_bytes() for p in sorted(work.rglob("*")) if p.is_file()}
    assert written == {p.relative_to(mirror): p.read_bytes() for p in sorted(mirror.rglob("*")) if p.is_file()}
    assert Path("goldens/demo/tool-schemas.expected.json") in written

    log = corpus_file(TODO_WRITE)
    both("audit", str(log))
    page = Path(_run([replay, "view", log], cwd=work, env=env).strip())
    assert page.is_relative_to(tmp_path)
    html = page.read_text(encoding="utf-8")
    # The page carries the checkout's stylesheet and script (page.css, site.css, session.css;
    # page.js, session.js), compacted as a site's session page carries them.
    for name, asset in (("stylesheet", page_assets.SESSION_CSS), ("script", page_assets.SESSION_SCRIPT)):
        assert asset in html, name
