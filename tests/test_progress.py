"""The audit's progress bar counts logs, not every file named like one, and is cleared
when it is done (issue 27, row 7)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.helpers import corpus_file
from tests.test_cli import _on_tty

LOGS = ("multi-turn", "cancel", "error-finish", "fs-read", "fs-edit", "handshake")


def test_the_bar_counts_the_logs_and_is_cleared_at_the_end(tmp_path: Path) -> None:
    for name in LOGS:
        (tmp_path / name).mkdir()
        shutil.copy(corpus_file(f"acp-2026-07-23/{name}/session.jsonl"), tmp_path / name / "session.jsonl")
        # Two files named like logs that are not: the harness's ACP transcript, twice.
        transcript = corpus_file(f"acp-2026-07-23/{name}/stdout.expected.jsonl")
        shutil.copy(transcript, tmp_path / name / "stdout.expected.jsonl")
        shutil.copy(transcript, tmp_path / name / "other.jsonl")
    code, printed = _on_tty(["audit", str(tmp_path)], stdout_too=False)
    assert code == 0
    text = printed.decode()
    frames = re.findall(r"auditing  \[[#-]+\]\s+(\d+)%", text)
    assert frames[-1] == "100"
    assert [int(p) for p in frames] == sorted(int(p) for p in frames)
    assert text.endswith("\r\x1b[2K\x1b[?25h")  # the line cleared, the cursor shown: no bar is left
    assert len(set(frames)) == len(LOGS) + 1  # 0 %, then one step per log
