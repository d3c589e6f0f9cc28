"""The compiled checks of a parameter schema (``compiled``) against the judge they
shortcut, the ``jsonschema`` library's Draft 2020-12 validator: the same verdict for
every generated schema of the keywords they compile and every generated value; any
other keyword leaves the schema to the library."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from replay.render.acp.validation import DEEPEST, ArgumentSchema, compiled
from tests.helpers import corpus_root

_NAMES = ["a", "b", "c"]
_SCALARS = st.sampled_from([None, True, False, 0, 1, -1, 1.0, 2.5, 0.0, "", "a", "b", "1"])
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(_NAMES), inner, max_size=3)), max_leaves=8)
_TYPES = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object"])


def _schemas() -> st.SearchStrategy[Any]:
    def keywords(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries({}, optional={
            "type": st.one_of(_TYPES, st.lists(_TYPES, min_size=1, max_size=3, unique=True)),
            "properties": st.dictionaries(st.sampled_from(_NAMES), inner, max_size=3),
            "required": st.lists(st.sampled_from(_NAMES), max_size=3, unique=True),
            "additionalProperties": inner,
            "items": inner,
            "enum": st.lists(_VALUES, min_size=1, max_size=3),
            "const": _VALUES,
            "oneOf": st.lists(inner, min_size=1, max_size=3),
            "description": st.just("shown to the model"),
            "default": _VALUES,
        })

    return st.recursive(st.one_of(st.booleans(), st.just({})), keywords, max_leaves=6)


@given(_schemas(), st.lists(_VALUES, min_size=1, max_size=8))
def test_a_compiled_schema_decides_what_the_library_decides(schema: Any, values: list[Any]) -> None:
    judge = Draft202012Validator(schema)
    check = compiled(schema)
    assert check is not None
    for value in values:
        assert check(value) == judge.is_valid(value), (schema, value)


_EVERY_SCALAR = [None, True, False, 0, 1, -1, 1.0, 2.5, 0.0, -0.0, 1e300, float("inf"), "", "a", "1", [], {}, [1],
                 {"a": 1}]


@pytest.mark.parametrize("kind", ["null", "boolean", "integer", "number", "string", "array", "object"])
def test_each_type_holds_the_values_the_library_says_it_holds(kind: str) -> None:
    check = compiled({"type": kind})
    assert check is not None
    assert [check(v) for v in _EVERY_SCALAR] == [Draft202012Validator({"type": kind}).is_valid(v)
                                                for v in _EVERY_SCALAR]


@given(_VALUES, _VALUES)
def test_enum_and_const_compare_as_the_library_compares(choice: Any, value: Any) -> None:
    for schema in ({"enum": [choice]}, {"const": choice}, {"enum": [value, choice]}):
        check = compiled(schema)
        assert check is not None
        assert check(value) == Draft202012Validator(schema).is_valid(value), (schema, value)


@pytest.mark.parametrize(("choice", "value"), [(1, True), (True, 1), (0, False), ([1], [True]),
                                               ({"a": 0}, {"a": False}), (1, 1.0), ([1.0], [1]), ("1", 1)])
def test_a_boolean_equals_only_a_boolean(choice: Any, value: Any) -> None:
    check = compiled({"const": choice})
    assert check is not None
    assert check(value) == Draft202012Validator({"const": choice}).is_valid(value)


@pytest.mark.parametrize(("schema", "value"), [
    ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1),  # valid under both: not exactly one
    ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1.5),
    ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, None),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": False}, {"a": "x"}),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": False}, {"a": "x", "b": 1}),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}, {"a": "x", "b": 1}),
    ({"required": ["a"], "properties": {"a": {"type": "null"}}}, {"a": None}),
    ({"required": ["a"]}, {}),
    ({"required": ["a"]}, ["a"]),
    ({"items": False}, []),
    ({"items": False}, [1]),
    ({"items": {"enum": [1]}}, [1.0, True]),
])
def test_each_keyword_decides_as_the_library_decides(schema: dict[str, Any], value: Any) -> None:
    check = compiled(schema)
    assert check is not None
    assert check(value) == Draft202012Validator(schema).is_valid(value)


def _library_accepts(schema: dict[str, Any], value: Any) -> bool:
    """What ``accepts`` answered before the compiled checks: the library's verdict, and
    no when it ran out of stack."""
    try:
        return bool(Draft202012Validator(schema).is_valid(value))
    except RecursionError:
        return False


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [DEEPEST - 1, DEEPEST, DEEPEST + 1, 260, 995])
@pytest.mark.parametrize("schema", [
    lambda deep: {"const": deep}, lambda deep: {"enum": [deep]},
    lambda deep: {"type": "object", "properties": {"x": {"enum": [deep]}}},
    lambda deep: {"oneOf": [{"type": "string"}, {"type": "array"}]},
    lambda deep: {"type": "object", "properties": {"x": {"oneOf": [{"type": "array"}, {"type": "string"}]}}},
])
def test_deep_arguments_are_judged_as_the_library_judged_them(depth: int, schema: Any) -> None:
    """Where the library runs out of stack (deep ``const`` values, a failing ``oneOf``
    branch's message), the answer is what it was: the library's."""
    deep = _nested(depth)
    made = schema(_nested(depth))
    for value in (deep, {"x": deep}):
        assert ArgumentSchema(made).accepts(value) == _library_accepts(made, value), (depth, value is deep)


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"path": {"type": "string", "pattern": "^/"}}},
    {"$ref": "#/$defs/x", "$defs": {"x": {"type": "string"}}},
    {"type": "integer", "minimum": 0},
    {"items": {"type": "string", "format": "uri"}},
    {"type": "array", "prefixItems": [{"type": "string"}]},
    {"oneOf": [{"type": "string"}, {"anyOf": [{"type": "null"}]}]},
])
def test_a_schema_with_any_other_keyword_is_left_to_the_library(schema: dict[str, Any]) -> None:
    assert compiled(schema) is None
    arguments = ArgumentSchema(schema)
    assert arguments.accepts({"path": "/a"}) == Draft202012Validator(schema).is_valid({"path": "/a"})


@pytest.mark.parametrize("schema", [{"type": "text"}, {"type": []}, {"type": 3}, {"items": 4}, {"oneOf": [5]}])
def test_what_is_no_schema_compiles_to_nothing(schema: dict[str, Any]) -> None:
    assert compiled(schema) is None


def test_the_harness_schemas_of_the_corpus_are_compiled_and_judged_alike() -> None:
    """Every tool schema the harness offered in the corpus's logs compiles, and decides
    every call's arguments of those logs as the library does."""
    import orjson

    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"the corpus {root} is absent (set REPLAY_CORPUS to the shared corpus folder)")
    schemas: dict[str, Any] = {}
    calls: list[tuple[str, Any]] = []
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            if b'"request/header"' not in line and b'"tool/call"' not in line:
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            data = record.get("data") if isinstance(record, dict) else None
            if not isinstance(data, dict):
                continue
            header = data.get("header")
            tools = header.get("tools") if isinstance(header, dict) else None
            for tool in tools if isinstance(tools, list) else ():
                if isinstance(tool, dict) and isinstance(tool.get("name"), str) and isinstance(tool.get("parameters"),
                                                                                             dict):
                    schemas[tool["name"]] = tool["parameters"]
            if record.get("type") == "tool/call" and isinstance(data.get("arguments"), str):
                try:
                    calls.append((str(data.get("name")), orjson.loads(data["arguments"])))
                except orjson.JSONDecodeError:
                    calls.append((str(data.get("name")), data["arguments"]))
    assert len(schemas) >= 10 and len(calls) >= 100
    judged = 0
    for name, arguments in calls:
        schema = schemas.get(name)
        if schema is None:
            continue
        check = compiled(schema)
        assert check is not None, name
        assert check(arguments) == Draft202012Validator(schema).is_valid(arguments), (name, arguments)
        judged += 1
    assert judged >= 100
