"""What the session browser asks of the confined tree: atomic writes whose flush to
disk is left to the system (a generated site of thousands of pages), entries moved
inside the tree (never through a link), and what a dead run left behind told apart
from what a live one is writing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from replay.fs import TEMP_PREFIX, FsError, Tree, abandoned


def test_a_write_not_flushed_at_once_is_still_atomic(tmp_path: Path) -> None:
    tree = Tree.named(tmp_path / "site")
    tree.write("a", "page.html", data=[b"<p>", "one", b"</p>"], durable=False)
    tree.write("a", "page.html", data=b"two", durable=False)
    assert (tmp_path / "site" / "a" / "page.html").read_bytes() == b"two"
    assert sorted(os.listdir(tmp_path / "site" / "a")) == ["page.html"]  # no temporary file left


def test_move_a_file_and_a_folder(tmp_path: Path) -> None:
    tree = Tree.named(tmp_path)
    tree.write("stage", "s", "x.html", data=b"new")
    tree.write("stage", "index.html", data=b"index")
    tree.write("index.html", data=b"old index")
    tree.move(("stage", "index.html"), ("index.html",))  # a file replaces a file
    assert (tmp_path / "index.html").read_bytes() == b"index"
    tree.move(("stage", "s"), ("sessions", "s"))  # a folder, its parent made
    assert (tmp_path / "sessions" / "s" / "x.html").read_bytes() == b"new"
    tree.write("stage", "s", "y.html", data=b"y")
    with pytest.raises(FileExistsError):  # a folder never lands on something
        tree.move(("stage", "s"), ("sessions", "s"))
    with pytest.raises(FsError, match="gone"):
        tree.move(("nowhere", "x"), ("x",))


def test_move_never_goes_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    site = tmp_path / "site"
    tree = Tree.named(site)
    tree.write("stage", "s", "x.html", data=b"x")
    (site / "sessions").symlink_to(outside)
    with pytest.raises(FsError, match="a symbolic link; refused"):
        tree.move(("stage", "s"), ("sessions", "s"))
    assert os.listdir(outside) == []


def test_what_a_dead_run_left_is_told_apart(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    dead = int(done.stdout)
    assert abandoned(f".build-{dead}-ab12", ".build-")
    assert abandoned(f".build-{os.getpid()}-ab12", ".build-")  # this process's own
    assert not abandoned(f".build-{os.getppid()}-ab12", ".build-")  # a live process's
    assert not abandoned(f"{TEMP_PREFIX}{dead}-x", ".build-")  # another prefix
    assert abandoned(f"{TEMP_PREFIX}{dead}-x")
    assert not abandoned(".build-x-1", ".build-")
