"""The rule catalogue: every rule declared whole, beside the code that emits it, and
everything made from it held to it.

Each example of a rule is a small log and everything the audit says of it; here each
one is audited and compared, so the examples ``replay rules ID``, SARIF and the
Markdown show are the audit's own output, and an example is the rule's test case. A
finding of a rule with no declaration (in the examples or anywhere in the corpus)
fails; so do words of the documentation about rules that the catalogue contradicts (the
audit guide, docs/guides/audit.md, and every other page that names a rule)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from replay.check.engine import audit_sources
from replay.check.explain import example_findings, rule_help
from replay.check.passes import MAX_PER_RULE
from replay.check.registry import RULES, rule_series
from replay.cli import main
from replay.findings import Example, Rule, said
from replay.log.archive import MAX_HEADER_BYTES, MAX_HEADER_CHAIN, MAX_NAME
from replay.log.discover import discover
from replay.log.header import A1
from replay.log.reader import Limits
from replay.log.scan import LIMIT, MAX_DAMAGED
from replay.report.rules import catalogue_markdown, rule_markdown
from tests.helpers import REPO, corpus_root

EXAMPLES = [(rule, example) for rule in RULES.values() for example in rule.examples]
GUIDE = (REPO / "docs" / "guides" / "audit.md").read_text(encoding="utf-8")
"""The audit guide: the kinds of rule, the series, the caps in words."""
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def test_every_rule_is_declared_whole() -> None:
    for rule_id, rule in RULES.items():
        assert len(rule.explanation) > 40 and rule.harness, rule_id
        names = [e.name for e in rule.examples]
        assert len(set(names)) == len(names), f"{rule_id}: two examples named alike"


def test_only_rules_no_record_can_show_go_without_an_example() -> None:
    # Storage rules about the file itself, the invariant's own bookkeeping, and a log's
    # history across audits (H1 needs two audits: tests/check/test_cache.py has its cases).
    assert {r for r, rule in RULES.items() if not rule.examples} == {
        "INTERNAL", "IO", "LIMIT", "A9", "A10", "D10", "D11", "D15", "D16", "D17", "H1"}


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


MADE_UP = Rule(
    "Z1", "format", "storage", "a made-up rule",
    explanation="""
        First paragraph,
        wrapped.

        Second.""",
    examples=[
        Example("an empty file", bad_line=1, log="", audit=""),
        Example("a header never ended", bad_line=1, final_newline=False, policy="single", log="```x", audit=""),
    ],
    harness="Does nothing.")


def test_a_rule_in_markdown() -> None:
    a1_empty, a1_unended = (example.findings[0] for example in A1.examples[:2])
    assert a1_empty.startswith("line 1: A1 error: the file is empty") and "never ends" in a1_unended
    assert rule_markdown(MADE_UP, 2) == f"""\
## Z1: a made-up rule

*format rule of the storage domain*

First paragraph, wrapped.

Second.

### Example: an empty file

Line 1 of this log breaks Z1:

```
(an empty file)
```

The audit says:

```
{a1_empty}
```

### Example: a header never ended

Line 1 of this log breaks Z1 (with `--policy single`):

````
> 1  ```x
````

(The last line has no newline.)

The audit says:

```
{a1_unended}
```

### What today's harness does

Does nothing.
"""


def test_the_catalogue_in_markdown_has_every_rule_and_every_example() -> None:
    text = catalogue_markdown(RULES.values())
    assert text.startswith("# Audit rules\n\n")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    assert [s.split(":", 1)[0] for s in sections] == list(RULES)
    last = list(RULES)[-1]
    for section, rule in zip(sections, RULES.values(), strict=True):
        assert section == rule_markdown(rule, 2)[3:] + ("\n" if rule.id != last else "")
        assert rule.explanation in section and rule.harness in section
        for example in rule.examples:
            assert f"\n### Example: {example.name}\n" in section
            assert all(line in section for line in (*example.lines, *example.findings))
    result = CliRunner().invoke(main, ["rules", "--format", "markdown", "p1", "T5"])
    assert result.exit_code == 0
    assert result.stdout == catalogue_markdown([RULES["P1"], RULES["T5"]])


def _words(text: str) -> str:
    return " ".join(text.split())


def test_the_guides_table_of_kinds_is_the_catalogues() -> None:
    rows = {m[1]: set(re.findall(r"`([A-Z]+)`", m[2]))
            for m in re.finditer(r"^\| (format|invariant|policy) \| ([^|]*) \|", GUIDE, flags=re.MULTILINE)}
    assert rows == {kind: {rule_series(r.id) for r in RULES.values() if r.kind == kind}
                    for kind in ("format", "invariant", "policy")}


def test_the_guide_names_every_series_and_the_pages_only_rules_there_are() -> None:
    [listed] = re.findall(r"the series are ((?:`[A-Z]+`(?:, )?)+)", _words(GUIDE))
    assert set(re.findall(r"`([A-Z]+)`", listed)) == {rule_series(r) for r in RULES}
    assert re.findall(r"`([A-DTP]\d+|IO|LIMIT|INTERNAL)`", GUIDE)
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        named = set(re.findall(r"`([A-DTP]\d+|IO|LIMIT|INTERNAL)`", text))
        assert named - set(RULES) == set(), page
        # A range of ids would have to be retyped whenever a rule is added: the pages name
        # rules one by one or by series, and `replay rules` lists them.
        assert re.findall(r"`?\b[A-DTP]\d+`?\s*[–-]\s*`?[A-DTP]?\d+\b", text) == [], page


def test_the_caps_the_words_name_are_the_code_s() -> None:
    limits = Limits()
    mib, gib = limits.max_record_bytes >> 20, limits.max_log_bytes >> 30
    assert (mib << 20, gib << 30) == (limits.max_record_bytes, limits.max_log_bytes)
    explanation = _words(LIMIT.explanation)
    for phrase in (f"--max-record-bytes ({mib} MiB)", f"--max-log-bytes ({gib} GiB:",
                   f"{MAX_DAMAGED:,} records that are no event"):
        assert phrase in explanation
    assert f"{MAX_DAMAGED:,} such lines" in LIMIT.summary
    guide = _words(GUIDE)
    assert MAX_HEADER_BYTES >> 10 << 10 == MAX_HEADER_BYTES
    for phrase in (f"`--max-record-bytes` ({mib} MiB)", f"`--max-log-bytes` ({gib} GiB:",
                   f"{MAX_DAMAGED:,} lines that are no event", f"More than {MAX_PER_RULE} findings of one rule",
                   f"past {limits.max_archive_members:,} members", f"take more than {MAX_HEADER_BYTES >> 10} KiB",
                   f"chain more than {MAX_HEADER_CHAIN} extended headers", f"longer than {MAX_NAME:,} characters"):
        assert phrase in guide
