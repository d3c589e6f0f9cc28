"""The short way to ``JSON.stringify`` (``plain_bytes``, orjson) against the exact
writer it shortcuts (``dump_parts``): equal wherever it answers, and it answers for
every value of the kinds it claims."""

from __future__ import annotations

import collections
import enum
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.jsjson import dump_parts, dumps, plain_bytes
from replay.output import GATHER, gathered
from replay.view.surface import json_lines
from tests.helpers import CONTROLS, hostile_text

_SAFE = 2**53

_EDGE_TEXT = ["", "0", "1", "01", "-1", "1.5", "4294967294", "4294967295", "\u2028\u2029", "\x7f", "\x00\x1f",
              '"\\/', "\ud800", "a\udfffb", "\U0001f600", "\ufeff"]


def _texts(surrogates: bool) -> st.SearchStrategy[str]:
    if surrogates:
        return st.one_of(st.sampled_from(_EDGE_TEXT), hostile_text(max_size=12))
    edges = [t for t in _EDGE_TEXT if not any(0xD800 <= ord(c) < 0xE000 for c in t)]
    return st.one_of(st.sampled_from(edges), st.text(st.one_of(st.characters(codec="utf-8"), CONTROLS), max_size=12))


_INTS = st.one_of(st.integers(), st.sampled_from([_SAFE - 1, _SAFE, _SAFE + 1, -_SAFE, -_SAFE - 1, 2**63 - 1, 2**63,
                                                  2**64, -(2**63), -(2**64) - 1, 0]))
_FLOATS = st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 1.0, 1e21, 1e-7, 5e-324, float("nan"), float("inf")]))


class _Word(enum.StrEnum):
    WORD = "word"


class _Number(enum.IntEnum):
    ONE = 1


def _values(surrogates: bool, numbers: bool) -> st.SearchStrategy[Any]:
    texts = _texts(surrogates)
    leaves: list[st.SearchStrategy[Any]] = [texts, st.none(), st.booleans(),
                                            st.integers(-_SAFE, _SAFE) if not numbers else _INTS]
    if numbers:
        leaves += [_FLOATS, st.sampled_from([_Word.WORD, _Number.ONE])]
    keys = texts if numbers else texts.filter(lambda k: not (k.isascii() and k.isdigit() and (k == "0" or k[0] != "0")))
    return st.recursive(st.one_of(*leaves), lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(keys, inner, max_size=5)), max_leaves=30)


@given(_values(surrogates=True, numbers=True))
def test_the_short_way_writes_what_the_exact_writer_writes_whenever_it_answers(value: Any) -> None:
    exact = "".join(dump_parts(value))
    fast = plain_bytes(value)
    if fast is not None:
        assert fast.decode("utf-8") == exact
        assert plain_bytes(value, newline=True) == fast + b"\n"
    assert dumps(value) == exact


_KEYS = st.sampled_from(["a", "b", "", "0", "1", "2", "10", "01", "-1", "1.0", "4294967294", "4294967295", "٣"])


@given(st.recursive(st.integers(-3, 3), lambda inner: st.dictionaries(_KEYS, inner, max_size=6), max_leaves=12))
def test_objects_with_index_keys_are_written_in_javascript_order(value: Any) -> None:
    exact = "".join(dump_parts(value))
    fast = plain_bytes(value)
    assert fast is None or fast.decode("utf-8") == exact
    assert dumps(value) == exact


@given(_values(surrogates=False, numbers=False))
def test_the_short_way_answers_for_every_plain_value(value: Any) -> None:
    fast = plain_bytes(value)
    assert fast is not None
    assert fast.decode("utf-8") == "".join(dump_parts(value))


class _Dict(dict[str, Any]):
    pass


class _Text(str):
    pass


@pytest.mark.parametrize("value", [
    1.0, -0.0, 1e21, [0.5], {"a": 2**53 + 1}, {"1": 1, "b": 2}, "\ud800", [_Word.WORD], [_Number.ONE], {1: "a"},
    _Dict(a=1), [_Text("a")], {_Text("k"): 1}, collections.OrderedDict(a=1), collections.defaultdict(int, a=1),
    {"0": 1}, {"4294967295": 1},
])
def test_what_the_short_way_leaves_to_the_exact_writer(value: Any) -> None:
    assert plain_bytes(value) is None


def test_orjson_escapes_every_character_as_javascript_does() -> None:
    """Every code point but the surrogates, alone and all in one string: orjson's text is
    the exact writer's (the claim the short way rests on)."""
    every = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    assert orjson.dumps(every).decode("utf-8") == "".join(dump_parts(every))
    assert orjson.dumps("".join(every)).decode("utf-8") == "".join(dump_parts("".join(every)))


@pytest.mark.parametrize("key", ["-0", "00", "01", "１", " 0", "0 ", "1e3", "+1", "0x1"])
def test_keys_that_only_look_like_indices_are_plain(key: str) -> None:
    value = {"b": 1, key: 2}
    fast = plain_bytes(value)
    assert fast is not None and fast.decode("utf-8") == "".join(dump_parts(value))


@pytest.mark.parametrize("depth", [10, 254, 255, 256, 300])
def test_deep_values_are_written_alike_past_orjsons_depth(depth: int) -> None:
    value: Any = "x"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    assert dumps(value) == "".join(dump_parts(value))


def test_index_keys_and_numbers_are_still_written_as_javascript_writes_them() -> None:
    assert dumps({"b": 1, "2": 2.0, "a": [1e21, -0.0, 2**53 + 1, "\ud800"]}) == (
        '{"2":2,"b":1,"a":[1e+21,0,9007199254740992,"\\ud800"]}')
    assert dumps({"text": "\x00\x1f\u2028\x7f\"\\/é"}) == '{"text":"\\u0000\\u001f\u2028\x7f\\"\\\\/é"}'


def test_a_long_frame_is_written_in_pieces_by_the_exact_writer_and_a_short_one_at_once() -> None:
    short = {"a": "x"}
    long = {"text": "é" * (1 << 20), "n": 1}
    lines = list(json_lines([short, long, {"f": 0.5}]))
    assert lines[0] == b'{"a":"x"}\n'
    assert all(isinstance(piece, str) for piece in lines[1:-1]) and len(lines) > 3
    assert "".join(lines[1:-1]) == dumps(long) + "\n"
    assert lines[-1] == '{"f":0.5}\n'


def test_output_is_gathered_in_blocks_and_a_long_chunk_passed_on_alone() -> None:
    small = [f"{i:05d}\n" for i in range(30_000)]
    blocks = list(gathered(small))
    assert "".join(blocks) == "".join(small)
    assert all(len(b) >= GATHER for b in blocks[:-1]) and all(len(b) < GATHER + 6 for b in blocks)
    big = "b" * (GATHER * 3)
    out = list(gathered(["a", big, "c", "d"]))
    assert out == ["a", big, "cd"]
    assert out[1] is big  # never copied
