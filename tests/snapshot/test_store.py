"""The golden store's writes: atomic, and with the file mode a golden should have."""

from __future__ import annotations

import os
import stat
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.fs import NO_FSYNC
from replay.goldens.store import MAX_GOLDEN_BYTES, GoldenStore, StoreError


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


def test_a_golden_over_the_read_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    store = GoldenStore(tmp_path / "goldens")
    store.write("s", "web.expected.txt", b"")
    path = tmp_path / "goldens" / "s" / "web.expected.txt"
    os.truncate(path, MAX_GOLDEN_BYTES + 1)  # sparse: nothing is written, and nothing may be read
    tracemalloc.start()
    try:
        with pytest.raises(StoreError) as read:
            store.read("s", "web.expected.txt")
        with pytest.raises(StoreError) as opened, store.open("s", "web.expected.txt"):
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    refused = f"{path}: the golden is larger than {MAX_GOLDEN_BYTES} bytes; refused"
    assert str(read.value) == str(opened.value) == refused
    assert peak < 1 << 20


def test_open_gives_a_golden_to_read_with_the_checks_of_read(tmp_path: Path) -> None:
    store = GoldenStore(tmp_path / "goldens")
    store.write("s", "web.expected.txt", b"row\n")
    with store.open("s", "web.expected.txt") as fh:
        assert fh is not None and fh.read() == b"row\n"
    for scenario, name in (("s", "stdio.expected.txt"), ("t", "web.expected.txt")):
        with store.open(scenario, name) as fh:
            assert fh is None
    os.symlink(tmp_path / "goldens" / "s" / "web.expected.txt", tmp_path / "goldens" / "s" / "stdio.expected.txt")
    with pytest.raises(StoreError) as read:
        store.read("s", "stdio.expected.txt")
    with pytest.raises(StoreError) as opened, store.open("s", "stdio.expected.txt"):
        pass
    assert str(opened.value) == str(read.value) and "a symbolic link; refused" in str(read.value)


def test_a_write_is_synced_before_its_rename_and_its_folder_after(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Durability: the new bytes reach the disk before they take the golden's name,
    and the rename reaches it before the write returns. The suite skips fsync
    (``NO_FSYNC``, set by tests/conftest.py); this test puts it back, and checks the
    knob too."""
    store = GoldenStore(tmp_path / "goldens")
    store.write("s", "web.expected.txt", b"old\n")
    path = tmp_path / "goldens" / "s" / "web.expected.txt"
    seen: list[tuple[str, bytes]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        seen.append(("fsync", os.readlink(f"/proc/self/fd/{fd}").encode() if Path("/proc/self/fd").is_dir()
                     else b""))
        real_fsync(fd)

    def replace(*args: object, **kwargs: object) -> None:
        seen.append(("rename", path.read_bytes()))
        real_replace(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.delenv(NO_FSYNC, raising=False)
    assert store.write("s", "web.expected.txt", b"new\n") == "updated"
    assert [what for what, _ in seen] == ["fsync", "rename", "fsync"]
    assert seen[1][1] == b"old\n"  # the rename had not happened when the temp file was synced
    if seen[0][1]:
        assert os.path.basename(seen[0][1]).startswith(b".tmp-")
        assert seen[2][1] == str(path.parent).encode()
    seen.clear()
    monkeypatch.setenv(NO_FSYNC, "1")
    assert store.write("s", "web.expected.txt", b"newer\n") == "updated"
    assert [what for what, _ in seen] == ["rename"]
    assert path.read_bytes() == b"newer\n"
