"""Findings and rules: the one data shape every stage uses to say something is wrong,
and the rules findings cite.

A finding is data, never an exception. Stages return findings; reporters format them.
Each rule is declared once, as a constant beside the code that emits it
(``A6 = Rule("A6", ...)`` in ``replay.log.scan``, emitted as ``A6.error(...)``), with
everything said about it: its explanation, what today's harness does, and its examples
(each a small log and what the audit says of it), so one search finds its meaning,
its tests and its use; ``replay.check.registry`` collects them.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
    events: int = 1
    """How many events of its log a grouped finding stands for (its message says so,
    ``grouped_note``)."""

    def _fields(self) -> tuple[object, ...]:
        """Its fields' values, in their order (the one list of them both copies below use)."""
        return (self.rule, self.severity, self.message, self.line, self.seq, self.type, self.tail, self.group,
                self.fingerprint, self.events)

    def with_severity(self, severity: Severity, message: str | None = None) -> Finding:
        # Made as its fields, in their order: a fifth of ``dataclasses.replace``'s time (damage
        # is judged once its log is read, every finding of it again).
        rule, _, said, *rest = self._fields()
        return Finding(rule, severity, said if message is None else message, *rest)  # type: ignore[arg-type]

    def __reduce__(self) -> tuple[Callable[..., Finding], tuple[object, ...]]:
        # Pickled as its fields: half the time of a dataclass's generic state, both ways
        # (every finding of a --jobs audit crosses a process boundary).
        return Finding, self._fields()


def grouped_note(events: int, line: int | None) -> str:
    """What a grouped finding's message ends with when it stands for several events."""
    return f" ({events} such events in this log, the first on line {line})"


def one_event_message(f: Finding) -> str:
    """A finding's message without the note of how many events of its log it stands
    for (what a report that counts the events itself shows)."""
    return f.message.removesuffix(grouped_note(f.events, f.line)) if f.events > 1 else f.message


_NUMBER = re.compile(r"\d+")


def message_shape(message: str) -> str:
    """A message with every number written ``#``: what findings of one kind share
    (the text report folds by it; a fingerprint without a line is made of it)."""
    return _NUMBER.sub("#", message)


RuleKind = Literal["format", "invariant", "policy"]
"""``format``: what today's harness refuses or migrates when it loads the log
(layers A–C, spec §4.1–4.3); ``invariant``: durable, config-independent rules
(layer D, §4.4); ``policy``: a what-if under one deployment's configuration."""


def block(text: str) -> tuple[str, ...]:
    """The lines of a text written as an indented triple-quoted string: the common
    indentation removed, and a blank first and last line (the quotes' own) dropped."""
    lines = textwrap.dedent(text).split("\n")
    if lines and not lines[0].strip():
        lines = lines[1:]
    if lines and not lines[-1].strip():
        lines = lines[:-1]
    return tuple(lines)


def prose(text: str) -> str:
    """Text as paragraphs: separated by a blank line, each on one line with single spaces
    (the words of a rule are written wrapped and indented in its declaration)."""
    return "\n\n".join(" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip())


@dataclass(frozen=True, slots=True)
class Example:
    """A small log that breaks a rule, and what the audit says of it: the rule's help
    shows it (``replay rules ID``, SARIF), and the tests audit it and compare, so the
    example is the rule's test fixture and its snapshot at once."""

    name: str
    """What the example shows, in a few words (its test's id)."""
    log: str
    """The whole log, one record per line, the header first, written as an indented
    triple-quoted string (see ``block``); ``""`` is an empty file."""
    bad_line: int
    """The line that breaks the rule (the header is line 1)."""
    audit: str
    """Everything the audit says of the log, one finding a line as ``said`` writes it
    (``line 3: T5 error: …``), written like ``log``."""
    final_newline: bool = True
    """``False``: the last record has no newline."""
    policy: str | None = None
    """The ``--policy`` the example is audited with (``single`` for P1)."""
    events_only: bool = False
    """The rule applies only to events handed over directly (``audit_events``): the
    example's records after the header are audited that way."""

    @property
    def lines(self) -> tuple[str, ...]:
        return block(self.log)

    @property
    def findings(self) -> tuple[str, ...]:
        """What the audit says of the example, one finding an entry (as ``said``)."""
        return block(self.audit)

    def data(self) -> bytes:
        """The example as the bytes of a log file."""
        text = "".join(line + "\n" for line in self.lines)
        if self.lines and not self.final_newline:
            text = text[:-1]
        return text.encode("utf-8")


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule, whole: the id findings cite, its kind, the domain that owns it, what
    it checks in one line (``replay rules`` lists them), what it means in plain words,
    its examples (the first is the one its help shows) and what today's harness does
    with a log that breaks it. A rule no record can show (a path, a compressed file,
    the invariant's bookkeeping) has no example."""

    id: str
    kind: RuleKind
    domain: str
    summary: str
    explanation: str = field(kw_only=True)
    """What the rule checks and why (paragraphs separated by a blank line; see ``prose``)."""
    examples: Sequence[Example] = field(default=(), kw_only=True)
    harness: str = field(kw_only=True)
    """What today's harness does with a log that breaks the rule."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "explanation", prose(self.explanation))
        object.__setattr__(self, "harness", prose(self.harness))
        object.__setattr__(self, "examples", tuple(self.examples))

    @property
    def example(self) -> Example | None:
        """The example the rule's help shows: its first."""
        return self.examples[0] if self.examples else None

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


def restored(rule: str, severity: Severity, message: str, line: int | None, seq: int | None, type: str | None,
             tail: bool, group: str | None, fingerprint: str | None, events: int) -> Finding:
    """A finding as the audit cache kept it (``replay.check.cache``): every field as it was."""
    return Finding(rule, severity, message, line, seq, type, tail, group, fingerprint, events)


def said(f: Finding) -> str:
    """A finding as one line, as a rule's help quotes the audit and its examples record
    it: ``line 3: T5 error: …``."""
    where = f"line {f.line}: " if f.line is not None else ""
    return f"{where}{f.rule} {f.severity.value}: {f.message}"
