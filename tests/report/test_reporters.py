"""Every reporter over hand-built result data holding hostile text: exact output.

The data is built by hand (no log is read, no scenario run), so each test pins one
format of one result, and a change to a format shows here first."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import click
import pytest

from replay.check.engine import AuditResult, LogReport, failing_severities
from replay.check.explain import RuleHelp
from replay.cli import main
from replay.findings import Example, Finding, Rule, Severity
from replay.goldens.compare import FileResult
from replay.goldens.lines import Change
from replay.goldens.streams import LineDiff
from replay.report.audit import AuditGithub, AuditJson, AuditJunit, AuditText, AuditView
from replay.report.base import Reporter
from replay.report.conformance import ConformanceJson, ConformanceText
from replay.report.registry import AUDIT_FORMATS, CHECK_FORMATS, CONFORMANCE_FORMATS, RULE_FORMATS
from replay.report.rules import RuleHelpText, RulesJson, RulesText
from replay.report.snapshot import CheckGithub, CheckJson, CheckJunit, CheckStepSummary, CheckText, RefreshText
from replay.scenarios.check import CheckContext, CheckReport, PendingWritten, RefreshResult, ScenarioResult
from replay.scenarios.conformance import ConformanceReport, ModeResult
from replay.scenarios.conformance import ConformanceResult as Conformance
from replay.style import COLORED, PLAIN

EVIL = "\x1b]52;c;AAAA\x07\x9b2J\u202e\ud800"
"""An OSC 52 clipboard write, a C1 CSI, a bidi override and a lone surrogate."""
SHOWN = "\\x1b]52;c;AAAA\\x07\\x9b2J\\u202e\ufffd"
"""The same, as every human-facing report shows it."""
EVIL_JSON = EVIL.replace("\ud800", "")
"""What a JSON report can carry today (a lone surrogate is issue 9's: orjson refuses it)."""

BAD_PATH = f"logs/a{EVIL}.jsonl"
SHOWN_PATH = f"logs/a{SHOWN}.jsonl"


def _audit(evil: str = EVIL) -> AuditResult:
    bad = LogReport(f"logs/a{evil}.jsonl", "findings", 12, [
        Finding("A4", Severity.ERROR, f"first line is not a session header: {evil}\nnext", 1, None, "session"),
        Finding("B4", Severity.WARNING, "legacy turn/start with a trigger", 3, 2, "turn/start"),
        Finding("T3", Severity.ERROR, 'todo/write content must be trimmed (entry 0 content " a")', 5, 4,
                "todo/write"),
        Finding("P1", Severity.POLICY, "2 todos in_progress", 5, 4, "todo/write"),
    ])
    return AuditResult([bad, LogReport("logs/clean.jsonl", "ok", 3)])


AUDIT_TEXT = f"""\
{SHOWN_PATH} (12 events; 2 errors, 1 warning, 1 policy)
  line 1: A4 error: first line is not a session header: {SHOWN}\\x0anext
  line 3: B4 warning: legacy turn/start with a trigger
  line 5: T3 error: todo/write content must be trimmed (entry 0 content " a")
  line 5: P1 policy: 2 todos in_progress

2 files, 15 events: 1 ok, 0 with warnings only, 1 with errors, 0 unreadable
4 findings: 2 errors, 1 warning, 1 policy

rule  severity  findings  files  what it checks
A4    error            1      1  the session header has the fields today's reader requires, with the right types
B4    warning          1      1  2026-06/07 shapes are migrated on load (warning), or refused when malformed (error)
T3    error            1      1  every todo item's content is non-empty and already trimmed (JavaScript's trim)
P1    policy           1      1  what-if: a one-in-progress deployment would have refused this todo/write

`replay rules ID` explains a rule, with an example of a bad record.
"""


def test_audit_text() -> None:
    assert AuditText.render(_audit()) == AUDIT_TEXT


def test_audit_text_unfolded_is_the_same_for_one_log() -> None:
    assert AuditText.render(_audit(), view=AuditView(fold=False)) == AUDIT_TEXT


def test_audit_text_in_colour() -> None:
    text = AuditText.render(_audit(), COLORED)
    lines = text.splitlines()
    assert lines[0] == f"\x1b[1m{SHOWN_PATH}\x1b[0m (12 events; 2 errors, 1 warning, 1 policy)"
    assert lines[2] == "  line 3: \x1b[1mB4\x1b[0m \x1b[33mwarning\x1b[0m: legacy turn/start with a trigger"
    assert lines[4] == "  line 5: \x1b[1mP1\x1b[0m \x1b[36mpolicy\x1b[0m: 2 todos in_progress"
    assert lines[-1] == "\x1b[31m1 failed\x1b[0m"
    # Take the colour codes away and the plain report is left, but for the verdict line.
    plain = text.replace("\x1b[1m", "").replace("\x1b[2m", "").replace("\x1b[0m", "")
    for code in ("\x1b[31m", "\x1b[33m", "\x1b[36m"):
        plain = plain.replace(code, "")
    assert plain == AUDIT_TEXT + "1 failed\n"
    clean = AuditResult([LogReport("x.jsonl", "ok", 1)])
    assert AuditText.render(clean, COLORED) == (
        "\n1 file, 1 event: 1 ok, 0 with warnings only, 0 with errors, 0 unreadable\n"
        "0 findings: 0 errors, 0 warnings, 0 policy\n\x1b[32mall ok\x1b[0m\n")


def test_audit_statistics_are_the_table_and_the_totals() -> None:
    assert AuditText.render(_audit(), view=AuditView(statistics=True)) == AUDIT_TEXT.split("\n\n", 2)[2].replace(
        "\n\n`replay rules ID` explains a rule, with an example of a bad record.\n", "\n") + (
        "\n2 files, 15 events: 1 ok, 0 with warnings only, 1 with errors, 0 unreadable\n"
        "4 findings: 2 errors, 1 warning, 1 policy\n")


def test_audit_json_keeps_the_text_as_it_is() -> None:
    doc = json.loads(AuditJson.render(_audit(EVIL_JSON), COLORED))
    assert doc["files"][0]["path"] == f"logs/a{EVIL_JSON}.jsonl"
    assert doc["files"][0]["findings"][0] == {
        "rule": "A4", "severity": "error", "line": 1, "seq": None, "type": "session",
        "message": f"first line is not a session header: {EVIL_JSON}\nnext"}
    assert doc["files"][1] == {"path": "logs/clean.jsonl", "status": "ok", "events": 3, "findings": []}
    assert doc["summary"] == {"files": 2, "ok": 1, "failed": 1, "events": 15, "errors": 2, "warnings": 1,
                              "policy": 1}
    assert AuditJson.render(_audit(EVIL_JSON)).startswith('{\n  "files": [\n    {\n      "path": "logs/a\\u001b]52;')


def test_audit_github() -> None:
    assert AuditGithub.render(_audit(), COLORED) == (
        f"::error file={SHOWN_PATH.replace(':', '%3A')},line=1,title=A4 error::first line is not a session "
        f"header: {SHOWN}%0Anext\n"
        f"::warning file={SHOWN_PATH.replace(':', '%3A')},line=3,title=B4 warning::legacy turn/start with a "
        "trigger\n"
        f"::error file={SHOWN_PATH.replace(':', '%3A')},line=5,title=T3 error::todo/write content must be "
        'trimmed (entry 0 content " a")\n'
        f"::notice file={SHOWN_PATH.replace(':', '%3A')},line=5,title=P1 policy::2 todos in_progress\n")


def test_github_escapes_the_command_syntax() -> None:
    report = LogReport("a,b:c%d.jsonl", "findings", 1, [Finding("D4", Severity.ERROR, "50% done\r\n::error::x")])
    assert AuditGithub.render(AuditResult([report])) == (
        "::error file=a%2Cb%3Ac%25d.jsonl,title=D4 error::50%25 done\\x0d%0A::error::x\n")


def test_audit_junit_fails_only_the_failing_severities() -> None:
    result = _audit()
    xml = AuditJunit.render(result)
    assert xml.startswith('<?xml version="1.0" encoding="utf-8"?>\n'
                          '<testsuites name="replay audit" tests="5" failures="2" errors="0">\n')
    assert '<testcase classname="logs/a\\x1b]52;c;AAAA\\x07\\x9b2J\\u202e\ufffd.jsonl" name="P1" />' in xml
    assert (f'<failure message="1 A4 finding">{SHOWN_PATH}:1: A4 error: first line is not a session header: '
            f"{SHOWN}\\x0anext</failure>") in xml
    assert '<testcase classname="logs/clean.jsonl" name="audit" />' in xml
    strict = AuditResult(result.reports, failing_severities([Severity.POLICY]))
    assert 'message="1 P1 finding"' in AuditJunit.render(strict)
    assert not AuditResult([LogReport("x", "findings", 1, [Finding("P1", Severity.POLICY, "m")])]).failed
    assert AuditResult([LogReport("x", "findings", 1, [Finding("P1", Severity.POLICY, "m")])],
                       failing_severities([Severity.POLICY])).failed
    assert AuditResult([LogReport("x", "unreadable", 0)]).failed


def _check(evil: str = EVIL) -> CheckReport:
    name = f"bad{evil}"
    return CheckReport("goldens", [
        ScenarioResult("fine", [FileResult("fine", "web.expected.txt", "ok")]),
        ScenarioResult(name, [
            FileResult(name, "stdout.expected.jsonl", "differs", (
                Change(f'event 3 plan.entries[0].content: "a" → "{evil}"', 3), Change("event 4 removed plan: {}", 4))),
            FileResult(name, "web.expected.txt", "ok"),
            FileResult(name, "stdio.expected.txt", "differs",
                       (Change("@@ -1,2 +1,2 @@", 2, (" a", f"-{evil}", "+b")),)),
            FileResult(name, "old.txt", "orphan", (Change("no artefact of this scenario produces this file"),)),
        ]),
        ScenarioResult("broken", error=f"scenarios/broken/scenario.json: invalid scenario: {evil}"),
    ])


G = f"goldens/bad{SHOWN}"
CHECK_TEXT = f"""\
✗ bad{SHOWN} (1 of 4 goldens match)
    {G}/stdout.expected.jsonl: differs
      {G}/stdout.expected.jsonl:3: event 3 plan.entries[0].content: "a" → "{SHOWN}"
      {G}/stdout.expected.jsonl:4: event 4 removed plan: {{}}
    {G}/stdio.expected.txt: differs
      {G}/stdio.expected.txt:2: @@ -1,2 +1,2 @@
         a
        -{SHOWN}
        +b
    {G}/old.txt: orphan
      no artefact of this scenario produces this file
✗ broken: did not run
    scenarios/broken/scenario.json: invalid scenario: {SHOWN}

2 of 3 scenarios failed (3 golden files). Next:
  broken did not run: fix what its error above says, then check it again:
    replay check broken
  take the new output of bad{SHOWN} (every golden of it):
    replay refresh 'bad{SHOWN}'
  or look at each change first:
    replay check 'bad{SHOWN}' --pending && replay review
  delete the goldens no artefact of bad{SHOWN} produces:
    replay refresh --prune 'bad{SHOWN}'
"""


def test_check_text() -> None:
    assert CheckText.render(_check()) == CHECK_TEXT
    assert CheckText.render(_check(), verbose=True) == "✓ fine (1 of 1 golden match)\n" + CHECK_TEXT
    coloured = CheckText.render(_check(), COLORED)
    assert coloured.startswith("\x1b[31m✗\x1b[0m bad")
    assert f"      \x1b[1m{G}/stdout.expected.jsonl:3\x1b[0m: event 3 " in coloured
    assert "\n\x1b[31m2 of 3 scenarios failed (3 golden files)\x1b[0m. Next:\n" in coloured
    assert coloured.endswith("    \x1b[1mreplay refresh --prune 'bad" + SHOWN + "'\x1b[0m\n")
    ok = CheckReport("g", [ScenarioResult("fine", [FileResult("fine", "a.txt", "ok")])])
    assert CheckText.render(ok) == "1 scenario matches its goldens\n"
    assert CheckText.render(ok, verbose=True) == "✓ fine (1 of 1 golden match)\n\n1 scenario matches its goldens\n"
    two = CheckReport("g", [*ok.scenarios, ScenarioResult("also", [FileResult("also", "b.txt", "ok")])])
    assert CheckText.render(two) == "all 2 scenarios match their goldens\n"
    assert not ok.failed and _check().failed


def _one_differs(context: CheckContext) -> CheckReport:
    return CheckReport("goldens", [
        ScenarioResult("parallel-plan-two", [FileResult("parallel-plan-two", "web.expected.txt", "differs", (
            Change("@@ -1,2 +1,2 @@", 2, ("-suffix=+1", "+suffix=<absent>")),))]),
        ScenarioResult("zero-todos", [FileResult("zero-todos", "web.expected.txt", "ok")])], context)


def test_the_closing_hint_names_the_exact_command() -> None:
    def hint(context: CheckContext) -> str:
        return CheckText.render(_one_differs(context)).split("Next:\n", 1)[1]

    assert hint(CheckContext()) == (
        "  take the new output of parallel-plan-two (every golden of it):\n"
        "    replay refresh parallel-plan-two\n"
        "  or look at each change first:\n"
        "    replay check parallel-plan-two --pending && replay review\n")
    # The tree options given are repeated; a folder with a space is quoted.
    assert hint(CheckContext(tree_args=("--goldens", "my goldens"))).splitlines()[1] == \
        "    replay refresh --goldens 'my goldens' parallel-plan-two"
    # Pending goldens were written: review them (naming the folder when it is not the default).
    assert hint(CheckContext(pending=PendingWritten(".replay/pending", 1))) == (
        "  1 pending golden in .replay/pending: look at each change and accept or reject it:\n"
        "    replay review\n")
    assert hint(CheckContext(pending=PendingWritten("out/p", 1, default=False))).endswith(
        "    replay review --pending out/p\n")
    # Under CI no command that writes goldens is suggested.
    assert hint(CheckContext(ci=True)) == (
        "  goldens differ; CI writes none: to take this run's output, write it as pending goldens and keep them "
        "as the job's artefact:\n"
        "    replay check parallel-plan-two --pending\n")
    assert "refresh" not in hint(CheckContext(ci=True, pending=PendingWritten(".replay/pending", 1)))


def test_check_json() -> None:
    doc = json.loads(CheckJson.render(_check(EVIL_JSON)))
    assert doc["summary"] == {"scenarios": 3, "failed": 2, "files": 5, "failed_files": 3}
    assert doc["scenarios"][1]["files"][0] == {
        "path": f"goldens/bad{EVIL_JSON}/stdout.expected.jsonl", "name": "stdout.expected.jsonl",
        "status": "differs", "line": 3, "changes": [
            {"line": 3, "text": f'event 3 plan.entries[0].content: "a" → "{EVIL_JSON}"', "body": []},
            {"line": 4, "text": "event 4 removed plan: {}", "body": []}]}
    assert doc["scenarios"][2] == {"name": "broken", "status": "failed", "files": [],
                                   "error": f"scenarios/broken/scenario.json: invalid scenario: {EVIL_JSON}"}
    assert doc["pending"] is None
    assert doc["next"][1] == {"why": f"take the new output of bad{EVIL_JSON} (every golden of it)",
                              "command": f"replay refresh 'bad{EVIL_JSON}'"}


def test_check_github() -> None:
    assert CheckGithub.render(_check()) == (
        f"::error file={G}/stdout.expected.jsonl,line=3,title=golden differs::line 3: event 3 "
        f'plan.entries[0].content: "a" → "{SHOWN}"%0Aline 4: event 4 removed plan: {{}}\n'
        f"::error file={G}/stdio.expected.txt,line=2,title=golden differs::line 2: @@ -1,2 +1,2 @@%0A a%0A-{SHOWN}"
        "%0A+b\n"
        f"::error file={G}/old.txt,title=golden orphan::no artefact of this scenario produces this file\n"
        "::error file=scenarios/broken/scenario.json,title=scenario broken did not run::"
        f"scenarios/broken/scenario.json: invalid scenario: {SHOWN}\n")


def test_github_annotations_fold_past_ten() -> None:
    def report(n: int) -> CheckReport:
        return CheckReport("goldens", [ScenarioResult(f"s{i:02}", [FileResult(
            f"s{i:02}", "web.expected.txt", "differs",
            (Change(f"@@ -{i},1 +{i},1 @@", i + 1, ("-a", "+b")), Change("@@ -90,1 +90,1 @@", 90, ("-c", "+d"))))])
            for i in range(n)])

    ten = CheckGithub.render(report(10)).splitlines()
    assert len(ten) == 10 and all(line.startswith("::error ") for line in ten)
    assert ten[3] == ("::error file=goldens/s03/web.expected.txt,line=4,title=golden differs::line 4: @@ -3,1 +3,1 @@"
                      "%0A-a%0A+b%0Aline 90: @@ -90,1 +90,1 @@%0A-c%0A+d")
    lines = CheckGithub.render(report(12)).splitlines()
    annotations = [line for line in lines if line.startswith("::error ")]
    assert len(annotations) == 10  # GitHub shows ten per step: the tenth sums up the rest
    assert annotations[-1] == ("::error title=replay check::3 more goldens or scenarios failed; the folded group "
                               "'replay check: 12 failing goldens and scenarios' of this step's log lists all 12")
    group = lines[lines.index("::group::replay check: 12 failing goldens and scenarios") + 1:]
    assert group[0] == "goldens/s00/web.expected.txt:1: differs: @@ -0,1 +0,1 @@"
    assert len(group) == 13 and group[-1] == "::endgroup::"


def test_check_step_summary_is_a_markdown_table() -> None:
    text = CheckStepSummary.render(_one_differs(CheckContext()))
    assert text == (
        "### replay check: 1 of 2 scenarios failed (1 golden file)\n"
        "\n"
        "| scenario | goldens | status | first change |\n"
        "| --- | --- | --- | --- |\n"
        "| parallel-plan-two | 0/1 match | ❌ differs | `goldens/parallel-plan-two/web.expected.txt:2`: "
        "@@ -1,2 +1,2 @@ |\n"
        "| zero-todos | 1/1 match | ✅ ok |  |\n"
        "\n"
        "Next:\n"
        "- take the new output of parallel-plan-two (every golden of it): `replay refresh parallel-plan-two`\n"
        "- or look at each change first: `replay check parallel-plan-two --pending && replay review`\n\n")
    hostile = CheckStepSummary.render(_check())
    assert "<" not in hostile.replace("<absent>", "") and "\x1b" not in hostile
    escaped = SHOWN.replace("\\", "\\\\").replace("]", "\\]")
    assert f"| bad{escaped} | 1/4 match | ❌ differs, orphan |" in hostile


def test_check_junit() -> None:
    started = datetime(2026, 11, 30, 19, 43, 5, tzinfo=UTC)
    report = _check()
    report = CheckReport(report.goldens, report.scenarios, CheckContext(started=started, host="ci-7"))
    xml = CheckJunit.render(report)
    assert xml.startswith('<?xml version="1.0" encoding="utf-8"?>\n'
                          '<testsuites name="replay check" tests="6" failures="3" errors="1" time="0.000">\n'
                          '  <testsuite name="fine" tests="1" failures="0" errors="0" time="0.000" '
                          'timestamp="2026-11-30T19:43:05+00:00" hostname="ci-7">\n'
                          '    <testcase classname="fine" name="web.expected.txt" time="0.000" '
                          'file="goldens/fine/web.expected.txt" />\n')
    assert ('<testsuite name="broken" tests="1" failures="0" errors="1" time="0.000" '
            'timestamp="2026-11-30T19:43:05+00:00" hostname="ci-7">\n'
            '    <testcase classname="broken" name="scenario.json" time="0.000" '
            'file="scenarios/broken/scenario.json">\n'
            '      <error type="scenario error" message="scenarios/broken/scenario.json: invalid scenario: '
            '\\x1b]52;c;AAAA\\x07\\x9b2J\\u202e\ufffd">') in xml
    assert ('<failure type="differs" message="goldens/bad\\x1b]52;c;AAAA\\x07\\x9b2J\\u202e\ufffd/'
            'stdout.expected.jsonl:3: differs: event 3 plan.entries[0].content: &quot;a&quot; → ') in xml
    assert "\x1b" not in xml and "\x07" not in xml and "&#55296;" not in xml  # well-formed XML 1.0


def test_refresh_text() -> None:
    result = RefreshResult("goldens", [
        ScenarioResult("a", [FileResult("a", "x.txt", "created"), FileResult("a", "y.txt", "unchanged"),
                             FileResult("a", "z.txt", "orphan")]),
        ScenarioResult(f"b{EVIL}", error=f"no{EVIL}"),
    ])
    assert RefreshText.render(result) == (
        "  created goldens/a/x.txt\n"
        "   orphan goldens/a/z.txt\n"
        f"✗ b{SHOWN}: no{SHOWN}\n"
        "created 1, updated 0, unchanged 1, deleted 0 (orphans kept: 1; use --prune to delete them)\n")
    assert result.failed


def _conformance(evil: str = EVIL) -> ConformanceReport:
    exact = ModeResult("live", "stdout.expected.jsonl", 3, 3, 3)
    off = ModeResult("live", "stdout.expected.jsonl", 2, 3, 1, missing=0, extra=1, changed=1, first_diff=LineDiff(
        1, 1, '{"text":"a"}', f'{{"text":"{evil}{"x" * 300}"}}', f'params.update.text: expected "a", got {evil}'))
    return ConformanceReport((
        Conformance("ok", "corpus/ok", "exact", "2026-07", "corpus", (exact,)),
        Conformance("off", f"corpus/off{evil}", "differs", "2026-07", "corpus", (off,)),
        Conformance("slash", "corpus/slash", "not derivable", "2026-07", "corpus",
                    reason=f"slash command prompt '/x{evil}': its output is never logged"),
    ))


def test_conformance_text() -> None:
    assert ConformanceText.render(_conformance()) == (
        "exact         corpus/ok  (live: 3 lines, byte-exact)\n"
        f"differs       corpus/off{SHOWN}  (live: 1/2 golden lines rendered in order; 1 changed, 1 rendered line "
        "not in the golden)\n"
        f'    live vs stdout.expected.jsonl, golden line 2 / rendered line 2: params.update.text: expected "a", '
        f"got {SHOWN}\n"
        '      expected: {"text":"a"}\n'
        f'      got:      {{"text":"{SHOWN}{"x" * (197 - 9 - len(EVIL))}...\n'
        f"not derivable corpus/slash  (no stream compared) [slash command prompt '/x{SHOWN}': its output is never "
        "logged]\n"
        "1/2 scenarios byte-exact (live 1/2; profile 2026-07: 3); not derivable: 1\n")


def test_conformance_json() -> None:
    doc = json.loads(ConformanceJson.render(_conformance(EVIL_JSON)))
    assert doc["summary"] == {"scenarios": 3, "scored": 2, "exact": 1, "differs": 1, "overridden": 0,
                              "overriddenExact": 0, "overriddenKeyless": 0, "overriddenExactFromLog": 0,
                              "overriddenNotScored": 0, "notDerivable": 1,
                              "profiles": {"2026-07": 3}, "live": {"exact": 1, "compared": 2},
                              "load": {"exact": 0, "compared": 0},
                              "score": "1/2 scenarios byte-exact (live 1/2; profile 2026-07: 3); not derivable: 1"}
    assert doc["scenarios"][1]["modes"][0]["firstDiff"] == {
        "index": 1, "renderedIndex": 1, "expected": '{"text":"a"}', "got": f'{{"text":"{EVIL_JSON}{"x" * 300}"}}',
        "summary": f'params.update.text: expected "a", got {EVIL_JSON}'}
    assert doc["scenarios"][0] == {
        "name": "ok", "folder": "corpus/ok", "status": "exact", "profile": "2026-07", "profileSource": "corpus",
        "reason": None, "overridden": False, "modes": [{
            "mode": "live", "golden": "stdout.expected.jsonl", "exact": True, "expected": 3, "rendered": 3,
            "matching": 3, "missing": 0, "extra": 0, "changed": 0, "firstDiff": None}]}


RULE_SET = [RuleHelp(Rule("A6", "format", "storage", "every record parses", explanation="Records parse.\n\nAll.",
                          examples=[Example("a bad record", "{}\nx", 2, "line 2: A6 error: the record cannot be read")],
                          harness="Refuses it."),
                     (Finding("A6", Severity.ERROR, "the record cannot be read", 2),)),
            RuleHelp(Rule("T3", "invariant", "todo", "content is trimmed", explanation="Trimmed.",
                          harness="Loads it."))]


def test_rules_text_and_json() -> None:
    assert RulesText.render(RULE_SET) == ("A6       format    storage every record parses\n"
                                          "T3       invariant todo    content is trimmed\n\n"
                                          "`replay rules ID` explains a rule, with an example of a bad record.\n")
    assert json.loads(RulesJson.render(RULE_SET)) == [
        {"rule": "A6", "kind": "format", "domain": "storage", "summary": "every record parses",
         "explanation": "Records parse. All.", "harness": "Refuses it.", "example": ["{}", "x"], "bad_line": 2,
         "example_findings": ["the record cannot be read"]},
        {"rule": "T3", "kind": "invariant", "domain": "todo", "summary": "content is trimmed",
         "explanation": "Trimmed.", "harness": "Loads it.", "example": None, "bad_line": None,
         "example_findings": []}]
    assert RuleHelpText.render(RULE_SET) == """\
A6: every record parses
(format rule of the storage domain)

Records parse.

All.

Example: line 2 of this log breaks A6:
    1  {}
  > 2  x
The audit says: line 2: A6 error: the record cannot be read

What today's harness does:
  Refuses it.

T3: content is trimmed
(invariant rule of the todo domain)

Trimmed.

What today's harness does:
  Loads it.
"""


@pytest.mark.parametrize("reporting", [*AUDIT_FORMATS.values(), AuditJunit])
def test_driving_unit_by_unit_writes_what_render_returns(reporting: type[Reporter]) -> None:  # type: ignore[type-arg]
    result = _audit(EVIL_JSON)
    out = io.StringIO()
    reporter = reporting(out, PLAIN)
    reporter.start()
    for report in result.reports:
        reporter.unit(report)
    reporter.finish(result)
    assert out.getvalue() == reporting.render(result)


@pytest.mark.parametrize(("command", "formats"), [
    ("audit", AUDIT_FORMATS), ("check", CHECK_FORMATS), ("conformance", CONFORMANCE_FORMATS), ("rules", RULE_FORMATS)])
def test_the_cli_offers_exactly_the_registered_formats(command: str, formats: dict[str, object]) -> None:
    option = next(p for p in main.commands[command].params if p.name == "fmt")
    assert isinstance(option.type, click.Choice)
    assert list(option.type.choices) == list(formats)
    assert option.default == "text" == next(iter(formats))


def test_a_one_line_stream_is_one_line() -> None:
    assert ModeResult("load", "load.expected.jsonl", 1, 1, 1).what_differs == "1 line, byte-exact"
    assert ModeResult("load", "load.expected.jsonl", 0, 0, 0).what_differs == "0 lines, byte-exact"
