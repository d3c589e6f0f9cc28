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
without a format checker and without defaults, so it is used as is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

COMPILED_SCHEMAS = 256
"""Distinct parameter schemas kept compiled (least recently used dropped first)."""


class ArgumentSchema:
    """One tool's parameter schema, checked and compiled once."""

    __slots__ = ("_validator", "schema")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"not a usable JSON Schema for tool parameters: {exc.message}") from None
        self.schema = schema
        self._validator = Draft202012Validator(schema)

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
        return _compiled(text)

    def accepts(self, args: Any) -> bool:
        """The arguments validate, as the harness's soft check decides."""
        try:
            return bool(self._validator.is_valid(args))
        except RecursionError:  # arguments nested deeper than anything a schema describes
            return False

    def __repr__(self) -> str:
        return f"ArgumentSchema({dict(self.schema)!r})"


@lru_cache(maxsize=COMPILED_SCHEMAS)
def _compiled(text: str) -> ArgumentSchema:
    return ArgumentSchema(json.loads(text))


__all__ = ["ArgumentSchema"]
