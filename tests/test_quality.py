"""The code-quality gates are part of the suite: ruff and mypy --strict on the package."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.helpers import REPO


def test_ruff_is_clean() -> None:
    if shutil.which("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    proc = subprocess.run(["ruff", "check", "."], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
