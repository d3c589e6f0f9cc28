"""The rule catalogue: every rule declared whole, beside the code that emits it.

Each example of a rule is a small log and everything the audit says of it; here each
one is audited and compared, so the examples ``replay rules ID`` and SARIF show are the
audit's own output, and an example is the rule's test case. A finding of a rule with
no declaration (in the examples or anywhere in the corpus) fails."""

from __future__ import annotations

import pytest

from replay.check.engine import audit_sources
from replay.check.explain import example_findings, rule_help
from replay.check.registry import RULES
from replay.findings import Example, Rule, said
from replay.log.discover import discover
from tests.helpers import corpus_root

EXAMPLES = [(rule, example) for rule in RULES.values() for example in rule.examples]


def test_every_rule_is_declared_whole() -> None:
    for rule_id, rule in RULES.items():
        assert len(rule.explanation) > 40 and rule.harness, rule_id
        names = [e.name for e in rule.examples]
        assert len(set(names)) == len(names), f"{rule_id}: two examples named alike"


def test_only_rules_no_record_can_show_go_without_an_example() -> None:
    # Storage rules about the file itself, and the invariant's own bookkeeping.
    assert {r for r, rule in RULES.items() if not rule.examples} == {
        "INTERNAL", "IO", "LIMIT", "A9", "A10", "D10", "D11", "D15", "D16", "D17"}


@pytest.mark.parametrize(("rule", "example"), EXAMPLES, ids=[f"{r.id}: {e.name}" for r, e in EXAMPLES])
def test_each_example_breaks_its_rule_and_says_what_it_records(rule: Rule, example: Example) -> None:
    found = example_findings(rule, example)
    assert [said(f) for f in found] == list(example.findings)
    assert (rule.id, example.bad_line) in {(f.rule, f.line) for f in found}
    assert 1 <= example.bad_line <= max(len(example.lines), 1)


def test_no_example_finds_a_rule_without_a_declaration() -> None:
    cited = {f.rule for rule, example in EXAMPLES for f in example_findings(rule, example)}
    assert cited - set(RULES) == set()


def test_no_log_of_the_corpus_finds_a_rule_without_a_declaration() -> None:
    root = corpus_root()
    if not root.exists():
        pytest.skip(f"corpus folder {root} is absent (set REPLAY_CORPUS to the shared corpus folder)")
    reports = list(audit_sources(discover([str(root)])))
    assert len(reports) > 300
    cited = {f.rule for report in reports for f in report.findings}
    assert cited and cited - set(RULES) == set()


def test_the_help_shows_the_audits_own_message_on_the_bad_line() -> None:
    [finding] = rule_help("D9").findings
    assert (finding.line, finding.message) == (2, "assistant/chunk belongs to turn 1, step 1, but no turn is open")
    assert rule_help("A9").findings == ()

