"""How text reaches a person: the colour table, when colour is used, and the one
sanitizer every human-facing output passes untrusted text through.

Colour is a table, not branches: ``COLORS`` holds the SGR codes, ``COLORS_OFF`` the
same names mapped to nothing, and a ``Style`` picks one of the two, so a formatter
writes ``style.paint("red", text)`` whatever the terminal. Colour is used only on a
terminal, and never when ``NO_COLOR`` is set (to anything, https://no-color.org).

``sanitize`` is the policy for untrusted text (log content, file and scenario names,
error messages quoting them) in every output a person reads. What could drive a
terminal or reorder what is shown is written as a visible escape instead:

* the C0 controls except tab (and newline, where the output is multi-line), DEL and
  the C1 controls U+0080–U+009F as ``\\xNN`` (lowercase hex: ESC shows as ``\\x1b``);
* the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)
  as ``\\uNNNN`` (U+202E shows as ``\\u202e``), and the noncharacters U+FFFE and
  U+FFFF (which XML cannot carry) the same way;
* a lone surrogate, which no UTF-8 output can carry, as U+FFFD.

Backslashes are not doubled: the escapes are for reading, not for round-tripping.

Where it is used: text reports, GitHub annotations, JUnit XML (read by people in CI
pages; XML 1.0 cannot carry C0 controls even as character references), every message
on stderr, the HTML page (its text and its timeline data), and whatever ``render``
writes to a terminal (the stdio transcript sanitizes its content itself, keeping its
own colour codes). JSON reports are for machines and carry the text as it is (escaped
by their own syntax, a lone surrogate as ``\\uXXXX``), except on a terminal, where
``sanitize_json`` writes what ``sanitize`` escapes as JSON escapes; so do files that are faithful
replays (goldens, ``render -o``), where only a lone surrogate, which UTF-8 cannot
carry, is written as U+FFFD.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Final, TextIO

COLORS: Final = {
    "bold": "\x1b[1m",
    "dim": "\x1b[2m",
    "red": "\x1b[31m",
    "green": "\x1b[32m",
    "yellow": "\x1b[33m",
    "cyan": "\x1b[36m",
    "reset": "\x1b[0m",
}
"""Every SGR code replay writes, by name."""
COLORS_OFF: Final = dict.fromkeys(COLORS, "")
"""The same names, writing nothing: a formatter never branches on colour."""


def use_color(stream: TextIO, disabled: bool = False) -> bool:
    """Colour only on a terminal, never with ``NO_COLOR`` set (to anything), never when
    the user said ``--no-color``."""
    return not disabled and "NO_COLOR" not in os.environ and stream.isatty()


@dataclass(frozen=True, slots=True)
class Style:
    """Colour on or off, as one value handed to formatters."""

    color: bool = False

    @property
    def codes(self) -> dict[str, str]:
        """The table in force: ``COLORS`` or ``COLORS_OFF``."""
        return COLORS if self.color else COLORS_OFF

    def paint(self, name: str, text: str) -> str:
        """``text`` in colour ``name`` (then reset); ``text`` itself without colour."""
        codes = self.codes
        return f"{codes[name]}{text}{codes['reset']}"


PLAIN: Final = Style(False)
COLORED: Final = Style(True)


def style_for(stream: TextIO, disabled: bool = False) -> Style:
    """The style of output written to ``stream`` (see ``use_color``)."""
    return COLORED if use_color(stream, disabled) else PLAIN


LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate (Python strings hold no pairs): shown, and written, as U+FFFD, here
and at the output edge (``replay.output.utf8``), where text becomes bytes."""
_ESCAPED = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff\ud800-\udfff"
ESCAPED_CHARACTERS = _ESCAPED
"""What ``sanitize`` escapes, as the inside of a regular expression's character class
(newline aside): for an output that looks for these and its own characters at once."""
_UNSAFE_IN_BLOCK = re.compile(f"[{_ESCAPED}]")
_UNSAFE_IN_LINE = re.compile(f"[\n{_ESCAPED}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def sanitize_json(text: str) -> str:
    """JSON text with every character ``sanitize`` escapes written as a JSON escape
    (U+202E as ``\\u202e``): the same document for a parser, and nothing in it drives or
    reorders a terminal. What a JSON report is written through on a terminal. (JSON's
    own syntax is ASCII: these characters are only ever inside its strings.)"""
    if _UNSAFE_IN_BLOCK.search(text) is None:
        return text
    return _UNSAFE_IN_BLOCK.sub(_json_escape, text)


def sanitize(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control, bidi control and lone surrogate made visible (see
    the module docstring). Tabs stay; newlines stay only with ``keep_newlines`` (a
    one-line field, such as a finding in a text report, escapes them as ``\\x0a``)."""
    unsafe = _UNSAFE_IN_BLOCK if keep_newlines else _UNSAFE_IN_LINE
    if unsafe.search(text) is None:
        return text
    return unsafe.sub(_escape, text)


__all__ = ["COLORED", "COLORS", "COLORS_OFF", "ESCAPED_CHARACTERS", "LONE_SURROGATE", "PLAIN", "Style", "sanitize",
           "style_for", "use_color"]
