"""Every rule, one catalogue: collected from the modules that declare them.

A rule is declared once, as a constant beside the code that emits it: the storage
rules in ``replay.log`` (header, scan, zstd, legacy, reader) and
``replay.check.storage``, the session core's in ``replay.check.core``, the engine's own
in ``replay.check.engine``, the todo domain's in ``replay.todo.rules``, the history
of a log across audits in ``replay.check.history``. Adding a rule to
one of these modules is all it takes; adding a module of rules means adding it to
``_DECLARING``.

The declaration is the whole rule (``replay.findings.Rule``): id, kind, domain and
summary, then its explanation, its examples and what today's harness does, in the order
``replay rules ID`` shows them. Everything else is made from it: ``replay rules`` and
its JSON, SARIF's rule table, the catalogue in Markdown (``replay.report.rules``), and
the tests' bad cases (each example is audited and must say exactly what it records).

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

from collections.abc import Iterator, Mapping
from types import MappingProxyType, ModuleType

from replay.check import core, engine, history, storage
from replay.findings import Rule
from replay.log import header, legacy, reader, scan, zstd
from replay.todo import rules as todo_rules

_DECLARING: tuple[ModuleType, ...] = (engine, reader, header, scan, zstd, storage, legacy, core, todo_rules,
                                      history)
_SERIES = ("INTERNAL", "IO", "LIMIT", "A", "B", "C", "D", "T", "P", "H")
"""The order rules are listed in: replay's own, then the spec's layers, then the
todo domain's invariants and its policy what-if, then a log's history across audits;
by number within a series."""


def declared_rules(module: ModuleType) -> Iterator[Rule]:
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


RULES: Mapping[str, Rule] = MappingProxyType({
    rule.id: rule for rule in sorted({r for m in _DECLARING for r in declared_rules(m)}, key=_order)
})
"""Every rule by id, in listing order."""


def rule_kind(rule: str) -> str:
    """The kind of a rule id (``format`` for an id no module declares)."""
    info = RULES.get(rule)
    return info.kind if info else "format"
