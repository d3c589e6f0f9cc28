"""JSON as JavaScript reads and writes it: ``parse`` is ``JSON.parse`` (no NaN or
Infinity), ``dumps`` is ``JSON.stringify`` (no indentation), ``js_string`` is
``String(value)``. Every place that writes harness JSON or builds harness text from
log values goes through here.

The harness writes every ACP frame with ``JSON.stringify``; matching it byte for byte
takes more than ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``:

* **strings**: ``"``, ``\\`` and the C0 controls are escaped (``\\b \\t \\n \\f \\r``,
  the rest as ``\\u00xx`` with lowercase hex); a lone surrogate becomes ``\\udxxx``;
  everything else, including non-ASCII, U+2028/U+2029 and DEL, is written raw;
* **numbers**: ECMAScript ``Number::toString`` (``1.0`` → ``1``, ``1e-07`` → ``1e-7``,
  ``1e21`` stays exponential, ``-0`` → ``0``); an integer beyond 2**53 is first rounded
  to the nearest double, as ``JSON.parse`` would have done; NaN and infinities → ``null``;
* **key order**: an object's integer-like keys ("array indices") come first in
  ascending numeric order, then the other keys in insertion order.

``js_string`` is the template-literal conversion (``${value}``) used by text the
harness builds from log values.

**The short way** (``plain_bytes``): for most values a renderer writes (strings, safe
integers, booleans, nulls, in objects whose keys are not array indices) orjson's text is
``JSON.stringify``'s, byte for byte: it escapes exactly the same characters, the same
way. ``plain_bytes`` checks a value is of those kinds alone (a walk over the containers,
no string looked at) and has orjson write it, 20 times faster than the exact writer;
any other value (a float, an integer beyond 2**53, an index key, a lone surrogate,
which orjson refuses, a subclass of a JSON type) is left to the exact writer
(``dump_parts``). ``tests/test_jsjson_fast.py`` holds the two equal on generated values.
"""

from __future__ import annotations

import json
import json.encoder
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import orjson

from replay.style import LONE_SURROGATE

_INDEX_KEY = re.compile(r"0|[1-9][0-9]*")
_MAX_INDEX = 2**32 - 2
MAX_SAFE_INTEGER = 2**53 - 1
"""JavaScript's ``Number.MAX_SAFE_INTEGER``: beyond it, integers lose precision as doubles."""
_MAX_SAFE = MAX_SAFE_INTEGER + 1
"""The largest magnitude an integer keeps exactly as a double (2**53 itself is one)."""
_escape_basestring: Callable[[str], str] = json.encoder.c_encode_basestring or json.encoder.py_encode_basestring  # type: ignore[attr-defined]


def quote(text: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it. The standard library's
    encoder (in C: one pass, no pieces) escapes exactly what ``JSON.stringify`` does
    but lone surrogates, which it leaves raw: those are escaped after."""
    out = _escape_basestring(text)
    return out if LONE_SURROGATE.search(out) is None else escape_lone(out)


def escape_lone(text: str) -> str:
    """Each lone surrogate of a JSON text as its ``\\uXXXX`` escape (in JSON text a raw
    surrogate can only stand inside a string literal)."""
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _double(value: int) -> float:
    """The double JavaScript reads for an integer literal: beyond the largest double, an infinity."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def js_number(value: float | int) -> str:
    """ECMAScript ``Number::toString`` of a number (radix 10)."""
    if isinstance(value, int):
        if -_MAX_SAFE <= value <= _MAX_SAFE:
            return str(value)
        value = _double(value)
    if math.isnan(value) or math.isinf(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = Decimal(repr(abs(value))).as_tuple()[1:]
    assert isinstance(exponent, int)
    digits = "".join(map(str, digits_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = k + exponent  # value = 0.digits × 10^n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        body = f"{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"
    return sign + body


def _ordered_keys(obj: dict[str, Any]) -> list[str]:
    keys = list(obj)
    indices = [k for k in keys if _INDEX_KEY.fullmatch(k) and int(k) <= _MAX_INDEX]
    if not indices:
        return keys
    chosen = set(indices)
    return sorted(indices, key=int) + [k for k in keys if k not in chosen]


def _plain(value: Any) -> bool:
    """Whether orjson writes ``value`` as ``JSON.stringify`` does: it holds only
    strings, integers JavaScript keeps exact, booleans and nulls, in lists, tuples and
    dicts keyed by strings that are not array indices (each of its exact type:
    a subclass may write itself otherwise)."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return True
    if kind is int:
        return bool(-_MAX_SAFE <= value <= _MAX_SAFE)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or ("0" <= key[:1] <= "9" and _INDEX_KEY.fullmatch(key)):
                return False
            if not _plain(item):
                return False
        return True
    if kind is list or kind is tuple:
        return all(map(_plain, value))
    return False


_NEWLINE = orjson.OPT_APPEND_NEWLINE


def plain_bytes(value: Any, newline: bool = False) -> bytes | None:
    """``JSON.stringify(value)`` as UTF-8 (and a newline), written by orjson, when
    ``value`` is plain (see the module's docstring); ``None`` when it is not, for the
    exact writer to write."""
    try:
        if not _plain(value):
            return None
        return orjson.dumps(value, option=_NEWLINE) if newline else orjson.dumps(value)
    except (orjson.JSONEncodeError, RecursionError):  # a lone surrogate; nested deeper than orjson goes
        return None


def dumps(value: Any) -> str:
    """``JSON.stringify(value)`` for a JSON-shaped Python value."""
    fast = plain_bytes(value)
    return fast.decode() if fast is not None else "".join(dump_parts(value))


def dump_parts(value: Any) -> list[str]:
    """``dumps(value)`` in pieces that concatenate to it (a writer need not join them),
    by the exact writer, whatever the value."""
    parts: list[str] = []
    _write(value, parts)
    return parts


def _write(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(quote(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int | float):
        number = value if isinstance(value, float) or -_MAX_SAFE <= value <= _MAX_SAFE else _double(value)
        out.append(js_number(number) if math.isfinite(number) else "null")
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key in _ordered_keys(value):
            if not first:
                out.append(",")
            first = False
            out.append(quote(str(key)))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")


def js_string(value: Any) -> str:
    """``String(value)``, what a template literal ``${value}`` interpolates."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, list | tuple):
        return ",".join("" if item is None else js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_LONGEST_INT = 4000
"""Digits of the longest integer kept exactly (Python refuses to convert more than 4,300)."""


def parse_int(digits: str) -> int | float:
    """An integer literal: exact, unless it is too long to be anything but an infinity
    to JavaScript (and to Python's ``int``)."""
    if len(digits) <= _LONGEST_INT:
        return int(digits)
    return -math.inf if digits.startswith("-") else math.inf


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_int=parse_int)
"""``json.loads``'s decoder with these hooks, made once (it keeps no state between texts)."""


def loads(raw: str) -> Any:
    """``JSON.parse(raw)``: ``ValueError`` for what it refuses (garbage, ``NaN``,
    ``Infinity``), ``RecursionError`` for nesting too deep to parse; integers of any
    length (see ``parse_int``)."""
    if type(raw) is str and not raw.startswith("\ufeff"):  # what json.loads does with a text, less the decoder's making
        return _DECODER.decode(raw)
    return json.loads(raw, parse_constant=_reject_constant, parse_int=parse_int)


def parse(raw: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``raw`` is what ``JSON.parse`` accepts, else
    ``(False, None)`` (NaN/Infinity, garbage, nesting too deep to parse)."""
    try:
        return True, loads(raw)
    except (ValueError, RecursionError):
        return False, None


__all__ = ["dump_parts", "dumps", "js_number", "js_string", "loads", "parse", "parse_int", "plain_bytes", "quote"]
