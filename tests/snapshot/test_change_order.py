"""Changes listed in the order of their position, and one edit of a chunked text one line
(issue 27, row 8): the tutorial's rename, then ``replay check``."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.goldens.values import value_changes
from tests.helpers import replay_here, scratch_repo

RENAME = ('"watch the background build"', '"watch the nightly build"')


def test_the_tutorials_rename_is_one_line_per_value_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = scratch_repo(tmp_path, monkeypatch)
    script = root / "scenarios" / "parallel-plan-two" / "scenario.json"
    script.write_text(script.read_text(encoding="utf-8").replace(*RENAME), encoding="utf-8")
    run = replay_here("check", "parallel-plan-two", "--jobs", "1")
    assert run.code == 1
    golden = "goldens/parallel-plan-two/session.expected.jsonl"
    lines = [
        line.strip()
        for line in run.stdout.decode().splitlines()
        if line.strip().startswith(golden + ":") and not line.strip().endswith(": differs")
    ]
    assert lines == [
        f"{golden}:9: event 9 tool-call-chunks.data.args[6–14] joined: "
        r'"\"watch the background build\",\"status\":\"in_progress\"},{\"conte…" → '
        r'"\"watch the nightly build\",\"status\":\"in_progress\"},{\"content\"…"',
        f"{golden}:11: event 11 assistant/chunk.data.chunk.block.arguments: "
        r'"…},{\"content\":\"watch the background build\",\"status\":\"in_progr…" → '
        r'"…},{\"content\":\"watch the nightly build\",\"status\":\"in_progress…"',
        f"{golden}:14: event 14 assistant/message.data.message.content[1].arguments: "
        r'"…},{\"content\":\"watch the background build\",\"status\":\"in_progr…" → '
        r'"…},{\"content\":\"watch the nightly build\",\"status\":\"in_progress…"',
        f"{golden}:15: event 15 tool/call.data.arguments: "
        r'"…},{\"content\":\"watch the background build\",\"status\":\"in_progr…" → '
        r'"…},{\"content\":\"watch the nightly build\",\"status\":\"in_progress…"',
        f"{golden}:16: event 16 todo/write.data.todos[1].content: "
        '"watch the background build" → "watch the nightly build"',
    ]


def test_changes_come_in_the_natural_order_of_their_positions() -> None:
    old = {"items": [{"n": i} for i in range(12)]}
    new = {"items": [{"n": i + 100 if i in (2, 10) else i} for i in range(12)]}
    assert value_changes(old, new) == ["items[2].n: 2 → 102", "items[10].n: 10 → 110"]


def test_pieces_of_one_text_changed_apart_are_apart_and_items_added_alone_stay_added() -> None:
    assert value_changes(["ab", "cd", "ef", "gh"], ["xb", "cd", "ef", "gx"]) == ['[0]: "ab" → "xb"', '[3]: "gh" → "gx"']
    assert value_changes(["ab", "cd"], ["ab", "cd", "ef", "gh"]) == ['[2]: added "ef"', '[3]: added "gh"']
    assert value_changes(["ab", "cd", "ef"], ["ab", "xy", "zw"]) == ['[1–2] joined: "cdef" → "xyzw"']
