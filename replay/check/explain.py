"""What each rule means, for people: its declaration's words and its examples, audited
(``replay rules ID``, SARIF's rule help).

Everything said about a rule is part of its declaration (``replay.findings.Rule``, in
the module that emits it). An example is a whole small log; ``rule_help`` audits it, so
what a user is shown as the audit's finding is the audit's own output (and the tests
hold every example to saying exactly what its declaration records).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import orjson

from replay.check.engine import Policy, audit_events, audit_log
from replay.check.registry import RULES
from replay.findings import Example, Finding, Rule
from replay.log.event import DictEvent, Event
from replay.log.reader import Source, read_log


@dataclass(frozen=True, slots=True)
class RuleHelp:
    """A rule, and what the audit finds of it on its example's bad line."""

    rule: Rule
    findings: tuple[Finding, ...] = ()


def example_findings(rule: Rule, example: Example) -> list[Finding]:
    """Audit one of a rule's examples, whole (with its policy; as events when the rule
    applies only to events handed over directly)."""
    policy = Policy(example.policy) if example.policy else Policy.PARALLEL
    if example.events_only:
        events: list[Event] = []
        for number, line in enumerate(example.lines[1:], start=2):
            rec = orjson.loads(line)
            events.append(DictEvent(rec["type"], rec["seq"], rec["time"], rec["data"], number, rec))
        return audit_events(events, policy)
    data = example.data()
    return audit_log(read_log(Source(f"example-{rule.id}.jsonl", lambda: io.BytesIO(data))), policy).findings


def rule_help(rule_id: str) -> RuleHelp:
    """The help of one registered rule: the rule, and the findings of its rule on its
    (first) example's bad line."""
    rule = RULES[rule_id]
    example = rule.example
    if example is None:
        return RuleHelp(rule)
    found = example_findings(rule, example)
    return RuleHelp(rule, tuple(f for f in found if f.rule == rule_id and f.line == example.bad_line))
