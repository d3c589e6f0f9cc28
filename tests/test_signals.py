"""Signals from the process's first instruction: SIGINT at any moment of any command,
its start-up and imports included, is exit 130 with one line; SIGTERM 143. The
moments are reached deterministically: ``replay.signals.PAUSE_AT_IMPORT`` makes the
command wait at its N-th import, where the signal is sent."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from replay.signals import PAUSE_AT_IMPORT
from tests.helpers import TODO_WRITE, corpus_file

SCRIPT = Path(sys.executable).with_name("replay")
"""The ``replay`` console script of the interpreter running the suite."""
IMPORTS = (1, 3, 8, 20, 50, 100, 160, 230, 300, 420)
"""The imports a command is stopped at (each makes 240 to 470), SIGINT and SIGTERM in turn."""
ONE_LINE = re.compile(r"replay( [a-z]+)?: (interrupted|terminated)\n")


def _default_signals() -> None:
    """SIGINT's default action in the command, as a shell gives it (a suite started in
    the background ignores SIGINT, and its children would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _launcher(how: str) -> list[str]:
    if how == "script":
        if not SCRIPT.exists():
            pytest.skip(f"no console script beside {sys.executable}")
        return [str(SCRIPT)]
    return [sys.executable, "-m", "replay"]


def _start(argv: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=tmp_path, preexec_fn=_default_signals)


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    log = str(corpus_file(TODO_WRITE))
    return {"audit": ["audit", "-"], "view": ["view", log, "-o", str(tmp_path / "site")],
            "render": ["render", "acp", log], "diff": ["diff", log, log], "check": ["check"]}


@pytest.mark.slow
@pytest.mark.parametrize(("command", "how"), [("audit", "script"), ("audit", "module"), ("view", "script"),
                                             ("render", "module"), ("diff", "script"), ("check", "module")])
def test_a_signal_at_any_import_of_the_start_up_is_one_line_and_128_plus_its_number(
        tmp_path: Path, how: str, command: str) -> None:
    """Each command stopped at its 1st, 3rd, 8th … import (the CLI's, click's, the
    command's own lazy imports): SIGINT then is exit 130 with one line (no traceback
    from the import), SIGTERM 143, on the console script and ``python -m replay``."""
    argv = _launcher(how) + _commands(tmp_path)[command]
    reached = 0
    for number, at in enumerate(IMPORTS):
        signum = (signal.SIGINT, signal.SIGTERM)[number % 2]
        env = {**os.environ, PAUSE_AT_IMPORT: str(at)}
        process = _start(argv, env, tmp_path)
        assert process.stderr is not None
        first = process.stderr.readline().decode()
        if not first.startswith("replay: paused at import"):  # the command made fewer imports: it ran
            process.communicate(timeout=120)
            continue
        reached += 1
        process.send_signal(signum)
        out, err = process.communicate(timeout=120)
        word = "interrupted" if signum == signal.SIGINT else "terminated"
        assert (process.returncode, out) == (128 + signum, b""), (at, first, err)
        assert ONE_LINE.fullmatch(err.decode()), (at, first, err)
        assert word in err.decode()
    assert reached >= 7  # the sweep reached the command's own imports, not only the CLI's


def test_a_signal_while_the_command_line_is_parsed_is_not_clicks_aborted(tmp_path: Path) -> None:
    """The first import the command line makes while it parses its options (the
    group's, before any command runs) is a moment like any other."""
    env = {**os.environ, PAUSE_AT_IMPORT: "1"}
    process = _start([sys.executable, "-m", "replay", "--help"], env, tmp_path)
    assert process.stderr is not None
    assert process.stderr.readline().decode() == "replay: paused at import 1 (replay.cli)\n"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert (process.returncode, out, err) == (130, b"", b"replay: interrupted\n")
