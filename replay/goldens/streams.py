"""Byte-exact streams (conformance): the two streams aligned, what is missing, extra or
changed, and the first line that differs, with the first difference of its JSON value in
document order (``first_difference``, which also sees key order)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from replay.goldens.align import Effort, align
from replay.goldens.values import MAX_JSON_DEPTH, WHOLE, Focus, shallow
from replay.output import show
from replay.words import counted


@dataclass(frozen=True, slots=True)
class LineDiff:
    """The first difference, with the two streams aligned: the golden line (0-based
    ``index`` among the compared golden lines, ``None`` for an extra rendered line) and
    the rendered one (``rendered_index``; ``None`` when a golden line was not rendered),
    and a short semantic summary."""

    index: int | None
    rendered_index: int | None
    expected: str | None
    got: str | None
    summary: str


@dataclass(frozen=True, slots=True)
class LineAlignment:
    """Two line streams aligned: ``matching`` expected lines found in order, ``missing``
    expected lines not there, ``extra`` lines not expected, ``changed`` pairs that differ
    in place, and the first difference (``None``: the streams are the same)."""

    matching: int
    missing: int
    extra: int
    changed: int
    first: LineDiff | None
    approximate: bool = False
    """Whether the alignment ran out of steps and was made linear (``align.Effort``)."""


def align_lines(expected: Sequence[str], got: Sequence[str], focus: Focus = WHOLE,
                effort: Effort | None = None) -> LineAlignment:
    """Align two streams of lines (JSON, as a rule) and say what differs, each line's kind
    named by ``focus``; under ``effort``'s step budget (past it, the alignment is linear
    and ``approximate`` says so)."""
    effort = Effort() if effort is None else effort
    matching = missing = extra = changed = 0
    first: LineDiff | None = None
    for tag, i1, i2, j1, j2 in align(expected, got, effort):
        if tag == "equal":
            matching += i2 - i1
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        changed += pairs
        missing += (i2 - i1) - pairs
        extra += (j2 - j1) - pairs
        if first is None:
            exp = expected[i1] if i1 < i2 else None
            act = got[j1] if j1 < j2 else None
            first = LineDiff(i1 if exp is not None else None, j1 if act is not None else None, exp, act,
                             describe_difference(exp, act, focus))
    return LineAlignment(matching, missing, extra, changed, first, effort.approximate)


def compare_lines(expected: Sequence[str], got: Sequence[str], focus: Focus = WHOLE,
                  ) -> tuple[int, LineDiff | None]:
    """(expected lines found in order, the first difference or ``None``)."""
    aligned = align_lines(expected, got, focus)
    return aligned.matching, aligned.first


def _parsed(line: str | None) -> Any:
    """A line's JSON value; ``_NOT_JSON`` when it is not JSON or nests deeper than
    ``MAX_JSON_DEPTH`` (never a ``RecursionError``)."""
    try:
        value = json.loads(line or "")
    except (ValueError, RecursionError):
        return _NOT_JSON
    return value if shallow(value) else _TOO_DEEP


_NOT_JSON = object()
_TOO_DEEP = object()


def describe_difference(expected: str | None, got: str | None, focus: Focus = WHOLE) -> str:
    """A one-line semantic summary: which key differs, expected vs got."""
    if expected is None or got is None:
        value = _parsed(got if expected is None else expected)
        kind = focus.kind(value) if value is not _NOT_JSON and value is not _TOO_DEEP else ""
        return f"{'extra line rendered' if expected is None else 'expected line not rendered'}: {kind or '?'}"
    exp, act = _parsed(expected), _parsed(got)
    if exp is _NOT_JSON or act is _NOT_JSON:
        return "a line is not JSON"
    if exp is _TOO_DEEP or act is _TOO_DEEP:
        return f"a line nests more than {MAX_JSON_DEPTH} deep: its bytes differ"
    found = first_difference(exp, act)
    if found is None:
        return "same JSON value, different bytes (key order or escaping)"
    return found


def first_difference(exp: Any, act: Any, path: str = "") -> str | None:
    """The first difference of two JSON values in document order, key order included
    (what byte-exactness needs; ``value_changes`` lists them all, order-blind), as
    ``path: expected X, got Y``; ``None`` when they are the same."""
    where = path or "(root)"
    if isinstance(exp, dict) and isinstance(act, dict):
        for key in exp:
            if key not in act:
                return f"{path}.{key}: expected {show(exp[key])}, missing"
            found = first_difference(exp[key], act[key], f"{path}.{key}" if path else key)
            if found:
                return found
        for key in act:
            if key not in exp:
                return f"{path}.{key}: unexpected key, got {show(act[key])}"
        if list(exp) != list(act):
            return f"{where}: key order: expected {list(exp)}, got {list(act)}"
        return None
    if isinstance(exp, list) and isinstance(act, list):
        for i, (e, a) in enumerate(zip(exp, act, strict=False)):
            found = first_difference(e, a, f"{path}[{i}]")
            if found:
                return found
        if len(exp) != len(act):
            return f"{where}: expected {counted(len(exp), 'item')}, got {len(act)}"
        return None
    if exp != act or type(exp) is not type(act):
        return f"{where}: expected {show(exp)}, got {show(act)}"
    return None
