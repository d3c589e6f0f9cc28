"""Reporters of the rule registry (``replay rules``): a table, or JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson

from replay.findings import Rule
from replay.report.base import Reporter


class RulesReporter(Reporter[Rule, Mapping[str, Rule]]):
    """A format of the rule registry: its units are the rules, in listing order."""

    def units(self, result: Mapping[str, Rule]) -> Sequence[Rule]:
        return list(result.values())


class RulesText(RulesReporter):
    """One line per rule: id, kind, owning domain, what it checks."""

    def unit(self, unit: Rule) -> None:
        self.write(f"{unit.id:<9}{unit.kind:<10}{unit.domain:<8}{unit.summary}\n")


class RulesJson(RulesReporter):
    """A JSON array of ``{rule, kind, domain, summary}``."""

    def finish(self, result: Mapping[str, Rule]) -> None:
        rows = [{"rule": r.id, "kind": r.kind, "domain": r.domain, "summary": r.summary} for r in result.values()]
        self.write(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
        self.write("\n")
