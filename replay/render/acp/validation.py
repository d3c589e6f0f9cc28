"""Argument validation before presenting, with the harness's validator semantics.

The harness never hands a presenter arguments it has not validated: its ``defineTool``
wraps ``presentCall`` / ``presentResult`` in a *soft* check of the call's arguments
against the tool's parameter schema (the same compiled JSON Schema the model was
offered). On any mismatch the wrapper returns ``undefined`` instead of throwing, and
the ACP bridge falls back to the generic card for the call **and** its result (title
= tool name, kind ``other``, the raw arguments; the raw result content).

What "valid" means there (``packages/core/tools/src/schema.ts``):

* the parameter root is an **open** object: properties the schema does not declare
  are allowed (``additionalProperties`` is only ever set on nested objects, and then
  explicitly);
* ``required`` means the key is present (``Object.hasOwn``); a present ``null`` is a
  value like any other and must match the property's type;
* types are JSON types, **no coercion**: ``"true"`` is not a boolean, ``"5"`` is not a
  number, ``true`` is not a number; ``integer`` is ``Number.isInteger`` (``2.0`` is an
  integer: JSON cannot tell it from ``2``);
* ``enum`` / ``const`` compare with ``===`` (no case folding, no coercion);
* ``default`` and ``examples`` are annotations: nothing is filled in before the
  presenter runs;
* ``oneOf`` is exact-one;
* arguments that are not JSON at all (the raw string) fail the object root.

The ``jsonschema`` library's Draft 2020-12 validator has exactly these semantics for
the keywords the harness compiles (``type``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``enum``, ``const``, ``oneOf`` and annotations),
without a format checker and without defaults, so it is the judge.

**The short way**: it is also slow (a new validator object per subschema per call: a
tenth of a millisecond for a small schema, a third of ``render acp``'s time on a log
of tool calls). A schema made of those keywords alone is also compiled here into
plain Python checks (``compiled``), which decide exactly what the library decides;
any other keyword (``$ref``, ``pattern``, ``minimum``, ``format`` …) leaves the schema
to the library, and so do arguments nested more than ``DEEPEST`` deep (the library's
verdict on those may be its running out of stack). ``tests/render/acp/test_validation_fast.py``
holds the two equal on generated schemas and arguments.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

COMPILED_SCHEMAS = 256
"""Distinct parameter schemas kept compiled (least recently used dropped first)."""


class ArgumentSchema:
    """One tool's parameter schema, checked and compiled once."""

    __slots__ = ("_check", "_validator", "schema")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"not a usable JSON Schema for tool parameters: {exc.message}") from None
        self.schema = schema
        self._validator = Draft202012Validator(schema)
        self._check = compiled(schema)

    @staticmethod
    def of(schema: Mapping[str, Any]) -> ArgumentSchema:
        """The compiled schema of ``schema``, compiled once per distinct schema (a log
        offers its tools again with every ``request/header``); ``ValueError`` as the
        constructor's. Schemas are told apart by their JSON text, key order, ``1`` against
        ``1.0`` and ``Infinity`` included, so an equal text is the same schema."""
        try:
            text = json.dumps(schema, ensure_ascii=True, allow_nan=True)
        except (TypeError, ValueError, RecursionError):  # not JSON's own shapes: not cached
            return ArgumentSchema(schema)
        return _schema_of(text)

    def accepts(self, args: Any) -> bool:
        """The arguments validate, as the harness's soft check decides."""
        try:
            check = self._check
            if check is not None and _shallow(args, DEEPEST):
                return check(args)
            return bool(self._validator.is_valid(args))
        except RecursionError:  # arguments nested deeper than anything a schema describes
            return False

    def __repr__(self) -> str:
        return f"ArgumentSchema({dict(self.schema)!r})"


DEEPEST = 32
"""Arguments nested deeper than this are judged by the library alone: it may run out of
stack on them (and then they do not validate), where the compiled checks would not."""


def _shallow(value: Any, room: int) -> bool:
    """Whether ``value`` is nested at most ``room`` containers deep."""
    if isinstance(value, dict):
        return room > 0 and all(_shallow(item, room - 1) for item in value.values())
    if isinstance(value, list | tuple):
        return room > 0 and all(_shallow(item, room - 1) for item in value)
    return True


Check = Callable[[Any], bool]
"""Whether a value validates against the schema a check was compiled from."""

_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
                          "writeOnly"})
_KEYWORDS = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "items", "enum", "const",
                            "oneOf"}


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPES: dict[str, Check] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "integer": _is_integer,
    "number": lambda value: not isinstance(value, bool) and isinstance(value, numbers.Number),
    "string": lambda value: isinstance(value, str),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}
"""JSON Schema's types as the library's Draft 2020-12 checker tells them (``2.0`` is an
integer, a boolean is no number)."""


def _equal(one: Any, two: Any) -> bool:
    """``enum`` and ``const``'s equality, the library's: ``1 == 1.0``, but a boolean
    equals only a boolean, inside lists and objects too."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(key in two and _equal(value, two[key]) for key, value in one.items())
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    return bool(one == two)


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def compiled(schema: Any) -> Check | None:
    """Plain checks deciding what the library's validator decides for ``schema`` (a
    schema it accepts), or ``None`` when the schema uses a keyword compiled nowhere
    here."""
    try:
        return _compile(schema)
    except RecursionError:
        return None


def _compile(schema: Any) -> Check | None:
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict) or not schema.keys() <= _KEYWORDS:
        return None
    checks: list[Check] = []
    if "type" in schema:
        names = schema["type"]
        names = [names] if isinstance(names, str) else names
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n in _TYPES for n in names):
            return None  # not a schema the library accepts
        kinds = [_TYPES[name] for name in names]
        checks.append(kinds[0] if len(kinds) == 1 else (lambda value: any(kind(value) for kind in kinds)))
    if any(key in schema for key in ("properties", "required", "additionalProperties")):
        shape = _object(schema)
        if shape is None:
            return None
        checks.append(shape)
    if "items" in schema:
        each = _compile(schema["items"])
        if each is None:
            return None
        checks.append(lambda value: not isinstance(value, list) or all(map(each, value)))
    if "enum" in schema:
        choices = schema["enum"]
        checks.append(lambda value: any(_equal(choice, value) for choice in choices))
    if "const" in schema:
        const = schema["const"]
        checks.append(lambda value: _equal(value, const))
    if "oneOf" in schema:
        options = [_compile(option) for option in schema["oneOf"]]
        if any(option is None for option in options):
            return None
        branches = [option for option in options if option is not None]
        checks.append(lambda value: sum(1 for branch in branches if branch(value)) == 1)
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


def _object(schema: dict[str, Any]) -> Check | None:
    """``properties``, ``required`` and ``additionalProperties``, as one check of an object."""
    required = list(schema.get("required", ()))
    properties: list[tuple[str, Check]] = []
    for name, sub in schema.get("properties", {}).items():
        check = _compile(sub)
        if check is None:
            return None
        properties.append((name, check))
    named = {name for name, _ in properties}
    extra: Check | None = None
    if "additionalProperties" in schema:
        extra = _compile(schema["additionalProperties"])
        if extra is None:
            return None
        if extra is _always:
            extra = None

    def shape(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name in required:
            if name not in value:
                return False
        for name, check in properties:
            if name in value and not check(value[name]):
                return False
        if extra is not None:
            for key, item in value.items():
                if key not in named and not extra(item):
                    return False
        return True

    return shape


@lru_cache(maxsize=COMPILED_SCHEMAS)
def _schema_of(text: str) -> ArgumentSchema:
    return ArgumentSchema(json.loads(text))


__all__ = ["ArgumentSchema", "compiled"]
