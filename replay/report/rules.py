"""Reporters of the rules (``replay rules [ID]...``): the list as a table, one rule's
whole help as text, either as JSON, or the catalogue as Markdown (a section per rule:
what it checks, every example with what the audit says of it, what the harness does)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import orjson

from replay.check.explain import RuleHelp, example_findings
from replay.findings import Example, Rule, said
from replay.hints import command
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

    writes_json = True

    def finish(self, result: Sequence[RuleHelp]) -> None:
        self.write(orjson.dumps([rule_dict(h) for h in result], option=orjson.OPT_INDENT_2).decode())
        self.write("\n")


def _fenced(lines: Sequence[str]) -> list[str]:
    """Lines as a Markdown code block, fenced by more backticks than any line holds."""
    longest = max((len(run) for line in lines for run in re.findall("`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *lines, fence]


def rule_markdown(rule: Rule, level: int = 1) -> str:
    """One rule in Markdown, as a page of the catalogue (its heading at ``level``): what
    it checks, each example (its log with the bad line marked, and everything the audit
    says of it) and what today's harness does with such a log."""
    h = "#" * level
    out = [f"{h} {rule.id}: {rule.summary}", "", f"*{rule.kind} rule of the {rule.domain} domain*", "",
           rule.explanation, ""]
    for example in rule.examples:
        out += [f"{h}# Example: {example.name}", "",
                f"Line {example.bad_line} of this log breaks {rule.id}{_condition(example, code=True)}:", ""]
        out += _fenced(list(numbered(example)) or ["(an empty file)"])
        if not example.final_newline:
            out += ["", "(The last line has no newline.)"]
        out += ["", "The audit says:", ""]
        out += _fenced([said(f) for f in example_findings(rule, example)])
        out.append("")
    out += [f"{h}# What today's harness does", "", rule.harness]
    return "\n".join(out) + "\n"


def catalogue_markdown(rules: Iterable[Rule]) -> str:
    """The rules in Markdown: a title, then each rule's section (``rule_markdown``)."""
    parts = [f"# Audit rules\n\nEvery rule {command('audit')} applies, in listing order ({command('rules')}).\n"]
    parts.extend(rule_markdown(rule, 2) for rule in rules)
    return "\n".join(parts)


class RulesMarkdown(RulesReporter):
    """The catalogue in Markdown (``catalogue_markdown``) of the rules listed."""

    def finish(self, result: Sequence[RuleHelp]) -> None:
        self.write(catalogue_markdown(help.rule for help in result))
