"""What each rule means, for people: its explanation, an example of a bad record and
what today's harness does with it (``replay rules ID``, SARIF's rule help).

The words live in ``replay/check/rules.toml`` (package data), one table per rule id
of ``replay.check.registry.RULES``. An example is a whole small log; ``rule_help``
audits it, so what a user is shown as the audit's finding is the audit's own output
(and the tests hold every example to breaking its rule on its bad line).
"""

from __future__ import annotations

import io
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType

import orjson

from replay.check.engine import Policy, audit_events, audit_log
from replay.check.registry import RULES
from replay.findings import Finding, Rule
from replay.log.event import Event
from replay.log.reader import Source, read_log


@dataclass(frozen=True, slots=True)
class RuleDoc:
    """One rule's table of ``rules.toml``."""

    rule: Rule
    explanation: str
    harness: str
    """What today's harness does with a log that breaks the rule."""
    example: tuple[str, ...] | None = None
    """A whole small log that breaks the rule, one record per line (header first);
    ``None`` when no record can show it (a path, a compressed file, bookkeeping)."""
    bad_line: int | None = None
    final_newline: bool = True
    policy: str | None = None
    events_only: bool = False
    """The rule applies to events handed over directly (``audit_events``)."""

    def example_bytes(self) -> bytes:
        """The example as the bytes of a log file."""
        lines = self.example or ()
        text = "".join(line + "\n" for line in lines)
        if lines and not self.final_newline:
            text = text[:-1]
        return text.encode("utf-8")


@cache
def rule_docs() -> Mapping[str, RuleDoc]:
    """Every rule's description, by id, in listing order."""
    doc = tomllib.loads(resources.files("replay.check").joinpath("rules.toml").read_text(encoding="utf-8"))
    out: dict[str, RuleDoc] = {}
    for rule_id, rule in RULES.items():
        table = doc.get(rule_id, {})
        example = table.get("example")
        out[rule_id] = RuleDoc(rule, table.get("explanation", "").strip(), table.get("harness", "").strip(),
                               tuple(example) if example is not None else None, table.get("bad_line"),
                               table.get("final_newline", True), table.get("policy"), table.get("events_only", False))
    return MappingProxyType(out)


@dataclass(frozen=True, slots=True)
class RuleHelp:
    """A rule's description and what the audit finds in its example."""

    doc: RuleDoc
    findings: tuple[Finding, ...] = ()


def example_findings(doc: RuleDoc) -> list[Finding]:
    """Audit a rule's example (with its policy; as events when the rule applies only
    to events handed over directly)."""
    if doc.example is None:
        return []
    policy = Policy(doc.policy) if doc.policy else Policy.PARALLEL
    if doc.events_only:
        events = []
        for number, line in enumerate(doc.example[1:], start=2):
            rec = orjson.loads(line)
            events.append(Event(rec["type"], rec["seq"], rec["time"], rec["data"], number, rec))
        return audit_events(events, policy)
    data = doc.example_bytes()
    return audit_log(read_log(Source(f"example-{doc.rule.id}.jsonl", lambda: io.BytesIO(data))), policy).findings


def rule_help(rule_id: str) -> RuleHelp:
    """The help of one registered rule: its description, and the findings of its rule
    on the example's bad line."""
    doc = rule_docs()[rule_id]
    found = tuple(f for f in example_findings(doc) if f.rule == rule_id and f.line == doc.bad_line)
    return RuleHelp(doc, found)
