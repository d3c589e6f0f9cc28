"""Every rule, one table (the code table): each rule id, its ``Rule`` and what emits
it.

A rule is declared once, as a constant beside the code that emits it: the reading
rules in ``replay.log`` (header, scan, zstd, legacy, reader, archive), storage identity
in ``replay.check.storage``, the session core's in the modules of its domains
(``replay.check.envelope``, ``messages``, ``requests``, ``surface``, ``seqs``,
``dev``), the engine's own in ``replay.check.engine``, the todo domain's in
``replay.todo.rules``, a log's history across audits in ``replay.check.history``.
The table below names, for each rule, its emitter: a stage that always runs (the
reader, the engine, storage identity, the audit cache) or a per-log checker, which an
audit leaves out when none of its rules is selected. Adding a rule means
declaring it and putting it on the table under its emitter; a test holds the table
to the code (a rule on the table that no module of its emitter names, or a module
that names a rule the table gives to another emitter, fails).

The declaration is the whole rule (``replay.findings.Rule``): id, kind, domain and
summary, then its explanation, its examples and what today's harness does, in the order
``replay rules ID`` shows them. Everything else is made from the table: ``replay
rules`` and its JSON, SARIF's rule table, the catalogue in Markdown
(``replay.report.rules``), the selection's ids and series, and the tests' bad cases
(each example is audited and must say exactly what it records).

Why the words sit in the code, not in a data file beside it: a rule is read where it
is emitted, so the one search for ``A6`` that finds ``A6.error(...)`` finds what A6
means and the logs that break it; a new rule cannot be added without them (the words
are required arguments), and nothing has to be kept in step by hand. The prose is
written wrapped and indented like a docstring (it is reflowed when shown); an example
is its log as it is on disk, one record per line in a triple-quoted string, and what
the audit says of it in the same form, so a change of message shows in the diff of
the rule it belongs to. Examples are kept small (a few records, the shared header):
a case that needs a real log, several rules at once or a property is a test instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType

from replay.check import core, dev, engine, envelope, history, messages, requests, seqs, storage, surface
from replay.checker import Checker
from replay.findings import Rule
from replay.log import archive, header, legacy, reader, scan, zstd
from replay.todo import rules as todo_rules
from replay.todo.rules import SingleActivePolicy, TodoChecker

_SERIES = ("INTERNAL", "IO", "LIMIT", "A", "B", "C", "D", "T", "P", "H")
"""The order rules are listed in: replay's own, then the spec's layers, then the
todo domain's invariants and its policy what-if; by number within a series."""


@dataclass(frozen=True, eq=False)
class Emitter:
    """What emits findings of some rules: ``modules`` hold its code (and declare its
    rules); ``checker`` is the per-log checker an audit can leave out, ``None`` for a
    stage that always runs."""

    name: str
    modules: tuple[ModuleType, ...]
    checker: type[Checker] | None = None


READER = Emitter("the reader", (reader, header, scan, zstd, legacy, archive))
"""Reading: the header, records, Zstandard frames, legacy shapes, the caps (the A rules
but A10, B3, B4, C1, IO, LIMIT). Every later rule reads what it gives."""
ENGINE = Emitter("the engine", (engine,))
"""The judgement after the pass: an interrupted last turn (B7); replay's own failure."""
IDENTITY = Emitter("storage identity", (storage,))
"""Where a log sits against its header (A10), after the pass."""
CORE = Emitter("the session core", (core, envelope, messages, requests, surface, seqs, dev), core.CoreChecker)
TODO = Emitter("the todo invariant", (todo_rules,), TodoChecker)
POLICY = Emitter("the policy what-if", (todo_rules,), SingleActivePolicy)
HISTORY = Emitter("the audit cache", (history,))
"""A log's history across audits (H1): ``replay.check.cache`` judges it with the words of
``replay.check.history``, after the log's audit."""


@dataclass(frozen=True, slots=True)
class Code:
    """One row of the code table: a rule and what emits it (``None``: no finding cites
    the rule; it is part of how others are judged)."""

    rule: Rule
    emitter: Emitter | None


def _rows(emitter: Emitter | None, *rules: Rule) -> Iterable[Code]:
    return (Code(rule, emitter) for rule in rules)


_TABLE: tuple[Code, ...] = (
    *_rows(ENGINE, engine.INTERNAL, engine.B7),
    *_rows(READER, reader.IO, scan.LIMIT, header.A1, header.A2, header.A3, header.A4, header.A5, scan.A6, scan.A7,
           scan.A8, zstd.A9, legacy.B3, legacy.B4, header.C1),
    *_rows(IDENTITY, storage.A10),
    *_rows(CORE, messages.B5, envelope.B6, envelope.C2, requests.C3, seqs.C4, surface.C5, seqs.D1, dev.D2, dev.D3,
           dev.D4, dev.D5, dev.D6, dev.D7, dev.D8, dev.D9, dev.D12, dev.D13, dev.D14),
    *_rows(None, dev.D10, dev.D11, dev.D15, dev.D16, dev.D17),
    *_rows(TODO, todo_rules.T1, todo_rules.T2, todo_rules.T3, todo_rules.T4, todo_rules.T5),
    *_rows(POLICY, todo_rules.P1),
    *_rows(HISTORY, history.H1),
)


def declared_rules(module: ModuleType) -> Iterable[Rule]:
    """The rules a module declares (its module-level ``Rule`` constants)."""
    return (value for value in vars(module).values() if isinstance(value, Rule))


def rule_series(rule: str) -> str:
    """The series of a rule id: its letters (``T`` for ``T3``, ``IO`` for ``IO``)."""
    return rule.rstrip("0123456789")


def rule_order(rule: str) -> tuple[int, int]:
    """Where a rule id sorts in listings: by series (``_SERIES``), then by number
    (A2 before A10); an id of no known series last."""
    series = rule_series(rule)
    number = rule[len(series):]
    return (_SERIES.index(series) if series in _SERIES else len(_SERIES)), int(number) if number else 0


def _order(rule: Rule) -> tuple[int, int]:
    return rule_order(rule.id)


CODES: Mapping[str, Code] = MappingProxyType({
    code.rule.id: code for code in sorted(_TABLE, key=lambda c: _order(c.rule))
})
"""The code table: every rule id, in listing order, with its rule and its emitter."""

RULES: Mapping[str, Rule] = MappingProxyType({rule_id: code.rule for rule_id, code in CODES.items()})
"""Every rule by id, in listing order."""

CHECKERS: tuple[type[Checker], ...] = tuple(dict.fromkeys(
    c.emitter.checker for c in _TABLE if c.emitter is not None and c.emitter.checker is not None))
"""The per-log checkers that emit rules of the table."""


def checker_rules(checker: type[Checker]) -> tuple[str, ...]:
    """The ids of the rules the table says ``checker`` emits."""
    return tuple(r for r, code in CODES.items() if code.emitter is not None and code.emitter.checker is checker)


def rule_kind(rule: str) -> str:
    """The kind of a rule id (``format`` for an id no module declares)."""
    info = RULES.get(rule)
    return info.kind if info else "format"
