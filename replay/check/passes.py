"""What one pass over a log's items leaves for the judgement after it (``Pass``). The
findings are kept bounded: at most ``MAX_PER_RULE`` of each rule, the rest counted."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from replay.findings import Finding, Severity, grouped_note
from replay.words import by_count, counted


class Groups:
    """Fold repeated notes of one kind into one finding with a count."""

    def __init__(self) -> None:
        self.first: dict[str, Finding] = {}
        self.count: dict[str, int] = {}

    def add(self, f: Finding) -> bool:
        key = f.group
        assert key is not None
        if key in self.first:
            self.count[key] += 1
            return False
        self.first[key] = f
        self.count[key] = 1
        return True

    def finish(self, findings: list[Finding]) -> list[Finding]:
        out = []
        for f in findings:
            n = self.count.get(f.group or "", 1) if f.group else 1
            if n > 1:
                f = replace(f, message=f.message + grouped_note(n, f.line), events=n)
            out.append(f)
        return out


MAX_PER_RULE = 100
"""Findings kept per rule and log; the rest are counted into one closing finding, so a
file of ten million broken lines gives a readable report in bounded memory."""


class Capped:
    """A list of findings that keeps at most ``MAX_PER_RULE`` per rule."""

    def __init__(self) -> None:
        self.kept: list[Finding] = []
        self.per_rule: dict[str, int] = {}
        self.dropped: dict[tuple[str, Severity], list[int]] = {}  # [count, first line, last line]

    def add(self, f: Finding) -> None:
        n = self.per_rule.get(f.rule, 0)
        self.per_rule[f.rule] = n + 1
        if n < MAX_PER_RULE:
            self.kept.append(f)
            return
        line = f.line or 0
        acc = self.dropped.get((f.rule, f.severity))
        if acc is None:
            self.dropped[(f.rule, f.severity)] = [1, line, line]
        else:
            acc[0] += 1
            acc[2] = line

    def extend(self, found: Iterable[Finding]) -> None:
        for f in found:
            self.add(f)

    def overflow(self) -> list[Finding]:
        return [
            Finding(rule, severity, f"{counted(n, f'more {rule} finding')} of this kind between lines {first} "
                    f"and {last} {by_count(n, 'is|are')} not listed (the first {MAX_PER_RULE} are)", first)
            for (rule, severity), (n, first, last) in self.dropped.items()
        ]


@dataclass(slots=True)
class Pass:
    """What one pass over a log's items leaves for the judgement after it."""

    events: int = 0
    findings: Capped = field(default_factory=Capped)
    """Findings kept as they are (before any damage)."""
    damage: Capped = field(default_factory=Capped)
    """Storage damage (A6/A7 ``tail`` findings): A8 decides their severity."""
    after_damage: Capped = field(default_factory=Capped)
    """Findings on lines after the first damage: reported only if the harness keeps them."""
    groups: Groups = field(default_factory=Groups)
    first_damage: int | None = None
    last_turn_start: int = 0
    last_turn_end: int = 0
    last_line: int = 1
    boundary: int = 1
    """The line of the last turn/start or turn/end before any damage (1: none), where
    crash repair's fold starts afresh: what it would append depends on nothing before."""
