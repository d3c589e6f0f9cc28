"""Developer sessions.

- ``nox`` (= ``-s tests lint``): the suite and the lint gates, with the versions pinned in
  ``constraints.txt`` — exactly what ``.ci/run`` and the README's test command install.
- ``nox -s newest``: the newest release of every dependency, ignoring the lock, then the whole
  suite. Deprecations are errors in the suite, so an upstream release that deprecates or breaks
  something we use fails here, in a named session, before anyone's first run does.
- ``nox -s lock``: recompile ``constraints.txt`` from ``pyproject.toml``, every pin to the newest
  release allowed; ``nox -s lock -- --upgrade-package NAME`` moves NAME only.
- ``nox -s build``: the sdist and the wheel in ``dist/``, built as an install from a checkout
  builds (in isolation: the newest setuptools ``[build-system]`` allows, not the lock's); any
  warning the build prints fails the session; then ``twine check --strict`` on both. ``.ci/run``
  runs it. The suite's wheel test (tests/test_packaging.py) installs a wheel and uses it.
- ``nox -s bench``: the audit-throughput benchmark.
- ``nox -s fuzz``: the scheduled run of the property and fuzz tests (those hypothesis marks),
  with the ``fuzz`` profile: ten times the examples of a commit's run (see tests/conftest.py).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nox

nox.options.sessions = ["tests", "lint"]
LOCK = "constraints.txt"
DIST = Path("dist")
WARNING = re.compile(r"\bwarning\b|deprecat", re.IGNORECASE)
"""A line of the build's output that warns (setuptools prints its deprecations as text)."""
LISTING = ("copying ", "adding '", "hard linking ", "creating ", "writing ")
"""How the build's lines naming a file start: a file's name is not a warning."""


@nox.session
def tests(session: nox.Session) -> None:
    session.install("-c", LOCK, "-e", ".[test]")
    session.run("python", "-m", "pytest", "-n", "auto", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    session.install("-c", LOCK, "-e", ".[test]")
    session.run("python", "-m", "pytest", "-n", "auto", "-m", "hypothesis", *session.posargs,
                env={"HYPOTHESIS_PROFILE": "fuzz"})


@nox.session
def lint(session: nox.Session) -> None:
    session.install("-c", LOCK, "-e", ".[test]")
    session.run("python", "-m", "ruff", "check", ".")
    session.run("python", "-m", "mypy")


@nox.session
def newest(session: nox.Session) -> None:
    session.install("--upgrade", "--upgrade-strategy", "eager", "-e", ".[test]")
    session.run("python", "-m", "pip", "list", "--format", "freeze", silent=False)
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def lock(session: nox.Session) -> None:
    # Arguments replace --upgrade: `nox -s lock -- --upgrade-package NAME` moves only NAME and
    # keeps every other pin (a requirement pyproject.toml just gained is resolved either way).
    session.install("uv")
    session.run("uv", "pip", "compile", "pyproject.toml", "--all-extras",
                "--universal", "--python-version", "3.11", *(session.posargs or ["--upgrade"]), "-o", LOCK)


@nox.session
def build(session: nox.Session) -> None:
    session.install("-c", LOCK, "build", "twine")
    shutil.rmtree(DIST, ignore_errors=True)
    # Byte-compiling is the environment's choice (PYTHONDONTWRITEBYTECODE): setuptools' note that
    # it is off is about this machine, not the project, so the build runs with it on.
    output = session.run("python", "-m", "build", "--outdir", str(DIST), silent=True,
                         env={"PYTHONDONTWRITEBYTECODE": None})
    print(output, end="")
    warnings = [line for line in str(output).splitlines()
                if WARNING.search(line) and not line.lstrip().startswith(LISTING)]
    if warnings:
        session.error("the build printed warnings (fix them, they become errors later):\n" + "\n".join(warnings))
    session.run("python", "-m", "twine", "check", "--strict", *sorted(str(p) for p in DIST.iterdir()))


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-c", LOCK, "-e", ".[dask]")  # the --scheduler column starts a LocalCluster
    session.run("python", "bench/audit_throughput.py", *session.posargs)
