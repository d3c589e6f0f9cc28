"""Value tests that mirror JavaScript's semantics where the harness relies on them."""

from __future__ import annotations

from typing import Any

from replay.jsjson import MAX_SAFE_INTEGER
from replay.output import show


def is_safe_int(value: Any) -> bool:
    """``Number.isSafeInteger``: integral and within ±(2^53 − 1); booleans are not numbers."""
    if type(value) is int:
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    if type(value) is float:
        return value.is_integer() and abs(value) <= MAX_SAFE_INTEGER
    return False


def is_nonneg_safe_int(value: Any) -> bool:
    return is_safe_int(value) and value >= 0


def is_number(value: Any) -> bool:
    """``typeof value === "number"`` for parsed JSON (booleans excluded)."""
    return type(value) is int or type(value) is float


def is_nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and value != ""


_JSON_TYPES: dict[type, str] = {dict: "object", list: "array", str: "string", int: "number", float: "number",
                                 bool: "boolean", type(None): "null"}


def json_type(value: Any) -> str:
    """What JSON calls the type of a parsed value ("object", "array", "null", …)."""
    return _JSON_TYPES.get(type(value), "value")


_ALWAYS_HASHABLE = frozenset({str, int, bool, float, type(None)})
"""The JSON scalars' types: a value of one of them (not of a subclass) always hashes."""


def hashable(value: Any) -> Any:
    """``value`` itself when it can key a dict or set, else a stable text stand-in
    (a log may put a list where an id belongs)."""
    if type(value) in _ALWAYS_HASHABLE:  # most calls: a turn, a step, an id
        return value
    try:
        hash(value)
    except TypeError:
        return show(value, limit=10_000)
    return value


PLACEHOLDER_PREFIX = "{{"
CWD_PLACEHOLDER = "{{cwd}}"
"""The fixture token that stands for the session's absolute cwd; paths below it are
``{{cwd}}/rest``."""


def is_placeholder(value: Any) -> bool:
    """A fixture token such as ``{{cwd}}`` or ``{{sessionId}}`` (spec §1.5)."""
    return isinstance(value, str) and value.startswith(PLACEHOLDER_PREFIX) and "}}" in value
