"""A pydantic validation error in the words of the file it was read from: one
``path: message`` per problem, the path written as in the file
(``model.script[2].toolCalls[0].name``)."""

from __future__ import annotations

from pydantic import ValidationError


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def validation_problems(exc: ValidationError, unknown: str = "unknown field (misspelt?)") -> list[str]:
    """One ``path: message`` per problem; ``unknown`` is what a field the format does
    not have is called."""
    problems = []
    for e in exc.errors():
        message = str(e["msg"]).removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            message = unknown
        problems.append(f"{_where(tuple(e['loc']))}: {message}")
    return problems
