"""A pydantic validation error in the words of the file it was read from: one
``path: message`` per problem, the path written as in the file
(``model.script[2].toolCalls[0].name``). A field the format does not have is matched
against the fields it does have there: a misspelt one says "did you mean …", and the
required field it stands for is not reported missing as well."""

from __future__ import annotations

import difflib
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

UNKNOWN = "unknown field"


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The models a field's type holds (through ``X | None``, ``list[X]``, unions)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, list, tuple, dict, typing.Annotated):
        return [m for arg in typing.get_args(annotation) for m in _models(arg)]
    return []


def known_fields(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The field names (as written in the file: their aliases) a model has at ``loc``
    (the object that holds the field a problem is about)."""
    current = [model]
    for part in loc:
        if isinstance(part, int):
            continue
        found: list[type[BaseModel]] = []
        for m in current:
            for name, info in m.model_fields.items():
                if part in (name, info.alias):
                    found.extend(_models(info.annotation))
        current = found
    return sorted({info.alias or name for m in current for name, info in m.model_fields.items()})


def _present(document: Any, loc: tuple[int | str, ...]) -> set[str]:
    """The keys the object at ``loc`` of the parsed document has (none when unknown)."""
    node = document
    for part in loc:
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict):
            node = node.get(part)
        else:
            return set()
    return set(node) if isinstance(node, dict) else set()


def validation_problems(exc: ValidationError, model: type[BaseModel] | None = None,
                        document: Any = None) -> list[str]:
    """One ``path: message`` per problem. With the ``model`` that was validated (and the
    parsed ``document``, whose fields are then not guessed again), an unknown field
    close to a field of its place says which one it may be."""
    errors = exc.errors()
    guessed: dict[tuple[int | str, ...], str] = {}
    for e in errors:
        loc = tuple(e["loc"])
        if e["type"] == "extra_forbidden" and model is not None and loc and isinstance(loc[-1], str):
            fields = [f for f in known_fields(model, loc[:-1]) if f not in _present(document, loc[:-1])]
            close = difflib.get_close_matches(loc[-1], fields, n=1, cutoff=0.6)
            if close:
                guessed[loc] = close[0]
    meant = {(*loc[:-1], name) for loc, name in guessed.items()}
    problems = []
    for e in errors:
        loc = tuple(e["loc"])
        if e["type"] == "missing" and loc in meant:
            continue  # the misspelt field below stands for it
        message = str(e["msg"]).removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            message = f'{UNKNOWN}; did you mean "{guessed[loc]}"?' if loc in guessed else UNKNOWN
        problems.append(f"{_where(loc)}: {message}")
    return problems
