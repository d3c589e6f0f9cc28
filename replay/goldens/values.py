"""How two JSON values differ, one line per difference at its path.

deepdiff costs tens of microseconds a value, and aligns lists and multi-line strings with
difflib: past what one call of it may cost (``DEEPDIFF_STEPS``), values are compared by a
walk of our own that finds what deepdiff finds (``_walk``). JSON nested deeper than
``MAX_JSON_DEPTH`` (deepdiff recurses) is compared as text by the callers (``shallow``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from deepdiff import DeepDiff

from replay.goldens.align import DEEPDIFF_CALL_STEPS, DEEPDIFF_VALUE_STEPS, MAX_DIFFS, Effort, align

_SHORT = 70
"""The widest a value is shown (unless ``full``)."""
MAX_JSON_DEPTH = 64
"""The deepest JSON compared value by value (deepdiff recurses a few frames a level);
deeper JSON is compared as text."""
_DEEPER = 0.33
"""deepdiff's ``threshold_to_diff_deeper``, passed to it and mirrored by ``_walk``: two
objects that share less than this share of their keys are shown whole."""

Path_ = tuple[str | int, ...]


def short(value: Any, full: bool = False, limit: int = _SHORT) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if full or len(text) <= limit else text[: limit - 1] + "…"


def _string_change(old: str, new: str, context: int = 24, width: int = 60) -> str:
    """Two strings shown around their first difference, not from their (shared) start."""
    p = 0
    limit = min(len(old), len(new))
    while p < limit and old[p] == new[p]:
        p += 1
    start = max(0, p - context)

    def window(text: str) -> str:
        piece = text[start : start + width]
        return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")

    return f"{json.dumps(window(old), ensure_ascii=False)} → {json.dumps(window(new), ensure_ascii=False)}"


def _change(old: Any, new: Any, full: bool) -> str:
    if not full and isinstance(old, str) and isinstance(new, str) and (len(old) > _SHORT or len(new) > _SHORT):
        return _string_change(old, new)
    return f"{short(old, full)} → {short(new, full)}"


def _path(parts: Sequence[Any], head: str) -> str:
    """``['update', 'entries', 1, 'status']`` → ``entries[1].status``, after ``head``."""
    out = head
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(whole value)"


@dataclass(frozen=True, slots=True)
class Positioned:
    """A record without its positions (``body``), its position ``at`` (which shifts by
    one for each record inserted before it) and the positions it points at (``sources``,
    which shift with it): one inserted record shifts every later position, which is one
    fact, not fifty."""

    body: Any
    at: Any = None
    sources: Any = None


class Focus:
    """How the records of a golden are compared, as the producer of that golden says
    (the engine knows no record format): what of a record is compared and how it is
    named (``named``), its kind (``kind``: what pairs records in a changed stretch), and
    its positions (``positioned``). This base compares records whole, unnamed, without
    positions."""

    position = "position"
    """How a record's position is named in a report."""
    sources = "sources"
    """How the positions a record points at are named."""

    def named(self, record: Any) -> tuple[str, Any]:
        """What of ``record`` to compare, and its name (``""``: none)."""
        return "", record

    def kind(self, record: Any) -> str:
        """What kind of record it is (``""``: unknown)."""
        return self.named(record)[0]

    def positioned(self, record: Any) -> Positioned:
        return Positioned(record)


WHOLE = Focus()
"""Records compared whole (JSON documents, text)."""


_Found = tuple[str, Path_, Any, Any]
"""One difference as deepdiff's tree view names it: its kind, its path, the two values."""
_ABSENT = object()


def value_diffs(expected: Any, actual: Any, full: bool = False, effort: Effort | None = None,
                focus: Focus = WHOLE) -> list[tuple[Path_, str]]:
    """Each difference between two JSON values as (its path in ``expected``, one line),
    sorted by line: deepdiff's, or, when ``effort`` cannot afford deepdiff, ``_walk``'s;
    what of each is compared, and how it is named, is ``focus``'s."""
    head_e, left = focus.named(expected)
    head_a, right = focus.named(actual)
    if head_e != head_a:
        return [((), f"{head_e or '(record)'} → {head_a or '(record)'}: {short(expected, full)} → "
                     f"{short(actual, full)}")]
    effort = Effort() if effort is None else effort
    cost = _deepdiff_cost(left, right, effort.deepdiff_left())
    incomplete = False
    if cost is not None:
        effort.deepdiffed += cost
        diff = DeepDiff(left, right, view="tree", max_diffs=MAX_DIFFS, threshold_to_diff_deeper=_DEEPER,
                        ignore_private_variables=True)
        raw: list[_Found] = [(kind, tuple(level.path(output_format="list")), level.t1, level.t2)
                             for kind, items in diff.items() for level in items]
        incomplete = bool(diff.get_stats().get("MAX DIFF LIMIT REACHED"))  # type: ignore[no-untyped-call]
    else:
        raw = _walk(left, right, effort)
    found: list[tuple[Path_, str]] = []
    runs, raw = _string_runs(raw)
    for parts, last, old, new in runs:
        found.append((parts, f"{_path(parts[:-1], head_e) if len(parts) > 1 or head_e else ''}[{parts[-1]}–{last}] "
                             f"joined: {_change(old, new, full)}"))
    for kind, parts, old, new in raw:
        path = _path(parts, head_e)
        if kind in ("values_changed", "type_changes"):
            text = f"{path}: {_change(old, new, full)}"
        elif "added" in kind:
            text = f"{path}: added {short(new, full)}"
        elif "removed" in kind:
            text = f"{path}: removed {short(old, full)}"
        else:
            text = f"{path}: {kind.replace('_', ' ')}"
        found.append((parts, text))
    found.sort(key=lambda item: (position(item[0]), item[1]))
    if incomplete:
        # deepdiff stops at max_diffs and may return a partial or even an empty result:
        # say so, never report fewer differences than there are as if that were all.
        found.append(((), f"{head_e or '(value)'}: too large to compare completely (over {MAX_DIFFS} values); "
                          "the list above is incomplete"))
    elif not found and expected != actual:
        found.append(((), f"{head_e or '(value)'}: differs: {short(expected, full)} → {short(actual, full)}"))
    return found


def position(parts: Path_) -> tuple[tuple[int, int | str], ...]:
    """Where a path is in its document, as a sort key: list indices in their natural
    order (``args[6]`` before ``args[10]``), keys by name."""
    return tuple((0, p) if isinstance(p, int) else (1, str(p)) for p in parts)


_RUN_KINDS = frozenset({"values_changed", "iterable_item_removed", "iterable_item_added"})


def _string_runs(raw: list[_Found]) -> tuple[list[tuple[Path_, int, str, str]], list[_Found]]:
    """Neighbouring items of one list of strings that changed (a text cut in pieces, as
    a stream of chunks is): each run of two or more, one of them changed, is one
    difference of the joined pieces, ``(path of its first item, its last index, old
    text, new text)``; the other differences are returned as they came. One edit of
    such a text is then one line, not one per piece it moved across."""
    by_list: dict[Path_, dict[int, _Found]] = {}
    for item in raw:
        kind, parts, old, new = item
        if (kind in _RUN_KINDS and parts and isinstance(parts[-1], int)
                and (isinstance(old, str) or old is _ABSENT) and (isinstance(new, str) or new is _ABSENT)):
            by_list.setdefault(parts[:-1], {})[parts[-1]] = item
    runs: list[tuple[Path_, int, str, str]] = []
    merged: set[int] = set()
    for parent, items in by_list.items():
        indices = sorted(items)
        start = 0
        for k in range(1, len(indices) + 1):
            if k < len(indices) and indices[k] == indices[k - 1] + 1:
                continue
            run = [items[i] for i in indices[start:k]]
            if len(run) > 1 and any(kind == "values_changed" for kind, *_ in run):
                old = "".join(o for _, _, o, _ in run if isinstance(o, str))
                new = "".join(n for _, _, _, n in run if isinstance(n, str))
                runs.append(((*parent, indices[start]), indices[k - 1], old, new))
                merged.update(id(item) for item in run)
            start = k
    return runs, [item for item in raw if id(item) not in merged]


def value_changes(expected: Any, actual: Any, full: bool = False, effort: Effort | None = None,
                  focus: Focus = WHOLE) -> list[str]:
    """One line per difference between two JSON values (``expected → actual``)."""
    return [text for _, text in value_diffs(expected, actual, full, effort, focus)]


def _scalars(items: list[Any]) -> bool:
    """Whether a list holds only JSON scalars (deepdiff aligns those with difflib)."""
    return all(item is None or isinstance(item, (str, int, float)) for item in items)


def align_cost(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """An upper bound of the steps difflib takes to align ``a`` and ``b``: at most
    3·min(n, m) + 1 probes, each visiting at most both sides and every pair of equal items."""
    in_b = Counter(b)
    equal = sum(in_b.get(item, 0) for item in a)
    return (3 * min(len(a), len(b)) + 1) * (len(a) + len(b) + equal + 1)


def _deepdiff_cost(left: Any, right: Any, cutoff: int | None) -> int | None:
    """The steps deepdiff may take over two values (``None`` past ``cutoff``): the call,
    each value it visits (it stops at ``MAX_DIFFS``), and difflib's work on each pair of
    lists of scalars it aligns and of multi-line strings it diffs."""
    steps = DEEPDIFF_CALL_STEPS
    visits = 0
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        visits += 1
        if a is b or type(a) is not type(b):
            continue
        if isinstance(a, dict):
            stack.extend((value, b[key]) for key, value in a.items() if key in b)
        elif isinstance(a, list):
            if _scalars(a) and _scalars(b):
                steps += align_cost(a, b)
            else:
                stack.extend(zip(a, b, strict=False))
        elif isinstance(a, str) and a != b and ("\n" in a or "\n" in b):
            steps += align_cost(a.splitlines(), b.splitlines())
        if cutoff is not None and steps + DEEPDIFF_VALUE_STEPS * min(visits, MAX_DIFFS) > cutoff:
            return None
    return steps + DEEPDIFF_VALUE_STEPS * min(visits, MAX_DIFFS)


def _walk(left: Any, right: Any, effort: Effort) -> list[_Found]:
    """What deepdiff (as ``value_diffs`` calls it) finds, by a walk in linear work but for
    the alignment of lists of scalars, which ``effort`` bounds: objects' keys added,
    removed and compared (two objects that share under ``_DEEPER`` of their keys shown
    whole, keys starting with "__" passed over); lists of scalars aligned, then compared
    item by item instead when that finds no more; other lists item by item."""
    found: list[_Found] = []
    stack: list[tuple[Path_, Any, Any]] = [((), left, right)]
    while stack:
        parts, a, b = stack.pop()
        if a is b:
            continue
        if type(a) is not type(b):
            found.append(("type_changes", parts, a, b))
        elif isinstance(a, dict):
            keys_a = [k for k in a if not _private(k)]
            keys_b = [k for k in b if not _private(k)]
            shared = [k for k in keys_a if k in b]
            union = len(keys_a) + len(keys_b) - len(shared)
            if union > 1 and len(shared) / union < _DEEPER:
                found.append(("values_changed", parts, a, b))
                continue
            found.extend(("dictionary_item_added", (*parts, k), _ABSENT, b[k]) for k in keys_b if k not in a)
            found.extend(("dictionary_item_removed", (*parts, k), a[k], _ABSENT) for k in keys_a if k not in b)
            stack.extend(((*parts, k), a[k], b[k]) for k in shared)
        elif isinstance(a, list):
            if _scalars(a) and _scalars(b):
                found.extend(_scalar_list(parts, a, b, effort))
            else:
                found.extend(_in_order(parts, a, b, 0, 0, stack))
        elif a != b:
            found.append(("values_changed", parts, a, b))
    # An item removed and one added at the same place are one change of that item.
    added = {parts: new for kind, parts, _, new in found if kind == "iterable_item_added"}
    removed = {parts for kind, parts, _, _ in found if kind == "iterable_item_removed"}
    both = added.keys() & removed
    if not both:
        return found
    return [("values_changed", parts, old, added[parts]) if kind == "iterable_item_removed" and parts in both
            else (kind, parts, old, new) for kind, parts, old, new in found
            if not (kind == "iterable_item_added" and parts in both)]


def _private(key: Any) -> bool:
    """A key deepdiff passes over (``ignore_private_variables``)."""
    return isinstance(key, str) and key.startswith("__")


def _in_order(parts: Path_, a: list[Any], b: list[Any], at_a: int, at_b: int,
              stack: list[tuple[Path_, Any, Any]] | None) -> list[_Found]:
    """Two lists (``a`` from ``at_a``, ``b`` from ``at_b``) compared item by item: the
    items past the shorter are removed or added; the pairs are pushed on ``stack`` to
    compare, or, for scalars (``stack`` is ``None``), compared here."""
    found: list[_Found] = []
    for k, (x, y) in enumerate(zip_longest(a, b, fillvalue=_ABSENT)):
        if y is _ABSENT:
            found.append(("iterable_item_removed", (*parts, at_a + k), x, y))
        elif x is _ABSENT:
            found.append(("iterable_item_added", (*parts, at_b + k), x, y))
        elif stack is not None:
            stack.append(((*parts, at_a + k), x, y))
        elif x is not y and (type(x) is not type(y) or x != y):
            found.append(("type_changes" if type(x) is not type(y) else "values_changed", (*parts, at_a + k), x, y))
    return found


def _scalar_list(parts: Path_, a: list[Any], b: list[Any], effort: Effort) -> list[_Found]:
    """Two lists of scalars as deepdiff compares them: aligned (a changed stretch item by
    item), unless item by item over the whole lists finds no more differences."""
    found: list[_Found] = []
    for tag, i1, i2, j1, j2 in align(a, b, effort):
        if tag == "replace":
            found.extend(_in_order(parts, a[i1:i2], b[j1:j2], i1, j1, None))
        elif tag == "delete":
            found.extend(("iterable_item_removed", (*parts, i), a[i], _ABSENT) for i in range(i1, i2))
        elif tag == "insert":
            found.extend(("iterable_item_added", (*parts, j), _ABSENT, b[j]) for j in range(j1, j2))
    if len(found) > 1:
        by_item = _in_order(parts, a, b, 0, 0, None)
        if len(found) >= len(by_item):
            return by_item
    return found


def shallow(value: Any) -> bool:
    """Whether a JSON value nests no more than ``MAX_JSON_DEPTH`` objects and lists."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        inside = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if inside is None:
            continue
        if depth > MAX_JSON_DEPTH:
            return False
        stack.extend((child, depth + 1) for child in inside)
    return True


