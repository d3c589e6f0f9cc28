"""Values JSON allows and Python's codecs refuse: lone surrogates and integers of any
size. A log holding them audits, renders, plans and views: text outputs show U+FFFD
for a lone surrogate, JSON outputs keep it as a ``\\uXXXX`` escape, and integers are
written exactly (or, where the harness's JavaScript reads them as a double, as it does)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replay.cli import main
from tests.helpers import TODO_WRITE, ascii_dump, index_of, records

LONE = "\udfff"


def _hostile_strings(text: str) -> list[dict[str, Any]]:
    """The todo-write log with ``text`` in a todo's content, the user's text, the
    session title, the reasoning and the tool call's arguments."""
    recs = records(TODO_WRITE)
    recs[index_of(recs, "todo/write")]["data"]["todos"][0]["content"] = f"read {text} the code"
    recs[index_of(recs, "user/message")]["data"]["content"][0]["text"] = f"plan {text} it"
    recs[index_of(recs, "session/title")]["data"]["title"] = f"title {text}"
    row = next(r for r in recs if r.get("type") == "reasoning-chunks")
    row["data"]["texts"][1] = f" {text}user"
    message = recs[index_of(recs, "assistant/message")]["data"]["message"]
    for block in message["content"]:
        if block.get("type") == "reasoning":
            block["text"] = f"thinking {text}"
    call = recs[index_of(recs, "tool/call")]["data"]
    call["arguments"] = call["arguments"].replace("read the code", f"read {text} the code")
    return recs


def _invoke(*args: str) -> tuple[int, bytes, BaseException | None]:
    result = CliRunner().invoke(main, list(args))
    exception = None if isinstance(result.exception, SystemExit) else result.exception
    return result.exit_code, result.stdout_bytes, exception


def _outputs(path: Path, tmp: Path) -> dict[str, bytes]:
    """What every reading command prints (or writes) for the log at ``path``."""
    out: dict[str, bytes] = {}
    for name, args in {
        "render stdio": ["render", "stdio"],
        "render web": ["render", "web"],
        "render acp": ["render", "acp"],
        "render acp --load": ["render", "acp", "--load"],
        "plan": ["plan"],
        "audit": ["audit", "--no-color"],
        "audit json": ["audit", "--format", "json"],
        "audit github": ["audit", "--format", "github"],
    }.items():
        code, stdout, exc = _invoke(*args, str(path))
        assert exc is None, (name, exc)
        assert code in (0, 1), (name, code)
        stdout.decode("utf-8")  # valid UTF-8, strictly
        out[name] = stdout
    page = tmp / "page.html"
    code, _, exc = _invoke("render", "web", "--html", "-o", str(page), str(path))
    assert (code, exc) == (0, None)
    out["render web --html"] = page.read_bytes()
    code, stdout, exc = _invoke("view", str(path))
    assert (code, exc) == (0, None)
    viewed = Path(stdout.decode().strip())
    out["view"] = viewed.read_bytes()
    viewed.unlink()
    return out


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``view``'s page goes to the test's own folder."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_lone_surrogate_renders_as_the_replacement_character(in_tmp: Path) -> None:
    hostile = in_tmp / "hostile.jsonl"
    hostile.write_bytes(ascii_dump(_hostile_strings(LONE)))
    replaced = in_tmp / "replaced.jsonl"
    replaced.write_bytes(ascii_dump(_hostile_strings("\ufffd")))
    got = _outputs(hostile, in_tmp)
    want = _outputs(replaced, in_tmp)
    # Text and pages: exactly what a U+FFFD in its place gives (the page says so too).
    for name in ("render stdio", "render web", "render web --html", "view", "audit"):
        assert got[name] == want[name].replace(str(replaced).encode(), str(hostile).encode()), name
    assert "read \ufffd the code".encode() in got["render stdio"]
    assert "title \ufffd".encode() in got["view"]
    # JSON keeps the character, escaped as JSON.stringify escapes it.
    for name in ("render acp", "render acp --load"):
        assert got[name] == want[name].replace("\ufffd".encode(), b"\\udfff"), name
    plan = json.loads(got["plan"])
    assert plan[0] == {"content": f"read {LONE} the code", "status": "in_progress"}
    assert b"\\udfff" in got["plan"]


def test_a_lone_surrogate_in_a_file_name_is_shown_replaced(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    del recs[0]["delegationDepth"]
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "x\udcff.jsonl").write_bytes(ascii_dump(recs))  # the byte 0xff, as Python names it
    for fmt in ("text", "github", "json"):
        code, stdout, exc = _invoke("audit", "--format", fmt, str(folder))
        assert (code, exc) == (1, None), fmt
        text = stdout.decode("utf-8")
        assert ("x\ufffd.jsonl" in text) if fmt != "json" else ("x\\udcff.jsonl" in text), fmt


BIG = 10**25
"""Read as a double, like JavaScript reads it: 10000000000000000905969664."""
HUGE = 10**399
"""Beyond any double: a record holding it is read by the exact (slow) parser."""


def test_integers_of_any_size_survive_every_output(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    write = index_of(recs, "todo/write")
    recs[write]["data"]["todos"][1]["rank"] = -HUGE
    recs[write + 1]["seq"] = BIG  # a seq gap no 64-bit integer holds
    call = recs[index_of(recs, "tool/call")]["data"]
    call["arguments"] = call["arguments"].replace('"in_progress"}', '"in_progress", "n": ' + "9" * 400 + "}", 1)
    path = tmp_path / "session.jsonl"
    path.write_bytes(ascii_dump(recs))
    seq = int(float(BIG))
    code, stdout, exc = _invoke("audit", "--format", "json", str(path))
    assert (code, exc) == (1, None)
    found = json.loads(stdout)["files"][0]["findings"]
    assert next(f["seq"] for f in found if f["rule"] == "A7") == seq
    for fmt in ("text", "github"):
        code, stdout, exc = _invoke("audit", "--format", fmt, str(path))
        assert (code, exc) == (1, None)
        assert f"seq {seq} where".encode() in stdout
    junit = tmp_path / "junit.xml"
    code, _, exc = _invoke("audit", "--junit", str(junit), str(path))
    assert (code, exc) == (1, None)
    assert f"seq {seq} where".encode() in junit.read_bytes()
    code, stdout, exc = _invoke("plan", str(path))
    assert (code, exc) == (0, None)
    assert json.loads(stdout)[1] == {"content": "watch the background build", "status": "in_progress",
                                     "rank": -HUGE}
    assert f"-{HUGE}".encode() in stdout
    # JSON.parse reads a 400-digit integer as Infinity, which JSON.stringify writes as null.
    code, stdout, exc = _invoke("render", "acp", str(path))
    assert (code, exc) == (0, None)
    assert b'"n":null' in stdout
    code, stdout, exc = _invoke("render", "acp", "--load", str(path))
    assert (code, exc) == (0, None)
