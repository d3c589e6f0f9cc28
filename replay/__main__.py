"""The ``replay`` command and ``python -m replay``: the signals' handlers first
(``replay.signals``), then a re-audit answered from the audit cache's run record, or
the command line imported and run."""

import os
import sys
from typing import Any

from replay.signals import run


def _command() -> int:
    """A re-audit the audit cache's run record answers (``replay.check.quick``), else
    the command line imported and run; its exit status."""
    if sys.argv[1:2] == ["audit"]:
        from replay.check.quick import answered

        answer = answered(sys.argv[1:], _amended)
        if answer is not None:
            return answer
    from replay.cli import main as cli

    try:
        cli()
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        sys.stderr.write(f"{code}\n")
        return 1
    return 0


def _amended(*args: Any) -> tuple[int, bytes, str | None] | None:
    """A run record's JSON report amended for what changed (``replay.report.amend``:
    the audit's modules, imported only now), for the request the command line makes
    (its own parsing, never the record's word)."""
    from replay.cli import json_audit_request
    from replay.report.amend import amended

    return amended(json_audit_request(sys.argv[1:]), *args)


def _standard_streams() -> None:
    """A standard stream the process was started without (``>&-``) is ``/dev/null``: the
    command writes to nothing, as with ``> /dev/null``, instead of failing on a missing
    stream, and no file it opens later takes that descriptor (a report written into it)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's own
    if sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's own
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's own


def main() -> None:
    """The ``replay`` console script."""
    _standard_streams()
    run(_command)


if __name__ == "__main__":
    main()
