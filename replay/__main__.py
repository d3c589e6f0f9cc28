"""The ``replay`` command and ``python -m replay``: the signals' handlers first
(``replay.signals``), then a re-audit answered from the audit cache's run record, or
the command line imported and run."""

import sys

from replay.signals import run


def _command() -> int:
    """A re-audit the audit cache's run record answers (``replay.check.quick``), else
    the command line imported and run; its exit status."""
    if sys.argv[1:2] == ["audit"]:
        from replay.check.quick import answered

        answer = answered(sys.argv[1:])
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


def main() -> None:
    """The ``replay`` console script."""
    run(_command)


if __name__ == "__main__":
    main()
