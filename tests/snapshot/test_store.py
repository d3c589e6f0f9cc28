"""The golden store's writes: atomic, and with the file mode a golden should have."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.snapshot.store import GoldenStore


@pytest.fixture
def umask_022() -> Iterator[None]:
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_golden_gets_the_usual_mode_not_mkstemps_0600(tmp_path: Path, umask_022: None) -> None:
    store = GoldenStore(tmp_path / "goldens")
    assert store.write("s", "web.expected.txt", b"a\n") == "created"
    assert _mode(tmp_path / "goldens" / "s" / "web.expected.txt") == 0o644
    os.umask(0o002)
    assert store.write("s", "stdio.expected.txt", b"a\n") == "created"
    assert _mode(tmp_path / "goldens" / "s" / "stdio.expected.txt") == 0o664


def test_a_rewritten_golden_keeps_its_mode(tmp_path: Path, umask_022: None) -> None:
    store = GoldenStore(tmp_path / "goldens")
    path = tmp_path / "goldens" / "s" / "web.expected.txt"
    store.write("s", "web.expected.txt", b"a\n")
    for mode in (0o600, 0o664, 0o640):
        path.chmod(mode)
        assert store.write("s", "web.expected.txt", f"{mode}\n".encode()) == "updated"
        assert _mode(path) == mode and path.read_bytes() == f"{mode}\n".encode()
    assert [p.name for p in path.parent.iterdir()] == ["web.expected.txt"]  # no temp file left
