"""The ``replay`` command and ``python -m replay``: the signals' handlers first
(``replay.signals``), then the command line is imported and run."""

import sys

from replay.signals import run


def _command() -> int:
    """Import the command line and run it; its exit status."""
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
