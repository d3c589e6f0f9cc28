"""What may name a golden in a project of scenarios: the golden engine's name policy
(``replay.goldens.pending.Names``), derived from the scenario name rule and from what
the producers declare."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from replay.fs import Tree
from replay.goldens.diff import Comparator
from replay.goldens.pending import PendingStore, Workflow
from replay.goldens.store import GoldenStore, as_tree
from replay.hints import command
from replay.scenarios.artefacts import comparator, is_artefact_name
from replay.scenarios.scenario import ScenarioError, is_scenario_name, load_scenario
from replay.words import counted


@dataclass(frozen=True)
class ScenarioNames:
    """A golden folder is a scenario's, a golden file an artefact some producer
    declares; one is accepted only for a scenario of ``scenarios`` whose producers
    make it (a child's artefact only for a child the scenario has)."""

    scenarios: Tree

    def folder_problem(self, name: str) -> str | None:
        if is_scenario_name(name):
            return None
        return f"{name!r} is not a scenario name (one folder name: letters, digits, '.', '_', '-')"

    def file_problem(self, name: str) -> str | None:
        return None if is_artefact_name(name) else f"{name!r} is not a golden replay writes (e.g. web.expected.txt)"

    def comparator(self, file: str) -> Comparator:
        return comparator(file)

    def accept_problem(self, folder: str, file: str) -> str | None:
        key = f"{folder}/{file}"
        orphan = f"accepting {key} would make an orphan golden; {command('reject', key)} drops it"
        try:
            scenario = load_scenario(self.scenarios.at(folder), self.scenarios)
        except ScenarioError as exc:
            if not self.scenarios.exists(folder):
                return f"no scenario named {folder} in {self.scenarios}: {orphan}"
            return f"{exc}: fix it, then accept again"
        children = len(scenario.children)
        if not is_artefact_name(file, children):
            return f"no artefact of {folder} is named {file} (it has {counted(children, 'child session')}): {orphan}"
        return None


def pending_store(pending: Tree | Path, scenarios: Tree | Path) -> PendingStore:
    """The pending folder of a project of ``scenarios``."""
    return PendingStore(pending, ScenarioNames(as_tree(scenarios)))


def workflow(pending: Tree | Path, goldens: Tree | Path, scenarios: Tree | Path) -> Workflow:
    """Pending goldens against the goldens of a project of ``scenarios``."""
    return Workflow(pending_store(pending, scenarios), GoldenStore(goldens))
