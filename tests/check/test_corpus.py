"""The acceptance checks against the real corpus (skipped without it)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from replay.check.engine import audit_sources
from replay.check.registry import rule_kind
from replay.log.discover import discover
from tests.helpers import ACP, corpus_root


def _audit(relative: str) -> list:  # type: ignore[type-arg]
    root = corpus_root() / relative
    if not root.exists():
        pytest.skip(f"corpus folder {root} is absent (set REPLAY_CORPUS to the shared corpus folder)")
    return list(audit_sources(discover([str(root)])))


def _rel(path: str) -> str:
    return str(Path(path).relative_to(corpus_root()))


def test_every_acp_agent_log_is_clean() -> None:
    reports = _audit(ACP)
    assert len(reports) == 104
    assert [(_rel(r.path), r.findings) for r in reports if r.findings] == []
    assert sum(r.events for r in reports) == 7892


def test_headless_and_jsonrpc_logs() -> None:
    reports = _audit("sessions-2026-08-20/examples_jsonrpc-agent_tests")
    assert len(reports) == 5 and all(r.status == "ok" for r in reports)
    found = {
        _rel(r.path): sorted({(f.rule, f.severity.value) for f in r.findings})
        for r in _audit("sessions-2026-08-20/examples_headless-agent_tests_snapshots")
        if r.findings
    }
    base = "sessions-2026-08-20/examples_headless-agent_tests_snapshots"
    # The replay-only chunk scripts of spec §7: chunks with no turn/step brackets;
    # ralph-loop's logs also lack delegationDepth. Every other headless log is clean.
    assert found == {
        f"{base}/ralph-loop/session.1.jsonl": [("A4", "error"), ("D9", "error")],
        f"{base}/ralph-loop/session.2.jsonl": [("A4", "error"), ("D9", "error")],
        f"{base}/ralph-loop/session.jsonl": [("A4", "error")],
        f"{base}/subagent-settlement/child.replay.jsonl": [("D9", "error")],
    }


def test_web_fixtures_fail_the_header_guard_at_line_one() -> None:
    reports = _audit("sessions-2026-08-20/apps_web_tests_snapshots")
    assert len(reports) == 20
    for r in reports:
        a4 = [f for f in r.findings if f.rule == "A4"]
        assert [(f.line, f.severity.value) for f in a4] == [(1, "error")], r.path
        assert "delegationDepth" in a4[0].message
    by_file = {Path(r.path).parent.name: r for r in reports}
    gaps = [(f.line, f.seq) for f in by_file["cordis-tool-round"].findings if f.rule == "A7"]
    assert gaps == [(8, 87), (9, 99), (19, 131), (20, 156), (30, 189), (31, 203), (41, 235), (42, 243)]
    # Chunk-only fragments: chunks outside any step (D9); all other logs only migrate.
    for name in ("minimal-preset", "web-search-round"):
        assert {f.rule for f in by_file[name].findings} >= {"D9"}
    clean_after_migration = [
        name for name, r in by_file.items()
        if {f.rule for f in r.findings if f.severity.value == "error"} == {"A4"}
    ]
    assert len(clean_after_migration) == 17


OLD_LOG_FINDINGS = {
    # What today's harness refuses (error) or migrates (warning); no durable-invariant rule.
    "acp-2026-06-29": {("A4", "error"): 14, ("B4", "warning"): 39, ("B5", "error"): 18},
    "acp-2026-07-23": {("A4", "error"): 1, ("B4", "warning"): 197, ("B6", "error"): 8},
}


@pytest.mark.parametrize("folder", sorted(OLD_LOG_FINDINGS))
def test_old_logs_load_and_have_no_durable_invariant_findings(folder: str) -> None:
    reports = _audit(folder)
    assert reports and all(r.status != "unreadable" for r in reports)
    assert Counter((f.rule, f.severity.value) for r in reports for f in r.findings) == OLD_LOG_FINDINGS[folder]
    assert not [f for r in reports for f in r.findings if rule_kind(f.rule) != "format"]
