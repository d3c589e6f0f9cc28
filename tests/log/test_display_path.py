"""How a report names a log: the string comparison ``display_path`` makes is the
part-by-part rule of ``PurePath.is_relative_to`` for every name and folder."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from replay.log.source import _display_path_parts, display_path

_PART = st.sampled_from(["a", "ab", "b", ".", "..", "", "a.jsonl", "x y", "é"])
_NAME = st.builds(lambda lead, parts: lead + "/".join(parts), st.sampled_from(["", "/", "//", "///"]),
                  st.lists(_PART, max_size=5))


@given(_NAME, _NAME)
def test_display_path_is_the_part_by_part_rule(path: str, cwd: str) -> None:
    if not path:
        path = "."
    base = os.path.abspath(cwd or "/")
    assert display_path(path, base) == _display_path_parts(path, base, os.path.abspath(path))


def test_display_path_names() -> None:
    assert display_path("/x/y/z.jsonl", "/x") == "y/z.jsonl"
    assert display_path("/xy/z.jsonl", "/x") == "/xy/z.jsonl"
    assert display_path("/x", "/x") == "/x"
    assert display_path("/a/b", "/") == "a/b"
    assert display_path("/x/../x/y", "/x") == "y"
    assert display_path("<stdin>", "/x") == "<stdin>"
