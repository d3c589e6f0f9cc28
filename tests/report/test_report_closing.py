"""A report's closing (``AuditReporter.closing``): the end of it that says how many logs
came from the audit cache, written last. A run record's report is the report written
with its closing said again for every log; these hold that shortcut to the report made
in full (what a record answered before it was kept that way)."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import TextIO, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.check.engine import AuditResult, LogReport
from replay.findings import Finding, Severity
from replay.output import TextOut, json_bytes
from replay.report.audit import AuditView, audit_document, json_report
from replay.report.registry import AUDIT_FORMATS
from replay.style import PLAIN
from tests.helpers import hostile_text

_TEXT = hostile_text(40)
_FINDINGS = st.builds(Finding, st.sampled_from(["A1", "A7", "B4", "C5", "T3"]), st.sampled_from(list(Severity)),
                      _TEXT, st.none() | st.integers(1, 10**6), st.none() | st.integers(-1, 2**70))
_REPORTS = st.builds(LogReport, _TEXT, st.sampled_from(["ok", "findings", "unreadable"]), st.integers(0, 10**9),
                     st.lists(_FINDINGS, max_size=4))
_RESULTS = st.builds(AuditResult, st.lists(_REPORTS, max_size=5), baselined=st.integers(0, 3),
                     passed_over=st.lists(st.tuples(_TEXT, _TEXT), max_size=2), cached=st.none() | st.integers(0, 9))
_VIEWS = st.builds(AuditView, fold=st.booleans(), statistics=st.booleans(), files_only=st.booleans(),
                   summary_only=st.booleans())


def _written(fmt: str, result: AuditResult, view: AuditView) -> tuple[bytes, bytes]:
    """The report of ``result`` as written to standard output, and its closing."""
    buffer = io.BytesIO()
    reporter = AUDIT_FORMATS[fmt](cast(TextIO, TextOut(buffer)), PLAIN, view)
    reporter.start()
    for report in result.reports:
        reporter.unit(report)
    reporter.finish(result)
    return buffer.getvalue(), reporter.closing(result)


@settings(max_examples=200, deadline=None)
@given(_RESULTS)
def test_the_json_report_in_two_parts_is_the_document(result: AuditResult) -> None:
    head, closing = json_report(result)
    assert head + closing == json_bytes(audit_document(result), indent=True) + b"\n"
    assert _written("json", result, AuditView())[0] == head + closing  # written as the logs come, the same bytes


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(list(AUDIT_FORMATS)), _RESULTS, _VIEWS, st.integers(0, 9))
def test_a_report_with_its_closing_said_again_is_the_report_made_for_that_count(
        fmt: str, result: AuditResult, view: AuditView, cached: int) -> None:
    written, closing = _written(fmt, result, view)
    assert written.endswith(closing)
    again = replace(result, cached=cached)
    reporter = AUDIT_FORMATS[fmt](cast(TextIO, io.StringIO()), PLAIN, view)
    assert written[:len(written) - len(closing)] + reporter.closing(again) == _written(fmt, again, view)[0]


def test_the_closing_is_what_says_the_count() -> None:
    result = AuditResult([LogReport("a.jsonl", "ok", 3, [])], cached=1)
    assert json_report(result)[1] == (b',\n  "summary": {\n    "files": 1,\n    "ok": 1,\n    "failed": 0,\n'
                                      b'    "events": 3,\n    "errors": 0,\n    "warnings": 0,\n'
                                      b'    "policy": 0,\n    "cached": 1\n  }\n}\n')
    text = AUDIT_FORMATS["text"](cast(TextIO, io.StringIO()), PLAIN, AuditView()).closing(result)
    assert text.startswith(b"\n1 file, 3 events: 1 ok, 0 with warnings only, 0 with errors, 0 unreadable "
                           b"(1 from the cache)\n")
    assert {fmt for fmt in AUDIT_FORMATS
            if AUDIT_FORMATS[fmt](cast(TextIO, io.StringIO()), PLAIN, AuditView()).closing(result)} == {"text", "json"}
