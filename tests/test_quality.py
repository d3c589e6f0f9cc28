"""The code-quality gates are part of the suite: ruff and mypy --strict on the package.

Both run as ``python -m <tool>`` from the interpreter running the tests, so they work in a venv
that is not activated. A gate that cannot run is a skip on a developer's machine and a failure
under ``CI``: a missing install step must not turn the gate off silently.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from tests.helpers import REPO


def _run_gate(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(module) is None:
        reason = f"{module} is not installed in {sys.executable} (install the test extras from the lock)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; under CI a gate that cannot run fails")
        pytest.skip(reason)
    return subprocess.run([sys.executable, "-m", module, *args], cwd=REPO, capture_output=True, text=True)


def test_ruff_is_clean() -> None:
    proc = _run_gate("ruff", "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_is_clean() -> None:
    proc = _run_gate("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
