"""The commands replay's messages tell a user to run, spelt in one place.

Library messages never spell a command themselves: they call ``command``, so that a
renamed command or option is one change here, and a test can find every suggestion.
The command that installs an optional extra is ``install_command``'s, and it depends on where
replay came from (``replay.extras.installed_from``): a checkout is installed from again,
with its lock; anything else from the package index, by ``DISTRIBUTION``.
Also: whether the environment says CI (``CI`` set to anything but ``""``, ``0`` or
``false``, as insta and jest read it), where no suggested command writes goldens."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PROGRAM = "replay"
DISTRIBUTION = "deepseek-harness-replay"
"""replay's name on the package index (``pyproject.toml``'s ``name``): what ``pip install``
takes. The import package and the command are ``replay``."""
LOCK = "constraints.txt"
"""A checkout's lock: the versions its installs pin (``pip install -c``)."""


@dataclass(frozen=True)
class Checkout:
    """A folder replay was installed from by pip (``pip install .``, ``pip install -e .``)."""

    root: Path
    editable: bool
    locked: bool
    """Whether ``LOCK`` is in the folder."""


def command(*words: str) -> str:
    """A command line to run, quoted for a shell and set in backticks:
    ``command("reject", "a/b")`` is ``"`replay reject a/b`"``."""
    return f"`{line(*words)}`"


def line(*words: str) -> str:
    """A command line to run, quoted for a shell (no backticks): what a report's
    "next" section prints on a line of its own."""
    return shlex.join([PROGRAM, *words])


def install_command(extra: str, checkout: Checkout | None, python: str, cwd: Path) -> str:
    """The command that adds the optional extra ``extra`` to this installation, quoted for a
    shell and set in backticks: from a checkout, the interpreter ``python`` installs the
    checkout again (``-e`` when it was editable), pinned by its lock when it has one; else
    ``pip install`` from the package index. Paths inside ``cwd`` are shown relative to it,
    so the usual case reads ``.venv/bin/python -m pip install -c constraints.txt -e '.[remote]'``."""
    if checkout is None:
        return f"`{shlex.join(['pip', 'install', f'{DISTRIBUTION}[{extra}]'])}`"
    # A bare name would be looked up (on PATH, on the index): a program and a folder get "./".
    words = [_path(Path(os.path.normpath(cwd / (python or "python"))), cwd, "./"), "-m", "pip", "install"]
    if checkout.locked:
        words += ["-c", _path(checkout.root / LOCK, cwd)]
    if checkout.editable:
        words.append("-e")
    target = _path(checkout.root, cwd, "./")
    return f"`{shlex.join([*words, f'{target}[{extra}]'])}`"


def _path(path: Path, cwd: Path, bare: str = "") -> str:
    """``path`` as a command line run in ``cwd`` names it: relative when inside ``cwd``
    (``.``, ``dir/name``, and ``bare`` before a name alone), else absolute."""
    if not path.is_relative_to(cwd):
        return str(path)
    relative = path.relative_to(cwd).as_posix()
    return relative if relative == "." or "/" in relative else f"{bare}{relative}"


def in_ci(environ: Mapping[str, str]) -> bool:
    """Whether the environment says CI: ``CI`` set and not empty, ``0`` or ``false``."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false")
