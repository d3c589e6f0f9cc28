"""How two documents differ: the golden engine's entry to the comparison of JSON, JSONL
and text.

For goldens (``changes``): JSON and JSONL are compared semantically (``records``):
records are aligned first, then the changed pairs are compared value by value
(``values``) and each difference is one ``Change``, e.g.
``event 17 plan.entries[1].status: "pending" → "in_progress"``. Text is compared as a
unified diff, one ``Change`` per hunk (``lines``). Every change knows the line of the
golden it starts on (``goldens/<scenario>/<artefact>:<line>`` in a report). Values are
shortened and the list is capped unless ``full``; a real difference never yields an
empty report.

Content past ``SEMANTIC_DIFF_BYTES`` (either side) is compared line by line instead, as
it is read (``stream_changes`` reads files): the semantic diff holds both sides parsed,
about fifteen times their size. Under that limit the work is bounded too: every
alignment runs under the step budget of ``align.Effort``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import BinaryIO, Literal

from replay.goldens.align import Effort
from replay.goldens.lines import Change, capped, line_changes, oversize, size_of, text_changes
from replay.goldens.records import json_changes, jsonl_changes
from replay.goldens.values import WHOLE, Focus

SEMANTIC_DIFF_BYTES = 1 << 20
"""The largest content compared record by record (both sides): what that holds is about
fifteen times their size. Larger content is compared line by line."""


Kind = Literal["json", "jsonl", "text"]
"""How a golden's content is read: one JSON document, one JSON record a line, or text."""


@dataclass(frozen=True)
class Comparator:
    """How one golden is compared, as its producer declares it: its ``kind`` and, for
    records, the ``focus`` that says what of a record is compared, how it is named and
    where its positions are. The engine asks for one; it never guesses from a name or
    from the content."""

    kind: Kind
    focus: Focus = WHOLE


JSON = Comparator("json")
JSONL = Comparator("jsonl")
TEXT = Comparator("text")


def changes(compare: Comparator, expected: bytes, actual: bytes, full: bool = False, *,
            limit: int = SEMANTIC_DIFF_BYTES) -> list[Change]:
    """The differences of one golden file, capped at ``MAX_LINES`` lines unless ``full``:
    ``semantic_changes`` when both sides fit ``limit``, else line by line."""
    if max(len(expected), len(actual)) <= limit:
        return semantic_changes(compare, expected, actual, full)
    return line_changes(io.BytesIO(expected), io.BytesIO(actual), oversize(len(expected), len(actual), limit))


def semantic_changes(compare: Comparator, expected: bytes, actual: bytes, full: bool = False, *,
                     effort: Effort | None = None) -> list[Change]:
    """The differences of one golden file record by record (JSON, JSONL) or as a
    unified diff (text), capped at ``MAX_LINES`` lines unless ``full``, whatever its size,
    in the work ``effort`` allows (a fresh ``Effort``: ``EXACT_DIFF_STEPS``; ``Effort(None)``
    is the exact reference, unbounded)."""
    effort = Effort() if effort is None else effort
    if compare.kind == "jsonl":
        found = jsonl_changes(expected, actual, full, effort, compare.focus)
    elif compare.kind == "json":
        found = json_changes(expected, actual, full, effort)
    else:
        found = text_changes(expected, actual, full, effort)
    return found if full or effort.lines else list(capped(found))  # the line diff is capped already


def new_file_changes(actual: bytes, full: bool = False, *, limit: int = SEMANTIC_DIFF_BYTES) -> list[Change]:
    """A golden that does not exist yet, as the lines it would hold."""
    if len(actual) > limit:
        return line_changes(io.BytesIO(b""), io.BytesIO(actual), oversize(None, len(actual), limit))
    effort = Effort()
    found = text_changes(b"", actual, full, effort) if actual else [Change("an empty file")]
    return found if full or effort.lines else list(capped(found))


def stream_changes(compare: Comparator, expected: BinaryIO | None, actual: BinaryIO, full: bool = False, *,
                   limit: int = SEMANTIC_DIFF_BYTES) -> list[Change]:
    """``changes`` of a golden and a run read from seekable binary files, from their
    start (``new_file_changes`` when ``expected`` is ``None``: there is no golden).
    Content that fits ``limit`` is read whole; larger content is compared as it is
    read, never held."""
    golden = None if expected is None else size_of(expected)
    run = size_of(actual)
    if max(golden or 0, run) <= limit:
        data = actual.read()
        if expected is None:
            return new_file_changes(data, full, limit=limit)
        return changes(compare, expected.read(), data, full, limit=limit)
    return line_changes(expected if expected is not None else io.BytesIO(b""), actual, oversize(golden, run, limit))


