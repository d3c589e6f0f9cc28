"""The folder search (``replay.log.walk``): one ``scandir`` a folder, held to the
``os.walk`` search it replaced (an ``islink`` and a ``stat`` a file) on random trees
of logs, other files, FIFOs, folders and links in and out of the tree."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.describe import kind, reason
from replay.fs import within
from replay.log.walk import ARCHIVE_SUFFIXES, LOG_SUFFIXES, identity, walk
from tests.helpers import examples


def _reference(folder: str, passed_over: list[tuple[str, str]]) -> list[tuple[str, os.stat_result]]:
    """The search as ``os.walk`` with sorted names makes it."""
    found: list[tuple[str, os.stat_result]] = []

    def unlistable(exc: OSError) -> None:
        passed_over.append((exc.filename or folder, f"the folder cannot be listed ({reason(exc)})"))

    for top, dirs, files in os.walk(folder, onerror=unlistable):
        dirs.sort()
        for name in dirs:
            path = os.path.join(top, name)
            if os.path.islink(path):
                passed_over.append((path, "a symbolic link to a folder (links are not followed)"))
        for name in sorted(files):
            if not name.endswith(LOG_SUFFIXES + ARCHIVE_SUFFIXES):
                continue
            path = os.path.join(top, name)
            link = os.path.islink(path)
            try:
                st = os.stat(path)
            except OSError as exc:
                passed_over.append((path, "a broken symbolic link" if link else
                                    f"it cannot be examined ({reason(exc)})"))
                continue
            if link and not within(Path(path), Path(folder)):
                passed_over.append((path, "a symbolic link that leads out of the folder"))
            elif not stat.S_ISREG(st.st_mode):
                passed_over.append((path, kind(st.st_mode)))
            else:
                found.append((path, st))
    found.sort(key=lambda item: item[0])
    return found


_NAMES = st.sampled_from(["a", "b", "B", "a.b", "z-1", "é", "a.jsonl", "b.jsonl.zstd", "c.tar", "d.tar.zst",
                          "notes.txt", "x.jsonl.zst"])
_OPS = st.lists(st.tuples(st.lists(_NAMES, min_size=1, max_size=3),
                          st.sampled_from(["file", "dir", "fifo", "link-in", "link-out", "link-broken",
                                           "link-dir"])), max_size=25)


@settings(max_examples=examples(60), deadline=None)
@given(_OPS)
def test_the_search_is_the_os_walk_one(ops: list[tuple[list[str], str]]) -> None:
    base = Path(tempfile.mkdtemp())
    try:
        root, outside = base / "root", base / "outside"
        root.mkdir()
        outside.mkdir()
        (outside / "o.jsonl").write_bytes(b"{}\n")
        for parts, what in ops:
            path = root.joinpath(*parts)
            try:
                # a link made earlier may point at itself, so even asking can fail (ELOOP)
                if path.exists() or path.is_symlink():
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            try:
                if what == "file":
                    path.write_bytes(b"{}\n")
                elif what == "dir":
                    path.mkdir()
                elif what == "fifo":
                    os.mkfifo(path)
                elif what == "link-in":
                    path.symlink_to(root / parts[0])
                elif what == "link-out":
                    path.symlink_to(outside / "o.jsonl")
                elif what == "link-broken":
                    path.symlink_to(base / "nowhere")
                else:
                    path.symlink_to(outside, target_is_directory=True)
            except OSError:  # through a link that loops: the tree simply lacks this entry
                continue
        told: list[tuple[str, str]] = []
        want: list[tuple[str, str]] = []
        found = walk(str(root), lambda path, why: told.append((path, why)))
        expected = _reference(str(root), want)
        assert [(p, identity(s)) for p, s in found] == [(p, identity(s)) for p, s in expected]
        assert told == want
    finally:
        shutil.rmtree(base)


def test_a_folder_that_cannot_be_listed_is_told(tmp_path: Path) -> None:
    told: list[tuple[str, str]] = []
    assert walk(str(tmp_path / "missing"), lambda path, why: told.append((path, why))) == []
    assert told == [(str(tmp_path / "missing"), "the folder cannot be listed (No such file or directory)")]
