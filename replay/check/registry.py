"""The one place every rule is registered: storage (read stage), session core,
todo. Adding a domain means adding its ``RULES`` and its checker factory here."""

from __future__ import annotations

from enum import StrEnum

from replay.check import core, storage
from replay.check.rules import Checker, RuleInfo
from replay.todo import rules as todo_rules


class Policy(StrEnum):
    """Which ``todo_write`` deployment policy the what-if (P1) assumes."""

    PARALLEL = "parallel"
    SINGLE = "single"


RULES: dict[str, RuleInfo] = {
    info.id: info for info in (*storage.RULES, *core.RULES, *todo_rules.RULES)
}


def checkers(policy: Policy = Policy.PARALLEL, scanned: bool = True) -> list[Checker]:
    """Fresh checkers for one log."""
    found: list[Checker] = [core.CoreChecker(scanned=scanned), todo_rules.TodoChecker()]
    if policy is Policy.SINGLE:
        found.append(todo_rules.SingleActivePolicy())
    return found


def rule_kind(rule: str) -> str:
    info = RULES.get(rule)
    return info.kind if info else "format"
