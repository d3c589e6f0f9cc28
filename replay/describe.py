"""What a file is, and what an OS error means, in the words every message uses: the one
describer of file kinds and the one wording of an OS error."""

from __future__ import annotations

import stat


def reason(exc: OSError) -> str:
    """An OS error in words (``Permission denied``), without the path."""
    return exc.strerror or str(exc)


def kind(mode: int) -> str:
    """What a file is, in words: ``a folder``, ``a FIFO (named pipe)``, …"""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"
