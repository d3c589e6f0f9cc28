"""A JSON report on a terminal escapes what the sanitizer escapes, with JSON's own
escapes (issue 32, row 11): ``replay diff A B --format json`` as ``audit --format
json`` does, the same document for a parser; off a terminal the bytes are as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import dump, records, replay_here
from tests.test_cli import _on_tty

HOSTILE = "evil \u202e\u009b31m"


def _logs(tmp_path: Path) -> tuple[str, str]:
    recs = records("acp-2026-07-23/multi-turn/session.jsonl")
    (tmp_path / "b.jsonl").write_bytes(dump(recs))
    recs[2]["data"]["content"][0]["text"] = HOSTILE
    (tmp_path / "a.jsonl").write_bytes(dump(recs))
    todo = records("sessions-2026-08-20/examples_acp-agent_tests_snapshots/todo-write/session.jsonl")
    write = next(r for r in todo if r["type"] == "todo/write")
    write["data"]["todos"][0]["content"] = " " + HOSTILE  # a T3 finding quotes it
    (tmp_path / "t.jsonl").write_bytes(dump(todo))
    return str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")


def _findings(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "summary"}


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def test_json_reports_on_a_terminal_escape_bidi_and_c1_controls(tmp_path: Path) -> None:
    a, b = _logs(tmp_path)
    for argv in (["diff", a, b, "--format", "json"], ["audit", str(tmp_path / "t.jsonl"), "--format", "json"]):
        code, printed = _on_tty(argv)
        assert code == 1
        text = printed.decode("utf-8")
        assert "\u202e" not in text and "\u009b" not in text, argv
        assert "\\u202e\\u009b31m" in text, argv
        off = replay_here(*argv)
        assert HOSTILE in off.stdout.decode("utf-8")  # for machines, as it was
        # The same document (an audit's summary may count what its cache held: left out).
        assert _findings(json.loads(text)) == _findings(json.loads(off.stdout))
        assert any(HOSTILE in s for s in _strings(json.loads(text)))
