"""Developer sessions.

- ``nox`` (= ``-s tests lint``): the suite and the lint gates, with the versions pinned in
  ``constraints.txt`` — exactly what ``.ci/run`` and the README's test command install.
- ``nox -s newest``: the newest release of every dependency, ignoring the lock, then the whole
  suite. Deprecations are errors in the suite, so an upstream release that deprecates or breaks
  something we use fails here, in a named session, before anyone's first run does.
- ``nox -s lock``: recompile ``constraints.txt`` from ``pyproject.toml``.
- ``nox -s bench``: the audit-throughput benchmark.
- ``nox -s fuzz``: the scheduled run of the property and fuzz tests (those hypothesis marks),
  with the ``fuzz`` profile: ten times the examples of a commit's run (see tests/conftest.py).
"""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint"]
LOCK = "constraints.txt"


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
    session.install("uv")
    session.run("uv", "pip", "compile", "pyproject.toml", "--all-extras",
                "--universal", "--python-version", "3.11", "--upgrade", "-o", LOCK)


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-c", LOCK, "-e", ".[dask]")  # the --scheduler column starts a LocalCluster
    session.run("python", "bench/audit_throughput.py", *session.posargs)
