"""Todo items as the harness writes them in ``todo/write`` (spec §2.3)."""

from __future__ import annotations

from typing import Literal

STATUSES = ("pending", "in_progress", "completed")
TodoStatus = Literal["pending", "in_progress", "completed"]

JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""What JavaScript's ``String.prototype.trim`` strips. Python's ``str.strip()``
differs: it also strips U+001C–U+001F and U+0085 and keeps U+FEFF (spec §4.4)."""


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)
