"""Every notification rendered from every corpus log (live and load) is a valid ACP
``SessionNotification``: against the published JSON Schema and through the SDK's
pydantic models, which must give back exactly what was sent."""

from __future__ import annotations

import json
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from acp.schema import SessionNotification

from tests.helpers import corpus_file
from tests.render.acp.corpus import corpus_logs, render_log

LOGS = corpus_logs()


def _validator(definition: str = "SessionNotification") -> Any:
    path = corpus_file("../acp-schema/schema-v1.19.0.json")  # beside the corpus, in the shared folder
    schema = json.loads(path.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


@pytest.fixture(scope="module")
def validator() -> Any:
    return _validator()


@pytest.mark.parametrize(
    ("mode", "terminal_output"), [("live", False), ("load", True)], ids=["live", "load-terminal"])
def test_every_notification_is_schema_valid_and_round_trips(validator: Any, mode: str,
                                                            terminal_output: bool) -> None:
    if not LOGS:
        pytest.skip("the corpus is absent (set REPLAY_CORPUS)")
    kinds: set[str] = set()
    count = requests = 0
    permission = _validator("RequestPermissionRequest")
    for path in LOGS:
        for frame in render_log(path, mode, terminal_output):
            if frame.get("method") == "session/request_permission":
                assert mode == "live" and list(frame) == ["jsonrpc", "id", "method", "params"]
                errors = [e.message for e in permission.iter_errors(frame["params"])]
                assert errors == [], f"{path}: {frame}"
                requests += 1
                continue
            assert list(frame) == ["jsonrpc", "method", "params"]
            params = frame["params"]
            errors = [e.message for e in validator.iter_errors(params)]
            assert errors == [], f"{path}: {params}"
            back = SessionNotification.model_validate(params).model_dump(by_alias=True, exclude_unset=True)
            assert back == params, f"{path}: SDK round trip changed {params}"
            kinds.add(params["update"]["sessionUpdate"])
            count += 1
    assert len(LOGS) >= 200
    assert count > 10_000
    expected = {"agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan",
                "session_info_update"}
    assert kinds == expected | ({"user_message_chunk"} if mode == "load" else set())
    # The three escalation scenarios of both ACP corpora, and two web scenarios whose policy is "ask".
    assert requests == (8 if mode == "live" else 0)


def test_the_validator_rejects_what_the_sdk_would_swallow(validator: Any) -> None:
    bad_kind = {"sessionId": "s", "update": {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t",
                                             "kind": "teleport", "status": "in_progress"}}
    bad_plan = {"sessionId": "s", "update": {"sessionUpdate": "plan",
                                             "entries": [{"content": "x", "priority": "urgent", "status": "pending"}]}}
    assert list(validator.iter_errors(bad_kind))
    assert list(validator.iter_errors(bad_plan))
