"""The shipped tool schemas are the harness's, reduced to what validation reads.

``replay/render/acp/presenters/tool_schemas.json`` holds, for each of the 33 tools the harness
registered (``oracle-2026-07-23/tool-schemas.json`` in the shared corpus), its parameter schema
with the annotations (descriptions, titles, examples) removed: the validator never reads them, and
the model-facing prose stays the harness's. This test re-derives the file from the corpus, so the
two cannot drift; regenerate it with ``validation_schema`` below when the corpus changes.
"""

from __future__ import annotations

import json
from typing import Any

from replay.render.acp.presenters import shipped_tool_schemas
from tests.helpers import REPO, corpus_file

SHIPPED = REPO / "replay" / "render" / "acp" / "presenters" / "tool_schemas.json"
_ANNOTATIONS = frozenset({"description", "title", "examples", "$comment"})
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_LISTS = ("oneOf", "anyOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "contains", "if", "then", "else")


def validation_schema(schema: Any) -> Any:
    """``schema`` without annotation keywords, walking only schema positions (a *property*
    named ``description`` is kept)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key in _SCHEMA_MAPS:
            value = {name: validation_schema(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS:
            value = [validation_schema(sub) for sub in value]
        elif key in _SCHEMA_VALUES:
            value = validation_schema(value)
        out[key] = value
    return out


def test_shipped_schemas_are_the_harness_schemas_without_annotations() -> None:
    harness = json.loads(corpus_file("oracle-2026-07-23/tool-schemas.json").read_text(encoding="utf-8"))
    expected = {tool["name"]: validation_schema(tool["parameters"]) for tool in harness["tools"]}
    assert len(expected) == 33
    assert dict(shipped_tool_schemas()) == expected


def test_a_parameter_named_description_survives_the_stripping() -> None:
    bash = shipped_tool_schemas()["bash"]
    assert "description" in bash["properties"] and "description" in bash["required"]
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))["tools"]
    assert all(validation_schema(tool["parameters"]) == tool["parameters"] for tool in shipped)
