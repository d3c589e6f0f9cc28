"""The command's edge with its process: what a library error means as an exit status
and a message (``ERRORS``, one table), Ctrl-C at any moment as exit 130 with no report,
standard output written as UTF-8 and checked before exit (a reader gone is 141, quietly),
and a progress bar on a terminal. ``replay.cli`` declares the commands on ``Group``;
nothing here knows what a command does."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import click

from replay.describe import reason
from replay.output import OutputError, TextOut, Writable
from replay.signals import WORDS, Signals, installed, pending
from replay.style import sanitize, sanitize_json

CLEAR_BAR = "\r\x1b[2K\x1b[?25h"
"""What ends a progress bar: its line cleared, the cursor shown again (the bar hides it)."""
PROGRESS_MIN = 4
"""The fewest items a progress bar is shown for: a shorter run ends before one helps."""
BROKEN_PIPE = 128 + signal.SIGPIPE
"""The exit status when standard output's reader went away (``… | head``): what a
shell reports for grep there."""

# -- errors: one table ------------------------------------------------------------------

ERRORS: dict[str, tuple[int, str | None]] = {
    # Usage errors (exit 2, click's "Error: …" after the usage line); the second item
    # names the parameter at fault, when one is.
    "replay.goldens.select.SelectorError": (2, "SELECTOR"),
    "replay.check.selection.SelectionError": (2, None),
    "replay.check.baseline.BaselineError": (2, "--baseline"),
    "replay.log.discover.NoSuchPath": (2, "PATH"),
    "replay.check.audit.NoLogs": (2, None),
    "replay.extras.MissingExtra": (2, None),
    "replay.cluster.ClusterError": (2, None),
    "replay.parallel.WorkersFailed": (2, None),
    "replay.urls.NetworkError": (2, None),
    "replay.scenarios.check.NoScenarios": (2, None),
    "replay.scenarios.check.PendingInsideTree": (2, "--pending"),
    "replay.scenarios.importer.NewScenarioError": (2, None),
    "replay.view.surface.BadRenderInput": (2, None),
    "replay.log.harness.HarnessRefused": (2, None),
    "replay.view.site.SiteRefused": (2, "-o"),
    "replay.export.request.ExportRefused": (2, "-o"),
    "replay.todo.plan.SeqOutOfRange": (2, "--at"),
    # Failures (exit 1, "replay COMMAND: …" on stderr): a tree, a lock, a pending folder,
    # an import the audit or a test run refused.
    "replay.fs.tree.FsError": (1, "replay"),
    "replay.fs.tree.Locked": (1, "replay"),
    "replay.goldens.pending.PendingError": (1, "replay"),
    "replay.scenarios.importer.ImportRefused": (1, "replay"),
    # The file said what it looks like (exit 1, the message alone).
    "replay.view.surface.NotASessionLog": (1, ""),
}


def _mapped(exc: Exception) -> tuple[int, str | None] | None:
    for cls in type(exc).__mro__:
        found = ERRORS.get(f"{cls.__module__}.{cls.__qualname__}")
        if found is not None:
            return found
    return None


class Command(click.Command):
    def invoke(self, ctx: click.Context) -> Any:
        """A library error is a usage error or a failure, as ``ERRORS`` says."""
        try:
            return super().invoke(ctx)
        except Exception as exc:
            if isinstance(exc, click.ClickException | OutputError):
                raise
            mapped = _mapped(exc)
            if mapped is None:
                raise
            code, where = mapped
            message = sanitize(str(exc))
            if code == 2:
                raise (click.BadParameter(message, ctx, param_hint=where) if where
                       else click.UsageError(message, ctx)) from None
            click.echo(f"{where} {ctx.info_name}: {message}" if where else message, err=True)
            ctx.exit(code)


def _flush_stdout() -> None:
    """Standard output flushed and checked: whatever the size of the report, an output
    that cannot be written is found here, not in the interpreter's last flush."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        raise OutputError(f"standard output: cannot write ({reason(exc)})", exc.errno == errno.EPIPE) from None


def _silence_stdout() -> None:
    """Standard output pointed at /dev/null: what is still buffered for a stream that
    failed is dropped, so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextmanager
def _ctrl_c() -> Iterator[Signals]:
    """The ``Signals`` handler for the time of a command: the one ``replay.signals.run`` put
    in place at the start of the process, else one set here where Python's own handler
    of SIGINT is in place (not where SIGINT is ignored, nor off the main thread, where
    none can be set: then a handler that is never called stands in)."""
    handler = installed()
    if handler is not None:
        yield handler
        return
    handler = Signals()
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler or \
            threading.current_thread() is not threading.main_thread():
        yield handler
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield handler
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupted() -> bool:
    """Whether SIGINT or SIGTERM came during this command (its exception lost or not
    yet raised), or waits, held by a signal mask."""
    handler = installed()
    if handler is not None and handler.received is not None:
        return True
    return hasattr(signal, "sigpending") and any(s in signal.sigpending() for s in WORDS)


class _Report(TextOut):
    """Standard output for a report: no write once Ctrl-C came (``KeyboardInterrupt``
    instead), so an interrupted command prints no report, whenever the signal came."""

    terminal_json = False
    """A JSON report on a terminal: written through ``sanitize_json``."""

    def write_bytes(self, data: str | bytes) -> None:
        if _interrupted():
            raise KeyboardInterrupt
        if self.terminal_json:
            data = sanitize_json(data if isinstance(data, str) else data.decode("utf-8", "surrogateescape"))
        super().write_bytes(data)


class Group(click.Group):
    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The commands in the order they are used (``main``'s order of definition):
        check, refresh, review … before audit, view, render …"""
        return list(self.commands)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        """Ctrl-C while the command line is parsed is the same one line and status as
        during a command (not click's "Aborted!" and exit 1)."""
        try:
            return super().make_context(info_name, args, parent, **extra)
        except KeyboardInterrupt:
            handler = installed() or Signals()
            if handler.received is None:
                handler.received = pending(handler) or signal.SIGINT
            click.echo(f"replay: {handler.word}", err=True)
            handler.said = True
            sys.exit(handler.status)

    def invoke(self, ctx: click.Context) -> Any:
        """An output that cannot be written is exit 1, with the path and the OS error;
        a reader of standard output that went away ends the command quietly. Ctrl-C, at
        any moment of a command, is exit 130 with one line and no report (workers
        stopped and reaped): looked at before each write of the report and at the end."""
        try:
            with _ctrl_c() as handler:
                try:
                    return super().invoke(ctx)
                finally:
                    if _interrupted():
                        raise KeyboardInterrupt  # over what was on its way out: a status, an error
                    _flush_stdout()
        except BrokenPipeError:  # a write that did not go through TextOut (click.echo)
            _silence_stdout()
            ctx.exit(BROKEN_PIPE)
        except OutputError as exc:
            _silence_stdout()
            if exc.broken_pipe:
                ctx.exit(BROKEN_PIPE)
            click.echo(f"replay: {sanitize(str(exc))}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            if handler.received is None:  # raised by hand, or a signal the mask held
                handler.received = pending(handler) or signal.SIGINT
            click.echo(f"replay {ctx.invoked_subcommand}: {handler.word}", err=True)
            handler.said = True
            ctx.exit(handler.status)


# -- output --------------------------------------------------------------------------------


def stdout(writes_json: bool = False, copy: OutputCopy | None = None) -> TextOut:
    """Standard output as a text stream that writes UTF-8 (a lone surrogate as U+FFFD)
    and turns a write that fails into ``OutputError``. For a JSON report
    (``writes_json``) on a terminal, what the sanitizer escapes is written as JSON
    escapes (``replay.style.sanitize_json``): a text report is sanitized as it is made.
    With ``copy``, every byte written is also put there."""
    sys.stdout.flush()
    binary: Writable = getattr(sys.stdout, "buffer", None) or _TextOnly(sys.stdout)
    out = _Report(binary if copy is None else _Copied(binary, copy))
    out.terminal_json = writes_json and sys.stdout.isatty()
    return out


def echo(text: str, writes_json: bool = False) -> None:
    """Write a report to standard output (see ``stdout``)."""
    out = stdout(writes_json)
    out.write(text)
    out.flush()


class OutputCopy:
    """The bytes written to standard output, up to ``limit``: past it the copy is
    dropped (``value`` is then ``None``), so it never holds more than that."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: io.BytesIO | None = io.BytesIO()

    def add(self, data: bytes) -> None:
        parts = self._parts
        if parts is not None:
            if parts.tell() + len(data) > self.limit:
                self._parts = None
            else:
                parts.write(data)

    def value(self) -> bytes | None:
        return self._parts.getvalue() if self._parts is not None else None


class _Copied:
    """A binary stream whose bytes are also put in an ``OutputCopy``."""

    def __init__(self, stream: Writable, copy: OutputCopy) -> None:
        self.stream, self.copy = stream, copy

    def write(self, data: bytes) -> None:
        self.stream.write(data)
        self.copy.add(data)

    def flush(self) -> None:
        self.stream.flush()


class _TextOnly:
    """A text-only standard output (one replaced by a caller) taking UTF-8 bytes."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data.decode("utf-8"))

    def flush(self) -> None:
        self.stream.flush()


def shows_bar(length: int, shown: bool) -> bool:
    """Whether ``progress`` draws a bar for ``length`` items (a report that waits for
    the bar to finish asks the same)."""
    return shown and length >= PROGRESS_MIN and sys.stderr.isatty()


@contextmanager
def progress(length: int, label: str, shown: bool) -> Iterator[Callable[[str], None]]:
    """A callback that advances a progress bar on stderr (naming the item) when
    ``shown``: on a terminal, for a long run."""
    if not shows_bar(length, shown):
        yield lambda item: None
        return
    bar: Any = click.progressbar(length=length, label=label, file=sys.stderr,
                                 item_show_func=lambda item: sanitize(item[-40:]) if item else "")
    try:
        with bar:
            yield lambda item: bar.update(1, item)
            bar.hidden = True  # no last frame and newline: the line is cleared instead
    finally:
        sys.stderr.write(CLEAR_BAR)
        sys.stderr.flush()
