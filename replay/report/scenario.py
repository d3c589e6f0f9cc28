"""Formatter of what ``replay new`` wrote. A pure function of its result."""

from __future__ import annotations

from pathlib import Path

from replay.hints import line
from replay.scenarios.importer import NewScenario
from replay.style import sanitize


def new_text(result: NewScenario, scenarios_option: Path | None) -> str:
    """The files written, what the import decided, and the next two commands
    (naming ``--scenarios`` when the scenarios folder is not the default)."""
    lines = [f"created {sanitize(str(result.folder / name))}" for name in result.files]
    lines.extend(f"note: {sanitize(note)}" for note in result.notes)
    where = ("--scenarios", str(scenarios_option)) if scenarios_option is not None else ()
    lines.append("next:")
    lines.append(f"  {line('refresh', *where, result.name)}    # run it keylessly and write its goldens")
    lines.append(f"  {line('check', *where, result.name)}      # compare the goldens with a fresh run")
    return "\n".join(lines) + "\n"
