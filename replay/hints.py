"""The commands replay's messages tell a user to run, spelt in one place.

Library messages never spell a command themselves: they call ``command``, so that a
renamed command or option is one change here, and a test can find every suggestion.
Also: whether the environment says CI (``CI`` set to anything but ``""``, ``0`` or
``false``, as insta and jest read it), where no suggested command writes goldens."""

from __future__ import annotations

import shlex
from collections.abc import Mapping

PROGRAM = "replay"


def command(*words: str) -> str:
    """A command line to run, quoted for a shell and set in backticks:
    ``command("reject", "a/b")`` is ``"`replay reject a/b`"``."""
    return f"`{line(*words)}`"


def line(*words: str) -> str:
    """A command line to run, quoted for a shell (no backticks): what a report's
    "next" section prints on a line of its own."""
    return shlex.join([PROGRAM, *words])


def in_ci(environ: Mapping[str, str]) -> bool:
    """Whether the environment says CI: ``CI`` set and not empty, ``0`` or ``false``."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false")
