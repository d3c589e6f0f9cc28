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
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from replay.render.choices import Locale
from replay.render.web.audited import Audited, AuditedMany
from replay.render.web.locale import interpolate
from replay.render.web.page import esc
from replay.render.web.page_assets import INDEX_CSP, INDEX_CSS, INDEX_SCRIPT
from replay.render.web.session_page import SEVERITIES, SessionFacts, audit_status, head_html, help_html
from replay.render.web.site_strings import SiteStrings, count, day_of, site_strings
from replay.words import by_count

FIRST_ROWS = 200
"""Rows in the table as written, and per page of the script's paging."""
TOP_RULES = 12
"""Rules the findings chart shows (the most frequent)."""
MAX_DAYS = 90
"""Days the sessions chart shows one bar each; a longer span is shown by month."""
STATUS_RANK = {"ok": 0, "warnings": 1, "errors": 2, "unreadable": 3}


@dataclass(frozen=True, slots=True)
class Row:
    """One session of the index: its report, how it is named, its page (relative to
    the index), its numbers, and how many child sessions it has."""

    report: Audited
    shown: str
    href: str
    facts: SessionFacts | None
    children: int


def _num(value: int | None, shown: str | None = None) -> str:
    if value is None:
        return "<td class=\"num\" data-v=\"\"></td>"
    return f"<td class=\"num\" data-v=\"{value}\">{shown if shown is not None else count(value)}</td>"


def row_html(row: Row, ss: SiteStrings) -> str:
    facts = row.facts
    status, rule = audit_status(row.report)
    models = facts.models if facts is not None else ()
    cells = [f"<td class=\"path\" data-v=\"{esc(row.shown)}\"><a href=\"{esc(row.href)}\">{esc(row.shown)}</a></td>",
             f"<td class=\"title\"><div class=\"t\">{esc(facts.title or '') if facts else ''}</div></td>"]
    if facts is not None:
        start = facts.start if facts.start is not None else facts.created
        cells.append(f"<td class=\"when\" data-v=\"{'' if start is None else start}\">"
                     f"{esc(ss.time(start)) if start is not None else ''}</td>")
        cells.append(_num(facts.duration, esc(ss.duration(facts.duration)) if facts.duration is not None else None))
        cells.append(_num(facts.turns))
        failed = facts.outcomes[1]
        apart = f" <span class=\"failed\">({esc(interpolate(ss.failed_apart, failed=failed))})</span>" if failed else ""
        cells.append(f"<td class=\"num\" data-v=\"{facts.calls}\" data-failed=\"{failed}\">{count(facts.calls)}"
                     f"{apart}</td>")
        inp, out, cache_read, _, reasoning = facts.tokens
        cells += [_num(inp), _num(out), _num(cache_read), _num(reasoning)]
        plan = facts.plan
        plan_cell = ("<td class=\"num\" data-v=\"\"></td>" if plan is None else
                     f"<td class=\"num\" data-v=\"{plan[0] / plan[1]:.4f}\">"
                     f"{esc(interpolate(ss.plan_done, done=plan[0], total=plan[1]))}</td>")
    else:
        cells += ["<td class=\"when\" data-v=\"\"></td>", *(["<td class=\"num\" data-v=\"\"></td>"] * 7)]
        plan_cell = "<td class=\"num\" data-v=\"\"></td>"
    cells.append(f"<td class=\"models\">{esc(', '.join(models))}</td>")
    cells.append(_num(row.children))
    cells.append(plan_cell)
    status_text = ss.status(status) + (f" · {rule}" if rule else "")
    cells.append(f"<td data-v=\"{STATUS_RANK[status]}{esc(rule or '')}\"><span class=\"status\" "
                 f"data-status=\"{status}\">{esc(status_text)}</span></td>")
    return (f"<tr data-status=\"{status}\" data-models=\"{esc(chr(10).join(models))}\">{''.join(cells)}</tr>\n")


COLUMNS = ("log", "title", "start", "duration", "turns", "calls", "input", "output", "cache_read", "reasoning",
           "models", "children", "plan", "status")
NUMERIC = frozenset({"start", "duration", "turns", "calls", "input", "output", "cache_read", "reasoning", "children",
                     "plan"})


def _header(ss: SiteStrings) -> str:
    names = {"log": ss.col_log, "title": ss.col_title, "start": ss.col_start, "duration": ss.col_duration,
             "turns": ss.col_turns, "calls": ss.col_calls, "input": ss.col_input, "output": ss.col_output,
             "cache_read": ss.col_cache_read, "reasoning": ss.col_reasoning, "models": ss.col_models,
             "children": ss.col_children, "plan": ss.col_plan, "status": ss.col_status}
    cells = []
    for i, key in enumerate(COLUMNS):
        kind = "num" if key in NUMERIC else "text"
        sort = "ascending" if i == 0 else "none"
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
    coloured by their worst severity."""
    counts: Counter[str] = Counter()
    worst: dict[str, int] = {}
    for report in reports:
        for f in report.findings:
            counts[f.rule] += 1
            rank = SEVERITIES.index(f.severity)
            worst[f.rule] = min(worst.get(f.rule, rank), rank)
    if not counts:
        return _empty("rules", ss.chart_rules, ss)
    top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_RULES]
    most = top[0][1]
    bar_h, label_w, width = 16, 56, 300
    bars = []
    for i, (rule, n) in enumerate(top):
        y = i * bar_h
        w = max(1.0, (width - label_w - 48) * n / most)
        sev = {0: " error", 1: " warning"}.get(worst[rule], "")
        name = esc(interpolate(by_count(n, ss.chart_rule_bar), rule=rule, count=count(n)))
        bars.append(f"<g><title>{name}</title><text x=\"0\" y=\"{y + 11}\">{esc(rule)}</text>"
                    f"<rect class=\"bar{sev}\" x=\"{label_w}\" y=\"{y + 2}\" width=\"{w:.1f}\" height=\"{bar_h - 4}\"/>"
                    f"<text x=\"{label_w + w + 4:.1f}\" y=\"{y + 11}\">{count(n)}</text></g>")
    return _figure("rules", ss.chart_rules, _svg("chart-rules-title", width, bar_h * len(top), "".join(bars)))


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


def filters_html(models: Sequence[str], total: int, ss: SiteStrings) -> str:
    options = "".join(f"<option value=\"{esc(m)}\">{esc(m)}</option>" for m in models)
    return (
        "<div class=\"filters\">"
        f"<input type=\"search\" id=\"filter\" placeholder=\"{esc(ss.filter_label)}\" "
        f"aria-label=\"{esc(ss.filter_label)}\" autocomplete=\"off\">"
        f"<label><input type=\"checkbox\" id=\"only-errors\"> {esc(ss.only_errors)}</label>"
        f"<label><input type=\"checkbox\" id=\"only-warnings\"> {esc(ss.only_warnings)}</label>"
        f"<label>{esc(ss.model_label)} <select id=\"model\"><option value=\"\">{esc(ss.model_any)}</option>{options}"
        "</select></label>"
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
    """The index page, in pieces."""
    ss = site_strings(locale)
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
    yield filters_html(models, len(rows), ss)
    yield (f"<div class=\"tableWrap\"><table class=\"sessions\" id=\"sessions\" data-page=\"{FIRST_ROWS}\">"
           f"<caption class=\"visuallyHidden\">{esc(ss.index_title)}</caption>{_header(ss)}<tbody>\n")
    for row in rows[:FIRST_ROWS]:
        yield row_html(row, ss)
    yield "</tbody></table></div>\n"
    if len(rows) > FIRST_ROWS:
        yield "<template id=\"more-rows\">"
        for row in rows[FIRST_ROWS:]:
            yield row_html(row, ss)
        yield "</template>\n"
        more = len(rows) - FIRST_ROWS
        yield (f"<p class=\"note\" id=\"no-script\">"
               f"{esc(interpolate(by_count(more, ss.more_without_script), count=count(more)))}</p>\n")
    yield pager_html(len(rows), ss)
    yield "</main>\n"
    yield help_html(ss, (("/", ss.key_search), ("[ / ]", f"{ss.page_previous} / {ss.page_next}"),
                         ("1 … 9", ss.key_sort), ("?", ss.key_help)))
    yield f"<script>{INDEX_SCRIPT}</script>\n</body>\n</html>\n"


__all__ = ["FIRST_ROWS", "Row", "index_chunks", "row_html"]
