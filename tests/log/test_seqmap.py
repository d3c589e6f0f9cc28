"""The maps keyed by seq (``replay.log.seqmap``) answer as the dicts they replaced,
whatever the order, types and sizes of their keys and values."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay.log.seqmap import SeqBytes, SeqIds

digests = st.lists(st.one_of(
    st.tuples(st.just("set"), st.one_of(st.integers(0, 30), st.integers(0, 30).map(float), st.just("s")),
              st.binary(min_size=1, max_size=3)),
    st.tuples(st.just("pop"), st.one_of(st.integers(0, 30), st.integers(0, 30).map(float), st.just("s")))),
    max_size=60)


@given(digests, st.booleans())
def test_seq_bytes_answer_as_a_dict(script: list[tuple[Any, ...]], increasing: bool) -> None:
    mine, ref = SeqBytes(2), dict[Any, bytes]()
    for i, op in enumerate(script):
        key = (i if increasing else op[1]) if op[0] == "set" else op[1]
        if op[0] == "set":
            mine[key] = op[2]
            ref[key] = op[2]
        else:
            assert mine.pop(key, None) == ref.pop(key, None)
        for probe in (*range(31), 3.0, "s"):
            assert (probe in mine) == (probe in ref)
            assert mine.get(probe) == ref.get(probe)


ids = st.one_of(st.uuids().map(str), st.uuids().map(lambda u: str(u).upper()), st.none(), st.integers(0, 3),
                st.text(max_size=36), st.just("65e181f3-565f-4be4-9ffe-9d59c808f7f8"))


@given(st.lists(st.tuples(st.one_of(st.integers(0, 30), st.integers(0, 30).map(float)), ids), max_size=40),
       st.booleans())
def test_seq_ids_answer_as_a_dict(script: list[tuple[Any, Any]], increasing: bool) -> None:
    mine, ref = SeqIds(), dict[Any, Any]()
    for i, (seq, value) in enumerate(script):
        key = i if increasing else seq
        mine[key] = value
        ref[key] = value
        for probe in (*range(41), 3.0, "s"):
            assert mine.get(probe, "default") == ref.get(probe, "default")
            assert type(mine.get(probe)) is type(ref.get(probe))


_SEQS = st.lists(st.integers(-(1 << 63), (1 << 63) - 1), unique=True, max_size=60).map(sorted)


@given(_SEQS, st.data())
def test_a_map_restored_at_once_is_the_map_of_its_values_assigned_in_seq_order(seqs: list[int],
                                                                               data: st.DataObject) -> None:
    """``restored_bytes`` and ``restored_ids`` (a checkpoint's maps, made at once) leave
    what assigning each value in seq order leaves, as the reading that built them did."""
    from replay.log.seqmap import (
        SeqBytesState,
        SeqIds,
        SeqIdsState,
        _uuid_bytes,
        _uuid_text,
        int64s,
        restored_bytes,
        restored_ids,
    )

    values = [data.draw(st.binary(min_size=16, max_size=16)) for _ in seqs]
    assigned = SeqBytes(16)
    for seq, value in zip(seqs, values, strict=True):
        assigned[seq] = value
    made = restored_bytes(16, SeqBytesState(int64s(seqs), b"".join(values)))
    assert [getattr(made, name) for name in SeqBytes.__slots__] == \
        [getattr(assigned, name) for name in SeqBytes.__slots__]

    taken = set(seqs)
    texts = st.text(max_size=40).filter(lambda text: _uuid_bytes(text) is None)  # a UUID is kept with the UUIDs
    others = sorted(data.draw(st.dictionaries(st.integers(-(1 << 63), (1 << 63) - 1).filter(lambda s: s not in taken),
                                              st.none() | texts, max_size=20)).items())
    ids = SeqIds()
    for seq, other in others:
        ids[seq] = other
    for seq, value in zip(seqs, values, strict=True):
        ids[seq] = _uuid_text(value)
    made_ids = restored_ids(SeqIdsState(SeqBytesState(int64s(seqs), b"".join(values)), others))
    assert made_ids._other == ids._other and list(made_ids._other) == list(ids._other)
    assert [getattr(made_ids._uuids, name) for name in SeqBytes.__slots__] == \
        [getattr(ids._uuids, name) for name in SeqBytes.__slots__]
