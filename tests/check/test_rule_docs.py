"""Every rule is explained, and every example of a bad record breaks its rule.

The examples of ``replay/check/rules.toml`` are what ``replay rules ID`` and SARIF's
rule help show users; here each one is audited, so an example that stopped showing
its rule (or a rule without an explanation) fails a test."""

from __future__ import annotations

import pytest

from replay.check.explain import RuleDoc, example_findings, rule_docs, rule_help
from replay.check.registry import RULES

DOCS = rule_docs()
WITH_EXAMPLES = [doc for doc in DOCS.values() if doc.example is not None]


def test_every_rule_has_an_explanation_and_what_the_harness_does() -> None:
    assert list(DOCS) == list(RULES)
    for rule_id, doc in DOCS.items():
        assert len(doc.explanation) > 40 and doc.harness, rule_id
        assert (doc.example is None) == (doc.bad_line is None), rule_id


def test_the_rules_file_names_only_registered_rules() -> None:
    import tomllib
    from importlib import resources

    table = tomllib.loads(resources.files("replay.check").joinpath("rules.toml").read_text(encoding="utf-8"))
    assert set(table) == set(RULES)


def test_only_rules_no_record_can_show_go_without_an_example() -> None:
    # Storage rules about the file itself, and the invariant's own bookkeeping.
    assert {r for r, d in DOCS.items() if d.example is None} == {
        "INTERNAL", "IO", "LIMIT", "A9", "A10", "D10", "D11", "D15", "D16", "D17"}


@pytest.mark.parametrize("doc", WITH_EXAMPLES, ids=[d.rule.id for d in WITH_EXAMPLES])
def test_each_example_breaks_its_rule_on_its_bad_line(doc: RuleDoc) -> None:
    findings = example_findings(doc)
    assert (doc.rule.id, doc.bad_line) in {(f.rule, f.line) for f in findings}, findings
    assert rule_help(doc.rule.id).findings


def test_the_help_of_d9_shows_the_audits_own_message() -> None:
    [finding] = rule_help("D9").findings
    assert (finding.line, finding.message) == (2, "assistant/chunk belongs to turn 1, step 1, but no turn is open")
