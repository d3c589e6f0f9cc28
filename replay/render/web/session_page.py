"""A session's page in the session browser (``replay view PATH -o DIR``).

The page is made in two steps, so that a log is read once, by its audit:

1. **The draft** (``replay.render.web.session_draft``), where the log is audited (this process, a worker process or a
   cluster worker): the site's watch (``replay.view.site.PageWatch``) feeds a
   ``DraftWriter`` the audit's own items as they are read; it writes the
   transcript as HTML, compressed as it goes, to a temporary file with its places
   (memory holds the HTML of the tool calls still waiting for their results, at most
   ``HELD`` events of it, and the numbers of the steps in use). What only the end of the log or the rest of the
   archive knows is left as places in the HTML: where each event's element starts
   (its findings go there), the numbers of each turn and step (known at its end) and
   each delegation's link to its child's page.
2. **The page**, where the site is written: ``page_chunks`` fills those places, with
   the findings of the audit's report (after the selection and the baseline) and the
   links the site knows, around a header, a banner, the list of findings, a toolbar,
   the plan timeline and the plan panel.

Every event has an element whose id is its line (``L25``) and, inside it, an anchor
whose id is its seq (``seq-24``); a run of stream chunks is one element (its first
line and seq) whose ``data-lines`` and ``data-seqs`` give the range the page's script
resolves the others in. Every text from the log goes through ``esc`` (the one
sanitizer, then HTML escaping).
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from replay.check.registry import RULES, rule_order
from replay.findings import Finding, Severity
from replay.render.choices import Locale
from replay.render.web.audited import Audited
from replay.render.web.draft_places import body, filled, places
from replay.render.web.locale import interpolate
from replay.render.web.page import esc
from replay.render.web.page_assets import SESSION_CSP, SESSION_CSS, SESSION_SCRIPT, SITE_SESSION_CSP
from replay.render.web.page_strings import page_strings
from replay.render.web.session_draft import FLUSH, SEVERITIES, DraftWriter, PageDraft, SessionFacts, unpacked
from replay.render.web.site_strings import SiteStrings, count, site_strings
from replay.words import by_count

# -- the page -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Link:
    """A link to another page of the site: where, and the text shown."""

    href: str
    text: str


@dataclass(frozen=True, slots=True)
class PageLinks:
    """What the site knows around one page (all ``None`` or empty for a page alone)."""

    index: str | None = None
    """The index page, relative to this page."""
    rules: str | None = None
    """The folder of the rule pages, relative to this page (``…/rules/``)."""
    parent: Link | None = None
    children: tuple[Link, ...] = ()
    delegations: dict[int, Link | None] = field(default_factory=dict)
    """Each delegation's child page, by call number (``None``: not in the site)."""
    assets: tuple[str, str] | None = None
    """The site's stylesheet and script of session pages, relative to this page (``None``:
    the page carries its own, inline)."""


Status = tuple[str, str | None]
"""A log's audit status (``ok``, ``warnings``, ``errors``, ``unreadable``) and its worst rule."""


def audit_status(report: Audited) -> Status:
    """How a log stands after its audit: ``unreadable``, ``errors`` (an error finding),
    ``warnings`` (a warning or policy finding) or ``ok``; and the worst rule: the rule
    with the most findings of the worst severity (the first in listing order on a tie)."""
    if not report.findings:
        return ("unreadable" if report.status == "unreadable" else "ok"), None
    worst = min(SEVERITIES.index(f.severity) for f in report.findings)
    counts: dict[str, int] = {}
    for f in report.findings:
        if SEVERITIES.index(f.severity) == worst:
            counts[f.rule] = counts.get(f.rule, 0) + 1
    rule = min(counts, key=lambda r: (-counts[r], rule_order(r), r))
    status = "unreadable" if report.status == "unreadable" else "errors" if worst == 0 else "warnings"
    return status, rule


def head_html(title: str, csp: str, style: str, lang: str, linked: bool = False) -> str:
    """A page's head: its policy, its title and its stylesheet (``style``: inline, or the
    stylesheet's address when ``linked``)."""
    before, after = _head_around(csp, style, lang, linked)
    return f"{before}{esc(title)}{after}"


@functools.lru_cache(maxsize=16)
def _head_around(csp: str, style: str, lang: str, linked: bool) -> tuple[str, str]:
    """The head of a page before its title and after it (the same on every page of a kind)."""
    sheet = f"<link rel=\"stylesheet\" href=\"{esc(style)}\">" if linked else f"<style>{style}</style>"
    return (f"<!doctype html>\n<html lang=\"{lang}\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{esc(csp)}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
            f"</title>\n{sheet}\n</head>\n")


def finding_html(f: Finding, links: PageLinks, ss: SiteStrings, at: bool, transcript: bool = True) -> str:
    """One finding: where (its line, in the list at the top; a link to its event when
    the page has a ``transcript``, or the line is the header's), its rule (a link to
    the rule's page in a site), its severity and its message. In the list, a finding
    shown at its event is a link to it (its words are there, once)."""
    where = _where(f.line, ss, transcript) if not at else ""
    rule = esc(f.rule)
    name = esc(interpolate(ss.rule_link, rule=f.rule))
    rule_html = (f"<a class=\"rule\" href=\"{esc(links.rules)}{rule}.html\" title=\"{name}\">{rule}</a>"
                 if links.rules is not None and _rule_known(f.rule) else f"<span class=\"rule\">{rule}</span>")
    placed = not at and transcript and f.line is not None and f.line > 1
    message = "" if placed else f" <span class=\"msg\">{esc(f.message)}</span>"
    return (f"<li class=\"finding\" data-severity=\"{f.severity.value}\" data-rule=\"{rule}\">{where}{rule_html} "
            f"<span class=\"sev\">{esc(f.severity.value)}</span>{message}</li>")


def _rule_known(rule: str) -> bool:
    return rule in RULES


def findings_at(found: Sequence[Finding], links: PageLinks, ss: SiteStrings) -> str:
    worst = min(SEVERITIES.index(f.severity) for f in found)
    items = "".join(finding_html(f, links, ss, at=True) for f in found)
    return f"<ul class=\"findings at\" data-worst=\"{SEVERITIES[worst].value}\">{items}</ul>\n"


def banner_html(report: Audited, ss: SiteStrings, transcript: bool = True) -> str:
    """What today's harness would do with the log, when it is damaged, repaired or
    migrated (its format findings: the rules of what the harness does when it loads
    a log), said once, with a link to the list and to the first place (each
    finding's words are at its event); replay's own (the file could not be read
    whole) said apart."""
    found = [f for f in report.findings if (rule := RULES.get(f.rule)) is not None and rule.kind == "format"
             and f.severity is not Severity.POLICY]
    if not found:
        return ""
    own = [f for f in found if f.rule in ("IO", "LIMIT", "INTERNAL")]
    harness = [f for f in found if f not in own]
    refused = any(f.severity is Severity.ERROR for f in harness)
    parts = []
    if own:
        parts.append(f"<p class=\"headline\">{esc(ss.banner_unread)}</p>")
    if harness:
        parts.append(f"<p class=\"headline\">{esc(ss.banner_refuse if refused else ss.banner_repair)}</p>")
    kind = "refused" if refused or own else "repaired"
    first = found[0].line
    where = f" <a href=\"#L{first}\">{esc(interpolate(ss.finding_at, line=first))}</a>" if first and transcript else ""
    return (f"<section class=\"banner\" role=\"alert\" data-kind=\"{kind}\">{''.join(parts)}"
            f"<p class=\"where\"><a href=\"#findings-title\">{esc(ss.findings_title)}</a>{where}</p></section>\n")


def _where(line: int | None, ss: SiteStrings, transcript: bool) -> str:
    if line is None:
        return ""
    text = esc(interpolate(ss.finding_at, line=line))
    return f"<a href=\"#L{line}\">{text}</a> " if transcript or line == 1 else f"{text} "


def _fact(label: str, value: str, data: str = "", key: str = "") -> str:
    attrs = (f" data-fact=\"{key}\"" if key else "") + (f" data-value=\"{esc(data)}\"" if data else "")
    return f"<dt>{esc(label)}</dt><dd{attrs}>{value}</dd>"


def facts_html(facts: SessionFacts | None, report: Audited, shown_path: str, links: PageLinks,
               ss: SiteStrings) -> str:
    """The session's header: where it is, what it is, and its numbers (each with its
    exact value in ``data-value``)."""
    status, rule = audit_status(report)
    out = [_fact(ss.fact_log, f"<code>{esc(shown_path)}</code>", key="log")]
    if facts is not None:
        unknown = esc(ss.unknown)
        inp, outp, cache_read, cache_write, reasoning = facts.tokens
        tokens = interpolate(ss.tokens_line, input=count(inp), output=count(outp), cache_read=count(cache_read),
                             reasoning=count(reasoning))
        if cache_write:
            tokens += interpolate(ss.cache_write, cache_write=count(cache_write))
        done, failed, interrupted, pending = facts.outcomes
        out += [
            _fact(ss.fact_id, f"<code>{esc(facts.session_id)}</code>" if facts.session_id else unknown, key="id"),
            _fact(ss.fact_cwd, f"<code>{esc(facts.cwd)}</code>" if facts.cwd else unknown, key="cwd"),
            _fact(ss.fact_created, esc(ss.time(facts.created)), str(facts.created or ""), "created"),
            _fact(ss.col_start, esc(ss.time(facts.start)), str(facts.start or ""), "start"),
            _fact(ss.fact_duration, esc(ss.duration(facts.duration)),
                  "" if facts.duration is None else str(facts.duration), "duration"),
            _fact(ss.fact_generation, esc(facts.generation or ss.unknown), key="generation"),
            _fact(ss.fact_models, esc(", ".join(facts.models) or ss.unknown), " ".join(facts.models), "models"),
            _fact(ss.fact_turns, count(facts.turns), str(facts.turns), "turns"),
            _fact(ss.fact_steps, count(facts.steps), str(facts.steps), "steps"),
            _fact(ss.fact_calls, esc(interpolate(ss.calls_line, total=count(facts.calls), done=done, failed=failed,
                                                 interrupted=interrupted, pending=pending)),
                  f"{facts.calls} {done} {failed} {interrupted} {pending}", "calls"),
            _fact(ss.fact_tokens, esc(tokens), " ".join(map(str, facts.tokens)), "tokens"),
        ]
    out.append(_fact(ss.fact_events, count(report.events), str(report.events), "events"))
    status_text = ss.status(status) + (f" · {rule}" if rule else "")
    out.append(_fact(ss.fact_status, f"<span class=\"status\" data-status=\"{status}\">{esc(status_text)}</span>",
                     status, "status"))
    if links.parent is not None:
        out.append(_fact(ss.fact_parent, f"<a rel=\"up\" href=\"{esc(links.parent.href)}\">"
                                         f"{esc(links.parent.text)}</a>", key="parent"))
    if links.children:
        items = ", ".join(f"<a href=\"{esc(c.href)}\">{esc(c.text)}</a>" for c in links.children)
        out.append(_fact(ss.fact_children, items, str(len(links.children)), "children"))
    return f"<dl class=\"facts\">{''.join(out)}</dl>"


def toolbar_html(facts: SessionFacts | None, ss: SiteStrings) -> str:
    tools = "".join(f"<option value=\"{esc(t)}\">{esc(t)}</option>" for t in (facts.tools if facts else ()))
    before, after = _toolbar_around(ss)
    return f"{before}{tools}{after}"


@functools.lru_cache(maxsize=16)
def _toolbar_around(ss: SiteStrings) -> tuple[str, str]:
    """The toolbar before its tools' options and after them (the same on every page)."""
    before, _, after = _toolbar_of(ss, "\0").partition("\0")
    return before, after


def _toolbar_of(ss: SiteStrings, tools: str) -> str:
    return (
        "<div class=\"toolbar\" role=\"toolbar\" aria-label=\"" + esc(ss.search_label) + "\">"
        f"<input type=\"search\" id=\"search\" placeholder=\"{esc(ss.search_label)}\" "
        f"aria-label=\"{esc(ss.search_label)}\" autocomplete=\"off\">"
        f"<button type=\"button\" id=\"search-prev\" aria-label=\"{esc(ss.search_previous)}\">"
        "<span aria-hidden=\"true\">\u2191</span></button>"
        f"<button type=\"button\" id=\"search-next\" aria-label=\"{esc(ss.search_next)}\">"
        "<span aria-hidden=\"true\">\u2193</span></button>"
        f"<span id=\"search-count\" class=\"count\" role=\"status\" data-count=\"{esc(ss.search_count)}\" "
        f"data-none=\"{esc(ss.search_none)}\"></span>"
        f"<label><input type=\"checkbox\" id=\"errors-only\"> {esc(ss.errors_only)}</label>"
        f"<label><input type=\"checkbox\" id=\"log-events\" checked> {esc(ss.log_events)}</label>"
        f"<label>{esc(ss.tool_label)} <select id=\"tool-filter\"><option value=\"\">{esc(ss.tool_any)}</option>"
        f"{tools}</select></label>"
        f"<button type=\"button\" id=\"expand-all\">{esc(ss.expand_all)}</button>"
        f"<button type=\"button\" id=\"collapse-all\">{esc(ss.collapse_all)}</button>"
        f"<button type=\"button\" id=\"help-open\" aria-haspopup=\"dialog\">{esc(ss.help_button)} "
        "<kbd>?</kbd></button></div>\n")


def help_html(ss: SiteStrings, keys: Sequence[tuple[str, str]]) -> str:
    return _help_html(ss, tuple(keys))


@functools.lru_cache(maxsize=16)
def _help_html(ss: SiteStrings, keys: tuple[tuple[str, str], ...]) -> str:
    rows = "".join(f"<dt><kbd>{esc(k)}</kbd></dt><dd>{esc(v)}</dd>" for k, v in keys)
    return (f"<dialog id=\"help\" aria-labelledby=\"help-title\"><h2 id=\"help-title\">{esc(ss.help_title)}</h2>"
            f"<dl class=\"keys\">{rows}</dl><form method=\"dialog\"><button type=\"submit\" id=\"help-close\">"
            f"{esc(ss.help_close)}</button></form></dialog>\n")


def page_title(facts: SessionFacts | None, shown_path: str, locale: Locale) -> str:
    """The session's title, else its log's path, else (a page of events alone) ``Session replay``."""
    if facts is not None and facts.title:
        return facts.title
    return shown_path or page_strings(locale).default_title


def page_chunks(draft: PageDraft | None, report: Audited, shown_path: str, links: PageLinks, locale: Locale,
                failure: str | None = None) -> Iterator[str | bytes]:
    """A session's page: its draft (``None``: none could be made, ``failure`` says
    why) with the findings of ``report`` at their events and the site's ``links``."""
    ss = site_strings(locale)
    facts = draft.facts if draft is not None else None
    title = page_title(facts, shown_path, locale)
    lang = "zh" if locale == "zh" else "en"
    if links.assets is None:
        yield head_html(title, SESSION_CSP, SESSION_CSS, lang)
    else:
        yield head_html(title, SITE_SESSION_CSP, links.assets[0], lang, linked=True)
    nav = (f"<nav><a href=\"{esc(links.index)}\" rel=\"index\">\u2190 {esc(ss.back)}</a></nav>"
           if links.index is not None else "")
    yield (f"<body class=\"session\">\n<header class=\"page\" id=\"L1\">{nav}<h1>{esc(title)}</h1>"
           f"{facts_html(facts, report, shown_path, links, ss)}</header>\n")
    yield banner_html(report, ss, draft is not None)
    yield findings_section(report, links, ss, draft is not None)
    if draft is None:
        if failure is not None:
            yield f"<p class=\"noPage\">{esc(interpolate(ss.no_page, why=failure))}</p>\n"
        yield "</body>\n</html>\n"
        return
    yield toolbar_html(facts, ss)
    yield from unpacked(draft.timeline)
    yield draft.timing
    yield "<main class=\"transcript\" id=\"transcript\">\n"
    yield from body_chunks(draft, report, links, ss)
    yield "</main>\n"
    yield draft.panel
    yield help_html(ss, (("/", ss.key_search), ("j / k", ss.key_turns), ("n / N", ss.key_matches),
                         ("?", ss.key_help)))
    yield _SESSION_END if links.assets is None else _linked_end(links.assets[1])


_SESSION_END = f"<script>{SESSION_SCRIPT}</script>\n</body>\n</html>\n".encode()
"""The end of every session page alone, as bytes (encoded once)."""


@functools.lru_cache(maxsize=4)
def _linked_end(script: str) -> bytes:
    """The end of a site's session page, whose script is the site's file ``script``."""
    return f"<script src=\"{esc(script)}\"></script>\n</body>\n</html>\n".encode()


def findings_section(report: Audited, links: PageLinks, ss: SiteStrings, transcript: bool = True) -> str:
    forms = {Severity.ERROR: ss.findings_errors, Severity.WARNING: ss.findings_warnings,
             Severity.POLICY: ss.findings_policy}
    counts = " · ".join(interpolate(by_count(report.count(s), forms[s]), count=report.count(s)) for s in SEVERITIES
                        if report.count(s))
    head = f"<h2 id=\"findings-title\">{esc(ss.findings_title)}{' (' + esc(counts) + ')' if counts else ''}</h2>"
    if not report.findings:
        return (f"<section class=\"findingList\" aria-labelledby=\"findings-title\">{head}"
                f"<p>{esc(ss.no_findings)}</p></section>\n")
    items = "".join(finding_html(f, links, ss, at=False, transcript=transcript) for f in report.findings)
    return (f"<section class=\"findingList\" aria-labelledby=\"findings-title\">{head}"
            f"<ul class=\"findings\">{items}</ul></section>\n")


def body_chunks(draft: PageDraft, report: Audited, links: PageLinks, ss: SiteStrings) -> Iterator[str | bytes]:
    """The transcript, its places filled: the numbers of turns and steps, each
    delegation's link, each finding before the element of its line."""
    at: dict[int, list[Finding]] = {}
    place = places(draft.store, [f.line for f in report.findings if f.line is not None and f.line > 1])
    for f in report.findings:
        if f.line is not None and f.line > 1:
            at.setdefault(place[f.line], []).append(f)
    delegations = []
    if links.index is not None:  # in a site: each delegation's child page, or that it is not there
        delegations = [(offset, 0, _delegation_html(links.delegations.get(number), ss))
                       for offset, number in draft.links]
    shown = sorted(((offset, 1, findings_at(here, links, ss)) for offset, here in at.items()), key=lambda i: i[0])
    position = 0
    pending = heapq.merge(((offset, 0, text) for offset, text in filled(draft.store)), delegations, shown,
                          key=lambda item: (item[0], item[1]))
    nxt = next(pending, None)
    out: list[bytes] = []
    size = 0
    for piece in body(draft.store, draft.compressed, FLUSH):
        end = position + len(piece)
        start = 0
        while nxt is not None and nxt[0] <= end:
            cut = nxt[0] - position
            if cut > start:
                out.append(piece[start:cut])
                size += cut - start
            start = max(start, cut)
            insert = nxt[2].encode("utf-8", "replace")
            out.append(insert)
            size += len(insert)
            nxt = next(pending, None)
            if size >= FLUSH:
                yield b"".join(out)
                out, size = [], 0
        if start < len(piece):
            out.append(piece[start:])
        position = end
        yield b"".join(out)
        out, size = [], 0
    while nxt is not None:
        out.append(nxt[2].encode("utf-8", "replace"))
        nxt = next(pending, None)
    if out:
        yield b"".join(out)


def _delegation_html(link: Link | None, ss: SiteStrings) -> str:
    if link is None:
        return f"<p class=\"child missing\">{esc(ss.child_missing)}</p>\n"
    return (f"<p class=\"child\"><a href=\"{esc(link.href)}\">{esc(interpolate(ss.child_link, name=link.text))}"
            "</a></p>\n")


# -- a page from events alone -------------------------------------------------------------


BATCH = 4096
"""Items a draft is given at a time, as an audit gives them."""


@dataclass(frozen=True, slots=True)
class Report:
    """What a page shows of a log's audit, given by hand (a page of events alone: the
    findings it is given, none by default). ``replay.check.engine.LogReport`` is the
    audit's own."""

    path: str = ""
    events: int = 0
    findings: tuple[Finding, ...] = ()
    status: str = "ok"

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)


def drafted(items: Iterable[Any], header: dict[str, Any] | None = None, locale: Locale = "en") -> PageDraft:
    """A log's draft from its items (events, as ``replay.log.reader.iter_events`` gives
    them, or an audit's items: events, chunk runs and spans, the reading's findings),
    given in batches; ``header``: the log's session header record."""
    writer = DraftWriter(header, locale)
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= BATCH:
            writer.batch(batch)
            batch = []
    writer.batch(batch)
    return writer.done()


def html_page(events: Iterable[Any], *, locale: Locale = "en", report: Audited | None = None,
              header: dict[str, Any] | None = None, links: PageLinks | None = None) -> str:
    """A session's page, whole, from its events (and the findings of ``report``, at
    their events; ``links``: a site's): the page ``replay view LOG`` and the site make
    (``page_chunks`` of the draft)."""
    site_strings(locale)  # refuse an unknown locale before reading anything
    evs = list(events)
    draft = drafted(evs, header, locale)
    chunks = page_chunks(draft, report if report is not None else Report(events=len(evs)),
                         report.path if report is not None else "", links or PageLinks(), locale)
    # Pieces of bytes may cut a character: the page is joined as bytes, then decoded once.
    return b"".join(c.encode("utf-8") if isinstance(c, str) else c for c in chunks).decode("utf-8")


__all__ = ["BATCH", "Link", "PageLinks", "Report", "audit_status", "drafted", "html_page", "page_chunks"]
