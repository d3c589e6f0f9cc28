"""How replay's messages count things: the one place a noun or a sentence gets its
plural, for the CLI's English and for the session browser's locales."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 golden``, ``2 goldens``: a count with its noun, singular or plural (``plural``
    when the noun does not take an ``s``)."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural if plural is not None else noun + 's'}"


def by_count(n: int, forms: str) -> str:
    """The form of ``forms`` for ``n``: ``"one|other"`` (``{count} session|{count}
    sessions``), or one form with no bar for a language that does not inflect (zh)."""
    one, bar, other = forms.partition("|")
    return one if n == 1 or not bar else other
