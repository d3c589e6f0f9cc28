"""The session browser's rule pages: what each audit rule checks, in the words of its
typed fields (its summary, kind and domain, explanation, what today's harness does),
its audited example as ``replay rules ID`` prints it, and the sessions of this archive
that break it, each linking to its first finding's event; and their index."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from replay.check.registry import RULES
from replay.hints import command
from replay.render.choices import Locale
from replay.render.site_layout import INDEX
from replay.render.web.locale import interpolate
from replay.render.web.page import esc
from replay.render.web.page_assets import RULE_CSP, RULE_CSS
from replay.render.web.session_page import head_html
from replay.render.web.site_index import clipped
from replay.render.web.site_strings import count, site_strings
from replay.words import by_count


@dataclass(frozen=True, slots=True)
class Breaking:
    """A session that breaks a rule: its page (relative to the rule pages), its path
    as shown, its findings of the rule, and the line of the first."""

    href: str
    shown: str
    findings: int
    line: int | None


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{esc(p)}</p>" for p in text.split("\n\n") if p.strip())


def rule_pages(locale: Locale, rule_text: Callable[[str], str] | None,
               breaking: Mapping[str, Sequence[Breaking]]) -> Iterator[tuple[str, str]]:
    """Each rule's page and the rules' index: file name, HTML."""
    ss = site_strings(locale)
    lang = "zh" if locale == "zh" else "en"
    back = f"<nav><a href=\"../{INDEX}\" rel=\"index\">\u2190 {esc(ss.back)}</a></nav>"
    items = []
    for rule_id, rule in RULES.items():
        title = interpolate(ss.rule_page_title, rule=rule_id)
        sessions = breaking.get(rule_id, ())
        rows = "".join(
            f"<tr><td class=\"path\"><a href=\"{esc(b.href)}{'' if b.line is None else f'#L{b.line}'}\" "
            f"title=\"{esc(b.shown)}\">{esc(clipped(b.shown, total=200))}</a></td>"
            f"<td class=\"num\" data-v=\"{b.findings}\">{count(b.findings)}</td></tr>" for b in sessions)
        listed = (f"<table class=\"breaking\"><thead><tr><th scope=\"col\">{esc(ss.col_log)}</th>"
                  f"<th scope=\"col\" class=\"num\">{esc(ss.col_findings)}</th></tr></thead><tbody>{rows}</tbody>"
                  "</table>" if sessions else f"<p class=\"note\">{esc(ss.rule_none_here)}</p>")
        help_text = rule_text(rule_id) if rule_text else f"{rule_id}: {rule.summary}"
        terminal = interpolate(ss.rule_terminal, command=command("rules", rule_id))
        yield f"{rule_id}.html", (
            f"{head_html(title, RULE_CSP, RULE_CSS, lang)}<body class=\"rules\"><main>{back}"
            f"<p><a href=\"{INDEX}\">{esc(ss.rules_title)}</a></p><h1>{esc(title)}</h1>"
            f"<p class=\"summary\"><b>{esc(rule_id)}</b> {esc(rule.summary)}</p>"
            f"<p class=\"kind\" data-kind=\"{esc(rule.kind)}\">"
            f"{esc(interpolate(ss.rule_kind, kind=rule.kind, domain=rule.domain))}</p>"
            f"<section class=\"explanation\">{_paragraphs(rule.explanation)}</section>"
            f"<h2>{esc(ss.rule_harness)}</h2><section class=\"harness\">{_paragraphs(rule.harness)}</section>"
            f"<h2 id=\"breaking-title\">{esc(interpolate(ss.rule_breaking, count=count(len(sessions))))}</h2>"
            f"{listed}"
            f"<details class=\"terminal\"><summary>{esc(terminal)}</summary>"
            f"<pre class=\"help\">{esc(help_text)}</pre></details>"
            "</main></body>\n</html>\n")
        n = sum(b.findings for b in sessions)
        items.append(f"<li><a href=\"{esc(rule_id)}.html\">{esc(rule_id)}</a> <span class=\"help\">"
                     f"{esc(rule.summary)}</span> <span class=\"count\" data-v=\"{n}\">"
                     f"{esc(interpolate(by_count(len(sessions), ss.rule_sessions), count=count(len(sessions))))}, "
                     f"{esc(interpolate(by_count(n, ss.rule_findings), count=count(n)))}"
                     "</span></li>")
    yield INDEX, (f"{head_html(ss.rules_title, RULE_CSP, RULE_CSS, lang)}<body class=\"rules\"><main>{back}"
                  f"<h1>{esc(ss.rules_title)}</h1><ul class=\"ruleList\">{''.join(items)}</ul></main></body>\n"
                  "</html>\n")


__all__ = ["Breaking", "rule_pages"]
