"""The text report over many logs: the folded text of a small fixture, pinned
exactly; and over the corpus, every finding of the JSON report is counted in the
text, and the text is at most a third of what it was (591 lines before folding)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import main
from tests.helpers import TODO_WRITE, corpus_file, corpus_root, dump, index_of, records

CORPUS_FOLDERS = ("acp-2026-06-29", "acp-2026-07-23", "sessions-2026-08-20")


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--no-cache"])  # compared runs: each reads every log
    return result.exit_code, result.output


@pytest.fixture
def fixture_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Five real logs: two copies of a 2026-06 log, a 2026-07 one, a todo log with two
    todo problems in one record, and a clean one; the working directory above them."""
    logs = tmp_path / "logs"
    for name, source in (("old-1", "acp-2026-06-29/cancel"), ("old-2", "acp-2026-06-29/cancel"),
                         ("old-3", "acp-2026-07-23/cancel")):
        (logs / name).mkdir(parents=True)
        shutil.copy(corpus_file(f"{source}/session.jsonl"), logs / name / "session.jsonl")
    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][0]["content"] = "read the code "
    recs[i]["data"]["todos"][2]["status"] = "done"
    (logs / "todo").mkdir()
    (logs / "todo" / "session.jsonl").write_bytes(dump(recs))
    (logs / "clean").mkdir()
    shutil.copy(corpus_file(TODO_WRITE), logs / "clean" / "session.jsonl")
    monkeypatch.chdir(tmp_path)
    return logs


FOLDED = """\
logs/old-1/session.jsonl (7 events; 1 error, 2 warnings; 2 of them under "Found in 3 or more files" below)
  line 1: A4 error: today's harness refuses this session header: it has no "delegationDepth" field (logs written \
before the delegation depth was recorded lack it)
logs/old-2/session.jsonl (7 events; 1 error, 2 warnings; 2 of them under "Found in 3 or more files" below)
  line 1: A4 error: today's harness refuses this session header: it has no "delegationDepth" field (logs written \
before the delegation depth was recorded lack it)
logs/todo/session.jsonl (115 events; 2 errors)
  line 21: T3 error: every todo/write item needs non-empty, already trimmed content: todos[0] has leading or \
trailing whitespace in "read the code "
  line 21: T5 error: a todo/write status must be pending, in_progress or completed: todos[2] has "done"
logs/old-3/session.jsonl (9 events; 3 warnings; 2 of them under "Found in 3 or more files" below)
  line 10: B4 warning: turn/end has the 2026-06/07 reason "aborted": loading rewrites it as \
{"kind":"aborted","reason":{"kind":"legacy"}}

Found in 3 or more files
  B4 warning: turn/start has the 2026-06/07 "trigger" field: loading drops it
    3 findings in 3 files, first at:
      logs/old-1/session.jsonl:2
      logs/old-2/session.jsonl:2
      logs/old-3/session.jsonl:2
  B4 warning: user/message has the 2026-06/07 shape (no "id" or "role"): loading gives it a legacy id and the role \
"user"
    3 findings in 3 files, first at:
      logs/old-1/session.jsonl:3
      logs/old-2/session.jsonl:3
      logs/old-3/session.jsonl:3

5 files, 253 events: 1 ok, 1 with warnings only, 3 with errors, 0 unreadable
11 findings: 4 errors, 7 warnings, 0 policy

rule  severity  findings  files  what it checks
A4    error            2      2  the session header has the fields today's reader requires, with the right types
B4    warning          7      3  2026-06/07 shapes are migrated on load (warning), or refused when malformed (error)
T3    error            1      1  every todo item's content is non-empty and already trimmed (JavaScript's trim)
T5    error            1      1  every todo item's status is pending, in_progress or completed

`replay rules ID` explains a rule, with an example of a bad record.
"""


def test_the_folded_text_of_a_small_fixture(fixture_logs: Path) -> None:
    code, out = _run("audit", "logs")
    assert code == 1
    assert out == FOLDED


def test_no_fold_lists_every_finding_under_its_file(fixture_logs: Path) -> None:
    code, out = _run("audit", "--no-fold", "logs")
    assert code == 1
    lines = out.splitlines()
    assert lines[:4] == [
        "logs/old-1/session.jsonl (7 events; 1 error, 2 warnings)",
        "  line 1: A4 error: today's harness refuses this session header: it has no \"delegationDepth\" field (logs "
        "written before the delegation depth was recorded lack it)",
        "  line 2: B4 warning: turn/start has the 2026-06/07 \"trigger\" field: loading drops it",
        "  line 3: B4 warning: user/message has the 2026-06/07 shape (no \"id\" or \"role\"): loading gives it a "
        "legacy id and the role \"user\"",
    ]
    assert sum(1 for line in lines if line.startswith("  line ")) == 11
    assert "Found in 3 or more files" not in out
    assert out.endswith(FOLDED[FOLDED.index("\n5 files, 253 events"):])


def test_statistics_only(fixture_logs: Path) -> None:
    code, out = _run("audit", "--statistics", "logs")
    assert code == 1
    table = FOLDED[FOLDED.index("rule  severity"):FOLDED.index("\n\n`replay rules ID`")]
    assert out == (table + "\n\n5 files, 253 events: 1 ok, 1 with warnings only, 3 with errors, 0 unreadable\n"
                   "11 findings: 4 errors, 7 warnings, 0 policy\n")


_ENTRY = re.compile(r"^  (?:line \d+|lines (?P<lines>\d+(?:, \d+)*)(?: and (?P<last>\d+)(?P<more> more)?)?|no line"
                    r"|(?P<n>\d+) findings): (?P<rule>\w+) (?P<severity>error|warning|policy): ")
_FOLD = re.compile(r"^  (?P<rule>\w+) (?P<severity>error|warning|policy): ")
_FOLD_COUNT = re.compile(r"^    (?P<n>\d+) findings?(?: \(\d+ events\))? in \d+ files?, first at:$")


def text_counts(text: str) -> Counter[tuple[str, str]]:
    """The findings a text report accounts for, by rule and severity: one per listed
    line of an entry (plus its "and N more"), and a folded entry's count."""
    counts: Counter[tuple[str, str]] = Counter()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        entry = _ENTRY.match(line)
        if entry:
            if entry["n"]:
                n = int(entry["n"])
            elif entry["lines"]:
                n = len(entry["lines"].split(", "))
                if entry["last"]:
                    n += int(entry["last"]) if entry["more"] else 1
            else:
                n = 1
            counts[(entry["rule"], entry["severity"])] += n
            continue
        fold = _FOLD.match(line)
        if fold and i + 1 < len(lines) and (count := _FOLD_COUNT.match(lines[i + 1])):
            counts[(fold["rule"], fold["severity"])] += int(count["n"])
    return counts


def _corpus_paths() -> list[str]:
    paths = [corpus_root() / name for name in CORPUS_FOLDERS]
    missing = [p for p in paths if not p.exists()]
    if missing:
        pytest.skip(f"corpus folders {missing} are absent (set REPLAY_CORPUS to the shared corpus folder)")
    return [str(p) for p in paths]


@pytest.mark.slow
def test_every_json_finding_is_counted_in_the_folded_text_of_the_corpus() -> None:
    paths = _corpus_paths()
    _, document = _run("audit", "--format", "json", *paths)
    doc = json.loads(document)
    wanted = Counter((f["rule"], f["severity"]) for file in doc["files"] for f in file["findings"])
    assert sum(wanted.values()) == 385
    _, text = _run("audit", "--no-color", *paths)
    assert text_counts(text) == wanted
    # The summary says the same, and counts every file once.
    assert ("213 files, 22533 events: 120 ok, 46 with warnings only, 47 with errors, 0 unreadable\n"
            "385 findings: 102 errors, 283 warnings, 0 policy\n") in text
    # A third of the 591 lines the report had before folding, at most.
    assert len(text.splitlines()) <= 591 // 3
    _, unfolded = _run("audit", "--no-color", "--no-fold", *paths)
    assert text_counts(unfolded) == wanted


def test_the_fixture_text_accounts_for_every_finding(fixture_logs: Path) -> None:
    _, document = _run("audit", "--format", "json", "logs")
    wanted = Counter((f["rule"], f["severity"]) for file in json.loads(document)["files"] for f in file["findings"])
    assert text_counts(FOLDED) == wanted


def test_the_count_of_an_entry_is_what_its_lines_say() -> None:
    assert text_counts("  line 4: D9 error: x\n  lines 3, 4 and 9: D9 error: x\n"
                       "  lines 3, 4, 5 and 7 more: A7 error: x\n  2 findings: IO error: x\n") == Counter(
        {("D9", "error"): 4, ("A7", "error"): 10, ("IO", "error"): 2})


def test_every_failing_log_is_named_even_when_all_its_findings_are_folded(fixture_logs: Path) -> None:
    """Before, a log whose every kind of finding was folded had no heading: of 47 logs
    with errors the corpus text named 4. Now each failing log has its heading."""
    for name in ("old-4", "old-5"):
        shutil.copytree(fixture_logs / "old-1", fixture_logs / name)
    code, out = _run("audit", "logs")
    assert code == 1
    headings = [line.split(" (")[0] for line in out.splitlines() if line.startswith("logs/")]
    assert headings == ["logs/old-1/session.jsonl", "logs/old-2/session.jsonl", "logs/old-4/session.jsonl",
                        "logs/old-5/session.jsonl", "logs/todo/session.jsonl", "logs/old-3/session.jsonl"]
    assert 'logs/old-4/session.jsonl (7 events; 1 error, 2 warnings; all under "Found in 3 or more files" below)\n' \
        in out


def test_files_with_findings_prints_only_their_paths(fixture_logs: Path) -> None:
    code, out = _run("audit", "--files-with-findings", "logs")
    assert (code, out) == (1, "logs/old-1/session.jsonl\nlogs/old-2/session.jsonl\nlogs/old-3/session.jsonl\n"
                              "logs/todo/session.jsonl\n")
    assert _run("audit", "-l", "logs/clean") == (0, "")
    code, out = _run("audit", "-l", "--format", "json", "logs")
    assert code == 2 and "--files-with-findings shape the text report, not --format json" in out


def test_writing_a_baseline_prints_the_summary_only(fixture_logs: Path) -> None:
    result = CliRunner().invoke(main, ["audit", "--write-baseline", "base.json", "logs"])
    assert result.exit_code == 0
    assert result.stdout == ("5 files, 253 events: 1 ok, 1 with warnings only, 3 with errors, 0 unreadable\n"
                             "11 findings: 4 errors, 7 warnings, 0 policy\n")
    assert result.stderr == "replay audit: wrote a baseline of 11 findings to base.json\n"
