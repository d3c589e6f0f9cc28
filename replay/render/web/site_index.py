"""The session browser's index page: the totals, three small charts drawn as inline
SVG (no script needed to see them), and one row per session, every column sortable
and the rows filterable by the page's script (``index.js``).

The first ``FIRST_ROWS`` rows are in the table itself (what a reader without scripts
sees, and what the browser paints first); the rest wait in a ``<template>``, parsed
but not laid out, until the script pages through them. Each cell that sorts by
something other than its text carries it in ``data-v``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from replay.render.choices import Locale
from replay.render.web.audited import Audited, AuditedMany
from replay.render.web.locale import interpolate
from replay.render.web.page import esc
from replay.render.web.page_assets import INDEX_CSP, INDEX_CSS, INDEX_SCRIPT
from replay.render.web.session_draft import SEVERITIES, SessionFacts
from replay.render.web.session_page import audit_status, head_html, help_html
from replay.render.web.site_strings import SiteStrings, count, day_of, recorded, site_strings
from replay.words import by_count

FIRST_ROWS = 200
"""Rows in the table as written, and per page of the script's paging."""
TOP_RULES = 12
"""Rules the findings chart shows (the most frequent)."""
MAX_DAYS = 90
"""Days the sessions chart shows one bar each; a longer span is shown by month."""
STATUS_RANK = {"ok": 0, "warnings": 1, "errors": 2, "unreadable": 3}
MAX_TOOLS = 200
"""Tool names the index's tool filter offers, at most."""


@dataclass(frozen=True, slots=True)
class Row:
    """One session of the index: its report, how it is named, its page (relative to
    the index), its numbers, and how many child sessions it has."""

    report: Audited
    shown: str
    href: str
    facts: SessionFacts | None
    children: int


WORD_CHARS = 48
"""Characters of a word shown in an index cell; a longer one is cut (``…``): a word
of 10,000 characters would cost the browser's layout about a second per row."""
TEXT_CHARS = 400
"""Characters of a title shown in an index cell (the whole title is its tooltip)."""
TIP_CHARS = 1000
"""Characters of a title kept in its cell's tooltip, which the filter matches."""
NAMES_SHOWN = 3
"""Tools named in a row's tools cell (the others counted, all in its tooltip)."""
_SPACE = re.compile(r"\s+")


def clipped(text: str, words: int = WORD_CHARS, total: int = TEXT_CHARS) -> str:
    """``text`` as an index cell shows it: each word longer than ``words`` cut, the
    whole cut at ``total`` characters (``…`` where it was)."""
    if len(text) > total:
        text = text[:total] + "\u2026"
    if len(text) <= words:
        return text
    return _SPACE.sub(" ", " ".join(w if len(w) <= words else w[:words] + "\u2026" for w in text.split()))


def common_root(paths: Sequence[str]) -> str:
    """The folder every path is in (``""``: none), ending in ``/``."""
    if not paths:
        return ""
    first = paths[0].split("/")[:-1]
    size = len(first)
    for path in paths[1:]:
        parts = path.split("/")[:-1]
        n = 0
        while n < size and n < len(parts) and parts[n] == first[n]:
            n += 1
        size = n
        if not size:
            return ""
    return "/".join(first[:size]) + "/"


def short_path(shown: str, root: str) -> str:
    """A log's path as its row shows it: from the inputs' common root, a harness's
    primary ``session.jsonl`` by its folder."""
    rest = shown[len(root):] if root and shown.startswith(root) else shown
    folder, _, base = rest.rpartition("/")
    return f"{folder}/" if base == "session.jsonl" and folder else rest


def _path_html(path: str) -> str:
    """A path in a cell: each component clipped as a word, a line break allowed after each ``/``."""
    return "/<wbr>".join(esc(clipped(part, total=WORD_CHARS)) for part in path.split("/"))


def _num(value: int | None, shown: str | None = None) -> str:
    if value is None:
        return "<td class=\"num\" data-v=\"\"></td>"
    return f"<td class=\"num\" data-v=\"{value}\">{shown if shown is not None else count(value)}</td>"


def _first_line(report: Audited, rule: str | None) -> int | None:
    for f in report.findings:
        if f.rule == rule and f.line is not None:
            return f.line
    return None


def status_rank(report: Audited, status: str) -> int:
    """How a row sorts by its status: by severity (unreadable, errors, warnings, ok),
    then by its number of findings."""
    return STATUS_RANK[status] * 10 ** 9 + min(len(report.findings), 10 ** 9 - 1)


def errors_first(rows: Sequence[Row]) -> list[Row]:
    """The index's own order: by status, worst first (``status_rank``, highest first),
    rows of one rank in the order they came (the audit's)."""
    ranks = [status_rank(row.report, audit_status(row.report)[0]) for row in rows]
    return [rows[i] for i in sorted(range(len(rows)), key=lambda i: -ranks[i])]


def row_html(row: Row, ss: SiteStrings, root: str = "") -> str:
    facts = row.facts
    report = row.report
    status, rule = audit_status(report)
    models = facts.models if facts is not None else ()
    tools = facts.tools if facts is not None else ()
    href = esc(row.href)
    title = facts.title or "" if facts else ""
    short = short_path(row.shown, root)
    status_text = esc(ss.status(status))
    if rule:
        line = _first_line(report, rule)
        target = f"{href}#L{line}" if line is not None else f"{href}#findings-title"
        status_text += f" · <a class=\"rule\" href=\"{target}\">{esc(rule)}</a>"
    n = len(report.findings)
    cells = [f"<td class=\"path\" data-v=\"{esc(row.shown)}\"><a href=\"{href}\">{_path_html(short)}</a></td>",
             f"<td class=\"state\" data-v=\"{status_rank(report, status)}\"><span class=\"status\" "
             f"data-status=\"{status}\">{status_text}</span></td>",
             f"<td class=\"num\" data-v=\"{n}\">{count(n)}</td>",
             f"<td class=\"title\"><div class=\"t\" title=\"{esc(title[:TIP_CHARS])}\">"
             f"{esc(clipped(title))}</div></td>"]
    if facts is not None:
        start = facts.start if facts.start is not None else facts.created
        cells.append(f"<td class=\"when\" data-v=\"{start if recorded(start) else ''}\">"  # none recorded: sorted
                     f"{esc(ss.time(start)) if start is not None else ''}</td>")  # with none
        cells.append(_num(facts.duration, esc(ss.duration(facts.duration)) if facts.duration is not None else None))
        cells.append(_num(facts.turns))
        failed = facts.outcomes[1]
        apart = f" <span class=\"failed\">({esc(interpolate(ss.failed_apart, failed=failed))})</span>" if failed else ""
        cells.append(f"<td class=\"num\" data-v=\"{facts.calls}\" data-failed=\"{failed}\">{count(facts.calls)}"
                     f"{apart}</td>")
        inp, out, cache_read, _, reasoning = facts.tokens
        token_cells = [_num(inp), _num(out), _num(cache_read), _num(reasoning)]
        plan = facts.plan
        plan_cell = ("<td class=\"num\" data-v=\"\"></td>" if plan is None else
                     f"<td class=\"num\" data-v=\"{plan[0] / plan[1]:.4f}\">"
                     f"{esc(interpolate(ss.plan_done, done=plan[0], total=plan[1]))}</td>")
    else:
        cells += ["<td class=\"when\" data-v=\"\"></td>", *(["<td class=\"num\" data-v=\"\"></td>"] * 3)]
        token_cells = ["<td class=\"num\" data-v=\"\"></td>"] * 4
        plan_cell = "<td class=\"num\" data-v=\"\"></td>"
    named = "".join(f"<span class=\"name\">{esc(clipped(t))}</span>" for t in tools[:NAMES_SHOWN])
    more = f"<span class=\"name\">+{len(tools) - NAMES_SHOWN}</span>" if len(tools) > NAMES_SHOWN else ""
    cells.append(f"<td class=\"tools\" data-v=\"{len(tools)}\">{named}{more}</td>")
    cells += token_cells
    cells.append("<td class=\"models\">" + "".join(f"<span class=\"name\">{esc(clipped(m))}</span>" for m in models)
                 + "</td>")
    cells.append(_num(row.children))
    cells.append(plan_cell)
    return (f"<tr data-status=\"{status}\" data-models=\"{esc(chr(10).join(models))}\" "
            f"data-tools=\"{esc(chr(10).join(tools))}\">{''.join(cells)}</tr>\n")


COLUMNS = ("log", "status", "findings", "title", "start", "duration", "turns", "calls", "tools", "input", "output",
           "cache_read", "reasoning", "models", "children", "plan")
DEFAULT_SORT = "status"
"""The column the rows are written in the order of, worst first (``errors_first``)."""
NUMERIC = frozenset({"status", "findings", "start", "duration", "turns", "calls", "tools", "input", "output",
                     "cache_read", "reasoning", "children", "plan"})


def _header(ss: SiteStrings) -> str:
    names = {"log": ss.col_log, "title": ss.col_title, "start": ss.col_start, "duration": ss.col_duration,
             "turns": ss.col_turns, "calls": ss.col_calls, "input": ss.col_input, "output": ss.col_output,
             "cache_read": ss.col_cache_read, "reasoning": ss.col_reasoning, "models": ss.col_models,
             "children": ss.col_children, "plan": ss.col_plan, "status": ss.col_status,
             "findings": ss.col_findings, "tools": ss.col_tools}
    cells = []
    for key in COLUMNS:
        kind = "num" if key in NUMERIC else "text"
        sort = "descending" if key == DEFAULT_SORT else "none"
        cells.append(f"<th scope=\"col\" class=\"{'num' if kind == 'num' else ''}\" data-key=\"{key}\" "
                     f"data-type=\"{kind}\" aria-sort=\"{sort}\"><button type=\"button\">{esc(names[key])}"
                     "</button></th>")
    return f"<thead><tr>{''.join(cells)}</tr></thead>"


# -- the charts ----------------------------------------------------------------------------


def _svg(caption_id: str, width: int, height: int, body: str) -> str:
    return (f"<svg viewBox=\"0 0 {width} {height}\" role=\"img\" aria-labelledby=\"{caption_id}\" "
            f"xmlns=\"http://www.w3.org/2000/svg\">{body}</svg>")


def _figure(key: str, title: str, svg: str) -> str:
    return (f"<figure class=\"chart\" id=\"chart-{key}\"><figcaption id=\"chart-{key}-title\">{esc(title)}</figcaption>"
            f"{svg}</figure>")


def _empty(key: str, title: str, ss: SiteStrings) -> str:
    return _figure(key, title, f"<p class=\"note\">{esc(ss.chart_empty)}</p>")


def rules_chart(reports: Sequence[Audited], ss: SiteStrings) -> str:
    """Horizontal bars: the findings of each of the ``TOP_RULES`` most frequent rules,
    each bar in parts by severity (errors, warnings, policy), and how many rules it
    leaves out."""
    counts: Counter[str] = Counter()
    by_severity: dict[str, list[int]] = {}
    for report in reports:
        for f in report.findings:
            counts[f.rule] += 1
            by_severity.setdefault(f.rule, [0, 0, 0])[SEVERITIES.index(f.severity)] += 1
    if not counts:
        return _empty("rules", ss.chart_rules, ss)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    top = ranked[:TOP_RULES]
    most = top[0][1]
    bar_h, label_w, width = 16, 56, 300
    scale = (width - label_w - 48) / most
    bars = []
    for i, (rule, n) in enumerate(top):
        y = i * bar_h
        x = float(label_w)
        parts = []
        for severity, k in zip(SEVERITIES, by_severity[rule], strict=True):
            if not k:
                continue
            w = max(1.0, scale * k)
            name = esc(interpolate(by_count(k, ss.chart_severity_bar), rule=rule, count=count(k),
                                   severity=severity.value))
            parts.append(f"<rect class=\"bar {severity.value}\" x=\"{x:.1f}\" y=\"{y + 2}\" width=\"{w:.1f}\" "
                         f"height=\"{bar_h - 4}\"><title>{name}</title></rect>")
            x += w
        name = esc(interpolate(by_count(n, ss.chart_rule_bar), rule=rule, count=count(n)))
        bars.append(f"<g data-rule=\"{esc(rule)}\"><title>{name}</title><text x=\"0\" y=\"{y + 11}\">{esc(rule)}</text>"
                    f"{''.join(parts)}<text x=\"{x + 4:.1f}\" y=\"{y + 11}\">{count(n)}</text></g>")
    left = len(ranked) - len(top)
    more_text = esc(interpolate(by_count(left, ss.chart_more), count=count(left)))
    more = f"<p class=\"more\" data-more=\"{left}\">{more_text}</p>" if left else ""
    return _figure("rules", ss.chart_rules, _svg("chart-rules-title", width, bar_h * len(top), "".join(bars)) + more)


def _month(day: str) -> str:
    return day[:7]


def days_chart(facts: Sequence[SessionFacts | None], ss: SiteStrings) -> str:
    """Columns: the sessions that started each UTC day (each month, over a longer span)."""
    days: Counter[str] = Counter()
    for f in facts:
        if f is None:
            continue
        day = day_of(f.start if f.start is not None else f.created)
        if day is not None:
            days[day] += 1
    if not days:
        return _empty("days", ss.chart_days, ss)
    keys = sorted(days)
    if len(keys) > MAX_DAYS:
        months: Counter[str] = Counter()
        for day, n in days.items():
            months[_month(day)] += n
        days, keys = months, sorted(months)
    most = max(days.values())
    width, height, base = 300, 110, 90
    step = width / len(keys)
    bars = []
    for i, key in enumerate(keys):
        n = days[key]
        h = max(1.0, (base - 10) * n / most)
        name = esc(interpolate(by_count(n, ss.chart_day_bar), day=key, count=count(n)))
        bars.append(f"<g><title>{name}</title><rect class=\"bar\" x=\"{i * step + step * 0.1:.1f}\" "
                    f"y=\"{base - h:.1f}\" width=\"{max(step * 0.8, 0.5):.1f}\" height=\"{h:.1f}\"/></g>")
    axis = (f"<line class=\"axis\" x1=\"0\" y1=\"{base}\" x2=\"{width}\" y2=\"{base}\"/>"
            f"<text x=\"0\" y=\"{base + 14}\">{esc(keys[0])}</text>"
            f"<text x=\"{width}\" y=\"{base + 14}\" text-anchor=\"end\">{esc(keys[-1])}</text>"
            f"<text x=\"0\" y=\"8\">{count(most)}</text>")
    return _figure("days", ss.chart_days, _svg("chart-days-title", width, height, "".join(bars) + axis))


def tokens_chart(facts: Sequence[SessionFacts | None], ss: SiteStrings) -> str:
    """A histogram of the sessions' tokens (all kinds), by powers of ten."""
    buckets: Counter[int] = Counter()
    for f in facts:
        if f is None:
            continue
        total = sum(f.tokens)
        buckets[0 if total == 0 else int(math.log10(total)) + 1] += 1
    if not buckets:
        return _empty("tokens", ss.chart_tokens, ss)
    top = max(buckets)
    keys = list(range(top + 1))
    most = max(buckets.values())
    width, height, base = 300, 110, 90
    step = width / len(keys)
    bars = []
    for k in keys:
        n = buckets.get(k, 0)
        low, high = (0, 0) if k == 0 else (10 ** (k - 1), 10 ** k - 1)
        h = (base - 10) * n / most
        name = esc(interpolate(by_count(n, ss.chart_token_bar), low=count(low), high=count(high),
                                       count=count(n)))
        label = "0" if k == 0 else _short(10 ** (k - 1))
        bars.append(f"<g><title>{name}</title><rect class=\"bar\" x=\"{k * step + step * 0.1:.1f}\" "
                    f"y=\"{base - h:.1f}\" width=\"{step * 0.8:.1f}\" height=\"{h:.1f}\"/>"
                    f"<text x=\"{k * step + step / 2:.1f}\" y=\"{base + 14}\" text-anchor=\"middle\">{label}"
                    "</text></g>")
    axis = (f"<line class=\"axis\" x1=\"0\" y1=\"{base}\" x2=\"{width}\" y2=\"{base}\"/>"
            f"<text x=\"0\" y=\"8\">{count(most)}</text>")
    return _figure("tokens", ss.chart_tokens, _svg("chart-tokens-title", width, height, "".join(bars) + axis))


def _short(n: int) -> str:
    for div, unit in ((10 ** 9, "G"), (10 ** 6, "M"), (10 ** 3, "k")):
        if n >= div:
            return f"{n // div}{unit}"
    return str(n)


# -- the page ------------------------------------------------------------------------------


def totals_html(result: AuditedMany, facts: Sequence[SessionFacts | None], ss: SiteStrings) -> str:
    summary = result.summary
    tokens = sum(sum(f.tokens) for f in facts if f is not None)
    items = ((summary.files, ss.total_sessions, "sessions"), (summary.events, ss.total_events, "events"),
             (tokens, ss.total_tokens, "tokens"), (summary.errors, ss.total_errors, "errors"),
             (summary.warnings, ss.total_warnings, "warnings"), (summary.policy, ss.total_policy, "policy"))
    cells = "".join(f"<li data-total=\"{key}\" data-value=\"{n}\"><b>{count(n)}</b> {esc(label)}</li>"
                    for n, label, key in items)
    return f"<ul class=\"totals\" aria-label=\"{esc(ss.totals_label)}\">{cells}</ul>"


def filters_html(models: Sequence[str], tools: Sequence[str], total: int, ss: SiteStrings) -> str:
    options = "".join(f"<option value=\"{esc(m)}\">{esc(clipped(m))}</option>" for m in models)
    tool_options = "".join(f"<option value=\"{esc(t)}\">{esc(clipped(t))}</option>" for t in tools)
    return (
        "<div class=\"filters\">"
        f"<input type=\"search\" id=\"filter\" placeholder=\"{esc(ss.filter_label)}\" "
        f"aria-label=\"{esc(ss.filter_label)}\" autocomplete=\"off\">"
        f"<label><input type=\"checkbox\" id=\"only-errors\"> {esc(ss.only_errors)}</label>"
        f"<label><input type=\"checkbox\" id=\"only-warnings\"> {esc(ss.only_warnings)}</label>"
        f"<label>{esc(ss.model_label)} <select id=\"model\"><option value=\"\">{esc(ss.model_any)}</option>{options}"
        "</select></label>"
        f"<label>{esc(ss.tool_label)} <select id=\"tool\"><option value=\"\">{esc(ss.tool_any)}</option>"
        f"{tool_options}</select></label>"
        f"<span id=\"shown\" role=\"status\" data-template=\"{esc(ss.shown)}\">"
        f"{esc(interpolate(ss.shown, shown=count(total), total=count(total)))}</span>"
        f"<button type=\"button\" id=\"help-open\" aria-haspopup=\"dialog\">{esc(ss.help_button)} <kbd>?</kbd>"
        "</button></div>\n")


def pager_html(total: int, ss: SiteStrings) -> str:
    last = min(total, FIRST_ROWS)
    return (
        f"<div class=\"pager\" id=\"pager\"{'' if total > FIRST_ROWS else ' hidden'}>"
        f"<button type=\"button\" id=\"page-prev\" disabled>{esc(ss.page_previous)}</button>"
        f"<span id=\"page-position\" data-template=\"{esc(ss.page_position)}\">"
        f"{esc(interpolate(ss.page_position, first=1 if total else 0, last=count(last), total=count(total)))}</span>"
        f"<button type=\"button\" id=\"page-next\">{esc(ss.page_next)}</button>"
        f"<button type=\"button\" id=\"page-all\">{esc(ss.page_all)}</button></div>\n")


def index_chunks(rows: Sequence[Row], result: AuditedMany, locale: Locale, passed_over: int = 0) -> Iterator[str]:
    """The index page, in pieces; the rows errors first (``errors_first``)."""
    ss = site_strings(locale)
    rows = errors_first(rows)
    facts = [row.facts for row in rows]
    lang = "zh" if locale == "zh" else "en"
    yield head_html(ss.index_title, INDEX_CSP, INDEX_CSS, lang)
    yield f"<body class=\"index\">\n<main>\n<h1>{esc(ss.index_title)}</h1>\n"
    yield totals_html(result, facts, ss)
    yield (f"<div class=\"charts\">{rules_chart(result.reports, ss)}{days_chart(facts, ss)}"
           f"{tokens_chart(facts, ss)}</div>\n")
    if passed_over:
        note = interpolate(by_count(passed_over, ss.passed_over), count=count(passed_over))
        yield f"<p class=\"note\">{esc(note)}</p>\n"
    models = sorted({m for f in facts if f is not None for m in f.models})
    tools = sorted({t for f in facts if f is not None for t in f.tools})[:MAX_TOOLS]
    yield filters_html(models, tools, len(rows), ss)
    root = common_root([row.shown for row in rows])
    yield (f"<div class=\"tableWrap\"><table class=\"sessions\" id=\"sessions\" data-page=\"{FIRST_ROWS}\">"
           f"<caption class=\"visuallyHidden\">{esc(ss.index_title)}</caption>{_header(ss)}<tbody>\n")
    for row in rows[:FIRST_ROWS]:
        yield row_html(row, ss, root)
    yield "</tbody></table></div>\n"
    if len(rows) > FIRST_ROWS:
        yield "<template id=\"more-rows\">"
        for row in rows[FIRST_ROWS:]:
            yield row_html(row, ss, root)
        yield "</template>\n"
        more = len(rows) - FIRST_ROWS
        yield (f"<p class=\"note\" id=\"no-script\">"
               f"{esc(interpolate(by_count(more, ss.more_without_script), count=count(more)))}</p>\n")
    yield pager_html(len(rows), ss)
    yield "</main>\n"
    yield help_html(ss, (("/", ss.key_search), ("[ / ]", f"{ss.page_previous} / {ss.page_next}"),
                         ("1 … 9", ss.key_sort), ("?", ss.key_help)))
    yield f"<script>{INDEX_SCRIPT}</script>\n</body>\n</html>\n"


__all__ = ["FIRST_ROWS", "Row", "errors_first", "index_chunks", "row_html"]
