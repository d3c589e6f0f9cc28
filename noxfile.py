"""Developer sessions: `nox -s tests`, `nox -s lint`, `nox -s bench`."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint"]


@nox.session
def tests(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("ruff", "check", ".")
    session.run("mypy")


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-e", ".")
    session.run("python", "bench/audit_throughput.py", *session.posargs)
