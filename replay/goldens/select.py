"""Selectors: which goldens a command acts on.

A selector is ``scenario`` (every golden of the scenario) or ``scenario/artefact``
(one golden), either part a shell-style glob (``parallel-*``, ``*/web.expected.txt``,
``plan-across-turns/plan*.json``). No selector selects everything. ``check``,
``refresh``, ``accept`` and ``reject`` read them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

_GLOB = frozenset("*?[")


class SelectorError(Exception):
    """A selector that is not ``scenario`` or ``scenario/artefact``; or one that
    selects nothing (the message names it and what there is)."""


def _is_glob(text: str) -> bool:
    return any(ch in _GLOB for ch in text)


@dataclass(frozen=True, slots=True)
class Selector:
    text: str
    scenario: str
    artefact: str | None

    @classmethod
    def parse(cls, text: str) -> Selector:
        scenario, slash, artefact = text.partition("/")
        if not scenario or (slash and (not artefact or "/" in artefact)):
            raise SelectorError(f"{text!r}: a selector is SCENARIO or SCENARIO/ARTEFACT (globs allowed, e.g. "
                                "'parallel-*' or 'zero-todos/web.expected.txt')")
        return cls(text, scenario, artefact if slash else None)

    def wants_scenario(self, scenario: str) -> bool:
        return fnmatchcase(scenario, self.scenario)

    def wants(self, scenario: str, artefact: str) -> bool:
        return self.wants_scenario(scenario) and (self.artefact is None or fnmatchcase(artefact, self.artefact))


@dataclass(frozen=True, slots=True)
class Selection:
    """Selectors, read together: a golden is selected when any selector wants it."""

    selectors: tuple[Selector, ...] = ()

    @classmethod
    def parse(cls, texts: Iterable[str]) -> Selection:
        return cls(tuple(Selector.parse(t) for t in dict.fromkeys(texts)))

    @property
    def everything(self) -> bool:
        return not self.selectors

    def wants_scenario(self, scenario: str) -> bool:
        return self.everything or any(s.wants_scenario(scenario) for s in self.selectors)

    def wants(self, scenario: str, artefact: str) -> bool:
        return self.everything or any(s.wants(scenario, artefact) for s in self.selectors)

    def scenarios(self, known: Sequence[str], where: str) -> list[str]:
        """The known scenarios selected, in order; ``SelectorError`` naming a selector
        whose scenario part matches none (``where`` names the folder searched)."""
        unmatched = [s.text for s in self.selectors if not any(s.wants_scenario(k) for k in known)]
        if unmatched:
            named = [t for t in unmatched if not _is_glob(t.partition("/")[0])]
            what = (f"no scenario named {', '.join(n.partition('/')[0] for n in named)}" if named and
                    len(named) == len(unmatched) else f"no scenario matches {', '.join(unmatched)}")
            raise SelectorError(f"{what} in {where} (known: {', '.join(known) or 'none'})")
        return [k for k in known if self.wants_scenario(k)]

    def unmatched(self, pairs: Iterable[tuple[str, str]]) -> list[str]:
        """The selectors that want none of the (scenario, artefact) pairs."""
        items = list(pairs)
        return [s.text for s in self.selectors if not any(s.wants(a, b) for a, b in items)]
