"""Untrusted text reaches people only through the one sanitizer (``replay.style``):
terminal escapes, C1 and bidi controls and NUL from a log or a file name are shown
escaped in text reports, GitHub annotations, JUnit XML, messages on stderr, the HTML
page, and whatever a render writes to a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import main
from tests.helpers import REPO, TODO_WRITE, ascii_dump, index_of, records

EVIL = "\x1b]52;c;cHduZWQ=\x07\x1b]8;;https://x.invalid/\x1b\\\x1b[2J\x9b31m\x9d0;t\x9c\u202e\x00"
SHOWN = ("\\x1b]52;c;cHduZWQ=\\x07\\x1b]8;;https://x.invalid/\\x1b\\\\x1b[2J\\x9b31m\\x9d0;t\\x9c\\u202e"
         "\\x00")
IN_NAME = "\x1b[2J\x9b31m\x07\u202e"
"""What a file name can hold of it (no slash, no NUL)."""
IN_NAME_SHOWN = "\\x1b[2J\\x9b31m\\x07\\u202e"
CONTROL = set(map(chr, [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                        *range(0x2066, 0x206A)])) - {"\t", "\n"}


def _evil_log(folder: Path) -> Path:
    """A log whose todo status, todo content, title and tool output hold ``EVIL``, in a
    file whose name holds ``IN_NAME``."""
    recs = records(TODO_WRITE)
    todos = recs[index_of(recs, "todo/write")]["data"]["todos"]
    todos[0]["status"] = f"done{EVIL}"  # T5: an unknown status, quoted in the message
    todos[1]["content"] = f"watch {EVIL}"
    title = recs[index_of(recs, "session/title")]["data"]
    title["title"], title["source"] = f"title {EVIL}", {"kind": "user"}  # a title the page shows (a user's)
    result = recs[index_of(recs, "tool/result")]["data"]["message"]["content"][0]["content"][0]
    result["text"] = f"output {EVIL}"
    path = folder / f"log{IN_NAME}.jsonl"
    path.write_bytes(ascii_dump(recs))
    return path


def _clean(text: str) -> None:
    found = sorted(set(text) & CONTROL)
    assert not found, [hex(ord(c)) for c in found]


def test_reports_show_terminal_escapes_escaped(tmp_path: Path) -> None:
    path = _evil_log(tmp_path)
    shown_path = str(path).replace(IN_NAME, IN_NAME_SHOWN)
    runner = CliRunner()
    text = runner.invoke(main, ["audit", "--no-color", str(path)])
    assert text.exit_code == 1
    _clean(text.output)
    lines = text.output.splitlines()
    assert lines[0] == f"{shown_path} (115 events; 1 error)"
    assert lines[1].startswith('  line 21: T5 error: ') and 'has "done\\u001b]52;' in lines[1]
    github = runner.invoke(main, ["audit", "--format", "github", str(path)])
    _clean(github.output)
    assert all(line.startswith("::") for line in github.output.splitlines())
    junit = tmp_path / "junit.xml"
    runner.invoke(main, ["audit", "--junit", str(junit), str(path)])
    xml = junit.read_text(encoding="utf-8")
    _clean(xml)
    assert f'<testsuite name="{shown_path}"' in xml


def test_messages_on_stderr_show_escapes_escaped(tmp_path: Path) -> None:
    bad = tmp_path / f"not a log{IN_NAME}.jsonl"
    bad.write_bytes(b"garbage\n")
    for args in (["plan"], ["render", "stdio"], ["view"], ["render", "web", "--html", "-o", str(tmp_path / "p")]):
        result = CliRunner().invoke(main, [*args, str(bad)])
        assert result.exit_code == 1
        _clean(result.stderr)
        assert "not a readable session log" in result.stderr
    missing = CliRunner().invoke(main, ["audit", str(tmp_path / f"gone{IN_NAME}")])
    assert missing.exit_code == 2
    _clean(missing.stderr)


def test_the_page_shows_control_characters_escaped(tmp_path: Path) -> None:
    path = _evil_log(tmp_path)
    page = tmp_path / "page.html"
    result = CliRunner().invoke(main, ["render", "web", "--html", "-o", str(page), str(path)])
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    _clean(html)
    assert f"<title>title {SHOWN}</title>" in html
    assert f"output {SHOWN}</pre>" in html  # the tool row's OUT
    # The timeline's data (JSON in the page, shown by its script) carries the same text.
    assert '"watch ' + SHOWN.replace("\\", "\\\\") + '"' in html


def _on_tty(args: list[str]) -> tuple[int, bytes]:
    """The exit status of ``replay ARGS`` run with a terminal as its standard output,
    and what it wrote there."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "replay", *args], cwd=REPO, stdout=follower,
                            stderr=subprocess.DEVNULL, env={**os.environ, "NO_COLOR": "1"})
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    code = proc.wait(timeout=60)
    os.close(leader)
    return code, out


ACP_SHOWN = ("\\u001b]52;c;cHduZWQ=\\u0007\\u001b]8;;https://x.invalid/\\u001b\\\\\\u001b[2J\\x9b31m\\x9d0;t\\x9c"
             "\\u202e\\u0000")
"""``EVIL`` in ACP's JSON on a terminal: what JSON escapes (C0) as JSON escapes it, then
what JSON leaves as it is (C1, bidi) escaped by the sanitizer."""


@pytest.mark.parametrize("surface", ["acp", "web", "stdio"])
def test_a_render_to_a_terminal_shows_escapes_escaped(tmp_path: Path, surface: str) -> None:
    path = _evil_log(tmp_path)
    code, raw = _on_tty(["render", surface, str(path)])
    out = raw.decode("utf-8").replace("\r\n", "\n")
    assert out
    _clean(out)
    assert code == 0
    assert "\x1b]52" not in out
    lines = out.splitlines()
    if surface == "acp":
        assert "\\u001b]52;c;cHduZWQ=\\u0007" in out  # the OSC 52 sequence, escaped
        assert len(lines) == 32
        assert sum(f'"title":"title {ACP_SHOWN}"' in line for line in lines) == 1
        assert sum(f'"status":"done{ACP_SHOWN}"' in line for line in lines) == 1
        assert sum(f'"text":"output {ACP_SHOWN}"' in line for line in lines) == 1
    else:
        assert "\\x1b]52;c;cHduZWQ=\\x07" in out  # the OSC 52 sequence, escaped
    if surface == "web":
        assert lines == ["row=todo_write", "title=Update to-do list", "summary=0/3 completed · read the code",
                         "suffix=+1", "panel=1 in progress\u2002·\u20022 pending", f"item=done{SHOWN} read the code",
                         f"item=in_progress watch {SHOWN}", "item=pending write the fix"]
    if surface == "stdio":
        assert f"    [~] watch {SHOWN}" in lines
        assert f"  [tool result] output {SHOWN}" in lines
