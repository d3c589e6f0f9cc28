"""The command line: formats, exit codes, colour, and no traceback on any input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import main
from tests.helpers import (
    ACP,
    REPO,
    TODO_WRITE,
    corpus_file,
    corpus_root,
    dump,
    index_of,
    records,
    replay_in_a_process,
)


def run(*args: str, input: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.output


def _log(tmp_path: Path, recs: list, name: str = "session.jsonl") -> str:  # type: ignore[type-arg]
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dump(recs))
    return str(path)


def test_clean_log_exits_zero_with_a_summary() -> None:
    code, out = run("audit", str(corpus_file(TODO_WRITE)))
    assert code == 0
    assert out == ("\n1 file, 115 events: 1 ok, 0 with warnings only, 0 with errors, 0 unreadable\n"
                   "0 findings: 0 errors, 0 warnings, 0 policy\n")


def test_text_findings_are_under_their_file_one_per_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recs = records(TODO_WRITE)
    del recs[0]["delegationDepth"]
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][2]["status"] = "done"
    _log(tmp_path / "logs", recs)
    monkeypatch.chdir(tmp_path)
    code, out = run("audit", "--no-color", str(tmp_path / "logs"))
    assert code == 1
    assert out.splitlines()[:3] == [
        "logs/session.jsonl (115 events; 2 errors)",
        "  line 1: A4 error: today's harness refuses this session header: it has no \"delegationDepth\" field "
        "(logs written before the delegation depth was recorded lack it)",
        '  line 21: T5 error: a todo/write status must be pending, in_progress or completed: todos[2] has "done"',
    ]
    assert "\x1b[" not in out


def test_json_format_has_the_documented_schema(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    path = _log(tmp_path, recs)
    code, out = run("audit", "--format", "json", "--policy", "single", path)
    assert code == 0  # policy findings do not fail by default
    doc = json.loads(out)
    assert doc == {
        "files": [{
            "path": path, "status": "findings", "events": 115,
            "findings": [{
                "rule": "P1", "severity": "policy", "line": 21, "seq": 98, "type": "todo/write",
                "message": '2 todo items are in_progress ("read the code", "watch the background build"): a '
                           "deployment whose todo tool sets allowParallelInProgress=false would have refused this "
                           "call",
            }],
        }],
        "passed_over": [],
        "summary": {"files": 1, "ok": 0, "failed": 0, "events": 115, "errors": 0, "warnings": 0, "policy": 1},
    }
    code, _ = run("audit", "--format", "json", "--policy", "single", "--fail-on", "policy", path)
    assert code == 1


def test_github_annotations(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][0]["content"] = " read the code"
    path = _log(tmp_path, recs)
    code, out = run("audit", "--format", "github", path)
    assert code == 1
    assert out.splitlines() == [
        f"::error file={path},line=21,title=T3 error::every todo/write item needs non-empty, already trimmed "
        'content: todos[0] has leading or trailing whitespace in " read the code"'
    ]


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    assert run("audit", str(tmp_path / "missing.jsonl"))[0] == 2
    assert run("audit", "--bogus", str(corpus_file(TODO_WRITE)))[0] == 2
    assert run("audit")[0] == 2
    assert run("audit", "--format", "xml", str(corpus_file(TODO_WRITE)))[0] == 2
    code, out = run("audit", "--format", "json", "--statistics", str(corpus_file(TODO_WRITE)))
    assert code == 2
    assert "--no-fold, --statistics and --files-with-findings shape the text report, not --format json" in out
    (tmp_path / "empty").mkdir()
    code, out = run("audit", str(tmp_path / "empty"))
    assert code == 2 and "no session logs found" in out


def test_stdin_is_read_with_dash() -> None:
    data = corpus_file(TODO_WRITE).read_bytes()
    code, out = run("audit", "--format", "json", "-", input=data)
    assert code == 0
    assert json.loads(out)["files"][0]["path"] == "<stdin>"
    code, out = run("plan", "-", input=data)
    assert code == 0 and json.loads(out)[0]["content"] == "read the code"


def test_plan_command(tmp_path: Path) -> None:
    code, out = run("plan", str(corpus_file(TODO_WRITE)))
    assert (code, out) == (0, '[{"content":"read the code","status":"in_progress"},{"content":"watch the '
                              'background build","status":"in_progress"},{"content":"write the fix",'
                              '"status":"pending"}]\n')
    recs = records(TODO_WRITE)
    recs.append({"type": "turn/start", "seq": 115, "time": 0, "data": {"turn": 2}})
    path = _log(tmp_path, recs)
    assert run("plan", path) == (0, "null\n")
    assert run("plan", "--at", "97", path) == (0, "null\n")
    assert run("plan", "--at", "98", path)[1].startswith('[{"content":"read the code"')
    assert run("plan", "--at", "0", path) == (0, "null\n")
    assert run("plan", "--at", "115", path) == (0, "null\n")
    for outside in ("-3", "116", "99999"):
        code, out = run("plan", "--at", outside, path)
        assert code == 2
        assert f"Invalid value for --at: seq {outside} is outside the log: this log's events have seqs 0 to 115" in out
    header_only = _log(tmp_path / "header-only", recs[:1])
    code, out = run("plan", "--at", "0", header_only)
    assert code == 2 and "seq 0 is outside the log: the log has no events" in out
    assert run("plan", str(tmp_path)) == (0, "null\n")  # a folder holding session.jsonl, like render
    (tmp_path / "empty").mkdir()
    assert run("plan", str(tmp_path / "empty"))[0] == 2


def _subprocess(args: list[str], env: dict[str, str] | None = None, input: bytes | None = None
                ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "replay", *args], capture_output=True, input=input,
                          env={**os.environ, **(env or {})}, cwd=REPO, timeout=120)


def test_no_color_env_and_non_tty_never_colour(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    del recs[0]["delegationDepth"]
    path = _log(tmp_path, recs)
    proc = _subprocess(["audit", path], env={"NO_COLOR": "1"})
    assert proc.returncode == 1 and b"\x1b[" not in proc.stdout


def _on_tty(argv: list[str], env: dict[str, str] | None = None, stdout_too: bool = True) -> tuple[int, bytes]:
    """Run replay with stderr (and stdout) on a pseudo-terminal; return its status and what it printed."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "replay", *argv],
                            stdout=slave if stdout_too else subprocess.DEVNULL, stderr=slave, cwd=REPO,
                            env={**{k: v for k, v in os.environ.items() if k != "NO_COLOR"}, **(env or {})})
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    code = proc.wait(timeout=60)
    os.close(master)
    return code, b"".join(chunks)


def test_colour_on_a_terminal_unless_no_color(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    del recs[0]["delegationDepth"]
    path = _log(tmp_path, recs)
    assert b"\x1b[31merror\x1b[0m" in _on_tty(["audit", path])[1]
    assert b"\x1b[" not in _on_tty(["audit", path], {"NO_COLOR": ""})[1]


def test_progress_bar_on_a_terminal_for_many_files() -> None:
    root = corpus_root() / ACP
    if not root.exists():
        pytest.skip(f"corpus folder {root} is absent (set REPLAY_CORPUS)")
    code, printed = _on_tty(["audit", str(root)], stdout_too=False)
    assert code == 0 and b"auditing" in printed


_HEAD = b'{"type":"session","version":0,"id":"x","createdAt":0,"delegationDepth":0}\n'
HOSTILE: dict[str, tuple[bytes, int, list[tuple[str, str]]]] = {
    # name: (bytes, audit exit code, [(rule, severity)])
    "binary garbage": (bytes(range(256)) * 64, 1, [("A2", "error")]),
    "invalid utf-8 header": (b'{"type":"session","id":"\xff\xfe"}\n', 1,
                             [("A4", "error"), ("A4", "error"), ("A4", "error")]),
    "empty": (b"", 1, [("A1", "error")]),
    "only newlines": (b"\n\n\n", 1, [("A1", "error")]),
    # Damage with no turn/end after it is a torn tail the harness repairs: a warning.
    "deeply nested": (_HEAD + b'{"type":"x","seq":0,"data":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", 0,
                      [("A6", "warning")]),
    "deeply nested, then a turn": (_HEAD + b"[" * 100_000 + b"\n"
                                   + b'{"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"reason":'
                                   + b'{"kind":"completed"}}}\n', 1, [("A6", "error"), ("D4", "error")]),
    "json scalar header": (b"5\n", 1, [("A4", "error")]),
    "null event": (_HEAD + b"null\n", 0, [("A6", "warning")]),
    "huge numbers": (b'{"type":"session","version":0,"id":"x","createdAt":1e999,"delegationDepth":'
                     + b"9" * 400 + b"}\n", 1, [("A4", "error"), ("A4", "error")]),
    "zstd magic then junk": (b"\x28\xb5\x2f\xfd" + b"\xff" * 100, 1, [("A9", "error")]),
}


NO_HEADER = {"binary garbage", "empty", "only newlines", "json scalar header", "zstd magic then junk"}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_never_produces_a_traceback(tmp_path: Path, name: str) -> None:
    data, exit_code, expected = HOSTILE[name]
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    formats = ("text", "json", "github")
    *audits, plan = replay_in_a_process(*(["audit", "--format", fmt, str(path)] for fmt in formats),
                                        ["plan", str(path)])
    for fmt, run in zip(formats, audits, strict=True):
        assert run.traceback is None, (fmt, run.traceback)
        assert run.code == exit_code, (fmt, run.stdout, run.stderr)
        if fmt == "json":
            found = json.loads(run.stdout)["files"][0]["findings"]
            assert [(f["rule"], f["severity"]) for f in found] == expected
    assert plan.traceback is None, plan.traceback
    # plan needs a header object; then it prints the plan (null here).
    assert (plan.code, plan.stdout) == ((1, b"") if name in NO_HEADER else (0, b"null\n"))


def test_a_100mb_line_is_read_without_a_traceback(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    path = tmp_path / "session.jsonl"
    with open(path, "wb") as fh:
        fh.write(dump(recs[:1]))
        fh.write(b'{"type":"session/title","seq":0,"time":0,"data":{"title":"' + b"x" * (100 << 20) + b'"}}\n')
    proc = _subprocess(["audit", "--format", "json", str(path)])
    assert b"Traceback" not in proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"]["events"] == 1 and doc["summary"]["errors"] == 0
    proc = _subprocess(["audit", "--format", "json", "--max-record-bytes", "1000000", str(path)])
    assert [f["rule"] for f in json.loads(proc.stdout)["files"][0]["findings"]] == ["LIMIT"]


def test_rules_lists_the_registry() -> None:
    code, out = run("rules")
    assert code == 0
    lines = out.splitlines()
    t3 = "T3       invariant todo    every todo item's content is non-empty and already trimmed (JavaScript's trim)"
    assert t3 in lines
    assert [line.split()[0] for line in lines[:4]] == ["INTERNAL", "IO", "LIMIT", "A1"]
    assert lines[-2:] == ["", "`replay rules ID` explains a rule, with an example of a bad record."]
    code, out = run("rules", "--format", "json")
    assert {r["rule"] for r in json.loads(out)} >= {"A1", "D17", "T5", "P1"}


def test_rules_explains_a_rule_with_its_example() -> None:
    code, out = run("rules", "t5")
    assert code == 0
    assert out.splitlines()[:2] == ["T5: every todo item's status is pending, in_progress or completed",
                                    "(invariant rule of the todo domain)"]
    assert ('  > 3  {"type":"todo/write","seq":1,"time":0,"data":{"todos":[{"content":"fix","status":"done"}]}}'
            in out.splitlines())
    assert ("The audit says: line 3: T5 error: a todo/write status must be pending, in_progress or completed: "
            'todos[0] has "done"') in out.splitlines()
    assert "What today's harness does:" in out
    code, out = run("rules", "--format", "json", "D9", "T5")
    assert [(r["rule"], r["bad_line"]) for r in json.loads(out)] == [("D9", 2), ("T5", 3)]
    code, out = run("rules", "X42")
    assert code == 2 and "'X42' is not a rule id" in out


def test_schema_command_prints_the_tool_entry() -> None:
    code, out = run("schema", "todo_write", "--policy", "single")
    assert code == 0
    entry = json.loads(out)
    assert list(entry) == ["name", "description", "parameters"]
    assert "Keep AT MOST ONE todo `in_progress`" in entry["description"]
    assert out.startswith('{\n  "name": "todo_write",')
    assert run("schema", "todo_write")[0] == 2  # the policy is a choice someone makes
    assert run("schema", "bash", "--policy", "single")[0] == 2


def test_render_web_and_stdio_from_a_log() -> None:
    path = str(corpus_file(TODO_WRITE))
    code, out = run("render", "web", path)
    assert code == 0 and out.splitlines()[:4] == [
        "row=todo_write", "title=Update to-do list", "summary=0/3 completed · read the code", "suffix=+1"]
    code, out = run("render", "web", "--locale", "zh", path)
    assert out.splitlines()[1] == "title=更新任务清单"
    code, out = run("render", "stdio", path)
    assert code == 0 and "\x1b[" not in out and out.endswith("  Done.\nDONE\n> ")
    code, out = run("render", "web", "--html", path)
    assert out.startswith("<!doctype html>\n<html lang=\"en\">") and "+1" in out


def test_render_acp_live_load_and_normalized(tmp_path: Path) -> None:
    path = str(corpus_file(TODO_WRITE))
    live = run("render", "acp", "--normalize", path)[1].splitlines()
    load = run("render", "acp", "--load", "--normalize", path)[1].splitlines()
    assert len(load) == len(live) + 2  # the prompt and the injected runtime context as user chunks
    assert all('"sessionId":"{{sessionId}}"' in line for line in live)
    plans = [json.loads(line)["params"]["update"] for line in live if '"sessionUpdate":"plan"' in line]
    assert plans == [{"sessionUpdate": "plan", "entries": [
        {"content": "read the code", "priority": "medium", "status": "in_progress"},
        {"content": "watch the background build", "priority": "medium", "status": "in_progress"},
        {"content": "write the fix", "priority": "medium", "status": "pending"}]}]
    out_file = tmp_path / "stream.jsonl"
    assert run("render", "acp", path, "-o", str(out_file)) == (0, "")
    assert out_file.read_text().count("\n") == len(live)


def test_render_a_harness_scenario_folder_takes_the_terminal_capability() -> None:
    folder = corpus_root() / "acp-2026-07-23" / "fs-terminal-card"
    if not folder.exists():
        pytest.skip(f"corpus folder {folder} is absent (set REPLAY_CORPUS)")
    lines = run("render", "acp", "--normalize", str(folder))[1].splitlines()
    golden = [line for line in (folder / "stdout.expected.jsonl").read_text().splitlines()
              if '"method":"session/update"' in line and "available_commands_update" not in line
              and "current_mode_update" not in line]
    assert lines == golden
    off = run("render", "acp", "--normalize", "--no-terminal-output", str(folder))[1].splitlines()
    assert off != golden


def test_conformance_command() -> None:
    roots = [corpus_root() / "acp-2026-07-23", corpus_root() / "acp-2026-06-29"]
    if not all(r.exists() for r in roots):
        pytest.skip("the ACP corpus folders are absent (set REPLAY_CORPUS)")
    code, out = run("conformance", *map(str, roots))
    assert code == 0 and out.splitlines()[-1] == (
        "58/58 scenarios byte-exact (live 58/58; load 58/58; profile 2026-07: 58); without an override 50/50; "
        "with replay.override.json 8: 8/8 byte-exact derived by a keyless run with the override as the model; "
        "from the log 8/8")
    doc = json.loads(run("conformance", "--format", "json", str(roots[1]))[1])
    assert len(doc["scenarios"]) == 10 and {s["profile"] for s in doc["scenarios"]} == {"2026-07"}
    # Forced to the other generation, the editor-projection corpus no longer matches: exit 1.
    code, out = run("conformance", "--profile", "2026-08", str(roots[1]))
    assert code == 1 and out.splitlines()[-1].startswith("3/") and "profile 2026-08: 10" in out.splitlines()[-1]


def test_conformance_of_todays_agent_picks_the_2026_08_profile() -> None:
    root = corpus_root() / "sessions-2026-08-20" / "examples_acp-agent_tests_snapshots"
    if not root.exists():
        pytest.skip("the 2026-08 corpus is absent (set REPLAY_CORPUS)")
    code, out = run("conformance", str(root))
    assert code == 0 and out.splitlines()[-1] == (
        "84/84 scenarios byte-exact (live 84/84; profile 2026-08: 84); without an override 72/72; "
        "with replay.override.json 12: 12/12 byte-exact derived by a keyless run with the override as the model; "
        "from the log 12/12")


def test_render_acp_profiles(tmp_path: Path) -> None:
    folder = corpus_root() / "sessions-2026-08-20" / "examples_acp-agent_tests_snapshots" / "escalation-approved"
    if not folder.exists():
        pytest.skip("the 2026-08 corpus is absent (set REPLAY_CORPUS)")
    auto = run("render", "acp", "--normalize", "--profile", "auto", str(folder))[1].splitlines()
    golden = [line for line in (folder / "stdout.expected.jsonl").read_text().splitlines()
              if '"method":"session/update"' in line or '"method":"session/request_permission"' in line]
    assert auto == golden == run("render", "acp", "--normalize", "--profile", "2026-08", str(folder))[1].splitlines()
    editor = run("render", "acp", "--normalize", str(folder))[1].splitlines()
    assert len(editor) > 40 and '"sessionUpdate":"tool_call"' in "".join(editor)
    code, out = run("render", "acp", "--load", "--profile", "2026-08", str(folder))
    assert code == 2 and "the 2026-08 ACP agent has no session/load; render it --live" in out


def test_view_writes_a_page_and_prints_its_path() -> None:
    code, out = run("view", "--locale", "zh", str(corpus_file(TODO_WRITE)))
    page = Path(out.strip())
    try:
        assert code == 0 and page.name.startswith("replay-view-") and page.suffix == ".html"
        html = page.read_text(encoding="utf-8")
        assert html.startswith("<!doctype html>") and 'lang="zh"' in html and "更新任务清单" in html
    finally:
        page.unlink(missing_ok=True)


def test_audit_junit_report(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    recs[index_of(recs, "todo/write")]["data"]["todos"][2]["status"] = "done"
    bad = _log(tmp_path, recs, "bad.jsonl")
    good = str(corpus_file(TODO_WRITE))
    report = tmp_path / "audit.xml"
    code, _ = run("audit", "--policy", "single", "--junit", str(report), bad, good)
    assert code == 1
    text = report.read_text()
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n'
                           '<testsuites name="replay audit" tests="3" failures="1" errors="0">')
    assert f'<testsuite name="{bad}" tests="2" failures="1" errors="0">' in text
    assert '<testcase classname="' + bad + '" name="T5">' in text and 'message="1 T5 finding"' in text
    assert '<testcase classname="' + bad + '" name="P1" />' in text  # policy findings do not fail by default
    assert f'<testsuite name="{good}" tests="1" failures="0" errors="0">' in text


def test_ctrl_c_before_the_work_starts_exits_130(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ctrl-C while the paths are still being looked up (a slow URL, a long listing for
    the progress bar) is exit 130 like Ctrl-C during the work, not click's "Aborted!"
    and exit 1 (which reads as "findings")."""
    def interrupted(path: str) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr("replay.log.discover.path_exists", interrupted)
    result = CliRunner().invoke(main, ["audit", _log(tmp_path, records(TODO_WRITE))])
    assert (result.exit_code, result.output) == (130, "replay audit: interrupted\n")


@pytest.mark.parametrize("command", [["view"], ["render", "acp"], ["render", "stdio"], ["render", "web"],
                                     ["render", "web", "--html"], ["plan"]])
@pytest.mark.parametrize(("relative", "looks"), [
    ("acp-2026-07-23/todo-plan/stdout.expected.jsonl",
     "an ACP transcript (JSON-RPC messages, such as a harness's stdout.expected.jsonl or what `replay render acp` "
     "writes), not a session log: give the session.jsonl it was rendered from"),
    ("acp-2026-07-23/todo-plan/session.jsonl",
     "a session log's events without its session header (the log's first line is missing): give the whole log"),
])
def test_a_file_that_is_not_a_session_log_is_named_for_what_it_looks_like(tmp_path: Path, command: list[str],
                                                                          relative: str, looks: str) -> None:
    """An ACP transcript or a log cut at its head rendered nothing and exited 0 (an
    empty page, ``> ``, ``null``): now exit 1, saying what the file looks like."""
    path = corpus_file(relative)
    if relative.endswith("session.jsonl"):
        headless = tmp_path / "headless.jsonl"
        headless.write_bytes(path.read_bytes().split(b"\n", 1)[1])
        path = headless
    result = CliRunner().invoke(main, [*command, str(path)])
    assert (result.exit_code, result.output) == (1, f"{path}: it looks like {looks}\n")


# -- replay diff, help, completion --------------------------------------------------------


def test_diff_of_two_logs_is_the_goldens_semantic_diff(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    a = _log(tmp_path, recs, "a/session.jsonl")
    recs[i]["data"]["todos"][0]["status"] = "completed"
    b = _log(tmp_path, recs, "b/session.jsonl")
    result = CliRunner().invoke(main, ["diff", "--no-color", a, b])
    assert result.exit_code == 1
    assert result.stdout == (f'{a}:{i + 1}: event {i + 1} todo/write.data.todos[0].status: "in_progress" → '
                             f'"completed"\n{a} and {b} differ\n')
    document = json.loads(CliRunner().invoke(main, ["diff", "--format", "json", a, b]).stdout)
    assert document == {"a": a, "b": b, "same": False, "changes": [
        {"line": i + 1, "text": f'event {i + 1} todo/write.data.todos[0].status: "in_progress" → "completed"',
         "body": []}]}
    assert run("diff", a, a) == (0, f"{a} and {a} hold the same content\n")


def test_diff_normalize_compares_a_log_with_its_re_persisted_golden(tmp_path: Path) -> None:
    """Times differ between a harness log and the golden a refresh writes; with
    --normalize they are zeroed on both sides, as goldens have them."""
    recs = records(TODO_WRITE)
    a = _log(tmp_path, recs, "a.jsonl")
    zeroed = [{**r, "createdAt": 0} if r.get("type") == "session" else
              {**r, "time0": 0, "data": {**r["data"], "dt": [0] * len(r["data"]["dt"])}} if "seq0" in r else
              {**r, "time": 0} for r in recs]
    b = _log(tmp_path, zeroed, "b.jsonl")
    assert run("diff", a, b)[0] == 1
    assert run("diff", "--normalize", a, b) == (0, f"{a} and {b} hold the same content\n")


def test_diff_of_a_folder_or_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    code, out = run("diff", str(tmp_path), str(tmp_path))
    assert code == 2 and "Invalid value for 'A'" in out
    code, out = run("diff", str(tmp_path / "none.jsonl"), str(tmp_path / "none.jsonl"))
    assert code == 2 and f"Invalid value for 'A': File '{tmp_path / 'none.jsonl'}' does not exist." in out


def test_the_command_summaries_fit_and_come_in_the_order_they_are_used() -> None:
    code, out = run("--help")
    assert code == 0
    commands = out.split("Commands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in commands] == [
        "audit", "check", "refresh", "review", "accept", "reject", "render", "view", "export", "conformance", "schema",
        "new", "rules", "diff", "plan", "completion"]
    assert not any(line.rstrip().endswith("...") or "…" in line for line in commands)


def test_the_old_name_of_max_log_bytes_is_hidden_and_said_deprecated(tmp_path: Path) -> None:
    code, out = run("audit", "--help")
    assert code == 0 and "--max-log-bytes" in out and "--max-decompressed-bytes" not in out
    result = CliRunner().invoke(main, ["audit", "--max-decompressed-bytes", "10", _log(tmp_path, records(TODO_WRITE))])
    assert result.exit_code == 1 and "LIMIT" in result.stdout
    assert result.stderr == "replay: --max-decompressed-bytes is deprecated: it is --max-log-bytes now\n"


@pytest.mark.parametrize(("shell", "first"), [("bash", "_replay_completion() {"), ("zsh", "#compdef replay"),
                                              ("fish", "function _replay_completion;")])
def test_completion_prints_the_script_of_each_shell(shell: str, first: str) -> None:
    code, out = run("completion", shell)
    assert code == 0 and out.startswith(first) and "_REPLAY_COMPLETE" in out


@pytest.mark.parametrize("when", ["during the run", "at its end"])
def test_a_ctrl_c_whose_exception_is_lost_still_exits_130_with_no_report(monkeypatch: pytest.MonkeyPatch,
                                                                        when: str) -> None:
    """A SIGINT whose ``KeyboardInterrupt`` is swallowed on its way (in a finalizer, or
    by library code that catches everything) still ends the command: exit 130, one
    line, and no more of the report, whether it came while the logs were read or after."""
    import signal
    import time

    from replay.check.audit import Audit

    real = Audit.run

    def swallowed() -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)  # the handler runs here, at once; the sleep is a hang guard
            raise AssertionError("no KeyboardInterrupt")
        except KeyboardInterrupt:
            pass

    def run(self: Audit, *args: object, **kwargs: object) -> object:
        if when == "during the run":
            swallowed()
        result = real(self, *args, **kwargs)  # type: ignore[arg-type]
        if when == "at its end":
            swallowed()
        return result

    monkeypatch.setattr(Audit, "run", run)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, as in `replay`
    try:
        result = CliRunner().invoke(main, ["audit", "--format", "json", str(corpus_file(TODO_WRITE))])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back after the command
    finally:
        signal.signal(signal.SIGINT, previous)
    # The JSON report is written as the logs are audited: interrupted at its end, the entries written
    # stay and the rest (the summary) is not written.
    written = "" if when == "during the run" else result.stdout
    assert '"summary"' not in written
    if written:
        assert written.startswith('{\n  "files": [\n    {\n      "path": ') and written.endswith("\n    }")
    assert (result.exit_code, result.stdout, result.stderr) == (130, written, "replay audit: interrupted\n")


@pytest.mark.parametrize("closed", [(1,), (2,), (0, 1, 2)])
@pytest.mark.parametrize("argv", [["rules"], ["audit", "--format", "json", "--no-cache", "LOG"], ["audit", "-"]])
def test_a_command_started_with_a_standard_stream_closed_writes_to_nothing(closed: tuple[int, ...],
                                                                         argv: list[str]) -> None:
    """``replay … >&-``: the stream is /dev/null (as ``> /dev/null``): the exit status is
    the command's, and no traceback."""
    args = [str(corpus_file(TODO_WRITE)) if arg == "LOG" else arg for arg in argv]
    command = [sys.executable, "-m", "replay", *args]
    want = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, cwd=REPO, timeout=120)

    def close() -> None:
        for fd in closed:
            os.close(fd)

    got = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, cwd=REPO, timeout=120,
                         preexec_fn=close)
    assert got.returncode == want.returncode
    assert got.stderr == (b"" if 2 in closed else want.stderr)
