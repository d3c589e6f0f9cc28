"""The semantic diff's work is bounded under the size limit too: goldens whose exact
alignment (difflib's) or deepdiff comparison is quadratic or worse get a report in
linear work, which says when an alignment was made linear; on ordinary goldens the
report is the exact one.

Work is counted as Python function calls and C calls (``sys.setprofile`` events), which
does not depend on the machine: twice the content may cost at most 2.5 times the work
(a quadratic diff costs 4 times, a cubic one 8). The hostile goldens are the bench's
(``bench/diff_time.py``), smaller; the tests give the exact alignments 20,000 steps
(and deepdiff as many) so that they reach the bound at once."""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.diff_time import Case, deep, lines, long_text, scalar_list, small_records, text, two_kinds
from replay.goldens.align import EXACT_DIFF_STEPS, Effort
from replay.goldens.diff import changes, semantic_changes
from replay.goldens.lines import MAX_LINES, Change, text_changes
from replay.goldens.values import MAX_JSON_DEPTH, value_changes
from tests.helpers import REPO, by_name

STEPS = 20_000


def _aligned(steps: int = STEPS) -> Change:
    return Change(f"too costly to align exactly (the limit is {steps:,} steps): aligned on the records and items "
                  "each side holds once, then on the nearest equal ones")


def _small() -> Effort:
    return Effort(STEPS, STEPS)


def _work(compare: Callable[[], Any]) -> int:
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        calls += 1

    sys.setprofile(count)
    try:
        compare()
    finally:
        sys.setprofile(None)
    return calls


def _grows_linearly(build: Callable[[int], Case], size: int) -> None:
    """Twice the content costs at most 2.5 times the work, and the alignments stay
    within their steps."""
    efforts: list[Effort] = []

    def work(n: int) -> int:
        name, golden, run = build(n)
        efforts.append(_small())
        return _work(lambda: semantic_changes(by_name(name), golden, run, effort=efforts[-1]))

    small, large = work(size), work(2 * size)
    assert large / small < 2.5, f"{small} → {large} calls for twice the content"
    assert all(e.aligned <= STEPS and e.deepdiffed <= STEPS for e in efforts), efforts


def test_records_whose_kinds_align_in_cubic_time_are_aligned_in_linear_work() -> None:
    name, golden, run = two_kinds(200)
    found = semantic_changes(by_name(name), golden, run, effort=_small())
    assert found[:6] == [
        _aligned(),
        Change('event 1 agent_thought_chunk.content.text: "g0" → "r0"', 1),
        Change('event 2 agent_message_chunk.content.text: "g1" → "r1"', 2),
        Change('event 3 (new) added agent_thought_chunk: {"content":{"type":"text","text":"r2"}}', 3),
        Change('event 3 agent_message_chunk.content.text: "g2" → "r3"', 3),
        Change('event 4 agent_thought_chunk.content.text: "g3" → "r4"', 4)]
    assert len(found) == MAX_LINES + 1 and found[-1].text.startswith("… and ")
    _grows_linearly(two_kinds, 200)


def test_a_multi_line_text_deepdiff_would_diff_in_quadratic_time_is_one_change() -> None:
    name, golden, run = long_text(500)
    old, new = (json.loads(side.splitlines()[2])["params"]["update"]["content"]["text"] for side in (golden, run))
    assert semantic_changes(by_name(name), golden, run, effort=_small()) == [  # shown from their start
        Change(f"event 3 agent_message_chunk.content.text: {json.dumps(old[:60] + '…', ensure_ascii=False)} → "
               f"{json.dumps(new[:60] + '…', ensure_ascii=False)}", 3)] == semantic_changes(by_name(name), golden, run)
    _grows_linearly(long_text, 500)


def test_a_list_of_scalars_deepdiff_would_align_in_cubic_time_is_aligned_in_linear_work() -> None:
    name, golden, run = scalar_list(500)
    assert semantic_changes(by_name(name), golden, run, effort=_small())[:4] == [
        _aligned(), Change("updates[0].todos[2]: 2 → 0", 9), Change("updates[0].todos[3]: 0 → 1", 10),
        Change("updates[0].todos[4]: 1 → 0", 11)]
    _grows_linearly(scalar_list, 500)
    # With the bound of every golden, a list whose first probe already costs more falls back at once.
    name, golden, run = scalar_list(4000)
    assert changes(by_name(name), golden, run)[0] == _aligned(EXACT_DIFF_STEPS)


def test_text_difflib_would_align_in_quadratic_time_is_compared_line_by_line() -> None:
    name, golden, run = text(20_000)
    found = semantic_changes(by_name(name), golden, run, effort=_small())
    rows = golden.decode().splitlines()
    assert found[:1] == [Change(f"too costly to align exactly (the limit is {STEPS:,} steps): compared line by line")]
    assert found[1].text == f"@@ -1,{len(rows)} +1,{len(rows)} @@" and found[1].line == 2
    assert found[1].body[:3] == (" " + rows[0], "-" + rows[1], "-" + rows[2]) and len(found[1].body) == MAX_LINES - 1
    assert len(found) == 3 and found[2].text.startswith("… and ")
    _grows_linearly(text, 20_000)


def test_many_changed_records_are_compared_past_deepdiffs_bound_with_the_same_report() -> None:
    name, golden, run = small_records(40_000)
    exact = semantic_changes(by_name(name), golden, run, full=True, effort=Effort(None, None))
    assert exact[0] == Change("event 1 turn/start.data.copy: added 1", 1)
    effort = _small()
    assert semantic_changes(by_name(name), golden, run, full=True, effort=effort) == exact
    assert 0 < effort.deepdiffed <= STEPS and not effort.approximate
    _grows_linearly(small_records, 40_000)


@pytest.mark.parametrize("name", ["plan.expected.json", "x.expected.jsonl"])
def test_json_too_deep_for_deepdiff_is_compared_as_text_and_says_so(name: str) -> None:
    _, golden, run = deep(MAX_JSON_DEPTH)  # in the plan object: one level more
    assert changes(by_name(name), golden, run) == [
        Change(f"nested more than {MAX_JSON_DEPTH} deep: compared as text"),
        Change("@@ -1 +1 @@", 1, ("-" + golden.decode(), "+" + run.decode()))]
    _, golden, run = deep(300)  # deepdiff raised RecursionError
    assert changes(by_name(name), golden, run)[0] == Change(f"nested more than {MAX_JSON_DEPTH} deep: compared as text")
    _, golden, run = deep(MAX_JSON_DEPTH - 1)
    assert changes(by_name(name), golden, run) == [Change(("event 1 " if name.endswith("l") else "") + "final"
                                                 + "[0]" * (MAX_JSON_DEPTH - 1) + ": 1 → 2", 1)]


def test_the_line_diff_past_the_size_limit_is_linear_too() -> None:
    def work(size: int) -> int:
        name, golden, run = lines(size)
        return _work(lambda: changes(by_name(name), golden, run, limit=1))

    small, large = work(40_000), work(80_000)
    assert large / small < 2.5, f"{small} → {large} calls for twice the content"


# On ordinary content the bounds change nothing.

_NOTES = [json.loads(line) for line in (REPO / "goldens" / "multi-turn" / "stdout.expected.jsonl").read_text()
          .splitlines()]


def _record(pick: int, mark: int) -> dict[str, Any]:
    """A real ACP record, its text (or a field) marked so that no two are equal."""
    record: dict[str, Any] = json.loads(json.dumps(_NOTES[pick % len(_NOTES)]))
    content = record["params"]["update"].get("content")
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        content["text"] += f" #{mark}"
    else:
        record["params"]["update"]["mark"] = mark
    return record


_EDITS = st.lists(st.tuples(st.sampled_from(["insert", "remove", "change", "kind"]), st.integers(0, 10**6)),
                  max_size=4)


@st.composite
def _ordinary(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A golden of distinct real records and a run with a few edits, at least one
    untouched record apart: records inserted, removed, changed, or replaced by another kind."""
    size = draw(st.integers(2, 30))
    golden = [_record(draw(st.integers(0, 100)), i) for i in range(size)]
    run = list(golden)
    for k, (edit, at) in enumerate(draw(_EDITS)):
        place = min(len(run) - 1, (at % max(1, len(run) // 2)) * 2)
        fresh = _record(at, 1000 + k)
        if edit == "insert":
            run.insert(place, fresh)
        elif edit == "remove" and len(run) > 1:
            del run[place]
        elif edit == "change":
            run[place] = json.loads(json.dumps(run[place]))
            run[place]["params"]["update"]["changed"] = k
        else:
            run[place] = fresh
    return (b"".join(json.dumps(r).encode() + b"\n" for r in golden),
            b"".join(json.dumps(r).encode() + b"\n" for r in run))


@given(_ordinary(), st.booleans())
def test_an_ordinary_golden_gets_the_exact_report_and_linearly_aligned_the_same_changes(
        pair: tuple[bytes, bytes], full: bool) -> None:
    golden, run = pair
    name = "stdout.expected.jsonl"
    exact = semantic_changes(by_name(name), golden, run, full, effort=Effort(None, None))
    assert semantic_changes(by_name(name), golden, run, full) == exact
    # With no steps at all, the linear alignment and the walk find the same changes.
    bare = semantic_changes(by_name(name), golden, run, True, effort=Effort(0, 0))
    assert [c for c in bare if c != _aligned(0)] == semantic_changes(by_name(name), golden, run, True,
                                                                     effort=Effort(None, None))


_SCALAR = st.none() | st.booleans() | st.integers(-2, 2) | st.floats(allow_nan=True, allow_infinity=True) | \
    st.sampled_from(["", "a", "b", "a\nb", "x\ny\nz"])
_JSON = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(
    st.sampled_from(["a", "b", "c", "d", "__p"]), inner, max_size=4), max_leaves=20)


@st.composite
def _edited(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with some of its items replaced, removed or added, or another value."""
    if draw(st.integers(0, 5)) == 0:
        return draw(_JSON)
    if isinstance(value, dict):
        out = {k: draw(_edited(v)) if draw(st.booleans()) else v for k, v in value.items()}
        if out and draw(st.booleans()):
            del out[draw(st.sampled_from(sorted(out)))]
        if draw(st.booleans()):
            out[draw(st.sampled_from(["a", "b", "e", "__q"]))] = draw(_JSON)
        return out
    if isinstance(value, list):
        items = [draw(_edited(v)) if draw(st.booleans()) else v for v in value]
        if items and draw(st.booleans()):
            del items[draw(st.integers(0, len(items) - 1))]
        if draw(st.booleans()):
            items.insert(draw(st.integers(0, len(items))), draw(_JSON))
        return items
    return value


@st.composite
def _values(draw: st.DrawFn) -> tuple[Any, Any]:
    old = draw(_JSON)
    new = draw(_edited(old)) if draw(st.booleans()) else draw(_JSON)
    # As JSON reads them (a NaN is one object).
    return json.loads(json.dumps(old)), json.loads(json.dumps(new))


@given(_values(), st.booleans())
def test_the_walk_finds_what_deepdiff_finds(values: tuple[Any, Any], full: bool) -> None:
    old, new = values
    assert value_changes(old, new, full, Effort(None, 0)) == value_changes(old, new, full, Effort(None, None))


_ROWS = st.lists(st.sampled_from(["", "a", "b", "c", "ab", " x", "€"]), max_size=14)


@given(_ROWS, _ROWS)
def test_text_hunks_are_difflibs_unified_diff(old: list[str], new: list[str]) -> None:
    a, b = "\n".join(old).encode(), "\n".join(new).encode()
    if a == b or a.rstrip(b"\n") == b.rstrip(b"\n"):
        return
    hunks: list[list[str]] = []
    for row in list(difflib.unified_diff(old if a else [""], new if b else [""], n=1, lineterm=""))[2:]:
        if row.startswith("@@"):
            hunks.append([])
        hunks[-1].append(row)
    assert [c.lines() for c in text_changes(a, b)] == hunks
