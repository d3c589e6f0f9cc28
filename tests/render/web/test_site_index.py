"""The index's pieces, exactly: the status rank and the errors-first order, the
findings-by-rule chart, the common root, the cells' clipping."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from replay.check.engine import LogReport
from replay.findings import Finding, Severity
from replay.render.web.session_page import audit_status
from replay.render.web.site_index import (
    COLUMNS,
    TOP_RULES,
    WORD_CHARS,
    Row,
    clipped,
    common_root,
    errors_first,
    index_chunks,
    rules_chart,
    short_path,
    status_rank,
)
from replay.render.web.site_strings import SITE_EN


def _report(*found: tuple[str, Severity], status: str = "ok") -> LogReport:
    return LogReport("x.jsonl", status, 1, [Finding(rule, sev, "m", 2) for rule, sev in found])  # type: ignore[arg-type]


def _rank(report: LogReport) -> int:
    return status_rank(report, audit_status(report)[0])


def test_status_sorts_by_severity_then_by_the_number_of_findings() -> None:
    ok = _report()
    one_warning = _report(("B4", Severity.WARNING))
    many_warnings = _report(*[("B4", Severity.WARNING)] * 50)
    one_error = _report(("T5", Severity.ERROR))
    two_errors = _report(("T3", Severity.ERROR), ("T4", Severity.WARNING))
    unreadable = _report(("IO", Severity.ERROR), status="unreadable")
    ranked = [ok, one_warning, many_warnings, one_error, two_errors, unreadable]
    assert sorted(ranked, key=_rank) == ranked
    assert [_rank(r) for r in ranked] == [0, 10**9 + 1, 10**9 + 50, 2 * 10**9 + 1, 2 * 10**9 + 2, 3 * 10**9 + 1]


def test_the_index_comes_errors_first() -> None:
    """Its rows in the order of the status column, descending (the header says so):
    unreadable, errors, warnings, ok, the most findings first; one rank in the audit's order."""
    from replay.check.engine import AuditResult

    reports = [_report(), _report(("B4", Severity.WARNING)), _report(("T5", Severity.ERROR)), _report(),
               _report(*[("B4", Severity.WARNING)] * 3), _report(("IO", Severity.ERROR), status="unreadable"),
               _report(("T5", Severity.ERROR), ("T3", Severity.ERROR))]
    rows = [Row(r, f"logs/{i}/session.jsonl", f"sessions/{i}.html", None, 0) for i, r in enumerate(reports)]
    assert [int(row.href[9:-5]) for row in errors_first(rows)] == [5, 6, 2, 4, 1, 0, 3]
    page = "".join(index_chunks(rows, AuditResult(reports), "en"))
    assert re.findall(r'<a href="sessions/(\d+)\.html">', page) == ["5", "6", "2", "4", "1", "0", "3"]
    sorts = dict(re.findall(r'data-key="(\w+)" data-type="\w+" aria-sort="(\w+)"', page))
    assert list(sorts) == list(COLUMNS)
    assert {k: v for k, v in sorts.items() if v != "none"} == {"status": "descending"}
    # each row's number of findings, a number (not a link: the status's rule links to its event)
    assert '<td class="num" data-v="2">2</td>' in page and '<td class="num" data-v="0">0</td>' in page


def test_the_rules_chart_is_in_parts_by_severity_and_says_what_it_leaves_out() -> None:
    reports = [_report(*[("B4", Severity.WARNING)] * 496, ("B4", Severity.ERROR))]
    reports += [_report((f"R{k:02d}", Severity.POLICY)) for k in range(20)]
    chart = rules_chart(reports, SITE_EN)
    b4 = re.search(r'<g data-rule="B4">(.*?)</g>', chart)
    assert b4 is not None
    parts = re.findall(r'<rect class="bar (\w+)"[^>]*><title>([^<]*)</title>', b4.group(1))
    assert parts == [("error", "B4: 1 error"), ("warning", "B4: 496 warnings")]
    assert chart.count("<g data-rule=") == TOP_RULES
    assert f'<p class="more" data-more="{21 - TOP_RULES}">+{21 - TOP_RULES} more rules</p>' in chart


def test_paths_are_shown_from_the_common_root() -> None:
    paths = ["archive/acp-2026-07-23/a/session.jsonl", "archive/acp-2026-07-23/a/session.1.jsonl",
             "archive/acp-2026-07-23/b/session.jsonl"]
    root = common_root(paths)
    assert root == "archive/acp-2026-07-23/"
    assert [short_path(p, root) for p in paths] == ["a/", "a/session.1.jsonl", "b/"]
    assert common_root(["a/x.jsonl", "b/y.jsonl"]) == "" and common_root(["/logs/x.jsonl"]) == "/logs/"


@given(st.text())
def test_a_cell_shows_no_word_longer_than_the_limit(text: str) -> None:
    shown = clipped(text)
    assert all(len(word) <= WORD_CHARS + 1 for word in shown.split())
    assert len(shown) <= len(text) + 1


def test_a_time_in_the_epochs_first_day_is_no_time() -> None:
    """Goldens and synthetic logs zero their times or count them from 0 or 1: none of
    them is 1970, in a cell, a fact or the sessions-per-day chart."""
    from replay.render.web.site_strings import EPOCH_DAY, day_of, recorded

    for ms in (0, 1, 1000, EPOCH_DAY - 1, -5):
        assert not recorded(ms) and SITE_EN.time(ms) == SITE_EN.no_time and day_of(ms) is None, ms
    assert recorded(EPOCH_DAY) and SITE_EN.time(EPOCH_DAY) == "1970-01-02 00:00:00 UTC"
    assert SITE_EN.time(1784540790290) == "2026-07-20 09:46:30 UTC" and day_of(1784540790290) == "2026-07-20"
    assert SITE_EN.time(None) == SITE_EN.unknown and not recorded(None)
