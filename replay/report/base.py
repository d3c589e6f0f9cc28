"""The reporter base: one output format of one command's result data.

Results are plain data (``AuditResult``, ``CheckReport``, ``RefreshResult``,
``ConformanceReport``, the rule registry); a reporter turns them into text and
decides nothing. Its lifecycle has three hooks, each a documented no-op, so a new
format overrides only what it needs (usually ``finish`` alone):

1. ``start()``: before the first unit;
2. ``unit(u)``: once per unit (a log, a scenario, a rule) as soon as it is done, so a
   long run can show its output as it goes;
3. ``finish(result)``: once, with the whole result.

Adding an output format is one reporter class and one line in
``replay.report.registry``; the CLI's ``--format`` choices are that registry's keys.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import ClassVar, Generic, TextIO, TypeVar

from replay.hints import command
from replay.output import TextOut
from replay.style import PLAIN, Style

RULES_HINT = f"{command('rules', 'ID')} explains a rule, with an example of a bad record."
"""The line that closes a rule table: where the rules are explained."""

U = TypeVar("U")
R = TypeVar("R")


class Reporter(Generic[U, R]):
    """Writes one format of a result to ``stream``, in ``style`` (colour on or off)."""

    writes_json: ClassVar[bool] = False
    """Whether the format is a JSON document (on a terminal, written through
    ``replay.style.sanitize_json``)."""
    shows_progress: ClassVar[bool] = False
    """Whether a progress bar runs on the terminal (stderr) while this format is
    produced, for a run long enough to need one."""

    def __init__(self, stream: TextIO, style: Style = PLAIN) -> None:
        self.stream = stream
        self.style = style

    def units(self, result: R) -> Sequence[U]:
        """The units of a result, in order (what ``unit`` is called with)."""
        raise NotImplementedError

    def start(self) -> None:
        """Before the first unit. Nothing by default."""

    def unit(self, unit: U) -> None:
        """One unit, as soon as it is done. Nothing by default."""

    def finish(self, result: R) -> None:
        """The whole result, at the end. Nothing by default."""

    def write(self, text: str) -> None:
        self.stream.write(text)

    def write_utf8(self, data: bytes) -> None:
        """UTF-8 bytes (a JSON document): handed on as they are to a stream that takes
        bytes (``replay.output.TextOut``, standard output), never decoded only to be
        encoded again."""
        stream = self.stream
        if isinstance(stream, TextOut):
            stream.write_bytes(data)
        else:
            stream.write(data.decode("utf-8"))

    @classmethod
    def render(cls, result: R, style: Style = PLAIN) -> str:
        """The whole report of a finished result as one string (the same text the
        lifecycle writes when driven unit by unit)."""
        out = io.StringIO()
        cls(out, style).run(result)
        return out.getvalue()

    def run(self, result: R) -> None:
        """The whole lifecycle over a finished result: start, each unit, finish."""
        self.start()
        for unit in self.units(result):
            self.unit(unit)
        self.finish(result)
