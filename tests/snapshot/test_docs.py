"""The scenario reference (docs/scenarios.md) shows scenarios that are what it says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from replay.scenarios.artefacts import render_artefacts
from replay.scenarios.scenario import run_scenario, shipped_schema
from tests.helpers import REPO

DOC = REPO / "docs" / "scenarios.md"
_BLOCK = re.compile(r"```json\n(.*?)```", re.DOTALL)


def _examples() -> list[dict[str, object]]:
    return [doc for block in _BLOCK.findall(DOC.read_text(encoding="utf-8"))
            if isinstance(doc := json.loads(block), dict) and "description" in doc]


def test_the_reference_shows_a_scenario_per_model_kind() -> None:
    kinds = [("script" in e["model"], "override" in e["model"], "title" in e["model"])  # type: ignore[operator]
             for e in _examples()]
    assert kinds == [(True, False, False), (False, False, False), (False, True, False), (False, False, True)]


@pytest.mark.parametrize("index", range(4))
def test_each_example_validates_against_the_schema(index: int) -> None:
    assert list(Draft202012Validator(json.loads(shipped_schema())).iter_errors(_examples()[index])) == []


def test_the_scripted_example_runs_as_described(tmp_path: Path) -> None:
    folder = tmp_path / "example"
    folder.mkdir()
    (folder / "scenario.json").write_text(json.dumps(_examples()[0]))
    run = run_scenario(folder)
    steps = [(e["data"]["turn"], e["data"]["step"]) for e in run.logs[0].events if e["type"] == "step/start"]
    assert steps == [(1, 1), (1, 2), (1, 3), (2, 1)]
    web = render_artefacts(run)["web.expected.txt"].decode()
    # the plan updated in turn 1 (two rows), and no standing plan once turn 2 started
    assert web.endswith("summary=1/2 completed · fix the race\nsuffix=<absent>\npanel=<absent>\n")


def test_the_readme_links_the_reference() -> None:
    assert "(docs/scenarios.md)" in (REPO / "README.md").read_text(encoding="utf-8")
