"""The one colour table and the one sanitizer of untrusted text."""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.style import COLORED, COLORS, COLORS_OFF, PLAIN, sanitize, style_for, use_color
from tests.helpers import BIDI_CONTROLS, CHARACTERS


@pytest.mark.parametrize(("raw", "shown"), [
    ("plain text, tabs\tand unicode — 任务 ✓", "plain text, tabs\tand unicode — 任务 ✓"),
    ("\x00\x07\x08\x0b\x0c\r\x1b[31m\x1f", "\\x00\\x07\\x08\\x0b\\x0c\\x0d\\x1b[31m\\x1f"),
    ("DEL\x7f C1\x80\x85\x9b\x9c\x9f", "DEL\\x7f C1\\x80\\x85\\x9b\\x9c\\x9f"),
    ("\u202a\u202b\u202c\u202d\u202e", "\\u202a\\u202b\\u202c\\u202d\\u202e"),
    ("\u2066\u2067\u2068\u2069\u200e\u200f\u061c", "\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c"),
    ("lone \ud800 and \udfff", "lone \ufffd and \ufffd"),
    ("\u00a0\u2028\u200b\ufeff", "\u00a0\u2028\u200b\ufeff"),  # not controls: shown as they are
])
def test_the_policy(raw: str, shown: str) -> None:
    assert sanitize(raw) == shown
    assert sanitize(raw, keep_newlines=True) == shown


def test_newlines_are_escaped_on_one_line_and_kept_in_a_block() -> None:
    assert sanitize("a\nb") == "a\\x0ab"
    assert sanitize("a\nb\x1b", keep_newlines=True) == "a\nb\\x1b"


# Lists joined, not st.text(): see tests.helpers.hostile_text.
@given(st.lists(st.one_of(CHARACTERS, st.sampled_from("\ufffe\uffff"))).map("".join))
def test_nothing_unsafe_is_left_and_it_is_idempotent(text: str) -> None:
    for keep in (False, True):
        shown = sanitize(text, keep_newlines=keep)
        assert sanitize(shown, keep_newlines=keep) == shown
        shown.encode("utf-8")  # no lone surrogate left
        assert not any((ord(c) < 0x20 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F for c in shown)
        assert not set(shown) & set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
        assert not set(shown) & set(BIDI_CONTROLS + "\ufffe\uffff")
        assert keep or "\n" not in shown
        assert shown.count("\ufffd") == text.count("\ufffd") + sum(0xD800 <= ord(c) <= 0xDFFF for c in text)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(_Tty()) and not use_color(io.StringIO()) and not use_color(_Tty(), disabled=True)
    assert style_for(_Tty()) is COLORED and style_for(io.StringIO()) is PLAIN
    monkeypatch.setenv("NO_COLOR", "")
    assert "NO_COLOR" in os.environ and not use_color(_Tty())


def test_the_table_and_paint() -> None:
    assert set(COLORS) == set(COLORS_OFF) and not any(COLORS_OFF.values())
    assert COLORED.paint("red", "x") == "\x1b[31mx\x1b[0m"
    assert PLAIN.paint("red", "x") == "x"
