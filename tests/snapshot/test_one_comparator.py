"""One comparator per artefact: the pytest plugin and ``replay check`` ask the producer
of a golden how it is compared, so the same changed golden gets the same diff lines
from both, whatever its content looks like (a one-record JSONL golden is still JSONL)."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from replay.cli import main
from replay.scenarios.artefacts import PRODUCERS
from tests.helpers import REPO

SCENARIO = "zero-todos"
ARTEFACTS = sorted(p.name for p in (REPO / "goldens" / SCENARIO).iterdir())

TEST_FILE = f'''
def test_golden(replay_scenario, replay_snapshot):
    import os
    name = os.environ["REPLAY_TEST_ARTEFACT"]
    assert replay_scenario("{SCENARIO}")[name] == replay_snapshot(name="{SCENARIO}/" + name)
'''


def _changed(name: str, data: bytes) -> bytes:
    """The golden changed so that its content could pass for another kind: a JSONL
    golden cut to one record (a JSON document), a JSON one given a key, text a line."""
    if name.endswith(".jsonl"):
        return data.splitlines(keepends=True)[1]
    if name.endswith(".json"):
        doc = json.loads(data)
        doc["added"] = [1, 2]
        return (json.dumps(doc, indent=2) + "\n").encode()
    lines = data.decode().splitlines(keepends=True)
    return "".join(["changed\n", *lines[1:]]).encode()


def _after(out: str, marker: str) -> list[str]:
    """The diff lines after ``marker``'s line, stripped of indentation (and of pytest's
    ``E`` prefix), up to the first line that is not part of them."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if marker in line) + 1
    found = []
    for line in lines[start:]:
        text = line.removeprefix("E").strip()
        if not text or text.startswith(("=", "FAILED", "___", "tests/")) or "snapshot" in text:
            break
        found.append(text)
    return found


def test_every_artefact_kind_is_a_producer_declaration() -> None:
    assert {p.compare.kind for p in PRODUCERS} == {"json", "jsonl", "text"}
    assert all(any(p.makes(name) for p in PRODUCERS) for name in ARTEFACTS)


@pytest.mark.parametrize("name", ARTEFACTS)
def test_the_plugin_and_check_give_the_same_diff_lines(name: str, pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    root = pytester.path
    shutil.copytree(REPO / "scenarios" / SCENARIO, root / "scenarios" / SCENARIO)
    shutil.copytree(REPO / "goldens" / SCENARIO, root / "goldens" / SCENARIO)
    golden = root / "goldens" / SCENARIO / name
    golden.write_bytes(_changed(name, golden.read_bytes()))
    (root / "tests").mkdir()
    (root / "tests" / "test_goldens.py").write_text(TEST_FILE)
    monkeypatch.chdir(root)
    monkeypatch.setenv("REPLAY_TEST_ARTEFACT", name)

    checked = CliRunner().invoke(main, ["check", f"{SCENARIO}/{name}", "--no-color"])
    assert checked.exit_code == 1, checked.output
    by_check = _after(checked.output, f"goldens/{SCENARIO}/{name}: differs")

    untruncated = ("-vv", "-o", "truncation_limit_lines=0", "-o", "truncation_limit_chars=0")
    result = pytester.runpytest_inprocess("-q", *untruncated, "-p", "no:cacheprovider", "tests")
    out = result.stdout.str()
    assert result.ret == 1, out
    by_plugin = _after(out, f"goldens/{SCENARIO}/{name}: differs from this run:")

    assert by_check and by_plugin == by_check


def test_the_golden_engine_knows_no_acp_or_log_field() -> None:
    sources = {p.name: p.read_text() for p in (REPO / "replay" / "goldens").glob("*.py")}
    assert [name for name, text in sources.items() if "sessionUpdate" in text] == []
    assert [name for name, text in sources.items() if '"seq' in text or "'seq" in text] == []
