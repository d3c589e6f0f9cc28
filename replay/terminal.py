"""Keys from a terminal, for ``replay review``: the one place replay reads a terminal
in raw mode (an I/O edge, like standard output)."""

from __future__ import annotations

import contextlib
import os
import select
import sys


def read_key() -> str:
    """One key from the terminal on standard input. Not click.getchar: it enters raw
    mode with TCSAFLUSH, which throws away a key typed before the prompt was read.
    ``EOFError`` at the end of input (^D, NUL, a terminal gone), ``KeyboardInterrupt``
    for ^C (raw mode delivers it as a key)."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    try:
        before = termios.tcgetattr(fd)
    except termios.error:
        raise EOFError from None
    try:
        tty.setraw(fd, termios.TCSANOW)
        data = os.read(fd, 1)
        while data and (data[0] >= 0x80 or data == b"\x1b") and select.select([fd], [], [], 0.02)[0]:
            data += os.read(fd, 1)  # the rest of a UTF-8 character or of an escape sequence
            if data[0] < 0x80 and len(data) > 8:
                break
    except OSError:  # EIO: the terminal is gone
        raise EOFError from None
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSADRAIN, before)
    if data == b"\x03":
        raise KeyboardInterrupt
    if data in (b"", b"\x04", b"\x00"):
        raise EOFError
    return data.decode("utf-8", "replace")
