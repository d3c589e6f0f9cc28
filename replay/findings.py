"""Findings: the one data shape every stage uses to say something is wrong.

A finding is data, never an exception. Stages return findings; reporters format them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum


class Severity(StrEnum):
    """How bad a finding is.

    ``error``: today's harness refuses the log, or a durable invariant is broken.
    ``warning``: the harness would accept the log after migrating or repairing it.
    ``policy``: a configuration-dependent what-if (never an invariant).
    """

    ERROR = "error"
    WARNING = "warning"
    POLICY = "policy"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong with one place in one log.

    ``tail`` marks storage damage (A6/A7) whose severity is only known at the end of
    the file: damage before the last decodable ``turn/end`` is fatal, after it a torn
    tail the harness repairs. ``group`` lets repeated notes of one kind (for example a
    legacy shape migrated on 300 events) be folded into one finding with a count.
    """

    rule: str
    severity: Severity
    message: str
    line: int | None = None
    seq: int | None = None
    type: str | None = None
    tail: bool = False
    group: str | None = None

    def with_severity(self, severity: Severity, message: str | None = None) -> Finding:
        return replace(self, severity=severity, message=self.message if message is None else message)
