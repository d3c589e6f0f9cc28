"""The scenario JSON Schema: shipped, held to the pydantic model, and checking every
scenario of the repo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from replay.cli import main
from replay.scenarios.scenario import SCHEMA_FILE, ScenarioError, load_scenario, schema_text, shipped_schema
from tests.helpers import REPO

SCENARIOS = sorted((REPO / "scenarios").glob("*/scenario.json"))
REGENERATE = "python -m replay.scenarios.scenario"


def _validator() -> Draft202012Validator:
    schema = json.loads(shipped_schema())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _problems(doc: Any) -> list[tuple[str, str]]:
    return sorted((e.json_path, e.message) for e in _validator().iter_errors(doc))


def test_the_shipped_schema_is_the_model_s() -> None:
    assert shipped_schema() == schema_text(), f"the shipped schema drifted from the model: run `{REGENERATE}`"


def test_the_scenarios_folder_holds_the_shipped_schema() -> None:
    assert (REPO / "scenarios" / SCHEMA_FILE).read_text(encoding="utf-8") == shipped_schema(), (
        f"copy replay/scenarios/{SCHEMA_FILE} to scenarios/ (replay new does it)")


def test_the_repo_has_scenarios_to_check() -> None:
    assert len(SCENARIOS) == 15


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.parent.name)
def test_every_scenario_of_the_repo_validates_and_points_at_the_schema(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert _problems(doc) == []
    assert doc["$schema"] == f"../{SCHEMA_FILE}" and (path.parent / doc["$schema"]).resolve().is_file()
    load_scenario(path.parent)


def test_a_misspelt_field_is_rejected_with_its_path(tmp_path: Path) -> None:
    doc = json.loads((REPO / "scenarios" / "subagent-own-plan" / "scenario.json").read_text(encoding="utf-8"))
    config = doc["children"][0]["tools"]["todo_write"]
    config["allowParallelInProgres"] = config.pop("allowParallelInProgress")
    assert _problems(doc) == [
        ("$.children[0].tools.todo_write",
         "'allowParallelInProgress' is a required property"),
        ("$.children[0].tools.todo_write",
         "Additional properties are not allowed ('allowParallelInProgres' was unexpected)"),
    ]
    folder = tmp_path / "misspelt"
    folder.mkdir()
    (folder / "scenario.json").write_text(json.dumps(doc))
    with pytest.raises(ScenarioError) as exc:
        load_scenario(folder)
    assert str(exc.value) == (
        f"{folder}/scenario.json: invalid scenario: children[0].tools.todo_write.allowParallelInProgres: unknown "
        'field; did you mean "allowParallelInProgress"?; see `replay schema scenario` for the fields')


def test_a_misspelt_top_level_field_too() -> None:
    doc = json.loads((REPO / "scenarios" / "locale-zh" / "scenario.json").read_text(encoding="utf-8"))
    doc["locales"] = doc.pop("locale")
    assert _problems(doc) == [("$", "Additional properties are not allowed ('locales' was unexpected)")]


def test_replay_schema_scenario_prints_the_shipped_schema() -> None:
    result = CliRunner().invoke(main, ["schema", "scenario"])
    assert (result.exit_code, result.output) == (0, shipped_schema())
    result = CliRunner().invoke(main, ["schema", "scenario", "--policy", "single"])
    assert result.exit_code == 2 and "--policy belongs to `replay schema todo_write`" in result.output


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("allowParallelInProgress", 1, "tools.todo_write.allowParallelInProgress: Input should be a valid boolean"),
    ("allowParallelInProgress", "true", "tools.todo_write.allowParallelInProgress: Input should be a valid boolean"),
])
def test_a_value_of_another_json_type_is_not_taken_for_the_one_asked(tmp_path: Path, field: str, value: Any,
                                                                    problem: str) -> None:
    """``1`` is not ``true`` and ``"true"`` is not ``true`` (pydantic's lax mode took both)."""
    doc = {"description": "d", "prompts": ["p"], "tools": {"todo_write": {field: value}},
           "model": {"script": [{"text": "done"}]}}
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "scenario.json").write_text(json.dumps(doc))
    with pytest.raises(ScenarioError) as exc:
        load_scenario(tmp_path / "s")
    assert str(exc.value) == f"{tmp_path / 's' / 'scenario.json'}: invalid scenario: {problem}"
