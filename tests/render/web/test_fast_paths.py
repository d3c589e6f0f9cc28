"""The session browser's fast paths, each equal to the exact path it stands in for."""

from __future__ import annotations

import html
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay.jsjson import _reject_constant, loads, parse, parse_int
from replay.project.tools import ToolCall, ToolResult, clip, first_line, outcome
from replay.render.web.locale import formatter, interpolate
from replay.render.web.page import CLIP, esc, pretty_json
from replay.render.web.row import row_fields
from replay.render.web.session_draft import shown_result
from replay.style import sanitize
from replay.todo.tool import TOOL_NAME
from tests.helpers import hostile_text

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-(1 << 70), max_value=1 << 70),
                    st.floats(), hostile_text(max_size=12))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(hostile_text(max_size=6), inner, max_size=4)),
                      max_leaves=12)


@given(VALUES)
def test_pretty_json_is_json_dumps_indented(value: Any) -> None:
    assert pretty_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_pretty_json_of_nesting_past_orjson_limit() -> None:
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    assert pretty_json(deep) == json.dumps(deep, indent=2, ensure_ascii=False)


def _outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        return "ok", read(text)
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


@given(st.one_of(hostile_text(max_size=20), VALUES.map(lambda v: json.dumps(v, ensure_ascii=False)),
                 VALUES.map(lambda v: "\ufeff" + json.dumps(v))))
def test_loads_is_json_loads_with_its_hooks(text: str) -> None:
    exact = _outcome(lambda t: json.loads(t, parse_constant=_reject_constant, parse_int=parse_int), text)
    fast = _outcome(loads, text)
    assert repr(fast) == repr(exact)  # repr: NaN-free, but -0.0 and 0.0 must differ too


ARGS = st.one_of(hostile_text(max_size=20), VALUES.map(lambda v: json.dumps(v, ensure_ascii=False)),
                 st.lists(st.fixed_dictionaries({"content": hostile_text(max_size=8),
                                                 "status": st.sampled_from(["pending", "in_progress", "completed"])}),
                          max_size=4).map(lambda todos: json.dumps({"todos": todos})))


@given(ARGS, st.sampled_from(["read_file", TOOL_NAME]), st.sampled_from(["en", "zh"]))
def test_row_fields_with_the_parse_given_is_row_fields(args: str, name: str, locale: str) -> None:
    call = ToolCall(seq=3, call_id="c1", name=name, args_raw=args)
    assert row_fields(call, locale, parse(args)) == row_fields(call, locale)


TEMPLATE = st.lists(st.one_of(hostile_text(max_size=4), st.sampled_from(["{a}", "{b}", "{c}", "{", "}", "{a!r}",
                                                                          "{0}", "{}"])), max_size=6).map("".join)


@given(TEMPLATE, st.lists(st.sampled_from("abc"), unique=True),
       st.lists(st.one_of(st.integers(), hostile_text(max_size=4)), min_size=3, max_size=3))
def test_formatter_is_interpolate(template: str, names: list[str], values: list[Any]) -> None:
    given_values = dict(zip(names, values, strict=False))
    assert formatter(template, *names)(**given_values) == interpolate(template, **given_values)


BLOCKS = st.lists(st.one_of(st.fixed_dictionaries({"type": st.just("text"), "text": hostile_text(max_size=8)}),
                            st.fixed_dictionaries({"type": st.sampled_from(["image", "text"]),
                                                   "data": st.integers()}),
                            st.integers()), max_size=4)
ERRORS = st.one_of(st.none(), st.fixed_dictionaries({"name": hostile_text(max_size=4),
                                                     "code": st.sampled_from(["interrupted", "E1", None])}))


@given(BLOCKS, st.booleans(), ERRORS, st.sampled_from([3, CLIP]))
def test_shown_result_reads_as_the_clipped_result(blocks: list[Any], is_error: bool, error: dict[str, Any] | None,
                                                  limit: int) -> None:
    result = ToolResult(7, "c1", tuple(blocks), is_error, error)
    exact, fast = clip(result, limit), shown_result(result, limit)
    assert (fast.output, fast.clipped_from, outcome(fast), fast.is_error, fast.error_code) == (
        exact.output, exact.clipped_from, outcome(exact), exact.is_error, exact.error_code)


ASCII_TEXT = st.lists(st.one_of(st.characters(max_codepoint=0x7F), st.sampled_from("&<>\"'\n\t\r\x7f")),
                      max_size=80).map("".join)


@given(st.one_of(hostile_text(max_size=80), ASCII_TEXT))
def test_esc_is_the_sanitizer_then_html_escaping(text: str) -> None:
    assert esc(text) == html.escape(sanitize(text, keep_newlines=True), quote=True)


@given(hostile_text(max_size=20))
def test_first_line_is_the_text_before_its_first_newline(text: str) -> None:
    assert first_line(text) == text.split("\n", 1)[0]
