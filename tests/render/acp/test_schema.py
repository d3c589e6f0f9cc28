"""Every notification rendered from every corpus log (live and load) is a valid ACP
``SessionNotification``: against the published JSON Schema and through the SDK's
pydantic models, which must give back exactly what was sent.

The corpus renders more than ten thousand frames, most of them alike (a message chunk
is a message chunk whatever its text). Each frame is reduced to its *shape*: its
structure, keys, numbers, booleans and nulls as they are, and its strings as they are
when the schema names them (a ``const`` or an ``enum`` value: ``tool_call``,
``in_progress``, ``edit``, …) or replaced by one stand-in otherwise. The schema
constrains a string by nothing else (``test_the_schema_constrains_strings_by_value_only``
fails if that changes) and the validator checks no ``format``, so a frame is valid
exactly when its shape is, and each distinct shape is validated, and round-tripped
through the SDK, once."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from acp.schema import SessionNotification

from tests.helpers import corpus_file
from tests.render.acp.corpus import corpus_logs, render_log

LOGS = corpus_logs()

STRING_KEYWORDS = frozenset({"pattern", "minLength", "maxLength", "patternProperties", "propertyNames",
                             "contentEncoding", "contentMediaType", "contentSchema", "dependentSchemas"})
"""JSON Schema keywords that judge a string by more than its value being listed."""
STAND_IN = "\x00shape"
_SURROGATE = re.compile("[\ud800-\udfff]")


def _schema() -> Any:
    path = corpus_file("../acp-schema/schema-v1.19.0.json")  # beside the corpus, in the shared folder
    return json.loads(path.read_text(encoding="utf-8"))


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def named_strings(schema: Any) -> frozenset[str]:
    """Every string the schema names as a ``const`` or ``enum`` value."""
    found: set[str] = set()
    for node in _walk(schema):
        if isinstance(node.get("const"), str):
            found.add(node["const"])
        if isinstance(node.get("enum"), list):
            found.update(v for v in node["enum"] if isinstance(v, str))
    return frozenset(found)


def shape(value: Any, named: frozenset[str]) -> Any:
    """``value`` with every string the schema does not name replaced by one stand-in
    (a string with a lone surrogate, which a codec may refuse, is kept as it is)."""
    if isinstance(value, str):
        return value if value in named or _SURROGATE.search(value) else STAND_IN
    if isinstance(value, list):
        return [shape(v, named) for v in value]
    if isinstance(value, dict):
        return {k: shape(v, named) for k, v in value.items()}
    return value


@pytest.fixture(scope="module")
def schema() -> Any:
    return _schema()


def _validator(schema: Any, definition: str) -> Any:
    cls = jsonschema.validators.validator_for(schema)
    return cls({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


@pytest.fixture(scope="module")
def validator(schema: Any) -> Any:
    return _validator(schema, "SessionNotification")


def test_the_schema_constrains_strings_by_value_only(schema: Any, validator: Any) -> None:
    used = {key for node in _walk(schema) for key in node}
    assert used & STRING_KEYWORDS == set()
    assert validator.format_checker is None  # "format" (int32, uint64, …) is not asserted
    assert STAND_IN not in named_strings(schema)


@pytest.mark.parametrize(
    ("mode", "terminal_output"), [("live", False), ("load", True)], ids=["live", "load-terminal"])
def test_every_notification_is_schema_valid_and_round_trips(schema: Any, validator: Any, mode: str,
                                                            terminal_output: bool) -> None:
    if not LOGS:
        pytest.skip("the corpus is absent (set REPLAY_CORPUS)")
    named = named_strings(schema)
    kinds: set[str] = set()
    count = requests = 0
    seen: set[str] = set()
    permission = _validator(schema, "RequestPermissionRequest")
    for path in LOGS:
        for frame in render_log(path, mode, terminal_output):
            if frame.get("method") == "session/request_permission":  # few: each one validated
                assert mode == "live" and list(frame) == ["jsonrpc", "id", "method", "params"]
                errors = [e.message for e in permission.iter_errors(frame["params"])]
                assert errors == [], f"{path}: {frame}"
                requests += 1
                continue
            assert list(frame) == ["jsonrpc", "method", "params"]
            params = shape(frame["params"], named)
            kinds.add(frame["params"]["update"]["sessionUpdate"])
            count += 1
            key = json.dumps(params, ensure_ascii=False)
            if key in seen:
                continue
            seen.add(key)
            errors = [e.message for e in validator.iter_errors(params)]
            assert errors == [], f"{path}: {frame['params']}"
            back = SessionNotification.model_validate(params).model_dump(by_alias=True, exclude_unset=True)
            assert back == params, f"{path}: SDK round trip changed {frame['params']}"
    assert len(LOGS) >= 200
    assert count > 10_000
    expected = {"agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan",
                "session_info_update"}
    assert kinds == expected | ({"user_message_chunk"} if mode == "load" else set())
    # The three escalation scenarios of both ACP corpora, and two web scenarios whose policy is "ask".
    assert requests == (8 if mode == "live" else 0)


def test_shapes_keep_what_the_schema_judges(schema: Any, validator: Any) -> None:
    named = named_strings(schema)
    frame = {"sessionId": "s-1", "update": {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Read x",
                                            "kind": "read", "status": "in_progress", "locations": [{"path": "/x",
                                                                                                   "line": 3}]}}
    assert shape(frame, named) == {"sessionId": STAND_IN, "update": {
        "sessionUpdate": "tool_call", "toolCallId": STAND_IN, "title": STAND_IN, "kind": "read",
        "status": "in_progress", "locations": [{"path": STAND_IN, "line": 3}]}}
    bad_kind = {**frame, "update": {**frame["update"], "kind": "teleport"}}
    bad_line = {**frame, "update": {**frame["update"], "locations": [{"path": "/x", "line": -1}]}}
    for bad in (bad_kind, bad_line):
        assert list(validator.iter_errors(bad)) and list(validator.iter_errors(shape(bad, named)))


def test_the_validator_rejects_what_the_sdk_would_swallow(validator: Any) -> None:
    bad_kind = {"sessionId": "s", "update": {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t",
                                             "kind": "teleport", "status": "in_progress"}}
    bad_plan = {"sessionId": "s", "update": {"sessionUpdate": "plan",
                                             "entries": [{"content": "x", "priority": "urgent", "status": "pending"}]}}
    assert list(validator.iter_errors(bad_kind))
    assert list(validator.iter_errors(bad_plan))
