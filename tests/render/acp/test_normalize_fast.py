"""``Normalizer.text`` passes over a string that holds none of what the scrub looks for;
it gives what the whole scrub (``Normalizer.scrub``) gives, for any string, cwd
spellings and session id."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from replay.render.acp.normalize import CWD_TOKEN, SESSION_TOKEN, Normalizer
from tests.helpers import hostile_text

_PIECES = st.sampled_from([
    "-", "{", "}", "/", ".", "a", "0", "f", " ", ")", "/private", CWD_TOKEN, "/private" + CWD_TOKEN, SESSION_TOKEN,
    "/tmp/", "/t/",
    "dsh-acp-snap-0123456789abcdef"[:22], "dsh-acp-snapshot-spill", "/session-", "0123456789ab", "/.spill",
    "12345678-1234-1234-1234-123456789abc", "/home/me/proj", "proj", "C:", ". Use read with offset/limit",
])
_TEXT = st.one_of(st.lists(_PIECES, max_size=12).map("".join), hostile_text(max_size=20))
_WORD = st.one_of(st.sampled_from(["/home/me/proj", "proj", "/tmp", "x", "{{cwd}}/sub", "p-q"]), _TEXT)


@given(value=_TEXT, cwds=st.lists(_WORD, max_size=3), session_id=st.one_of(st.none(), _WORD))
def test_text_is_the_whole_scrub(value: str, cwds: list[str], session_id: str | None) -> None:
    normalizer = Normalizer(cwds, session_id)
    assert normalizer.text(value) == normalizer.scrub(value)


def test_a_plain_string_is_passed_over_and_a_marked_one_scrubbed() -> None:
    normalizer = Normalizer(["/home/me/proj"], "s1")
    assert normalizer.text("plain words") == "plain words"
    assert normalizer.text("in /home/me/proj now") == f"in {CWD_TOKEN} now"
    assert normalizer.text("id s1") == f"id {SESSION_TOKEN}"
    assert normalizer.text("12345678-1234-1234-1234-123456789abc") == SESSION_TOKEN
    assert normalizer.text(f"at /private{CWD_TOKEN}/a") == f"at {CWD_TOKEN}/a"
