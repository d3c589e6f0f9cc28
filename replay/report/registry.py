"""Every output format, one line each. The CLI's ``--format`` choices are these keys
(in this order, the first the default); adding a format is a reporter class (see
``replay.report.base``) and one line here. JUnit (``--junit FILE``) is a second
report written beside the chosen format, not a format choice."""

from __future__ import annotations

from collections.abc import Mapping

from replay.report.audit import AuditGithub, AuditJson, AuditReporter, AuditText
from replay.report.conformance import ConformanceJson, ConformanceReporter, ConformanceText
from replay.report.rules import RuleHelpText, RulesJson, RulesMarkdown, RulesReporter, RulesText
from replay.report.sarif import AuditSarif
from replay.report.snapshot import CheckGithub, CheckJson, CheckReporter, CheckText

AUDIT_FORMATS: Mapping[str, type[AuditReporter]] = {
    "text": AuditText,
    "json": AuditJson,
    "github": AuditGithub,
    "sarif": AuditSarif,
}
CHECK_FORMATS: Mapping[str, type[CheckReporter]] = {
    "text": CheckText,
    "json": CheckJson,
    "github": CheckGithub,
}
CONFORMANCE_FORMATS: Mapping[str, type[ConformanceReporter]] = {
    "text": ConformanceText,
    "json": ConformanceJson,
}
RULE_FORMATS: Mapping[str, type[RulesReporter]] = {
    "text": RulesText,
    "json": RulesJson,
    "markdown": RulesMarkdown,
}
RULE_HELP_FORMATS: Mapping[str, type[RulesReporter]] = {
    "text": RuleHelpText,
    "json": RulesJson,
    "markdown": RulesMarkdown,
}
"""``replay rules ID...``: the named rules' whole help."""
