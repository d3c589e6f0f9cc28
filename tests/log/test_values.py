"""``hashable``'s short way (a JSON scalar is itself) against the way it shortcuts."""

from __future__ import annotations

import enum
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay.log.values import hashable
from replay.output import show
from tests.helpers import hostile_text


def _exact(value: Any) -> Any:
    """What ``hashable`` answered before its short way."""
    try:
        hash(value)
    except TypeError:
        return show(value, limit=10_000)
    return value


class _Unhashable(str):
    __hash__ = None  # type: ignore[assignment]


class _Kind(enum.Enum):
    A = 1


_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), hostile_text(max_size=8)),
                     lambda inner: st.one_of(st.lists(inner, max_size=3),
                                             st.dictionaries(hostile_text(max_size=4), inner, max_size=3)),
                     max_leaves=10)


@given(st.one_of(_JSON, st.sampled_from([_Unhashable("x"), _Kind.A, (1, [2]), (1, 2), frozenset({1})])))
def test_a_value_is_keyed_as_before(value: Any) -> None:
    got, want = hashable(value), _exact(value)
    assert type(got) is type(want) and (got == want or got is value)


def test_a_list_where_an_id_belongs_stands_in_as_its_text() -> None:
    assert hashable(["a", 1]) == '["a",1]'
    assert hashable(_Unhashable("x")) == '"x"'
    assert hashable(7) == 7 and hashable("c1") == "c1" and hashable(None) is None
