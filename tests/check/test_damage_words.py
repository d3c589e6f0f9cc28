"""No two findings of one log contradict each other (issue 27, row 9): a log whose event
order breaks at its last turn/end is refused, and every damage finding says so; none says
that loading would cut the log."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import audit_bytes, dump, records

PLAIN_MULTI_TURN = "acp-2026-07-23/multi-turn/session.jsonl"
REFUSED = "today's harness refuses this log"
CUT = "loading would cut the log off"


def long_log(turns: int) -> list[dict[str, Any]]:
    """The corpus's plain two-turn log grown to ``turns`` turns: its second turn repeated,
    seqs and turn numbers renumbered."""
    recs = records(PLAIN_MULTI_TURN)
    end = next(i for i, r in enumerate(recs) if r["type"] == "turn/end") + 1
    out, again = recs[:end], recs[end:]
    for turn in range(2, turns + 1):
        for rec in again:
            rec = copy.deepcopy(rec)
            rec["seq"] = len(out) - 1
            if "turn" in rec["data"]:
                rec["data"]["turn"] = turn
            out.append(rec)
    return out


def _damage(data: bytes) -> list[tuple[int | None, str, str]]:
    return [(f.line, f.severity.value, f.message) for f in audit_bytes(data).findings if f.rule == "A7"]


def test_a_4000_turn_log_broken_at_its_last_turn_end_is_refused_by_every_finding() -> None:
    recs = long_log(4000)
    recs[-1], recs[-2] = recs[-2], recs[-1]  # the turn/end before the step/end
    last = len(recs)
    seq = last - 2
    gap = "seqs count 0, 1, 2, … from the first event, with no gap or repeat"
    assert _damage(dump(recs)) == [
        (last - 1, "error", f"the event has seq {seq} where seq {seq - 1} was expected: {gap}. The record is the "
                            f"log's last turn/end, and damage on a turn/end's line is fatal: {REFUSED}"),
        (last, "warning", f"the event has seq {seq - 1} where seq {seq + 1} was expected: {gap}. It comes after "
                          f"the log's last turn/end (line {last - 1}), in a log today's harness refuses for the "
                          f"damage on line {last - 1}"),
    ]


@given(st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=3))
def test_damage_findings_never_both_refuse_and_cut(back: int, apart: int) -> None:
    """Two records near the end of the log exchanged: when one finding says the harness
    refuses the log, none says how loading would cut it."""
    recs = long_log(3)
    i = len(recs) - back
    j = min(len(recs) - 1, i + apart)
    recs[i], recs[j] = recs[j], recs[i]
    messages = [m for _, _, m in _damage(dump(recs))]
    assert not (any(REFUSED in m for m in messages) and any(CUT in m for m in messages)), messages
