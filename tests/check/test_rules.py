"""Every rule, broken on its own by mutating a real corpus log, and the exact findings.

Each case builds a log from a clean harness-written log and asserts the complete list
of ``(rule, severity, line)``: the rule fires, at the right line, and nothing else does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from replay.check.engine import Policy
from replay.check.registry import RULES
from tests.helpers import (
    MULTI_TURN,
    PARALLEL_CALLS,
    SURFACE_REPLACE,
    TODO_WRITE,
    audit_bytes,
    dump,
    filler,
    index_of,
    last_index,
    next_seq,
    records,
    summary,
)

Recs = list[dict[str, Any]]
Expected = list[tuple[str, str, int | None]]


@dataclass
class Case:
    id: str
    base: str
    mutate: Callable[[Recs], tuple[bytes | Recs, Expected]]
    policy: Policy = Policy.PARALLEL


def _set(recs: Recs, i: int, path: str, value: Any) -> None:
    node = recs[i]
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value


def _del(recs: Recs, i: int, path: str) -> None:
    node = recs[i]
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[k]
    del node[keys[-1]]


def _line(i: int) -> int:
    return i + 1


def _append(recs: Recs, type_: str, data: Any, **extra: Any) -> int:
    seq = next_seq(recs)
    recs.append({"type": type_, "seq": seq, "time": 1, "data": data, **extra})
    return len(recs) - 1


def _header(**changes: Any) -> Callable[[Recs], tuple[Recs, Expected]]:
    def mutate(recs: Recs) -> tuple[Recs, Expected]:
        for k, v in changes.items():
            if v is _DROP:
                del recs[0][k]
            else:
                recs[0][k] = v
        return recs, []

    return mutate


_DROP = object()


def _bytes_case(build: Callable[[Recs], tuple[bytes, Expected]]) -> Callable[[Recs], tuple[bytes | Recs, Expected]]:
    return build  # type: ignore[return-value]


def case_a1(recs: Recs) -> tuple[bytes, Expected]:
    return b"", [("A1", "error", 1)]


def case_a1_unterminated(recs: Recs) -> tuple[bytes, Expected]:
    return dump(recs[:1]).rstrip(b"\n"), [("A1", "error", 1)]


def case_a2(recs: Recs) -> tuple[bytes, Expected]:
    return b'{"type":"session",\n' + dump(recs[1:]), [("A2", "error", 1)]


def case_a3(recs: Recs) -> tuple[Recs, Expected]:
    recs[0]["version"] = 1
    return recs, [("A3", "error", 1)]


def case_a4(recs: Recs) -> tuple[Recs, Expected]:
    del recs[0]["delegationDepth"]
    return recs, [("A4", "error", 1)]


def case_a4_negative_zero(recs: Recs) -> tuple[bytes, Expected]:
    data = dump(recs).replace(b'"createdAt":' + str(recs[0]["createdAt"]).encode(), b'"createdAt":-0', 1)
    return data, [("A4", "error", 1)]


def case_a5(recs: Recs) -> tuple[Recs, Expected]:
    recs[0]["sandboxMode"] = "read-only"
    return recs, [("A5", "error", 1)]


def case_a6_fatal(recs: Recs) -> tuple[bytes, Expected]:
    lines = dump(recs).split(b"\n")
    i = index_of(recs, "session/title")
    lines[i] = b'{"type":"session/title","seq":'  # torn JSON before the last turn/end
    return b"\n".join(lines), [("A6", "error", _line(i))]


def case_a6_tail(recs: Recs) -> tuple[bytes, Expected]:
    return dump(recs) + b"\x00\xffnot json\n", [("A6", "warning", len(recs) + 1)]


def case_a6_bad_row(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "reasoning-chunks")
    recs[i]["data"]["dt"] = recs[i]["data"]["dt"][:-1]
    return recs, [("A6", "error", _line(i))]


def case_a7(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "session/title")
    del recs[i]
    return recs, [("A7", "error", _line(i))]


def case_a7_duplicate(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "session/title")
    recs.insert(i, copy.deepcopy(recs[i]))
    return recs, [("A7", "error", _line(i + 1))]


def case_a8_torn_fragment(recs: Recs) -> tuple[bytes, Expected]:
    return dump(recs) + b'{"type":"turn/start","seq":', [("A8", "warning", len(recs) + 1)]


def case_b3(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "session/title")
    recs[i]["type"] = "mode/set"
    return recs, [("B3", "error", _line(i))]


def case_b3_fallback(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "request/header")
    recs[i]["data"]["reason"] = "fallback"
    return recs, [("B3", "error", _line(i))]


def case_b4_malformed(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "turn/end")
    recs[i]["data"]["step"] = 2
    return recs, [("B4", "error", _line(i))]


def case_b4_migrated(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "turn/start")
    recs[i]["data"]["trigger"] = {"kind": "message"}
    return recs, [("B4", "warning", _line(i))]


def case_b5_no_id(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "assistant/message")
    del recs[i]["data"]["message"]["id"]
    return recs, [("B5", "error", _line(i))]


def case_b5_mismatched_ids(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "tool/result")
    recs[i]["data"]["message"]["content"][0]["toolCallId"] = "other"
    return recs, [("B5", "error", _line(i))]


def case_b6(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "session/title")
    recs[i]["type"] = "context/message"
    return recs, [("B6", "error", _line(i))]


def case_b7(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "tool/call")
    return recs[: i + 1], [("B7", "warning", _line(i))]


def case_c1(recs: Recs) -> tuple[Recs, Expected]:
    recs[0]["cwd"] = "relative/dir"
    return recs, [("C1", "error", 1)]


def case_c2(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "session/title")
    recs[i]["extra"] = 1
    return recs, [("C2", "error", _line(i))]


def case_c2_time(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "assistant/chunk")
    recs[i]["time"] = "yesterday"
    return recs, [("C2", "error", _line(i))]


def case_c3(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "request/header")
    recs[i]["data"]["header"]["config"]["provider"] = ""
    return recs, [("C3", "error", _line(i))]


def case_c5_missing_op(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "tool/result")
    del recs[i]["surfaceOp"]
    return recs, [("C5", "error", _line(i))]


def case_c5_forbidden_op(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "step/start")
    recs[i]["surfaceOp"] = "append"
    return recs, [("C5", "error", _line(i))]


def case_c5_future_source(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "assistant/message")
    recs[i]["sourceEventSeqs"] = [recs[i]["seq"] + 5]
    return recs, [("C5", "error", _line(i))]


def case_c5_replace_missing_start(recs: Recs) -> tuple[Recs, Expected]:
    i = next(j for j, r in enumerate(recs) if isinstance(r.get("surfaceOp"), dict))
    recs[i]["surfaceOp"]["start"] = 10_000
    return recs, [("C5", "error", _line(i))]


def case_d2(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "turn/end", turn=1)
    recs[i] = filler(recs[i])
    return recs, [("D2", "error", _line(index_of(recs, "turn/start", turn=2)))]


def case_d3(recs: Recs) -> tuple[Recs, Expected]:
    for r in recs:
        if isinstance(r.get("data"), dict) and r["data"].get("turn") == 1:
            r["data"]["turn"] = 2
    return recs, [("D3", "error", _line(index_of(recs, "turn/start")))]


def case_d4(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "turn/end")
    recs[i]["data"]["turn"] = 7
    return recs, [("D4", "error", _line(i))]


def case_d5(recs: Recs) -> tuple[Recs, Expected]:
    i = last_index(recs, "step/end")
    recs[i] = filler(recs[i])
    return recs, [("D5", "error", _line(index_of(recs, "turn/end")))]


def case_d6(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "step/start", step=2)
    recs[i]["data"]["turn"] = 5
    return recs, [("D6", "error", _line(i))]


def case_d7(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "step/end", step=1)
    recs[i] = filler(recs[i])
    return recs, [("D7", "error", _line(index_of(recs, "step/start", step=2)))]


def case_d8(recs: Recs) -> tuple[Recs, Expected]:
    start = index_of(recs, "step/start", step=2)
    for r in recs[start:]:
        if isinstance(r.get("data"), dict) and r["data"].get("step") == 2:
            r["data"]["step"] = 3
    return recs, [("D8", "error", _line(start))]


def case_d9(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "assistant/chunk")
    recs[i]["data"]["step"] = 9
    return recs, [("D9", "error", _line(i))]


def case_d9_packed(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "tool-call-chunks")
    recs[i]["data"]["turn"] = 3
    return recs, [("D9", "error", _line(i))]


def case_d10(recs: Recs) -> tuple[Recs, Expected]:
    # step/end clears the pending calls: a result that comes after it answers nothing.
    i = index_of(recs, "tool/result")
    j = index_of(recs, "step/end", step=1)
    assert j == i + 1
    recs[i], recs[j] = recs[j], recs[i]
    recs[i]["seq"], recs[j]["seq"] = recs[j]["seq"], recs[i]["seq"]
    return recs, [("D9", "error", _line(j)), ("D12", "error", _line(j))]


def case_d12(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "tool/result")
    msg = recs[i]["data"]["message"]
    msg["source"]["callId"] = msg["content"][0]["toolCallId"] = "call-never-made"
    return recs, [("D12", "error", _line(i))]


def case_d12_twice(recs: Recs) -> tuple[Recs, Expected]:
    # Two results for one call: D11 added the call once, D12 removed it on the first.
    first = index_of(recs, "tool/result")
    second = index_of(recs, "tool/result", nth=1)
    for key in ("source",):
        recs[second]["data"]["message"][key] = copy.deepcopy(recs[first]["data"]["message"][key])
    recs[second]["data"]["message"]["content"][0]["toolCallId"] = recs[first]["data"]["message"]["source"]["callId"]
    return recs, [("D12", "error", _line(second))]


def case_d13(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "tool/result")
    replacement = copy.deepcopy(recs[i])
    replacement["data"]["message"]["content"][0]["content"] = [{"type": "text", "text": "(pruned)"}]
    replacement["surfaceOp"] = {"op": "replace", "start": recs[i]["seq"], "end": recs[i]["seq"]}
    replacement["sourceEventSeqs"] = [recs[i]["seq"]]
    replacement["seq"] = next_seq(recs)
    recs.append(replacement)
    return recs, [("D13", "error", len(recs))]


def case_d14(recs: Recs) -> tuple[Recs, Expected]:
    j = _append(recs, "todo/write", {"todos": []})
    return recs, [("D14", "error", _line(j))]


def case_t1(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"] = "read the code"
    return recs, [("T1", "error", _line(i))]


def case_t2(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][1] = 42
    return recs, [("T2", "error", _line(i))]


def case_t3(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][0]["content"] = "read the code "
    return recs, [("T3", "error", _line(i))]


def case_t3_bom(recs: Recs) -> tuple[Recs, Expected]:
    # JavaScript's trim strips U+FEFF (Python's str.strip does not).
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][0]["content"] = "\ufeffread the code"
    return recs, [("T3", "error", _line(i))]


def case_t3_array_entry(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][0] = ["read the code", "pending"]
    # A JavaScript array passes the object test (T2), then has no content and no status.
    return recs, [("T3", "error", _line(i)), ("T5", "error", _line(i))]


def case_t4(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][2]["content"] = recs[i]["data"]["todos"][0]["content"]
    return recs, [("T4", "error", _line(i))]


def case_t5(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][2]["status"] = "done"
    return recs, [("T5", "error", _line(i))]


def case_p1(recs: Recs) -> tuple[Recs, Expected]:
    return recs, [("P1", "policy", _line(index_of(recs, "todo/write")))]


CASES = [
    Case("A1 empty file", TODO_WRITE, case_a1),
    Case("A1 unterminated header", TODO_WRITE, case_a1_unterminated),
    Case("A2 header not JSON", TODO_WRITE, case_a2),
    Case("A3 version 1", TODO_WRITE, case_a3),
    Case("A4 no delegationDepth", TODO_WRITE, case_a4),
    Case("A4 createdAt -0", TODO_WRITE, case_a4_negative_zero),
    Case("A5 retired field", TODO_WRITE, case_a5),
    Case("A6 unparsable before last turn/end", TODO_WRITE, case_a6_fatal),
    Case("A6 unparsable tail", TODO_WRITE, case_a6_tail),
    Case("A6 malformed packed row", TODO_WRITE, case_a6_bad_row),
    Case("A7 deleted event", TODO_WRITE, case_a7),
    Case("A7 duplicated event", TODO_WRITE, case_a7_duplicate),
    Case("A8 torn last line", TODO_WRITE, case_a8_torn_fragment),
    Case("B3 mode/set", TODO_WRITE, case_b3),
    Case("B3 fallback header", TODO_WRITE, case_b3_fallback),
    Case("B4 malformed turn/end", TODO_WRITE, case_b4_malformed),
    Case("B4 legacy trigger migrated", TODO_WRITE, case_b4_migrated),
    Case("B5 message without id", TODO_WRITE, case_b5_no_id),
    Case("B5 mismatched tool call ids", TODO_WRITE, case_b5_mismatched_ids),
    Case("B6 unknown type", TODO_WRITE, case_b6),
    Case("B7 interrupted turn", TODO_WRITE, case_b7),
    Case("C1 relative cwd", TODO_WRITE, case_c1),
    Case("C2 unknown envelope key", TODO_WRITE, case_c2),
    Case("C2 time not an integer", TODO_WRITE, case_c2_time),
    Case("C3 empty provider", TODO_WRITE, case_c3),
    Case("C5 missing surfaceOp", TODO_WRITE, case_c5_missing_op),
    Case("C5 surfaceOp on step/start", TODO_WRITE, case_c5_forbidden_op),
    Case("C5 source seq in the future", TODO_WRITE, case_c5_future_source),
    Case("C5 replace start not in surface", SURFACE_REPLACE, case_c5_replace_missing_start),
    Case("D2 turn/start while open", MULTI_TURN, case_d2),
    Case("D3 turn numbering", TODO_WRITE, case_d3),
    Case("D4 turn/end wrong turn", TODO_WRITE, case_d4),
    Case("D5 turn/end with step open", TODO_WRITE, case_d5),
    Case("D6 step/start wrong turn", TODO_WRITE, case_d6),
    Case("D7 step/start while open", TODO_WRITE, case_d7),
    Case("D8 step numbering", TODO_WRITE, case_d8),
    Case("D9 chunk names another step", TODO_WRITE, case_d9),
    Case("D9 packed row names another turn", TODO_WRITE, case_d9_packed),
    Case("D10 step/end clears pending calls", TODO_WRITE, case_d10),
    Case("D12 result without call", TODO_WRITE, case_d12),
    Case("D12 second result for one call", PARALLEL_CALLS, case_d12_twice),
    Case("D13 replacement outside a turn", TODO_WRITE, case_d13),
    Case("D14 todo/write outside a turn", TODO_WRITE, case_d14),
    Case("T1 todos not an array", TODO_WRITE, case_t1),
    Case("T2 entry not an object", TODO_WRITE, case_t2),
    Case("T3 untrimmed content", TODO_WRITE, case_t3),
    Case("T3 BOM is JavaScript whitespace", TODO_WRITE, case_t3_bom),
    Case("T3 array entry", TODO_WRITE, case_t3_array_entry),
    Case("T4 repeated content", TODO_WRITE, case_t4),
    Case("T5 unknown status", TODO_WRITE, case_t5),
    Case("P1 parallel under single policy", TODO_WRITE, case_p1, Policy.SINGLE),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule_breaks_alone(case: Case) -> None:
    built, expected = case.mutate(records(case.base))
    data = built if isinstance(built, bytes) else dump(built)
    assert summary(audit_bytes(data, case.policy)) == expected


@pytest.mark.parametrize("base", [TODO_WRITE, MULTI_TURN, PARALLEL_CALLS, SURFACE_REPLACE])
def test_clean_bases_have_no_findings(base: str) -> None:
    assert summary(audit_bytes(dump(records(base)))) == []


def test_every_registered_rule_id_is_exercised_or_documented() -> None:
    exercised = {c.id.split()[0] for c in CASES}
    # C4 and D1 are covered in test_in_memory.py, A9/A10/IO/LIMIT in tests/log; the rest
    # are the invariant's bookkeeping and permissions (tested in test_permissions).
    elsewhere = {"C4", "D1", "A9", "A10", "IO", "LIMIT", "INTERNAL", "D11", "D15", "D16", "D17"}
    assert set(RULES) - exercised - elsewhere == set()


def test_every_todo_problem_of_a_record_is_reported_once_per_rule() -> None:
    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    todos = recs[i]["data"]["todos"]
    todos[0]["content"] = " read the code"          # T3, and the harness would stop here
    todos[1]["status"] = "done"                     # T5
    todos.append({"content": "write the fix", "status": "pending"})   # T4 with todos[2]
    todos.append(7)                                 # T2
    todos.append({"content": "", "status": None})   # T3 again (same rule: one finding) and T5
    report = audit_bytes(dump(recs))
    assert [(f.rule, f.line, f.message) for f in report.findings] == [
        ("T2", _line(i), "every todo/write item must be an object: todos[4] is 7"),
        ("T3", _line(i), 'every todo/write item needs non-empty, already trimmed content: todos[0] has leading or '
                         'trailing whitespace in " read the code" and todos[5] has empty content'),
        ("T4", _line(i), 'todo/write items must not repeat a content: "write the fix" (todos[2] and todos[3])'),
        ("T5", _line(i), 'a todo/write status must be pending, in_progress or completed: todos[1] has "done" and '
                         "todos[5] has null"),
    ]


def test_todos_not_a_list_is_the_one_problem() -> None:
    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"] = {"content": " x", "status": "done"}
    assert [(f.rule, f.message) for f in audit_bytes(dump(recs)).findings] == [
        ("T1", 'todo/write "todos" must be a list of items, got {"content":" x","status":"done"}')]


def test_a_long_list_of_bad_items_names_the_first_few() -> None:
    recs = records(TODO_WRITE)
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"] = [{"content": f"task {n}", "status": "later"} for n in range(8)]
    [t5] = audit_bytes(dump(recs)).findings
    assert t5.message == ('a todo/write status must be pending, in_progress or completed: todos[0] has "later", '
                          'todos[1] has "later", todos[2] has "later", todos[3] has "later", todos[4] has "later" '
                          "and 3 more")
