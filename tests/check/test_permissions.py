"""What the core invariant deliberately allows (D11, D15–D17) and its bookkeeping."""

from __future__ import annotations

import copy

from tests.helpers import MULTI_TURN, PARALLEL_CALLS, TODO_WRITE, audit_bytes, dump, index_of, records, summary


def test_d11_parallel_calls_pair_with_their_results() -> None:
    # Two tool/calls, then two tool/results in call order: both calls were pending.
    recs = records(PARALLEL_CALLS)
    calls = [i for i, r in enumerate(recs) if r.get("type") == "tool/call"]
    assert len(calls) == 2 and recs[calls[1] + 1]["type"] == "tool/result"
    assert summary(audit_bytes(dump(recs))) == []


def test_d15_user_message_outside_any_turn_is_allowed() -> None:
    recs = records(MULTI_TURN)
    end = index_of(recs, "turn/end", turn=1)
    assert recs[end + 1]["type"] not in ("turn/start",)  # an event sits between the turns
    between = recs[end + 1]
    message = copy.deepcopy(recs[index_of(recs, "user/message")]["data"])
    message["id"] = "idle-context"
    recs[end + 1] = {"type": "user/message", "seq": between["seq"], "time": between["time"],
                     "data": message, "surfaceOp": "append"}
    assert summary(audit_bytes(dump(recs))) == []


def test_d16_end_seed_inside_an_open_turn_is_allowed() -> None:
    recs = records(TODO_WRITE)
    i = index_of(recs, "session/title")
    recs[i] = {"type": "session/end-seed", "seq": recs[i]["seq"], "time": recs[i]["time"], "data": {}}
    assert summary(audit_bytes(dump(recs))) == []


def test_d17_plugin_events_outside_turns_are_allowed() -> None:
    recs = records(TODO_WRITE)
    recs.append({"type": "approval/policy", "seq": recs[-1]["seq"] + 1, "time": 0, "data": {"policy": "never"}})
    assert summary(audit_bytes(dump(recs))) == []


def test_ignorable_unknown_type_is_allowed() -> None:
    recs = records(TODO_WRITE)
    recs.append({"type": "future/thing", "seq": recs[-1]["seq"] + 1, "time": 0, "data": {}, "ignorable": True})
    assert summary(audit_bytes(dump(recs))) == []


def test_parallel_in_progress_is_never_an_invariant_finding() -> None:
    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    for item in recs[i]["data"]["todos"]:
        item["status"] = "in_progress"
    assert summary(audit_bytes(dump(recs))) == []
