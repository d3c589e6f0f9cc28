"""The ``replay`` command and ``python -m replay``: the signals' handlers first
(``replay.signals``), then a re-audit answered from the audit cache's run record, or
the command line imported and run."""

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


def _amended(*args: Any) -> tuple[int, bytes] | None:
    """A run record's JSON report amended for what changed (``replay.report.amend``:
    the audit's modules, imported only now)."""
    from replay.report.amend import amended

    return amended(*args)


def main() -> None:
    """The ``replay`` console script."""
    run(_command)


if __name__ == "__main__":
    main()
