"""Findings and rules: the one data shape every stage uses to say something is wrong,
and the rules findings cite.

A finding is data, never an exception. Stages return findings; reporters format them.
Each rule is declared once, as a constant beside the code that emits it
(``A6 = Rule("A6", ...)`` in ``replay.log.scan``, emitted as ``A6.error(...)``), so one
search finds both its meaning and its use; ``replay.check.registry`` collects them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal


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
    fingerprint: str | None = None
    """Set only when asked for (baselines, SARIF): see ``replay.check.fingerprint``."""

    def with_severity(self, severity: Severity, message: str | None = None) -> Finding:
        return replace(self, severity=severity, message=self.message if message is None else message)

    def __reduce__(self) -> tuple[Callable[..., Finding], tuple[object, ...]]:
        # Pickled as its fields: half the time of a dataclass's generic state, both ways
        # (every finding of a --jobs audit crosses a process boundary).
        return Finding, (self.rule, self.severity, self.message, self.line, self.seq, self.type, self.tail,
                         self.group, self.fingerprint)


_NUMBER = re.compile(r"\d+")


def message_shape(message: str) -> str:
    """A message with every number written ``#``: what findings of one kind share
    (the text report folds by it; a fingerprint without a line is made of it)."""
    return _NUMBER.sub("#", message)


RuleKind = Literal["format", "invariant", "policy"]
"""``format``: what today's harness refuses or migrates when it loads the log
(layers A–C, spec §4.1–4.3); ``invariant``: durable, config-independent rules
(layer D, §4.4); ``policy``: a what-if under one deployment's configuration."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: the id findings cite, its kind, the domain that owns it, and what it
    checks in one line (``replay rules`` lists them)."""

    id: str
    kind: RuleKind
    domain: str
    summary: str

    def finding(self, severity: Severity, message: str, line: int | None = None, seq: int | None = None,
                type: str | None = None, *, tail: bool = False, group: str | None = None) -> Finding:
        """A finding of this rule."""
        return Finding(self.id, severity, message, line, seq, type, tail, group)

    def error(self, message: str, line: int | None = None, seq: int | None = None, type: str | None = None,
              *, tail: bool = False) -> Finding:
        return Finding(self.id, Severity.ERROR, message, line, seq, type, tail)

    def warning(self, message: str, line: int | None = None, seq: int | None = None, type: str | None = None,
                *, group: str | None = None) -> Finding:
        return Finding(self.id, Severity.WARNING, message, line, seq, type, False, group)
