"""Reporters of the rules (``replay rules [ID]...``): the list as a table, one rule's
whole help as text, or either as JSON."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import orjson

from replay.check.explain import RuleHelp
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
        r = unit.doc.rule
        self.write(f"{r.id:<9}{r.kind:<10}{r.domain:<8}{r.summary}\n")

    def finish(self, result: Sequence[RuleHelp]) -> None:
        self.write(f"\n{RULES_HINT}\n")


def paragraphs(text: str, indent: str = "") -> str:
    """Text whose paragraphs are separated by blank lines, each reflowed to ``WIDTH``."""
    return "\n\n".join(textwrap.fill(" ".join(p.split()), WIDTH, initial_indent=indent, subsequent_indent=indent)
                       for p in text.split("\n\n") if p.strip())


def help_text(help: RuleHelp, style: Style = PLAIN) -> str:
    """One rule's whole help: what it checks, an example log with its bad line marked
    and what the audit says of it, and what today's harness does with such a log."""
    doc = help.doc
    r = doc.rule
    out = [f"{style.paint('bold', r.id)}: {r.summary}", f"({r.kind} rule of the {r.domain} domain)", "",
           paragraphs(doc.explanation), ""]
    if doc.example is not None:
        out.append(f"Example: line {doc.bad_line} of this log breaks {r.id}"
                   + (f" (with --policy {doc.policy})" if doc.policy else "")
                   + (" (as events handed over directly)" if doc.events_only else "") + ":")
        if not doc.example:
            out.append("  (an empty file)")
        for number, line in enumerate(doc.example, start=1):
            mark = ">" if number == doc.bad_line else " "
            out.append(f"  {mark}{number:>2}  {line}")
        if not doc.final_newline:
            out.append("      (the last line has no newline)")
        for f in help.findings:
            out.append(f"The audit says: line {f.line}: {r.id} {f.severity.value}: {f.message}")
        out.append("")
    out += ["What today's harness does:", paragraphs(doc.harness, "  ")]
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
    doc = help.doc
    r = doc.rule
    return {"rule": r.id, "kind": r.kind, "domain": r.domain, "summary": r.summary,
            "explanation": " ".join(doc.explanation.split()), "harness": " ".join(doc.harness.split()),
            "example": list(doc.example) if doc.example is not None else None, "bad_line": doc.bad_line,
            "example_findings": [f.message for f in help.findings]}


class RulesJson(RulesReporter):
    """A JSON array of ``{rule, kind, domain, summary, explanation, harness, example,
    bad_line, example_findings}``."""

    def finish(self, result: Sequence[RuleHelp]) -> None:
        self.write(orjson.dumps([rule_dict(h) for h in result], option=orjson.OPT_INDENT_2).decode())
        self.write("\n")
