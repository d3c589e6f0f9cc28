"""Rules broken by mutating real corpus logs, where a case is more than one rule's
example: bytes no example can hold, rules that fire together, and several problems of
one record. Each case asserts the complete list of findings.

One rule broken on its own is an example of that rule, declared with it (see
``replay.check.registry``) and audited by ``tests/check/test_catalogue.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.helpers import (
    MULTI_TURN,
    PARALLEL_CALLS,
    SURFACE_REPLACE,
    TODO_WRITE,
    audit_bytes,
    dump,
    index_of,
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


def _line(i: int) -> int:
    return i + 1


def case_a6_tail_not_utf8(recs: Recs) -> tuple[bytes, Expected]:
    return dump(recs) + b"\x00\xffnot json\n", [("A6", "warning", len(recs) + 1)]


def case_d10(recs: Recs) -> tuple[Recs, Expected]:
    # step/end clears the pending calls: a result that comes after it answers nothing.
    i = index_of(recs, "tool/result")
    j = index_of(recs, "step/end", step=1)
    assert j == i + 1
    recs[i], recs[j] = recs[j], recs[i]
    recs[i]["seq"], recs[j]["seq"] = recs[j]["seq"], recs[i]["seq"]
    return recs, [("D9", "error", _line(j)), ("D12", "error", _line(j))]


def case_t3_array_entry(recs: Recs) -> tuple[Recs, Expected]:
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][0] = ["read the code", "pending"]
    # A JavaScript array passes the object test (T2), then has no content and no status.
    return recs, [("T3", "error", _line(i)), ("T5", "error", _line(i))]


CASES = [
    Case("A6 a tail of bytes that are not UTF-8", TODO_WRITE, case_a6_tail_not_utf8),
    Case("D10 step/end clears pending calls", TODO_WRITE, case_d10),
    Case("T3 and T5 of an array entry", TODO_WRITE, case_t3_array_entry),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rules_break(case: Case) -> None:
    built, expected = case.mutate(records(case.base))
    data = built if isinstance(built, bytes) else dump(built)
    assert summary(audit_bytes(data)) == expected


@pytest.mark.parametrize("base", [TODO_WRITE, MULTI_TURN, PARALLEL_CALLS, SURFACE_REPLACE])
def test_clean_bases_have_no_findings(base: str) -> None:
    assert summary(audit_bytes(dump(records(base)))) == []


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
