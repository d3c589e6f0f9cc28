"""Every output format, one line each. The CLI's ``--format`` choices are these keys
(in this order, the first the default); adding a format is a reporter class (see
``replay.report.base``) and one line here. JUnit (``--junit FILE``) is a second
report written beside the chosen format, not a format choice.

Each format names its reporter as ``module:Class``, imported when the format is asked
for: a command imports the one it writes (the choices need only the names)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from replay.report.audit import AuditReporter
    from replay.report.conformance import ConformanceReporter
    from replay.report.rules import RulesReporter
    from replay.report.snapshot import CheckReporter

R = TypeVar("R")


class Formats(Mapping[str, "type[R]"], Generic[R]):
    """Format names to their reporter classes, each imported when it is looked up."""

    def __init__(self, named: dict[str, str]) -> None:
        self._named = named

    def __getitem__(self, name: str) -> type[R]:
        module, _, cls = self._named[name].partition(":")
        found: type[R] = getattr(importlib.import_module(module), cls)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._named)

    def __len__(self) -> int:
        return len(self._named)


AUDIT_FORMATS: Formats[AuditReporter] = Formats({
    "text": "replay.report.audit:AuditText",
    "json": "replay.report.audit:AuditJson",
    "github": "replay.report.audit:AuditGithub",
    "sarif": "replay.report.sarif:AuditSarif",
})
CHECK_FORMATS: Formats[CheckReporter] = Formats({
    "text": "replay.report.snapshot:CheckText",
    "json": "replay.report.snapshot:CheckJson",
    "github": "replay.report.snapshot:CheckGithub",
})
CONFORMANCE_FORMATS: Formats[ConformanceReporter] = Formats({
    "text": "replay.report.conformance:ConformanceText",
    "json": "replay.report.conformance:ConformanceJson",
})
_RULES_AS_DATA = {"json": "replay.report.rules:RulesJson", "markdown": "replay.report.rules:RulesMarkdown"}
RULE_FORMATS: Formats[RulesReporter] = Formats({"text": "replay.report.rules:RulesText", **_RULES_AS_DATA})
RULE_HELP_FORMATS: Formats[RulesReporter] = Formats({"text": "replay.report.rules:RuleHelpText", **_RULES_AS_DATA})
"""``replay rules ID...``: the named rules' whole help (as data, the same as the list's)."""
