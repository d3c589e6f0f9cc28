"""How two texts differ: ``Change`` (one difference at its golden line), the unified diff
of text (``text_changes``), and the line diff of content too large to parse, compared as
it is read (``line_changes``).

The line diff reads ahead a window of lines (``WINDOW_LINES``, ``WINDOW_BYTES``, and
always one line), so its memory is that of its largest lines, and its work is linear: it
resyncs on the nearest line both windows hold, or takes both windows as changed. Its
report is capped and its lines are cut even with ``full``, and its first line says it is
a line diff.
"""

from __future__ import annotations

import io
import os
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from replay.goldens.align import WINDOW_BYTES, WINDOW_LINES, Effort, Matcher, TooCostly, resync
from replay.words import counted

MAX_LINES = 40
"""The most lines of changes a golden reports (unless ``full``)."""
_LINE_WIDTH = 200
"""The widest a line of the line diff is shown, in characters."""
_LINE_LEAD = 40
"""Characters shown before the first difference of a changed line too long to show whole."""
_CHUNK = 1 << 16
COUNT_LINES = 1 << 16
"""Once a line diff's report is full, the lines still aligned, only to count the
differences left out; past them the rest is not compared, only its lines counted (a
32 MiB golden of newlines is 33 million lines)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One difference of a golden: ``text`` (one line), the golden's 1-based ``line``
    it starts on (``None`` when it has none, e.g. "only the trailing newline"), and, for
    a text hunk, the hunk's lines in ``body``."""

    text: str
    line: int | None = None
    body: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return [self.text, *self.body]


def change_lines(found: Sequence[Change]) -> list[str]:
    """The changes as plain lines (each change's text, then its body)."""
    return [line for c in found for line in c.lines()]



_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def text_changes(expected: bytes, actual: bytes, full: bool = False, effort: Effort | None = None,
                 ) -> list[Change]:
    """A unified diff (one line of context, difflib's), one ``Change`` per hunk, at the
    first golden line it changes; the line diff when ``effort`` cannot afford difflib."""
    effort = Effort() if effort is None else effort
    if expected != actual and expected.rstrip(b"\n") == actual.rstrip(b"\n"):
        return [_trailing_newline(expected)]
    a = expected.decode("utf-8", "replace").split("\n")
    b = actual.decode("utf-8", "replace").split("\n")
    try:
        groups = list(Matcher(a, b, effort, autojunk=True).get_grouped_opcodes(1))
    except TooCostly:
        effort.lines = True
        return line_changes(io.BytesIO(expected), io.BytesIO(actual), Change(effort.note("compared line by line")))
    found = []
    for group in groups:
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        hunk = [f"@@ -{_span(i1, i2 - i1)} +{_span(j1, j2 - j1)} @@"]
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                hunk.extend(" " + line for line in a[a1:a2])
                continue
            if tag in ("replace", "delete"):
                hunk.extend("-" + line for line in a[a1:a2])
            if tag in ("replace", "insert"):
                hunk.extend("+" + line for line in b[b1:b2])
        found.append(_hunk(hunk))
    return found or never_empty(expected, actual)


def _hunk(lines: list[str]) -> Change:
    header, body = lines[0], tuple(lines[1:])
    match = _HUNK.match(header)
    line = int(match.group(1)) if match else None
    if line is not None:
        if match and match.group(2) == "0":
            line += 1  # an insertion into an empty stretch: -N,0 means "after line N"
        for row in body:  # context lines come first: the change starts after them
            if not row.startswith(" "):
                break
            line += 1
    return Change(header, max(line, 1) if line is not None else None, body)


def _trailing_newline(expected: bytes) -> Change:
    return Change("only the trailing newline differs", expected.rstrip(b"\n").count(b"\n") + 1)


def never_empty(expected: bytes, actual: bytes) -> list[Change]:
    if expected == actual:
        return []
    if expected.rstrip(b"\n") == actual.rstrip(b"\n"):
        return [_trailing_newline(expected)]
    return [Change(f"the bytes differ ({len(expected)} bytes in the golden, {len(actual)} from the run) though the "
                   "content compares equal: check key order, number spelling or escaping")]



def same_content(expected: BinaryIO, actual: BinaryIO) -> bool:
    """Whether two seekable binary files hold the same bytes, read a block at a time."""
    size = size_of(expected)
    return size == size_of(actual) and _same_prefix(expected, actual, size)[0]


def size_of(fh: BinaryIO) -> int:
    """The size of a seekable file, left at its start."""
    size = fh.seek(0, os.SEEK_END)
    fh.seek(0)
    return size


def _same_prefix(expected: BinaryIO, actual: BinaryIO, end: int) -> tuple[bool, int]:
    """Whether the first ``end`` bytes of both are the same, and the line breaks among
    them (when they are); both are left at their start."""
    expected.seek(0)
    actual.seek(0)
    breaks = 0
    done = 0
    same = True
    while done < end:
        want = min(_CHUNK, end - done)
        block = expected.read(want)
        if len(block) != want or block != actual.read(want):
            same = False
            break
        breaks += block.count(b"\n")
        done += want
    expected.seek(0)
    actual.seek(0)
    return same, breaks


def _stripped_size(fh: BinaryIO, size: int) -> int:
    """The size without the line breaks that end the file, read from its end."""
    end = size
    while end > 0:
        start = max(0, end - _CHUNK)
        fh.seek(start)
        kept = len(fh.read(end - start).rstrip(b"\n"))
        if kept:
            end = start + kept
            break
        end = start
    fh.seek(0)
    return end


def oversize(golden: int | None, run: int, limit: int) -> Change:
    """The line that says content was compared line by line, and why (``golden``:
    its size, ``None`` when there is none)."""
    size = f"{limit >> 20} MiB" if limit and limit % (1 << 20) == 0 else f"{limit:,} bytes"
    sizes = f"this run {run:,} bytes" if golden is None else f"golden {golden:,} bytes, this run {run:,}"
    return Change(f"too large to compare record by record ({sizes}; the limit is {size}): compared line by line")


def line_changes(expected: BinaryIO, actual: BinaryIO, note: Change) -> list[Change]:
    """``note``, then the changes line by line in unified hunks (one line of context),
    as the two files are read; capped at ``MAX_LINES`` lines, each cut to ``_LINE_WIDTH``
    characters around its first difference; ``[]`` when the bytes are the same."""
    sizes = size_of(expected), size_of(actual)
    if sizes[0] == sizes[1] and _same_prefix(expected, actual, sizes[0])[0]:
        return []
    stripped = _stripped_size(expected, sizes[0])
    if stripped == _stripped_size(actual, sizes[1]):
        same, breaks = _same_prefix(expected, actual, stripped)
        if same:
            return [note, Change("only the trailing newline differs", breaks + 1)]
    cap = _Cap()
    hunks = _Hunks(cap)
    left, right = _Side(expected), _Side(actual)
    counting = 0  # lines taken since the report was full
    while True:
        old, new = left.peek(), right.peek()
        if old is None and new is None:
            break
        if hunks.full():
            if counting > COUNT_LINES:
                hunks.close()
                return [note, *cap.shown, _not_compared(hunks.old_line, left.rest(), right.rest())]
            counting += 1
        if old == new:
            hunks.equal(left.take(1)[0])
            right.take(1)
            continue
        left.fill()
        right.fill()
        i, j = resync(left.ahead, right.ahead)
        counting += i + j
        hunks.change(left.take(i), right.take(j))
    hunks.close()
    return [note, *cap.end()]


def _not_compared(line: int, golden: int, run: int) -> Change:
    """The last line of a full report of a line diff that stopped comparing: where, and
    how many lines of each side were left."""
    return Change(f"… and more differences: the report is full, and nothing after golden line {line:,} was "
                  f"compared ({golden:,} more golden lines, {run:,} more lines of this run)")


class _Side:
    """One file read a line at a time (each line with its line break), with the lines
    read ahead and not yet taken."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.ahead: deque[bytes] = deque()
        self.ahead_bytes = 0
        self.done = False

    def _read(self) -> bool:
        line = b"" if self.done else self.fh.readline()
        if not line:
            self.done = True
            return False
        self.ahead.append(line)
        self.ahead_bytes += len(line)
        return True

    def peek(self) -> bytes | None:
        if not self.ahead and not self._read():
            return None
        return self.ahead[0]

    def fill(self) -> None:
        """Read ahead up to the window: ``WINDOW_LINES`` lines, and past the first,
        ``WINDOW_BYTES``."""
        while len(self.ahead) < WINDOW_LINES and (not self.ahead or self.ahead_bytes < WINDOW_BYTES):
            if not self._read():
                break

    def rest(self) -> int:
        """The lines not taken yet (a last line without a line break counted), the
        file read to its end a block at a time."""
        lines = len(self.ahead)
        if self.done:
            return lines
        tail = b""
        while block := self.fh.read(_CHUNK):
            lines += block.count(b"\n")
            tail = block
        return lines + bool(tail and not tail.endswith(b"\n"))

    def take(self, count: int) -> list[bytes]:
        taken = [self.ahead.popleft() for _ in range(count)]
        self.ahead_bytes -= sum(len(line) for line in taken)
        return taken



@dataclass
class _Cap:
    """``capped`` as changes come: at most ``MAX_LINES`` lines; a hunk that does not fit
    is cut, and the rest counted."""

    room: int = MAX_LINES
    total: int = 0
    stopped: bool = False
    shown: list[Change] = field(default_factory=list)

    def keep(self) -> int:
        """The most lines of the next hunk's body worth keeping."""
        return 0 if self.stopped else max(self.room - 1, 0)

    def add(self, change: Change, size: int) -> None:
        """One change of ``size`` lines (``change.body`` may hold only what ``keep`` said)."""
        self.total += size
        if self.stopped:
            return
        if size <= self.room:
            self.shown.append(change)
            self.room -= size
            return
        if self.room > 1 and size > 1:
            self.shown.append(Change(change.text, change.line, change.body[: self.room - 1]))
            self.room = 0
        self.stopped = True

    def end(self) -> list[Change]:
        shown = MAX_LINES - self.room if self.total > MAX_LINES else self.total
        if self.total > shown:
            return [*self.shown, Change(f"… and {counted(self.total - shown, 'more difference')}")]
        return self.shown


def capped(found: Iterable[Change]) -> list[Change]:
    """At most ``MAX_LINES`` lines; a hunk that does not fit is cut, and the rest counted."""
    cap = _Cap()
    for change in found:
        cap.add(change, 1 + len(change.body))
    return cap.end()


@dataclass
class _Hunks:
    """Changed lines gathered into unified hunks with one line of context (hunks two
    equal lines apart are one), each handed to ``cap`` with as much of its body as it
    keeps; the rest of a body is only counted."""

    cap: _Cap
    old_line: int = 0
    """Lines of each side gone by."""
    new_line: int = 0
    before: bytes | None = None
    """The equal line before the next change."""
    trail: list[bytes] = field(default_factory=list)
    """The equal lines since the open hunk's last change."""
    open: bool = False
    head: tuple[int, int, int] = (0, 0, 0)
    """The open hunk's first line of each side (0-based) and its first changed golden line."""
    spans: list[int] = field(default_factory=lambda: [0, 0])
    body: list[str] = field(default_factory=list)
    rows: int = 0
    keep: int = 0

    def full(self) -> bool:
        """Whether nothing more will be shown: the cap has stopped, or the open hunk holds
        all of its body the cap will show and more rows than the cap has room for."""
        return self.cap.stopped or (self.open and len(self.body) >= self.keep and self.rows >= self.cap.room)

    def _row(self, text: str) -> None:
        if len(self.body) < self.keep:
            self.body.append(text)
        self.rows += 1

    def _context(self, line: bytes) -> None:
        self._row(" " + _shown_line(line, 0) if len(self.body) < self.keep else "")
        self.spans[0] += 1
        self.spans[1] += 1

    def equal(self, line: bytes) -> None:
        if self.open:
            self.trail.append(line)
            if len(self.trail) > 2:
                self.close()
        self.before = line
        self.old_line += 1
        self.new_line += 1

    def change(self, removed: list[bytes], added: list[bytes]) -> None:
        if not self.open:
            self.open = True
            self.keep = self.cap.keep()
            self.body, self.rows, self.spans = [], 0, [0, 0]
            lead = self.before is not None
            self.head = (self.old_line - lead, self.new_line - lead, self.old_line + 1)
            if self.before is not None:
                self._context(self.before)
        for line in self.trail:
            self._context(line)
        self.trail = []
        for mark, lines, others in (("-", removed, added), ("+", added, removed)):
            for k, line in enumerate(lines):
                if len(self.body) >= self.keep:  # only counted from here: nothing more is formatted
                    self.rows += len(lines) - k + sum(not row.endswith(b"\n") for row in lines[k:])
                    break
                at = _first_difference(line, others[k]) if k < len(others) else 0
                self._row(mark + _shown_line(line, max(0, min(at - _LINE_LEAD, len(line) - _LINE_WIDTH))))
                if not line.endswith(b"\n"):
                    self._row("\\ No newline at end of file")
        self.spans[0] += len(removed)
        self.spans[1] += len(added)
        self.old_line += len(removed)
        self.new_line += len(added)
        self.before = None

    def close(self) -> None:
        """End the open hunk (with the first equal line after it as its context)."""
        if not self.open:
            return
        if self.trail:
            self._context(self.trail[0])
        old, new, line = self.head
        header = f"@@ -{_span(old, self.spans[0])} +{_span(new, self.spans[1])} @@"
        self.cap.add(Change(header, line, tuple(self.body)), 1 + self.rows)
        self.open = False
        self.trail = []
        self.body = []


def _span(start: int, length: int) -> str:
    """A hunk's range as unified diffs write it: ``N`` for one line, ``N,0`` after line N."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _first_difference(a: bytes, b: bytes) -> int:
    """Where two lines first differ (their line breaks aside), a block at a time."""
    end = min(len(a) - a.endswith(b"\n"), len(b) - b.endswith(b"\n"))
    left, right = memoryview(a), memoryview(b)
    at = 0
    while at < end and left[at : min(at + _CHUNK, end)] == right[at : min(at + _CHUNK, end)]:
        at += _CHUNK
    at = min(at, end)
    high = min(at + _CHUNK, end)
    while at < high:  # the first differing byte of this block, halving
        mid = (at + high) // 2
        if left[at : mid + 1] == right[at : mid + 1]:
            at = mid + 1
        else:
            high = mid
    return at


def _shown_line(line: bytes, start: int) -> str:
    """A line without its line break, from byte ``start`` (moved back to the start of
    its character), at most ``_LINE_WIDTH`` characters; "…" where it is cut."""
    body = line[:-1] if line.endswith(b"\n") else line
    while 0 < start < len(body) and body[start] & 0xC0 == 0x80:
        start -= 1
    start = min(start, len(body))
    piece = body[start : start + 4 * _LINE_WIDTH + 4]
    text = piece.decode("utf-8", "replace")
    cut = len(text) > _LINE_WIDTH or start + len(piece) < len(body)
    return ("…" if start else "") + text[:_LINE_WIDTH] + ("…" if cut else "")


