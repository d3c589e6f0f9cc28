"""Commits: many renames and deletions in one tree as one step against every signal,
and the recovery of a commit a killed run left half-done."""


from __future__ import annotations

import contextlib
import json
import os
import secrets

from replay.fs.faults import fault, signals_held
from replay.fs.tree import FsError, Tree, abandoned, check_name

JOURNAL_PREFIX = ".replay-commit-"
"""The prefix of a commit's journal in its tree's root (``.replay-commit-<pid>-<random>``)."""
ASIDE_PREFIX = ".replay-aside-"
"""The prefix of the folder a commit moves the folders it replaces into (removed by its last step)."""
LEFTOVER_PREFIXES = (JOURNAL_PREFIX, ASIDE_PREFIX)
"""What a commit may leave in a tree's root: no reader counts these as the tree's own."""
MAX_JOURNAL_BYTES = 64 << 20


Step = dict[str, list[str]]


class Commit:
    """Renames and deletions in one tree, done as one step against every signal.

    What a command publishes is first written whole under names no reader looks at (a
    hidden staging folder, temporary files); then ``run`` writes the journal (the list
    of steps, atomically and to disk), does each step, and removes the journal, with
    SIGINT and SIGTERM held from the first to the last. A process killed (SIGKILL, a
    crash) after the journal is written leaves it behind; ``recover`` (which every
    command that publishes into the tree calls first) does the steps that are left,
    so the tree is the new one, whole; killed before, the tree is the old one and the
    staging is what a dead run left (removed by the next one). Every step is done
    again safely: a step whose source is gone was done."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.steps: list[Step] = []
        self.aside = f"{ASIDE_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"

    def replace(self, source: tuple[str, ...], target: tuple[str, ...]) -> None:
        """``source`` (a file or a folder) takes the place of ``target``; a folder at
        ``target`` is moved aside first, and removed when the commit is done."""
        for part in (*source, *target):
            check_name(part)
        self.steps.append({"replace": list(source), "to": list(target),
                           "aside": [self.aside, str(len(self.steps))]})

    def delete(self, *parts: str) -> None:
        """The file ``parts`` deleted (nothing when it is not there)."""
        for part in parts:
            check_name(part)
        self.steps.append({"delete": list(parts)})

    def remove_tree(self, *parts: str) -> None:
        """The folder ``parts`` removed with all it holds (nothing when it is not there)."""
        for part in parts:
            check_name(part)
        self.steps.append({"remove": list(parts)})

    def run(self) -> None:
        """The steps, as one (see the class). A step that fails is tried once more with
        those after it; ``FsError`` when it fails again (the journal then stays, and the
        next run does what is left)."""
        journal = f"{JOURNAL_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        steps = [*self.steps, {"remove": [self.aside]}]
        data = json.dumps({"format": 1, "steps": steps}).encode()
        with signals_held():
            fault("commit:journal")
            self.tree.write(journal, data=data, what="commit journal")
            try:
                _do(self.tree, steps, "commit")
            except BaseException:
                with contextlib.suppress(Exception):  # once more (every step can be done again), else the next run
                    _do(self.tree, steps, "retry")
                    self.tree.delete(journal, what="the commit journal")
                raise
            self.tree.delete(journal, what="the commit journal")


def _step_parts(step: Step, key: str) -> tuple[str, ...]:
    value = step.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(p, str) for p in value):
        raise FsError(f"not a commit step: {step!r}")
    for part in value:
        check_name(part)
    return tuple(value)


def _do(tree: Tree, steps: list[Step], label: str) -> None:
    fault(f"{label}:0")
    for number, step in enumerate(steps, 1):
        if "replace" in step:
            source, target, aside = (_step_parts(step, k) for k in ("replace", "to", "aside"))
            if tree.exists(*source):
                if tree.is_folder(*target) and not tree.exists(*aside):
                    tree.move(target, aside)
                tree.move(source, target)
        elif "delete" in step:  # a file that cannot be deleted is left, never a commit that cannot end
            with contextlib.suppress(FsError):
                tree.delete(*_step_parts(step, "delete"))
        elif "remove" in step:
            parts = _step_parts(step, "remove")
            with contextlib.suppress(FsError):
                if tree.exists(*parts):
                    tree.remove_tree(*parts)
        else:
            raise FsError(f"not a commit step: {step!r}")
        fault(f"{label}:{number}")


def recover(tree: Tree) -> int:
    """Finish the commits of ``tree`` a run that is no longer running left half-done
    (their journals): the number finished. ``FsError`` names a journal that cannot be
    read or done."""
    done = 0
    for entry in tree.entries():
        if not entry.is_file or not abandoned(entry.name, JOURNAL_PREFIX):
            continue
        raw = tree.read(entry.name, limit=MAX_JOURNAL_BYTES, what="the commit journal")
        if raw is None:
            continue
        try:
            document = json.loads(raw)
            steps = document["steps"]
            if document.get("format") != 1 or not isinstance(steps, list):
                raise ValueError("not a journal")
        except (ValueError, KeyError, TypeError, AttributeError):
            raise FsError(f"{tree.at(entry.name)}: not a commit journal replay wrote; remove it") from None
        with signals_held():
            _do(tree, steps, "recover")
            tree.delete(entry.name, what="the commit journal")
        done += 1
    return done
