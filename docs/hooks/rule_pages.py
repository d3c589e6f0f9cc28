"""MkDocs hook: the rule reference, generated from the rule catalogue at build time.

Every rule ``replay.check.registry.RULES`` holds becomes a page ``reference/rules/ID.md``
(``replay.report.rules.rule_markdown``: what ``replay rules --format markdown ID`` prints),
and ``reference/rules/index.md`` lists them. Nothing of it is written under ``docs/``: a
rule's words change in the code, and the next build shows them. The nav entry that names
``reference/rules/index.md`` becomes a section with a page per rule, in listing order.
"""

from __future__ import annotations

from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from replay.check.registry import RULES
from replay.report.rules import rule_markdown

FOLDER = "reference/rules"
INDEX = f"{FOLDER}/index.md"


def rule_path(rule_id: str) -> str:
    """The site path of a rule's page."""
    return f"{FOLDER}/{rule_id}.md"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def index_markdown() -> str:
    """The rule reference's first page: every rule, its kind, domain and one line, linked."""
    lines = ["# Audit rules", "",
             "Every rule `replay audit` applies, in listing order (`replay rules`). Each page says what the rule",
             "checks, shows a log that breaks it and what the audit says of that log, and what today's harness",
             "does with such a log. These pages are generated from the rule catalogue in the code.", "",
             "| rule | kind | domain | what it checks |", "|---|---|---|---|"]
    lines += [f"| [{rule.id}]({rule.id}.md) | {rule.kind} | {rule.domain} | {_cell(rule.summary)} |"
              for rule in RULES.values()]
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """Every generated page: its path under the site's sources, and its Markdown."""
    generated = {INDEX: index_markdown()}
    generated.update((rule_path(rule.id), rule_markdown(rule)) for rule in RULES.values())
    return generated


def _expand(nav: Any) -> Any:
    """The nav with the entry naming the rule index turned into the rule reference's section."""
    if isinstance(nav, list):
        return [_expand(item) for item in nav]
    if isinstance(nav, dict):
        return {title: ([INDEX, *({rule.id: rule_path(rule.id)} for rule in RULES.values())]
                        if target == INDEX else _expand(target))
                for title, target in nav.items()}
    return nav


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.nav = _expand(config.nav)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path, text in pages().items():
        files.append(File.generated(config, path, content=text))
    return files
