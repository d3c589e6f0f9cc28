"""How replay's messages count things in English: the one place a noun gets its plural."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``1 golden``, ``2 goldens``: a count with its noun, singular or plural (the
    nouns replay counts all take an ``s``)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
