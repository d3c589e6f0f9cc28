"""Reporters of the rules (``replay rules [ID]...``): the list as a table, one rule's
whole help as text, or either as JSON."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from replay.check.explain import RuleHelp
from replay.findings import Example, said
from replay.report.base import RULES_HINT, Reporter
from replay.style import PLAIN, Style

WIDTH = 88
"""Where the help's paragraphs wrap."""


class RulesReporter(Reporter[RuleHelp, Sequence[RuleHelp]]):
    """A format of rules: its units are the rules' help, in listing order."""

    def units(self, result: Sequence[RuleHelp]) -> Sequence[RuleHelp]:
        return result


class RulesText(RulesReporter):
    """One line per rule: id, kind, owning domain, what it checks."""

    def unit(self, unit: RuleHelp) -> None:
        r = unit.rule
        self.write(f"{r.id:<9}{r.kind:<10}{r.domain:<8}{r.summary}\n")

    def finish(self, result: Sequence[RuleHelp]) -> None:
        self.write(f"\n{RULES_HINT}\n")


def paragraphs(text: str, indent: str = "") -> str:
    """Text whose paragraphs are separated by blank lines, each reflowed to ``WIDTH``."""
    return "\n\n".join(textwrap.fill(" ".join(p.split()), WIDTH, initial_indent=indent, subsequent_indent=indent)
                       for p in text.split("\n\n") if p.strip())


def numbered(example: Example) -> Iterator[str]:
    """An example's lines, numbered, its bad line marked ``>``."""
    for number, line in enumerate(example.lines, start=1):
        yield f"{'>' if number == example.bad_line else ' '}{number:>2}  {line}"


def _condition(example: Example, code: bool = False) -> str:
    """How an example is audited, when not as a plain log: `` (with --policy single)``."""
    policy = f"--policy {example.policy}"
    return ((f" (with {f'`{policy}`' if code else policy})" if example.policy else "")
            + (" (as events handed over directly)" if example.events_only else ""))


def help_text(help: RuleHelp, style: Style = PLAIN) -> str:
    """One rule's whole help: what it checks, an example log with its bad line marked
    and what the audit says of it, and what today's harness does with such a log."""
    r = help.rule
    out = [f"{style.paint('bold', r.id)}: {r.summary}", f"({r.kind} rule of the {r.domain} domain)", "",
           paragraphs(r.explanation), ""]
    example = r.example
    if example is not None:
        out.append(f"Example: line {example.bad_line} of this log breaks {r.id}{_condition(example)}:")
        if not example.lines:
            out.append("  (an empty file)")
        out.extend(f"  {line}" for line in numbered(example))
        if not example.final_newline:
            out.append("      (the last line has no newline)")
        for f in help.findings:
            out.append(f"The audit says: {said(f)}")
        out.append("")
    out += ["What today's harness does:", paragraphs(r.harness, "  ")]
    return "\n".join(out) + "\n"


class RuleHelpText(RulesReporter):
    """Each rule's whole help (``help_text``), separated by a blank line."""

    def start(self) -> None:
        self._first = True

    def unit(self, unit: RuleHelp) -> None:
        if not self._first:
            self.write("\n")
        self._first = False
        self.write(help_text(unit, self.style))


def rule_dict(help: RuleHelp) -> dict[str, Any]:
    r = help.rule
    example = r.example
    return {"rule": r.id, "kind": r.kind, "domain": r.domain, "summary": r.summary,
            "explanation": " ".join(r.explanation.split()), "harness": " ".join(r.harness.split()),
            "example": list(example.lines) if example is not None else None,
            "bad_line": example.bad_line if example is not None else None,
            "example_findings": [f.message for f in help.findings]}


class RulesJson(RulesReporter):
    """A JSON array of ``{rule, kind, domain, summary, explanation, harness, example,
    bad_line, example_findings}``."""

    def finish(self, result: Sequence[RuleHelp]) -> None:
        self.write(orjson.dumps([rule_dict(h) for h in result], option=orjson.OPT_INDENT_2).decode())
        self.write("\n")

