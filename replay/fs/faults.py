"""The test suite's fault hook (``FAULT``) and the signals a step that must not stop
half-way holds."""


from __future__ import annotations

import contextlib
import errno
import os
import signal
from collections.abc import Iterator

FAULT = "REPLAY_TEST_FAULT"
"""The test suite's fault hook: ``ACTION@STEP`` makes this process, at the step named
``STEP`` (``commit:N``: a commit's journal written and its first ``N`` steps done;
``write:N``: the ``N``-th file write starts), do ``ACTION``: ``kill`` (SIGKILL itself),
``term`` or ``int`` (send itself SIGTERM or SIGINT), ``enospc`` (the write fails as on
a full disk). Unset, nothing happens."""
_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class _Faults:
    """The counter of ``FAULT``'s ``write:N`` steps (the one state of this module: a test knob)."""

    writes = 0


def fault(step: str) -> None:
    """Do what ``FAULT`` says at ``step``, if it names it (see ``FAULT``)."""
    wanted = os.environ.get(FAULT)
    if not wanted:
        return
    action, _, at = wanted.partition("@")
    if at != step:
        return
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action in ("term", "int"):
        os.kill(os.getpid(), signal.SIGTERM if action == "term" else signal.SIGINT)
    elif action == "enospc":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _write_fault() -> None:
    if os.environ.get(FAULT):
        _Faults.writes += 1
        fault(f"write:{_Faults.writes}")


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait (held by the signal mask) until the block is left, where
    they arrive at once: what must not stop half-way is not stopped half-way."""
    try:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    except (AttributeError, OSError, ValueError):
        before = None
    try:
        yield
    finally:
        if before is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
