"""Signals from the process's first instruction: the ``replay`` command (and ``python -m
replay``) starts in ``replay.__main__``, which runs ``run`` before any other module of
replay or any dependency is imported.

SIGINT and SIGTERM get their handlers first (``Signals``), then the command line is
imported and run. So Ctrl-C at any moment, while the interpreter is still importing
the CLI, click, or a command's own modules included, is exit 130 with one line on
stderr (SIGTERM: 143, "terminated"), never a traceback and never a process killed by
the signal. A signal that came before this module ran was the system's to handle
(the process ends by it, as any program does then).

``PAUSE_AT_IMPORT`` is the test suite's knob to reach any moment of the start-up
deterministically: set to ``N``, the process says so on stderr and waits at its
``N``-th import (counted from here), where a test sends its signal."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from typing import NoReturn

PAUSE_AT_IMPORT = "REPLAY_TEST_PAUSE_AT_IMPORT"
"""The environment variable that, set to a number ``N``, makes the command wait at
its ``N``-th import, after a line ``replay: paused at import N (MODULE)`` on stderr."""

WORDS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}
"""The signals that end a command with one line, and the word of each."""


class Signals:
    """The handler of SIGINT and SIGTERM while replay runs: ``KeyboardInterrupt``, as
    Python's own handler of SIGINT, so every ``except KeyboardInterrupt`` and
    ``finally`` of replay stops the work as for Ctrl-C; it keeps the first signal that
    came (whose number the exit status and the line are made of) and whether the line
    has been said."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.said = False

    def __call__(self, signum: int, frame: object) -> None:
        if self.received is None:
            self.received = signum
        raise KeyboardInterrupt

    @property
    def word(self) -> str:
        return WORDS.get(signal.Signals(self.received or signal.SIGINT), "interrupted")

    @property
    def status(self) -> int:
        return 128 + (self.received or signal.SIGINT)


def installed() -> Signals | None:
    """The ``Signals`` in place for SIGINT, if one is."""
    handler = signal.getsignal(signal.SIGINT)
    return handler if isinstance(handler, Signals) else None


def install(handler: Signals) -> dict[int, object]:
    """``handler`` for each signal of ``WORDS`` not ignored (a command started with
    SIGINT ignored, in the background of a shell, keeps it ignored); what was there."""
    before: dict[int, object] = {}
    for signum in WORDS:
        current = signal.getsignal(signum)
        if current is signal.SIG_IGN:
            continue
        before[signum] = current
        signal.signal(signum, handler)
    return before


def pending(handler: Signals) -> int | None:
    """The signal that came (or waits, held by the signal mask), if one did."""
    if handler.received is not None:
        return handler.received
    if hasattr(signal, "sigpending"):
        waiting = signal.sigpending()
        for signum in WORDS:
            if signum in waiting:
                return int(signum)
    return None


class _Pause:
    """``PAUSE_AT_IMPORT``: a finder that finds nothing and waits at the ``N``-th import."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.count = 0

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        self.count += 1
        if self.count == self.at:
            import time

            sys.stderr.write(f"replay: paused at import {self.at} ({name})\n")
            sys.stderr.flush()
            time.sleep(600)  # the test's signal ends the wait


def _pause() -> None:
    import os

    at = os.environ.get(PAUSE_AT_IMPORT, "")
    if at.isdigit():
        sys.meta_path.insert(0, _Pause(int(at)))


def _hold() -> None:
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, set(WORDS))


def _release(before: dict[int, object]) -> None:
    """The signals' handlers put back (Python's SIGINT handler as the system's
    default: a signal during the interpreter's exit ends it, with no traceback)."""
    for signum in before:
        signal.signal(signum, signal.SIG_IGN)  # what is still pending is dropped
        signal.signal(signum, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(WORDS))


def run(command: Callable[[], int]) -> NoReturn:
    """Handlers, then ``command`` (which imports the command line and runs it: its exit
    status); the process exits with that status, or ``128 + N`` with one line when
    signal ``N`` came at any moment."""
    handler = Signals()
    before = install(handler)
    status = 1
    try:
        _pause()
        status = command()
    except KeyboardInterrupt:
        pass
    finally:
        while True:  # a second signal while the first is handled is the same interruption
            try:
                _hold()
                break
            except KeyboardInterrupt:
                continue
    came = pending(handler)
    if came is not None:
        handler.received = came
        if not handler.said:
            handler.said = True
            try:
                sys.stderr.write(f"replay: {handler.word}\n")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
        status = handler.status
    _release(before)
    sys.exit(status)
