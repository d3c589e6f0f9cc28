"""The answer key: the real harness, run keylessly on synthetic logs (every tool with a
presenter, every argument shape, event-level variants), printed these ``session/update``
lines. Every case of the folder must be byte-exact, live and load; the folder is read
whole, so cases added to it are tried too."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.log.harness import load_harness_scenario
from replay.report.conformance import ConformanceText
from replay.scenarios.conformance import ConformanceReport, check_conformance, run_conformance
from tests.helpers import corpus_root

ORACLE = corpus_root() / "oracle-2026-07-23"


def _cases() -> list[Path]:
    if not ORACLE.is_dir():
        return []
    return sorted(p for p in ORACLE.iterdir() if (p / "session.jsonl").is_file())


CASES = _cases()
ABSENT = pytest.mark.skip(reason=f"the answer key {ORACLE} is absent (set REPLAY_CORPUS)")


@pytest.mark.parametrize("folder", CASES or [pytest.param(None, marks=ABSENT)],
                         ids=lambda p: p.name if isinstance(p, Path) else "oracle")
def test_case_is_byte_exact_live_and_load(folder: Path) -> None:
    result = check_conformance(load_harness_scenario(folder))
    assert [(m.mode, m.golden) for m in result.modes] == [("live", "live.expected.jsonl"),
                                                          ("load", "load.expected.jsonl")]
    assert result.status == "exact", ConformanceText.render(ConformanceReport((result,)))
    assert all(m.expected == m.rendered == m.matching for m in result.modes)


def test_the_whole_answer_key(capsys: pytest.CaptureFixture[str]) -> None:
    if not CASES:
        pytest.skip(f"the answer key {ORACLE} is absent (set REPLAY_CORPUS)")
    report = run_conformance([ORACLE])
    live, load = report.mode_score("live"), report.mode_score("load")
    with capsys.disabled():
        print(f"\nanswer key {ORACLE.name}: {report.exact}/{len(report.scenarios)} cases byte-exact "
              f"(live {live[0]}/{live[1]}, load {load[0]}/{load[1]})")
    assert len(report.scenarios) == len(CASES) and report.scored == report.scenarios
    assert [s.name for s in report.scenarios if s.status != "exact"] == []
    assert live == load == (len(CASES), len(CASES))
    assert {s.profile for s in report.scenarios} == {"2026-07"}
