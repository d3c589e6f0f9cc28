"""What one pass over a log's items leaves for the judgement after it (``Pass``). The
findings are kept bounded: at most ``MAX_PER_RULE`` of each rule, the rest counted.

A pass's state can be said as plain typed data (``PassState``) and rebuilt from it
(``Pass.restored``), for a checkpoint (``replay.check.resume``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Annotated

import msgspec

from replay.checker import Checker
from replay.findings import Finding, Severity, grouped_note, restored
from replay.log.seqmap import HIGH, LOW
from replay.words import by_count, counted

_Count = Annotated[int, msgspec.Meta(ge=0, le=HIGH - 1)]
_Seq = Annotated[int, msgspec.Meta(ge=LOW, le=HIGH - 1)]
FindingRow = tuple[str, Severity, str, _Count | None, _Seq | None, str | None, bool, str | None]
"""A finding of a pass as a checkpoint keeps it: rule, severity, message, line, seq,
type, tail and group (no fingerprint yet, one event)."""
_RULE_ID = re.compile(r"[A-Z][A-Z0-9]{0,15}")


def _row(f: Finding) -> FindingRow | None:
    if f.fingerprint is not None or f.events != 1 or not (f.seq is None or LOW <= f.seq < HIGH) or \
            not (f.line is None or 0 <= f.line < HIGH):
        return None
    return (f.rule, f.severity, f.message, f.line, f.seq, f.type, f.tail, f.group)


def _finding(row: FindingRow, lines: int, tail: bool) -> Finding:
    rule, severity, message, line, seq, type_, is_tail, group = row
    if _RULE_ID.fullmatch(rule) is None or is_tail is not tail or (line is not None and not 1 <= line <= lines) \
            or (tail and group is not None):
        raise ValueError("a finding that no pass over these lines keeps there")
    return restored(rule, severity, message, line, seq, type_, is_tail, group, None, 1)


class Groups:
    """Fold repeated notes of one kind into one finding with a count."""

    def __init__(self) -> None:
        self.count: dict[str, int] = {}

    def add(self, f: Finding) -> bool:
        key = f.group
        assert key is not None
        if key in self.count:
            self.count[key] += 1
            return False
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

    def snapshot(self) -> CappedState | None:
        rows = [_row(f) for f in self.kept]
        if any(row is None for row in rows):
            return None
        return CappedState([row for row in rows if row is not None], list(self.per_rule.items()),
                           [(rule, severity, n, first, last) for (rule, severity), (n, first, last)
                            in self.dropped.items()])

    @classmethod
    def restored(cls, state: CappedState, lines: int, tail: bool) -> Capped:
        """The findings ``state`` says, added as a pass adds them, with the counts of
        those not kept (``ValueError``: not what a pass over ``lines`` lines keeps)."""
        capped = cls()
        for row in state.kept:
            capped.add(_finding(row, lines, tail))
        if len(capped.kept) != len(state.kept):
            raise ValueError(f"more than {MAX_PER_RULE} findings of a rule are kept")
        kept = capped.per_rule
        counts = dict(state.counts)
        dropped: dict[tuple[str, Severity], list[int]] = {}
        more: dict[str, int] = {}
        for rule, severity, n, first, last in state.dropped:
            if (rule, severity) in dropped or n < 1 or not (0 <= first <= lines and 0 <= last <= lines):
                raise ValueError("a count of findings not kept that no pass makes")
            dropped[(rule, severity)] = [n, first, last]
            more[rule] = more.get(rule, 0) + n
        if len(counts) != len(state.counts) or counts.keys() != kept.keys() | more.keys() or any(
                n != kept.get(rule, 0) + more.get(rule, 0) or (rule in more and kept.get(rule) != MAX_PER_RULE)
                for rule, n in counts.items()):
            raise ValueError("the counts of findings per rule are not those of the findings")
        capped.per_rule, capped.dropped = counts, dropped
        return capped

    def overflow(self) -> list[Finding]:
        return [
            Finding(rule, severity, f"{counted(n, f'more {rule} finding')} of this kind between lines {first} "
                    f"and {last} {by_count(n, 'is|are')} not listed (the first {MAX_PER_RULE} are)", first)
            for (rule, severity), (n, first, last) in self.dropped.items()
        ]


MAX_RULES = 256
"""The most rules a checkpoint's findings name (replay has about a hundred)."""


class CappedState(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A ``Capped`` as a checkpoint keeps it: the findings kept, in order; how many of
    each rule came; and of the findings not kept, for each rule and severity, how many,
    the line of the first and of the last (0: none)."""

    kept: Annotated[list[FindingRow], msgspec.Meta(max_length=MAX_RULES * MAX_PER_RULE)]
    counts: Annotated[list[tuple[str, _Count]], msgspec.Meta(max_length=MAX_RULES)]
    dropped: Annotated[list[tuple[str, Severity, _Count, _Count, _Count]], msgspec.Meta(max_length=3 * MAX_RULES)]


class PassState(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A ``Pass`` as a checkpoint keeps it (its fields, the groups as key and count)."""

    events: _Count
    findings: CappedState
    damage: CappedState
    after_damage: CappedState
    groups: list[tuple[str, _Count]]
    first_damage: _Count | None
    last_turn_start: _Count
    last_turn_end: _Count
    last_line: _Count
    boundary: _Count


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

    def snapshot(self) -> PassState | None:
        """The pass's state for a checkpoint; ``None`` when a finding is not one a
        checkpoint keeps."""
        findings, damage, after = self.findings.snapshot(), self.damage.snapshot(), self.after_damage.snapshot()
        if findings is None or damage is None or after is None:
            return None
        return PassState(self.events, findings, damage, after, list(self.groups.count.items()), self.first_damage,
                         self.last_turn_start, self.last_turn_end, self.last_line, self.boundary)

    @classmethod
    def restored(cls, state: PassState, lines: int, events: int) -> Pass:
        """The pass over a log's first ``lines`` lines that ``state`` says, with at most
        ``events`` events (``ValueError``: no such pass)."""
        groups = Groups()
        counts = dict(state.groups)
        if len(counts) != len(state.groups) or not all(n >= 1 for n in counts.values()):
            raise ValueError("a group is said twice, or counts no finding")
        groups.count = counts
        turn_lines = (state.last_turn_start, state.last_turn_end)
        if not (state.events <= events and all(line == 0 or 2 <= line <= lines for line in turn_lines)
                and 1 <= state.last_line <= lines and 1 <= state.boundary <= lines
                and (state.first_damage is None or 1 <= state.first_damage <= lines)
                and (state.first_damage is not None or not state.after_damage.kept)):
            raise ValueError("a place that is not in the pass's lines")
        return cls(state.events, Capped.restored(state.findings, lines, False),
                   Capped.restored(state.damage, lines, True), Capped.restored(state.after_damage, lines, False),
                   groups, state.first_damage,
                   state.last_turn_start, state.last_turn_end, state.last_line, state.boundary)


@dataclass(frozen=True, slots=True)
class Resumed:
    """Where a pass over a log's items stands: what it leaves for the judgement, and
    its checkers as they are (what a checkpoint says, ``replay.check.resume``)."""

    done: Pass
    judges: list[Checker]
