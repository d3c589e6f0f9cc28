"""What a tool presenter returns: the card-tagged render intents of the harness's
``ToolPresenter`` (``generic``, ``diff``, ``terminal``), and the registry that picks a
presenter by tool name.

A presenter is a pair of pure functions of the call's parsed arguments (and, for the
result side, the logged outcome), plus the tool's parameter schema. The functions are
only called with arguments that validate against that schema (``validation.py``);
either may be absent, return ``None`` or raise: the translator then falls back to the
generic presentation, as the harness does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType
from typing import Any, Final

from replay.render.acp.validation import ArgumentSchema


class _Unset(Enum):
    UNSET = "UNSET"


UNSET: Final = _Unset.UNSET
"""A value that is absent (JavaScript ``undefined``): its key is left out of the update."""

Unsettable = Any
"""A JSON value or ``UNSET``."""


@dataclass(frozen=True, slots=True)
class Diff:
    """One file change: ``old_text`` is ``None`` for a new or overwritten file."""

    path: str
    old_text: str | None
    new_text: str


@dataclass(frozen=True, slots=True)
class GenericCall:
    """The default card: a title, an ACP tool kind, optional raw input, locations and
    text content (content blocks such as ``{"type": "text", "text": …}``)."""

    title: str
    kind: str | None = None
    raw_input: Unsettable = UNSET
    locations: list[dict[str, Any]] | None = None
    content: list[Any] | None = None


@dataclass(frozen=True, slots=True)
class DiffCall:
    """A file edit shown as diffs (ACP kind ``edit``)."""

    title: str
    diffs: list[Diff]
    locations: list[dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class TerminalCall:
    """A command run in a terminal (ACP kind ``execute``); ``title`` is the command."""

    title: str
    description: str | None = None
    cwd: str | None = None


CallView = GenericCall | DiffCall | TerminalCall


@dataclass(frozen=True, slots=True)
class GenericResult:
    """``content`` ``None`` means "the raw result content"."""

    content: list[Any] | None = None
    title: str | None = None


@dataclass(frozen=True, slots=True)
class DiffResult:
    diffs: list[Diff]
    title: str | None = None


@dataclass(frozen=True, slots=True)
class TerminalResult:
    """Terminal output; the exit entry is ``signal`` when set, else ``exit_code`` when
    set, else none."""

    output: str | None = None
    exit_code: int | None = None
    signal: str | None = None
    title: str | None = None


ResultView = GenericResult | DiffResult | TerminalResult


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """A logged tool result as a presenter sees it; ``meta`` is ``UNSET`` when absent."""

    content: list[Any]
    is_error: bool
    meta: Unsettable = UNSET


CallPresenter = Callable[[Any], CallView | None]
ResultPresenter = Callable[[Any, ToolOutcome], ResultView | None]


@dataclass(frozen=True, slots=True)
class Presenter:
    """One tool's presentation: ``call`` builds the ``tool_call`` card from the parsed
    arguments; ``result`` builds the completion from the arguments and the outcome
    (``None``: show the raw result content).

    ``parameters`` is the tool's parameter schema (JSON Schema, as the model was
    offered it). With one, ``call`` and ``result`` only ever see arguments that
    validate; any other call gets the generic card and its raw result, as in the
    harness. ``None`` means no check: the functions see whatever the log holds (what
    the harness does for a tool registered without ``defineTool``).
    """

    call: CallPresenter | None = None
    result: ResultPresenter | None = None
    parameters: Mapping[str, Any] | None = None
    _schema: ArgumentSchema | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.parameters is not None:
            object.__setattr__(self, "_schema", ArgumentSchema.of(self.parameters))

    def accepts(self, args: Any) -> bool:
        """The presenter may be called with these (parsed) arguments."""
        return self._schema is None or self._schema.accepts(args)


class PresenterRegistry:
    """An immutable map from tool name to ``Presenter``. ``with_presenter`` and
    ``without`` return new registries, so a caller adds or overrides presenters for its
    own tools without touching anyone else's."""

    __slots__ = ("_by_name",)

    def __init__(self, presenters: Mapping[str, Presenter] | Iterable[tuple[str, Presenter]] = ()) -> None:
        self._by_name: Mapping[str, Presenter] = MappingProxyType(dict(presenters))

    def get(self, name: str) -> Presenter | None:
        return self._by_name.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def with_presenter(self, name: str, presenter: Presenter) -> PresenterRegistry:
        return PresenterRegistry({**self._by_name, name: presenter})

    def without(self, name: str) -> PresenterRegistry:
        return PresenterRegistry({k: v for k, v in self._by_name.items() if k != name})

    def with_parameters(self, schemas: Mapping[str, Mapping[str, Any] | None]) -> PresenterRegistry:
        """The same presenters validating against other parameter schemas (tool name →
        schema, ``None`` for no check), e.g. the tools a log's ``request/header``
        offered when they differ from the shipped ones. Names without a presenter
        are ignored: a tool without one is generic whatever its schema."""
        return PresenterRegistry({
            name: replace(presenter, parameters=schemas[name]) if name in schemas else presenter
            for name, presenter in self._by_name.items()
        })

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __repr__(self) -> str:
        return f"PresenterRegistry({', '.join(self._by_name)})"


# Small argument readers shared by the presenters: they raise on a shape the
# presenter cannot use, which the translator turns into the generic fallback.


def args_object(args: Any) -> dict[str, Any]:
    if not isinstance(args, dict):
        raise TypeError("tool arguments are not an object")
    return args


def required_str(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise TypeError(f"argument {key!r} is not a string")
    return value


def optional_str(args: dict[str, Any], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) else None


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def single_text(content: list[Any]) -> str | None:
    """The text of a result made of exactly one text block, else ``None``."""
    if len(content) == 1 and isinstance(content[0], dict) and content[0].get("type") == "text":
        text = content[0].get("text")
        return text if isinstance(text, str) else None
    return None


def fenced_console(text: str) -> str:
    """Output as a console code fence, trailing newlines dropped."""
    return "```console\n" + text.rstrip("\n") + "\n```"
