"""The next commands a check report names.

Under CI (``replay.hints.in_ci``, or ``--ci``) nothing writes goldens implicitly, and
no suggested command does: CI is told to keep the run's output as pending goldens
instead.

The closing hint names the exact command (with the ``--scenarios``/``--goldens``
options the check was given): ``replay review`` when pending goldens exist,
``replay refresh NAME...`` for the scenarios whose goldens differ, nothing to run for
a scenario that did not run (its error says what to fix in which file).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from replay.hints import line
from replay.words import counted

if TYPE_CHECKING:  # a type only: `replay audit` does not import scenario running
    from replay.scenarios.check import CheckReport


@dataclass(frozen=True)
class Step:
    """One thing to do next: why, and the command (``None``: something to fix by hand)."""

    why: str
    command: str | None = None


def _command(*words: str, tree_args: Sequence[str] = (), names: Sequence[str] = ()) -> str:
    return line(*words, *tree_args, *names)


def pending_option(report: CheckReport) -> tuple[str, ...]:
    pending = report.context.pending
    return () if pending is None or pending.default else ("--pending", pending.folder)


def next_steps(report: CheckReport) -> list[Step]:
    """What to do after this check, in order; empty when everything matched."""
    context = report.context
    tree = context.tree_args
    steps: list[Step] = []
    for r in report.scenarios:
        if r.error is not None:
            steps.append(Step(f"{r.name} did not run: fix what its error above says, then check it again",
                              _command("check", tree_args=tree, names=[r.name])))
    ran = [r for r in report.scenarios if r.error is None]
    differ = [r.name for r in ran if any(f.status in ("differs", "missing") for f in r.files)]
    orphaned = [r.name for r in ran if r.exists and any(f.status == "orphan" for f in r.files)]
    gone = any(not r.exists for r in ran)
    pending = context.pending
    if pending is not None and pending.count:
        where = pending_option(report)
        if context.ci:
            steps.append(Step(f"{counted(pending.count, 'pending golden')} in {pending.folder}: keep that folder as "
                              "this job's artefact; in your checkout, download it and review it there",
                              _command("review", "--pending", "DOWNLOADED_FOLDER", tree_args=tree)))
        else:
            steps.append(Step(f"{counted(pending.count, 'pending golden')} in {pending.folder}: look at each change "
                              "and accept or reject it", _command("review", *where, tree_args=tree)))
    elif context.waiting is not None and not context.ci:
        waiting = context.waiting
        where = () if waiting.default else ("--pending", waiting.folder)
        wait = "waits" if waiting.count == 1 else "wait"
        steps.append(Step(f"{counted(waiting.count, 'pending golden')} from an earlier run {wait} in {waiting.folder}: "
                          "look at each change and accept or reject it", _command("review", *where, tree_args=tree)))
    if (pending is None or not pending.count) and differ:
        if context.ci:
            steps.append(Step("goldens differ; CI writes none: to take this run's output, write it as pending "
                              "goldens and keep them as the job's artefact",
                              _command("check", tree_args=tree, names=[*differ, "--pending"])))
        else:
            steps.append(Step(f"take the new output of {_names(differ)} (every golden of {_them(differ)})",
                              _command("refresh", tree_args=tree, names=differ)))
            steps.append(Step("or look at each change first",
                              _command("check", tree_args=tree, names=[*differ, "--pending"]) + " && "
                              + _command("review", tree_args=tree)))
    if gone and not context.ci:
        steps.append(Step("delete the golden folders of scenarios that do not exist (a whole refresh)",
                          _command("refresh", "--prune", tree_args=tree)))
    elif orphaned and not context.ci:
        steps.append(Step(f"delete the goldens no artefact of {_names(orphaned)} produces",
                          _command("refresh", "--prune", tree_args=tree, names=orphaned)))
    return steps


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{len(names)} scenarios"


def _them(names: Sequence[str]) -> str:
    return "it" if len(names) == 1 else "each"
