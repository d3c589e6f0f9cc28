"""Selection: --select/--ignore/--min-severity and the [tool.replay.audit] table,
unit by unit, then over the corpus: each selects exactly what it says."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replay.check.core import CoreChecker
from replay.check.engine import LogReport, Policy, audit_log
from replay.check.registry import RULES
from replay.check.selection import (
    Selection,
    SelectionError,
    audit_selection,
    find_config,
    parse_selectors,
    read_config,
)
from replay.checker import Checker
from replay.cli import main
from replay.findings import Example, Finding, Rule, Severity
from replay.log.reader import Source, read_log
from replay.todo.rules import SingleActivePolicy, TodoChecker
from tests.helpers import TODO_WRITE, corpus_root, dump, index_of, records

E, W, P = Severity.ERROR, Severity.WARNING, Severity.POLICY


def test_selectors_are_ids_series_or_all() -> None:
    assert parse_selectors(["t, a6", "D1", ""], "--select") == ("T", "A6", "D1")
    with pytest.raises(SelectionError, match=r"--select: 'X9' is neither a rule id nor a series"):
        parse_selectors(["X9"], "--select")
    with pytest.raises(SelectionError, match=r"'T9'"):
        parse_selectors(["T9"], "--ignore")


@pytest.mark.parametrize(("select", "ignore", "chosen"), [
    ((), (), {"A6", "A10", "D1", "D10", "T3", "P1"}),
    (("D1",), (), {"D1"}),                    # an id is that rule alone, not D10
    (("T",), ("T3",), set()),                 # the id is more specific than the series
    (("T3",), ("T",), {"T3"}),
    (("T",), ("T",), set()),                  # as specific: ignore wins
    (("ALL",), ("D",), {"A6", "A10", "T3", "P1"}),
    (("A",), (), {"A6", "A10"}),
])
def test_the_most_specific_selector_decides(select: tuple[str, ...], ignore: tuple[str, ...], chosen: set[str]) -> None:
    selection = Selection(select, ignore)
    assert {r for r in ("A6", "A10", "D1", "D10", "T3", "P1") if selection.selects(r)} == chosen


def test_min_severity_and_what_apply_leaves() -> None:
    report = LogReport("x.jsonl", "findings", 3, [
        Finding("A4", E, "a", 1), Finding("B4", W, "b", 2), Finding("P1", P, "c", 3)])
    assert Selection().apply(report) is report
    assert [f.rule for f in Selection(min_severity=W).apply(report).findings] == ["A4", "B4"]
    assert [f.rule for f in Selection(min_severity=E).apply(report).findings] == ["A4"]
    emptied = Selection(ignore=("A", "B", "P")).apply(report)
    assert (emptied.status, emptied.findings) == ("ok", [])
    unreadable = LogReport("y.jsonl", "unreadable", 0, [Finding("IO", E, "gone"), Finding("A1", E, "empty")])
    # An unreadable log was never audited: selection cannot hide it or why.
    assert Selection(ignore=("A1",)).apply(unreadable) is unreadable
    assert Selection(ignore=("IO", "A1"), min_severity=P).apply(unreadable) is unreadable


def test_the_table_is_found_upward_and_checked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.replay.audit]\nselect = ["T", "a6"]\nmin-severity = "warning"\n')
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'other'\n")  # no table: passed over
    config = find_config(nested)
    assert config == read_config(tmp_path / "pyproject.toml")
    assert config.path == tmp_path / "pyproject.toml"
    assert (config.select, config.ignore, config.min_severity) == (("T", "A6"), None, W)
    # The command line wins, key by key.
    assert audit_selection(None, ["T3"], None, config) == Selection(("T", "A6"), ("T3",), W)
    assert audit_selection(["D"], None, "error", config) == Selection(("D",), (), E)
    for body, problem in [
        ('[tool.replay.audit]\nselct = ["T"]\n', "unknown key 'selct'"),
        ('[tool.replay.audit]\nselect = [1]\n', "select must be a list of rule ids or series"),
        ('[tool.replay.audit]\nignore = ["Q7"]\n', "ignore: 'Q7' is neither a rule id nor a series"),
        ('[tool.replay.audit]\nmin-severity = "fatal"\n', "'fatal' is not a severity"),
        ("[tool.replay.audit\n", "cannot read it as TOML"),
    ]:
        (tmp_path / "pyproject.toml").write_text(body)
        with pytest.raises(SelectionError, match=problem):
            read_config(tmp_path / "pyproject.toml")


@pytest.mark.parametrize(("body", "problem"), [
    (b"[tool.replay.audit]\nselect = [\"T\"\n", "cannot read it as TOML (Unclosed array"),
    (b"[tool.replay.audit]\nx = " + b"[" * 5000 + b"]" * 5000 + b"\n", "cannot read it as TOML (nested too deeply)"),
    (b"[tool.replay.audit]\nselect = [\"\xff\"]\n", "cannot read it as TOML (not UTF-8"),
])
def test_a_broken_table_is_named_not_skipped(tmp_path: Path, body: bytes, problem: str) -> None:
    """A pyproject.toml that names the table but cannot be parsed is an error naming it:
    the search does not go on upward to another table, nor end in a traceback."""
    (tmp_path / "pyproject.toml").write_text('[tool.replay.audit]\nselect = ["D"]\n')
    nested = tmp_path / "project"
    nested.mkdir()
    (nested / "pyproject.toml").write_bytes(body)
    with pytest.raises(SelectionError) as caught:
        find_config(nested)
    assert str(caught.value).startswith(f"{nested / 'pyproject.toml'}: {problem}")


def test_a_broken_pyproject_without_the_table_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.replay.audit]\nselect = ["D"]\n')
    nested = tmp_path / "project"
    nested.mkdir()
    (nested / "pyproject.toml").write_bytes(b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n")
    config = find_config(nested)
    assert config is not None and config.path == tmp_path / "pyproject.toml" and config.select == ("D",)


# -- over the corpus ------------------------------------------------------------------

FOLDERS = ("acp-2026-06-29", "acp-2026-07-23", "sessions-2026-08-20")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The three folders, and one more log with todo problems (T3, T5 errors) and two
    items in progress (P1 under --policy single), so every severity is there."""
    paths = [corpus_root() / name for name in FOLDERS]
    if not all(p.exists() for p in paths):
        pytest.skip(f"corpus folders {FOLDERS} are absent (set REPLAY_CORPUS to the shared corpus folder)")
    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][0]["content"] = " read the code"
    recs[i]["data"]["todos"][2]["status"] = "done"
    extra = tmp_path_factory.mktemp("todo") / "session.jsonl"
    extra.write_bytes(dump(recs))
    return [*map(str, paths), str(extra)]


def _audit(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(main, ["audit", "--no-cache", "--format", "json", "--policy", "single", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)


def _findings(doc: dict[str, Any]) -> list[tuple[str, str, str, int | None]]:
    return [(file["path"], f["rule"], f["severity"], f["line"]) for file in doc["files"] for f in file["findings"]]


@pytest.fixture(scope="module")
def everything(corpus: list[str]) -> list[tuple[str, str, str, int | None]]:
    _, doc = _audit(*corpus)
    found = _findings(doc)
    by_rule: dict[str, int] = {}
    for _, rule, _, _ in found:
        by_rule[rule] = by_rule.get(rule, 0) + 1
    assert by_rule == {"A4": 38, "A7": 8, "B4": 283, "B5": 18, "B6": 8, "D9": 30, "T3": 1, "T5": 1, "P1": 2}
    return found


@pytest.mark.slow
def test_select_t_min_severity_error(corpus: list[str], everything: list[Any], monkeypatch: pytest.MonkeyPatch,
                                     tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, doc = _audit("--select", "T", "--min-severity", "error", *corpus)
    assert _findings(doc) == [f for f in everything if f[1].startswith("T") and f[2] == "error"]
    assert [f[1] for f in _findings(doc)] == ["T3", "T5"]
    assert code == 1
    # Every file is still reported; those left with nothing are ok.
    assert doc["summary"] == {"files": 214, "ok": 213, "failed": 1, "events": 22648, "errors": 2, "warnings": 0,
                              "policy": 0}


@pytest.mark.slow
def test_ignore_b4(corpus: list[str], everything: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    _, doc = _audit("--ignore", "B4", *corpus)
    assert _findings(doc) == [f for f in everything if f[1] != "B4"]
    assert doc["summary"]["warnings"] == 0 and doc["summary"]["errors"] == 104
    result = CliRunner().invoke(main, ["audit", "--ignore", "B4", *corpus[:3]])
    assert ("213 files, 22533 events: 166 ok, 0 with warnings only, 47 with errors, 0 unreadable\n"
            "102 findings: 102 errors, 0 warnings, 0 policy\n") in result.output


@pytest.mark.slow
def test_the_pyproject_table_selects_and_the_command_line_wins(corpus: list[str], everything: list[Any],
                                                              monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.replay.audit]\nselect = ["A", "D", "P1"]\nignore = ["A7"]\nmin-severity = "error"\n')
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    code, doc = _audit(*corpus)
    assert _findings(doc) == [f for f in everything if f[1] in ("A4", "D9")]
    assert code == 1
    # --select replaces the table's select; its ignore and min-severity still apply.
    _, doc = _audit("--select", "B,A7", *corpus)
    assert _findings(doc) == [f for f in everything if f[1] in ("B5", "B6")]
    # --min-severity replaces the table's: P1 is selected and now severe enough.
    _, doc = _audit("--min-severity", "policy", *corpus)
    assert _findings(doc) == [f for f in everything if f[1] in ("A4", "D9", "P1")]


def test_a_bad_table_or_selector_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "session.jsonl"
    log.write_bytes(dump(records(TODO_WRITE)))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["audit", "--select", "Z", str(log)])
    assert result.exit_code == 2 and "--select: 'Z' is neither a rule id nor a series" in result.output
    (tmp_path / "pyproject.toml").write_text('[tool.replay.audit]\nmin_severity = "error"\n')
    result = CliRunner().invoke(main, ["audit", str(log)])
    assert result.exit_code == 2
    assert f"{tmp_path / 'pyproject.toml'} [tool.replay.audit]: unknown key 'min_severity'" in result.output


# -- a checker none of whose rules is selected is not run --------------------------------


def test_a_checker_runs_only_when_one_of_its_rules_is_selected() -> None:
    assert Selection().skipped == frozenset()
    assert Selection(select=("T",)).skipped == {CoreChecker, SingleActivePolicy}
    assert Selection(select=("D9", "P")).skipped == {TodoChecker}
    assert Selection(ignore=("B", "C", "D")).skipped == {CoreChecker}
    assert Selection(select=("A",)).skipped == {CoreChecker, TodoChecker, SingleActivePolicy}
    assert Selection(min_severity=E).skipped == frozenset()  # severity says nothing of which rules run


RULE_EXAMPLES = [(rule, example) for rule in RULES.values() for example in rule.examples if not example.events_only]


@pytest.mark.parametrize(("rule", "example"), RULE_EXAMPLES, ids=[f"{r.id}: {e.name}" for r, e in RULE_EXAMPLES])
def test_each_example_finds_its_rule_with_only_its_emitter_running(rule: Rule, example: Example) -> None:
    """Selecting a rule alone leaves out every checker but its emitter: the example's
    findings of the rule are the same, so the code table says truly who emits it."""
    policy = Policy(example.policy) if example.policy else Policy.PARALLEL
    selection = Selection(select=(rule.id,))

    def audited(skip: frozenset[type[Checker]]) -> list[Finding]:
        source = Source(f"example-{rule.id}.jsonl", lambda: io.BytesIO(example.data()))
        return selection.apply(audit_log(read_log(source), policy, skip=skip)).findings

    assert audited(selection.skipped) == audited(frozenset())
    assert audited(selection.skipped), rule.id


@pytest.mark.parametrize("select", ["T", "D", "B5,C", "P1", "A"])
def test_leaving_checkers_out_changes_no_report(corpus: list[str], select: str,
                                                 monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert Selection(select=parse_selectors([select], "--select")).skipped
    skipped = _audit("--select", select, *corpus)
    monkeypatch.setattr(Selection, "skipped", property(lambda self: frozenset()))
    assert _audit("--select", select, *corpus) == skipped
