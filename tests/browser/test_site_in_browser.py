"""The session browser's site in a real headless Chromium: the index sorted and
filtered, a session's search with next and previous, child sessions linked both ways,
``#L25`` and ``#seq-24`` landing on their event, the damage banner, the keys, both
locales, layouts at 320 and 1280 px, the accessibility tree; and on every page, no
request that leaves it and no CSP violation.

One small site per locale (a parent and its two children, a damaged log, a plan, a
session of several turns, a hostile log), built once for the module."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from replay.check.audit import AuditRequest
from replay.fs import Tree
from replay.render.site_layout import INDEX
from replay.render.web import site_index
from replay.render.web.page_assets import SITE_SCRIPT, SITE_STYLE
from replay.render.web.site_index import clipped
from replay.render.web.site_strings import SITE_EN, SITE_ZH, count
from replay.style import sanitize
from replay.view.site import SiteRequest, build_site
from tests.browser.logs import timeline_log
from tests.helpers import (
    MULTI_TURN,
    TODO_WRITE,
    corpus_file,
    dump,
    errors_first,
    index_of,
    records,
    replay_here,
    status_rank,
)
from tests.render.web.log_numbers import call_durations, log_numbers, step_numbers

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Route


def expect(locator: Any) -> Any:
    """Playwright's retrying assertions (polled from its own world, outside the page's CSP)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)

ACP = "sessions-2026-08-20/examples_acp-agent_tests_snapshots"
CORDIS = "sessions-2026-08-20/apps_web_tests_snapshots/cordis-tool-round/session.jsonl"
HOSTILE_TITLE = "<script>alert(1)</script>\u202e" + "x" * 10_000
HOSTILE_ID = "<img src=x onerror=alert(2)>"
HOSTILE_TOOL = "</td><script>alert(3)</script>" + "n" * 10_000


@dataclass
class Site:
    root: Path
    logs: Path
    pages: dict[str, str] = field(default_factory=dict)
    """Each log's page (relative to the site), by the log's path relative to ``logs``."""


def _logs(folder: Path) -> Path:
    logs = folder / "logs"
    family = corpus_file(f"{ACP}/subagent-multi/session.jsonl").parent
    shutil.copytree(family, logs / "subagent-multi", ignore=lambda d, names: [n for n in names
                                                                             if not n.startswith("session")])
    for name, relative in (("cordis", CORDIS), ("todo-write", TODO_WRITE), ("multi-turn", MULTI_TURN)):
        (logs / name).mkdir(parents=True)
        shutil.copyfile(corpus_file(relative), logs / name / "session.jsonl")
    recs = records(TODO_WRITE)
    title = recs[index_of(recs, "session/title")]["data"]
    title["title"], title["source"] = HOSTILE_TITLE, {"kind": "user"}
    recs[0]["id"], recs[0]["cwd"] = HOSTILE_ID, "/\u202e" + "c" * 10_000
    recs[index_of(recs, "tool/call")]["data"]["name"] = HOSTILE_TOOL
    (logs / "hostile").mkdir()
    (logs / "hostile" / "session.jsonl").write_bytes(dump(recs))
    return logs


def _build(folder: Path, logs: Path, locale: str) -> Site:
    out = folder / f"site-{locale}"
    build_site(SiteRequest(AuditRequest((str(logs),)), Tree.named(out), locale))  # type: ignore[arg-type]
    site = Site(out, logs)
    text = (out / INDEX).read_text(encoding="utf-8")
    for shown, href in re.findall(r'<td class="path" data-v="([^"]*)"><a href="([^"]*)"', text):
        site.pages[str(Path(shown).relative_to(logs))] = href
    return site


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Site]:
    folder = tmp_path_factory.mktemp("site")
    logs = _logs(folder)
    return {locale: _build(folder, logs, locale) for locale in ("en", "zh")}


VIOLATIONS = """window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective));"""
"""Every CSP violation of a page, as the page itself is told of it (added before the page's own script)."""


@dataclass
class Visit:
    page: Page
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@pytest.fixture
def visit(browser: Browser) -> Iterator[Any]:
    contexts: list[BrowserContext] = []
    visits: list[Visit] = []

    def opener(url: str, *, width: int = 1280, height: int = 800, script: bool = True) -> Visit:
        context = browser.new_context(viewport={"width": width, "height": height}, offline=True,
                                      reduced_motion="reduce", color_scheme="light", java_script_enabled=script)
        contexts.append(context)

        def refuse(route: Route) -> None:
            route.abort("blockedbyclient")

        context.route(lambda u: not u.startswith("file:"), refuse)
        page = context.new_page()
        seen = Visit(page)

        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                seen.errors.append(message.text)

        page.on("request", lambda request: seen.requests.append(request.url))
        page.on("console", on_console)
        page.on("pageerror", lambda error: seen.errors.append(f"pageerror: {error}"))
        page.on("dialog", lambda dialog: seen.errors.append(f"dialog: {dialog.message}"))  # an alert() that ran
        page.add_init_script(VIOLATIONS)
        page.goto(url)
        visits.append(seen)
        return seen

    yield opener
    for seen in visits:  # every page: nothing loaded from elsewhere, no CSP violation, no error
        assert seen.page.evaluate("window.__violations") == []  # the page the visit ended on
        assert seen.errors == []
        assert [u for u in seen.requests if not u.startswith("file:")] == []
    for context in contexts:
        context.close()


def _audited(site: Site) -> list[dict[str, Any]]:
    """The audit of the site's logs (``replay audit --format json``): each log's report."""
    files: list[dict[str, Any]] = json.loads(replay_here("audit", "--format", "json", "--no-cache",
                                                         str(site.logs)).stdout)["files"]
    return files


def _errors_first(site: Site) -> list[str]:
    """The site's logs in the index's own order, from their audit."""
    return errors_first(_audited(site))


def _url(site: Site, log: str, fragment: str = "") -> str:
    return (site.root / site.pages[log]).as_uri() + fragment


def _shown_rows(page: Page) -> list[str]:
    """Each row's log, whole (the cell shows it from the inputs' common root)."""
    return page.locator("#sessions tbody tr td.path").evaluate_all("cells => cells.map(c => c.dataset.v)")


CALLS = site_index.COLUMNS.index("calls") + 1


def test_the_index_sorts_and_filters(sites: dict[str, Site], visit: Any) -> None:
    site = sites["en"]
    page = visit((site.root / INDEX).as_uri()).page
    logs = sorted(str(site.logs / name) for name in site.pages)
    first = _errors_first(site)
    assert _shown_rows(page) == first  # errors first
    status = page.locator("th[data-key=status]")
    assert status.get_attribute("aria-sort") == "descending"
    calls = page.locator("th[data-key=calls]")
    assert calls.get_attribute("aria-sort") == "none"
    calls.locator("button").click()
    assert calls.get_attribute("aria-sort") == "ascending"
    assert page.locator("th[data-key=log]").get_attribute("aria-sort") == status.get_attribute("aria-sort") == "none"
    values = [int(v) for v in page.locator(f"#sessions tbody td:nth-child({CALLS})").evaluate_all(
        "cells => cells.map(c => c.dataset.v)")]
    assert values == sorted(values) and len(values) == len(logs)
    calls.locator("button").click()
    assert calls.get_attribute("aria-sort") == "descending"
    descending = [int(v) for v in page.locator(f"#sessions tbody td:nth-child({CALLS})").evaluate_all(
        "cells => cells.map(c => c.dataset.v)")]
    assert descending == sorted(values, reverse=True)
    page.locator("#filter").fill("cordis")
    expect(page.locator("#sessions tbody tr")).to_have_count(1)
    assert _shown_rows(page) == [str(site.logs / "cordis" / "session.jsonl")]
    assert page.locator("#shown").text_content() == f"1 of {len(logs)} sessions"
    page.locator("#filter").fill("")
    expect(page.locator("#sessions tbody tr")).to_have_count(len(logs))
    page.locator("#only-errors").check()
    statuses = page.locator("#sessions tbody tr").evaluate_all("rows => rows.map(r => r.dataset.status)")
    assert statuses == ["errors"] and _shown_rows(page) == [str(site.logs / "cordis" / "session.jsonl")]
    page.locator("#only-errors").uncheck()
    page.locator("#model").select_option("deepseek-v4-flash")
    models = page.locator("#sessions tbody tr").evaluate_all("rows => rows.map(r => r.dataset.models)")
    assert models and all("deepseek-v4-flash" in m.split("\n") for m in models)
    # the sort is remembered
    page.reload()
    assert page.locator("th[data-key=calls]").get_attribute("aria-sort") == "descending"


RANKED = {"a-ok": TODO_WRITE, "b-warnings": "acp-2026-07-23/cancel/session.jsonl",
          "c-error": "acp-2026-06-29/handshake/session.jsonl",
          "d-warnings": "acp-2026-07-23/cancel-tool-calls/session.jsonl", "e-errors": CORDIS}
"""Logs whose order by path is not their order by status: an ok one, warnings (3 and 5),
errors (1 and 13)."""


@pytest.fixture(scope="module")
def ranked_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    folder = tmp_path_factory.mktemp("ranked")
    logs = folder / "logs"
    for name, relative in RANKED.items():
        (logs / name).mkdir(parents=True)
        shutil.copyfile(corpus_file(relative), logs / name / "session.jsonl")
    return _build(folder, logs, "en")


def test_sorting_by_status_ranks_by_severity_then_by_the_number_of_findings(ranked_site: Site, visit: Any) -> None:
    site = ranked_site
    page = visit((site.root / INDEX).as_uri()).page
    files = _audited(site)
    first = errors_first(files)
    rank = {f["path"]: status_rank(f) for f in files}
    assert [Path(log).parent.name for log in first] == ["e-errors", "c-error", "d-warnings", "b-warnings", "a-ok"]
    assert _shown_rows(page) == first
    status = page.locator("th[data-key=status]")
    findings = page.locator("#sessions tbody td.state + td.num")
    counts = [int(v) for v in findings.evaluate_all("cells => cells.map(c => c.dataset.v)")]
    assert counts == [rank[log][1] for log in first]  # the findings column: each log's number of findings
    page.locator("th[data-key=log] button").click()
    assert _shown_rows(page) == sorted(first)
    status.locator("button").click()  # from none: ascending, the best first, one rank in the index's order
    assert status.get_attribute("aria-sort") == "ascending"
    assert _shown_rows(page) == sorted(first, key=lambda log: rank[log])
    status.locator("button").click()
    assert status.get_attribute("aria-sort") == "descending" and _shown_rows(page) == first


def test_the_index_charts_need_no_script(sites: dict[str, Site], visit: Any) -> None:
    page = visit((sites["en"].root / INDEX).as_uri()).page
    for key, title in (("rules", SITE_EN.chart_rules), ("days", SITE_EN.chart_days), ("tokens", SITE_EN.chart_tokens)):
        chart = page.locator(f"#chart-{key}")
        assert chart.locator("figcaption").text_content() == title
        assert chart.get_by_role("img", name=title).count() == 1
    assert page.locator("#chart-rules rect.bar").count() >= 2  # A7 and B4 at least


def test_search_finds_collapsed_content_and_steps_through_matches(sites: dict[str, Site], visit: Any) -> None:
    site = sites["en"]
    page = visit(_url(site, "subagent-multi/session.jsonl")).page
    search = page.locator("#search")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search"
    search.fill("BETA")
    count = page.locator("#search-count")
    expect(count).to_contain_text(" of ")
    total = int((count.text_content() or "").split(" of ")[1])
    assert count.text_content() == f"1 of {total}" and total >= 3
    current = page.locator(".hit.current")
    assert current.count() == 1 and "beta" in (current.text_content() or "").lower()
    page.keyboard.press("Enter")
    assert count.text_content() == f"2 of {total}"
    for _ in range(total - 2):
        page.locator("#search-next").click()
    assert count.text_content() == f"{total} of {total}"
    # the last matches are inside collapsed tool rows: their rows are opened to show them
    last = page.locator(".hit.current")
    assert last.evaluate("el => !el.closest('details:not([open])') && (el.tagName !== 'DETAILS' || el.open)")
    page.locator("#search-prev").click()
    assert count.text_content() == f"{total - 1} of {total}"
    search.fill("no such text anywhere")
    expect(count).to_have_text("No match")


def test_child_sessions_are_linked_both_ways(sites: dict[str, Site], visit: Any) -> None:
    site = sites["en"]
    page = visit(_url(site, "subagent-multi/session.jsonl")).page
    links = page.locator("p.child a")
    assert links.all_text_contents() == ["Child session: session.1.jsonl", "Child session: session.2.jsonl"]
    links.nth(1).click()
    page.wait_for_url("**" + site.pages["subagent-multi/session.2.jsonl"].removeprefix("sessions/"))
    parent = page.locator("dd[data-fact=parent] a")
    assert parent.text_content() == "session.jsonl"
    parent.click()
    page.wait_for_url("**" + site.pages["subagent-multi/session.jsonl"].removeprefix("sessions/"))
    assert page.locator("dd[data-fact=children] a").all_text_contents() == ["session.1.jsonl", "session.2.jsonl"]


def _line_and_seq(log: Path, kind: str, nth: int = 0) -> tuple[int, int]:
    lines = log.read_text(encoding="utf-8").splitlines()
    found = [(i + 1, json.loads(text)["seq"]) for i, text in enumerate(lines[1:], start=1)
             if json.loads(text).get("type") == kind]
    return found[nth]


def test_anchors_land_on_their_event(sites: dict[str, Site], visit: Any) -> None:
    site = sites["en"]
    log = site.logs / "subagent-multi" / "session.jsonl"
    line, seq = _line_and_seq(log, "tool/result", 1)  # inside the second call's collapsed row
    page = visit(_url(site, "subagent-multi/session.jsonl", f"#L{line}")).page
    landed = page.locator(".landed")
    assert landed.count() == 1 and landed.get_attribute("data-tool") == "subagent"
    assert landed.evaluate("el => el.open")  # the result's place, inside the row, is shown
    assert page.locator(f"#L{line}").evaluate("el => !el.closest('details:not([open])')")
    call_line, call_seq = _line_and_seq(log, "tool/call", 1)
    assert landed.get_attribute("id") == f"L{call_line}"
    page.goto(_url(site, "subagent-multi/session.jsonl", f"#seq-{seq}"))  # the result's seq: its row too
    assert page.locator(".landed").get_attribute("id") == f"L{call_line}"
    chunk_line, chunk_seq = _line_and_seq(log, "assistant/chunk", 5)  # a chunk inside a run of stream events
    page.goto(_url(site, "subagent-multi/session.jsonl", f"#seq-{chunk_seq}"))
    run = page.locator(".landed")
    assert run.count() == 1 and "stream" in (run.get_attribute("class") or "")
    low, high = map(int, (run.get_attribute("data-seqs") or "").split())
    assert low <= chunk_seq <= high
    page.goto(_url(site, "subagent-multi/session.jsonl", f"#seq-{call_seq}"))
    assert page.locator(".landed").get_attribute("id") == f"L{call_line}"
    page.goto(_url(site, "subagent-multi/session.jsonl", f"#L{chunk_line}"))
    assert page.locator(".landed").get_attribute("data-seqs") == f"{low} {high}"


def test_a_damaged_log_has_its_banner_and_its_findings_in_place(sites: dict[str, Site], visit: Any) -> None:
    site = sites["en"]
    page = visit(_url(site, "cordis/session.jsonl")).page
    banner = page.get_by_role("alert")
    assert banner.locator(".headline").text_content() == "Today's harness would refuse to load this log."
    assert banner.is_visible()
    first = page.locator("ul.findings.at").first
    assert first.locator("[data-rule]").first.get_attribute("data-rule") in {"A4", "B4", "A7"}
    page.locator("#errors-only").check()
    # only the turns' heads, and the events an error finding stands at, stay shown
    shown = page.locator("main .ev:not([hidden])").evaluate_all("""els => els.map(e => [e.className,
        e.dataset.error === "true" || (e.previousElementSibling !== null
            && e.previousElementSibling.matches("ul.findings.at[data-worst=error]"))])""")
    assert [kind for kind, flagged in shown if not flagged and "turnHead" not in kind] == []
    assert len([1 for kind, flagged in shown if flagged]) == page.locator("ul.findings.at[data-worst=error]").count()
    assert page.locator("main .ev.msg:visible").count() == 0  # messages without errors are hidden
    page.locator("#errors-only").uncheck()
    assert page.locator("main .ev.msg:visible").count() > 0
    a_rule = page.locator("ul.findings.at[data-worst=error] a.rule").first
    rule = a_rule.text_content() or ""
    a_rule.click()
    assert page.locator("h1").text_content() == f"Rule {rule}"
    assert (page.locator("pre.help").text_content() or "").startswith(f"{rule}: ")


def test_keys_move_between_turns_and_open_the_help(sites: dict[str, Site], visit: Any) -> None:
    site = sites["en"]
    page = visit(_url(site, "multi-turn/session.jsonl"), height=400).page
    heads = page.locator("h2.turnHead")
    assert heads.count() >= 2
    page.keyboard.press("j")
    first = page.evaluate("document.activeElement.id")
    page.keyboard.press("j")
    second = page.evaluate("document.activeElement.id")
    assert [first, second] == [heads.nth(0).get_attribute("id"), heads.nth(1).get_attribute("id")]
    page.keyboard.press("k")
    assert page.evaluate("document.activeElement.id") == first
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name=SITE_EN.help_title)
    assert dialog.is_visible() and "j / k" in (dialog.text_content() or "")
    page.keyboard.press("Escape")
    assert not dialog.is_visible()


def test_a_session_page_applies_the_sites_stylesheet_and_runs_its_script(sites: dict[str, Site], visit: Any) -> None:
    """A site's session page links the site's stylesheet and script (written once for
    every page, named by their hash): both load from the site, under the page's policy
    (the visit fails on a violation or on a file that did not load), and both work."""
    site = sites["en"]
    seen = visit(_url(site, "multi-turn/session.jsonl"))
    page = seen.page
    sessions = (site.root / site.pages["multi-turn/session.jsonl"]).parent
    assert sorted(seen.requests) == sorted([_url(site, "multi-turn/session.jsonl"),
                                            (sessions / SITE_STYLE[0]).as_uri(), (sessions / SITE_SCRIPT[0]).as_uri()])
    assert page.locator("style").count() == 0 and page.locator("script:not([type])").get_attribute("src") == \
        SITE_SCRIPT[0]
    assert page.evaluate("getComputedStyle(document.querySelector('.ev.log .type')).fontFamily").startswith(
        "ui-monospace")  # session.css applies
    assert page.evaluate("getComputedStyle(document.querySelector('.toolbar')).position") == "sticky"
    assert "Noto Sans CJK SC" in page.evaluate("getComputedStyle(document.body).fontFamily")  # page.css applies
    page.keyboard.press("?")  # session.js runs
    assert page.get_by_role("dialog", name=SITE_EN.help_title).is_visible()


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_both_locales_label_everything(sites: dict[str, Site], visit: Any, locale: str) -> None:
    strings = SITE_EN if locale == "en" else SITE_ZH
    site = sites[locale]
    index = visit((site.root / INDEX).as_uri()).page
    assert index.evaluate("document.documentElement.lang") == locale
    assert index.locator("th button").all_text_contents()[:4] == [strings.col_log, strings.col_status,
                                                                  strings.col_findings, strings.col_title]
    assert index.get_by_role("searchbox", name=strings.filter_label).count() == 1
    page = visit(_url(site, "todo-write/session.jsonl")).page
    assert page.get_by_role("searchbox", name=strings.search_label).count() == 1
    assert page.locator("dt").all_text_contents()[:3] == [strings.fact_log, strings.fact_id, strings.fact_cwd]
    assert page.get_by_role("checkbox", name=strings.errors_only).count() == 1
    font = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert "Noto Sans CJK SC" in font and "WenQuanYi Micro Hei" in font


@pytest.mark.parametrize("width", [320, 1280])
def test_the_layouts_hold_at_320_and_1280(sites: dict[str, Site], visit: Any, width: int) -> None:
    site = sites["en"]
    for url in ((site.root / INDEX).as_uri(), _url(site, "hostile/session.jsonl"), _url(site, "cordis/session.jsonl")):
        page = visit(url, width=width).page
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, (url, width, overflow)
    index = visit((site.root / INDEX).as_uri(), width=width).page
    wrap = index.locator(".tableWrap")
    sizes = wrap.evaluate("el => [el.scrollWidth, el.clientWidth]")
    if width == 320:
        assert sizes[0] > sizes[1], "the table scrolls in its frame, not the page"
    title = index.locator("td.title .t").filter(has_text="<script>")
    assert title.count() == 1 and (title.text_content() or "") == sanitize(clipped(HOSTILE_TITLE))
    assert title.get_attribute("title") == sanitize(HOSTILE_TITLE[:site_index.TIP_CHARS]), "its start, as the tooltip"
    height = title.evaluate("el => el.closest('tr').getBoundingClientRect().height")
    assert height < 100, "a 10,000-character word is cut, its row a few lines high"


def test_the_accessibility_tree(sites: dict[str, Site], visit: Any) -> None:
    site = sites["en"]
    index = visit((site.root / INDEX).as_uri()).page
    headers = index.get_by_role("columnheader")
    assert headers.count() == len(site_index.COLUMNS) == 16
    assert index.locator("th[aria-sort]").count() == 16  # every column sorts
    assert index.get_by_role("columnheader", name=SITE_EN.col_calls).count() == 1
    for role in ("button", "checkbox", "searchbox", "combobox"):
        for control in index.get_by_role(role).all():
            assert control.evaluate("el => (el.labels && el.labels.length) || el.getAttribute('aria-label') "
                                    "|| el.textContent.trim()"), (role, control)
    page = visit(_url(site, "todo-write/session.jsonl")).page
    tree = page.locator("body").aria_snapshot()
    assert f'searchbox "{SITE_EN.search_label}"' in tree
    assert f'button "{SITE_EN.search_next}"' in tree and f'button "{SITE_EN.search_previous}"' in tree
    assert f'checkbox "{SITE_EN.errors_only}"' in tree
    assert f'combobox "{SITE_EN.tool_label}"' in tree


def test_hostile_logs_stay_inert_in_the_index_and_their_page(sites: dict[str, Site], visit: Any) -> None:
    """A title, an id, a cwd and a tool name built to run script or to turn the text
    around: shown as text, exactly as the sanitizer writes them, and nothing runs (an
    alert would be a dialog, which the visit counts as an error)."""
    site = sites["en"]
    index = visit((site.root / INDEX).as_uri()).page
    assert index.locator("td.title .t").filter(has_text="<script>").text_content() == sanitize(clipped(HOSTILE_TITLE))
    page = visit(_url(site, "hostile/session.jsonl")).page
    assert page.locator("h1").text_content() == sanitize(HOSTILE_TITLE)
    assert page.locator("dd[data-fact=id]").text_content() == HOSTILE_ID
    assert page.locator("dd[data-fact=cwd]").text_content() == sanitize("/\u202e" + "c" * 10_000)
    assert page.locator("img").count() == 0
    assert page.locator("script:not([type])").count() == index.locator("script:not([type])").count() == 1
    assert page.locator("script[type]").evaluate_all("ss => ss.map(s => s.type)") == ["application/json"]
    row = page.locator("details.ev.tool").first
    assert row.get_attribute("data-tool") == HOSTILE_TOOL
    assert page.locator("#tool-filter option").all_text_contents().count(sanitize(HOSTILE_TOOL)) == 1
    page.locator("#expand-all").click()  # the hostile values, shown
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0


def test_the_header_and_the_row_show_what_the_log_holds(sites: dict[str, Site], visit: Any) -> None:
    """Duration, tool calls and tokens as read on the page and in the index row, equal
    to the numbers computed from the log's lines alone."""
    site = sites["en"]
    index = visit((site.root / INDEX).as_uri()).page
    for log in ("multi-turn/session.jsonl", "cordis/session.jsonl", "subagent-multi/session.jsonl"):
        duration, calls, tokens = log_numbers(site.logs / log)
        inp, out, cache_read, cache_write, reasoning = map(int, tokens.split())
        page = visit(_url(site, log)).page
        assert page.locator("dd[data-fact=duration]").text_content() == SITE_EN.duration(int(duration))
        assert (page.locator("dd[data-fact=calls]").text_content() or "").startswith(f"{count(int(calls))} (")
        assert page.locator("dd[data-fact=tokens]").text_content() == (
            f"{count(inp)} in · {count(out)} out · {count(cache_read)} cache read · {count(reasoning)} reasoning"
            + (f" · {count(cache_write)} cache write" if cache_write else ""))
        row = index.locator(f"#sessions tbody tr:has(td.path[data-v='{site.logs / log}'])")
        cells = dict(zip(site_index.COLUMNS, row.locator("td").all_text_contents(), strict=True))
        assert (cells["duration"], cells["calls"].split(" ")[0]) == (SITE_EN.duration(int(duration)), count(int(calls)))
        assert [cells[k] for k in ("input", "output", "cache_read", "reasoning")] == [
            count(inp), count(out), count(cache_read), count(reasoning)]


def test_one_tool_and_expand_and_collapse_all(sites: dict[str, Site], visit: Any) -> None:
    site = sites["en"]
    page = visit(_url(site, "cordis/session.jsonl")).page
    calls: dict[str, int] = {}
    for line in (site.logs / "cordis" / "session.jsonl").read_text(encoding="utf-8").splitlines()[1:]:
        record = json.loads(line)
        if record.get("type") == "tool/call":
            calls[record["data"]["name"]] = calls.get(record["data"]["name"], 0) + 1
    assert page.locator("#tool-filter option").all_text_contents()[1:] == sorted(calls)
    for tool, n in calls.items():
        page.locator("#tool-filter").select_option(tool)
        shown = page.locator("main .ev:not([hidden])").evaluate_all(
            "els => els.map(e => e.classList.contains('turnHead') ? 'head' : e.dataset.tool)")
        assert [t for t in shown if t != "head"] == [tool] * n
    page.locator("#tool-filter").select_option("")
    rows = page.locator("main details")
    assert rows.count() > 3
    page.locator("#expand-all").click()
    assert rows.evaluate_all("ds => ds.every(d => d.open)")
    page.locator("#collapse-all").click()
    assert rows.evaluate_all("ds => ds.every(d => !d.open)")


def test_the_timeline_of_a_session_page_agrees_with_replay_plan(tmp_path: Path, visit: Any) -> None:
    """The session page's plan timeline: at each step, the plan ``replay plan --at``
    gives (run in this process)."""
    from tests.helpers import replay_here

    logs = tmp_path / "logs"
    log, _ = timeline_log(logs)
    site = _build(tmp_path, logs, "en")
    page = visit(_url(site, "session.jsonl")).page
    view = page.locator("#plan-timeline-view")
    steps = [int(b.get_attribute("data-seq") or "") for b in page.locator("#plan-timeline-steps button").all()]
    assert len(steps) == 5
    for seq in steps:
        page.locator(f"#plan-timeline-steps button[data-seq='{seq}']").click()
        assert view.get_attribute("data-seq") == str(seq)
        run = replay_here("plan", "--at", str(seq), str(log))
        assert (run.code, run.stderr) == (0, b"")
        plan = json.loads(run.stdout)
        shown = [(li.get_attribute("data-status"), li.locator(".content").text_content())
                 for li in view.locator("li").all()]
        assert shown == ([] if plan is None else [(t["status"], t["content"]) for t in plan])


@pytest.fixture(scope="module")
def paged_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The same logs, with 3 rows to a page of the index (10,000 sessions have 200)."""
    folder = tmp_path_factory.mktemp("paged")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(site_index, "FIRST_ROWS", 3)
        return _build(folder, _logs(folder), "en")


def test_the_index_pages_its_rows_and_sorts_and_filters_them_all(paged_site: Site, visit: Any) -> None:
    site = paged_site
    logs = sorted(str(site.logs / name) for name in site.pages)
    first = _errors_first(site)
    page = visit((site.root / INDEX).as_uri()).page
    position = page.locator("#page-position")
    assert _shown_rows(page) == first[:3] and position.text_content() == f"rows 1–3 of {len(logs)}"
    assert page.locator("#no-script").is_hidden()
    assert page.locator("#page-prev").is_disabled()
    page.locator("#page-next").click()
    assert _shown_rows(page) == first[3:6] and position.text_content() == f"rows 4–6 of {len(logs)}"
    page.keyboard.press("]")
    assert _shown_rows(page) == first[6:9] and page.locator("#page-next").is_disabled()
    page.keyboard.press("[")
    assert _shown_rows(page) == first[3:6]
    page.locator("th[data-key=log] button").click()  # ascending, from the first page
    assert _shown_rows(page) == logs[:3]
    page.locator("th[data-key=log] button").click()  # descending
    assert _shown_rows(page) == logs[::-1][:3]
    page.locator("#filter").fill("subagent-multi")  # the parent and its children, wherever they were
    expect(page.locator("#shown")).to_have_text(f"3 of {len(logs)} sessions")
    assert _shown_rows(page) == [str(site.logs / "subagent-multi" / name)
                                 for name in ("session.jsonl", "session.2.jsonl", "session.1.jsonl")]
    assert page.locator("#pager").is_hidden()
    page.locator("#filter").fill("")
    expect(page.locator("#shown")).to_have_text(f"{len(logs)} of {len(logs)} sessions")
    page.locator("#page-all").click()
    assert _shown_rows(page) == logs[::-1]


def test_without_script_the_index_shows_its_first_rows_and_its_charts(paged_site: Site, visit: Any) -> None:
    site = paged_site
    page = visit((site.root / INDEX).as_uri(), script=False).page
    logs = sorted(str(site.logs / name) for name in site.pages)
    assert _shown_rows(page) == _errors_first(site)[:3]  # errors first, without script too
    assert page.locator("#no-script").text_content() == f"{len(logs) - 3} more sessions are listed when the " \
                                                        "page's script runs."
    for key in ("rules", "days", "tokens"):
        assert page.locator(f"#chart-{key} svg").is_visible()


def test_a_csp_violation_would_be_seen(tmp_path: Path, visit: Any) -> None:
    """The watch on every visit can fail: a page whose CSP forbids its inline script
    has its violation recorded, and reported on the console."""
    page_file = tmp_path / "forbidden.html"
    page_file.write_text("<!doctype html><meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'none'\">"
                         "<p>x</p><script>document.title = 'ran'</script>", encoding="utf-8")
    seen = visit(page_file.as_uri())
    assert seen.page.evaluate("window.__violations") == ["script-src-elem"]
    assert seen.page.title() == "" and len(seen.errors) == 1 and "Content Security Policy" in seen.errors[0]
    seen.errors.clear()
    seen.page.evaluate("window.__violations = []")


# -- an index that reads at a glance (issue 29) and loads (issue 27) -------------------------


LONG_WORD = "A" * 10_000


@pytest.fixture(scope="module")
def glance_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The same logs, one whose times are zeroed (as goldens and synthetic logs hold
    them), one whose times count from 1, and ten whose first prompt is one word of
    10,000 characters."""
    folder = tmp_path_factory.mktemp("glance")
    logs = _logs(folder)
    zeroed = records(MULTI_TURN)
    zeroed[0]["createdAt"] = 0
    for rec in zeroed[1:]:
        if "time" in rec:
            rec["time"] = 0
    (logs / "zeroed").mkdir()
    (logs / "zeroed" / "session.jsonl").write_bytes(dump(zeroed))
    counted = records(MULTI_TURN)  # a test clock: times counted from 1 (as a synthetic log counts them)
    counted[0]["createdAt"] = 1
    for k, rec in enumerate(counted[1:], start=1):
        if "time" in rec:
            rec["time"] = k
    (logs / "counted").mkdir()
    (logs / "counted" / "session.jsonl").write_bytes(dump(counted))
    for k in range(10):
        recs = records(MULTI_TURN)
        recs = [r for r in recs if r.get("type") != "session/title"]
        recs[index_of(recs, "user/message")]["data"]["content"][0]["text"] = LONG_WORD
        (logs / f"long-{k}").mkdir()
        (logs / f"long-{k}" / "session.jsonl").write_bytes(dump(recs))
    return _build(folder, logs, "en")


def test_every_column_header_or_the_status_column_is_in_view_at_1280(glance_site: Site, visit: Any) -> None:
    page = visit((glance_site.root / INDEX).as_uri(), width=1280, height=800).page
    boxes = page.locator("#sessions thead th").evaluate_all(
        "ths => ths.map(th => { const r = th.getBoundingClientRect(); "
        "return [th.dataset.key, r.left, r.right, r.top]; })")
    inside = {key: left >= 0 and right <= 1280 and 0 <= top < 800 for key, left, right, top in boxes}
    assert [key for key, _, _, _ in boxes] == list(site_index.COLUMNS)
    assert all(inside.values()) or (inside["log"] and inside["status"]), boxes
    assert inside["status"] and inside["findings"], boxes
    # the rest scroll in the table's frame, under the log and its status, which stay where they were
    wrap = page.locator(".tableWrap")
    assert wrap.evaluate("el => el.scrollWidth > el.clientWidth"), "the table is wider than 1280 px"
    wrap.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    after = page.locator("#sessions thead th").evaluate_all(
        "ths => ths.map(th => { const r = th.getBoundingClientRect(); return [th.dataset.key, r.left, r.right]; })")
    still = {key: (left, right) for key, left, right in after}
    was = {key: (left, right) for key, left, right, _ in boxes}
    assert still["log"] == was["log"] and still["status"] == was["status"], (was, still)
    assert still["plan"][1] <= 1280 and still["findings"][1] < was["findings"][1]  # the others moved under them
    cells = page.locator("#sessions tbody tr").first.evaluate(
        "tr => ['td.path', 'td.state'].map(s => { const r = tr.querySelector(s).getBoundingClientRect(); "
        "const hit = document.elementFromPoint(r.left + 4, r.top + 4); return tr.querySelector(s).contains(hit); })")
    assert cells == [True, True]  # on top of the cells scrolled under them


def test_a_log_with_zeroed_times_has_no_time_not_1970(glance_site: Site, visit: Any) -> None:
    index = visit((glance_site.root / INDEX).as_uri()).page
    assert "1970" not in (index.locator("body").text_content() or "")
    for log in ("zeroed", "counted"):
        row = index.locator(f"#sessions tbody tr:has(td.path[data-v='{glance_site.logs / log / 'session.jsonl'}'])")
        assert row.locator("td.when").text_content() == SITE_EN.no_time
        assert row.locator("td.when").get_attribute("data-v") == ""  # sorted with the logs of no time
    # the sessions-per-day chart counts the sessions whose time is known, not the zeroed or counted ones
    bars = index.locator("#chart-days rect.bar").evaluate_all("rs => rs.map(r => r.parentNode.textContent)")
    counted = [re.search(r": (\d+) sessions?$", b) for b in bars]
    assert sum(int(m.group(1)) for m in counted if m) == len(glance_site.pages) - 2
    for log in ("zeroed", "counted"):
        page = visit(_url(glance_site, f"{log}/session.jsonl")).page
        text = page.locator("body").text_content() or ""
        assert "1970" not in text and page.locator("dd[data-fact=start]").text_content() == SITE_EN.no_time
        assert page.locator("dd[data-fact=created]").text_content() == SITE_EN.no_time


def test_ten_prompts_of_one_long_word_leave_the_index_usable_without_script(glance_site: Site, visit: Any) -> None:
    """Issue 27 row 1: each such row cost about a second of layout (11.6 s for ten);
    the word is cut in the cell, so each row is a few lines high and the page fits."""
    page = visit((glance_site.root / INDEX).as_uri(), script=False).page
    for k in range(10):
        row = page.locator(f"#sessions tbody tr:has(td.path[data-v='{glance_site.logs / f'long-{k}/session.jsonl'}'])")
        cell = row.locator("td.title .t")
        assert cell.text_content() == "A" * site_index.WORD_CHARS + "\u2026"
        assert cell.get_attribute("title") == LONG_WORD[:site_index.TIP_CHARS]  # its tooltip: a thousand of it
        assert row.evaluate("tr => tr.getBoundingClientRect().height") < 100
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0


@pytest.mark.parametrize("log", ["multi-turn/session.jsonl", "cordis/session.jsonl", "subagent-multi/session.jsonl"])
def test_the_timing_of_a_session_is_what_its_log_holds(sites: dict[str, Site], visit: Any, log: str) -> None:
    """Each step's bar: its duration and tokens as computed from the log's lines; the
    slowest steps and tool calls: the longest of those, longest first; seen without
    script, each bar and item a link to its event."""
    site = sites["en"]
    steps = step_numbers(site.logs / log)
    page = visit(_url(site, log), script=False).page
    page.locator("section.timing summary").click()
    bars = page.locator("#step-times rect").evaluate_all(
        "rs => rs.map(r => [r.dataset.ms === '' ? null : Number(r.dataset.ms), Number(r.dataset.input), "
        "Number(r.dataset.output)])")
    assert [tuple(b) for b in bars] == steps and steps
    assert page.locator("#step-tokens rect").count() == len(steps)
    assert page.locator("#step-times").is_visible()
    slowest = [int(v) for v in page.locator("#slowest-steps li").evaluate_all("ls => ls.map(l => l.dataset.ms)")]
    assert slowest == sorted((ms for ms, _, _ in steps if ms is not None), reverse=True)[:5]
    calls = [int(v) for v in page.locator("#slowest-calls li").evaluate_all("ls => ls.map(l => l.dataset.ms)")]
    assert calls == sorted(call_durations(site.logs / log), reverse=True)[:5]
    for href in page.locator("section.timing a").evaluate_all("as => as.map(a => a.getAttribute('href'))"):
        assert page.locator(href.replace("#", "#", 1)).count() == 1, href  # every link lands on an element


def test_the_page_of_one_log_in_chromium(tmp_path: Path, visit: Any) -> None:
    """``replay view LOG -o one.html`` (and ``render web --html``, the same bytes): its
    findings at their events, the list's links landing on them, its timing and its plan
    from the log's own numbers, and nothing that leaves the page or runs."""
    log = tmp_path / "duplicate" / "session.jsonl"
    recs = records(TODO_WRITE)
    todos = recs[index_of(recs, "todo/write")]["data"]["todos"]
    todos[1]["content"] = todos[0]["content"]  # a T-rule error
    log.parent.mkdir()
    log.write_bytes(dump(recs))
    one = tmp_path / "one.html"
    assert replay_here("view", str(log), "-o", str(one)).code == replay_here("audit", str(log)).code == 1
    rendered = tmp_path / "rendered.html"
    assert replay_here("render", "web", "--html", "-o", str(rendered), str(log)).code == 0
    assert rendered.read_bytes() == one.read_bytes()
    page = visit(one.as_uri()).page
    assert page.locator("nav a[rel=index]").count() == 0  # no site around it
    placed = page.locator("ul.findings.at li.finding")
    assert placed.count() >= 1 and placed.first.get_attribute("data-severity") == "error"
    link = page.locator("section.findingList li.finding a[href^='#L']").first
    target = link.get_attribute("href") or ""
    link.click()
    expect(page.locator(".landed")).to_have_count(1)
    assert page.locator(".landed").get_attribute("id") == target[1:]  # the finding's event
    before = page.evaluate("(id) => document.getElementById(id).previousElementSibling.className", target[1:])
    assert before == "findings at"  # its words, just before it
    steps = step_numbers(log)
    bars = page.locator("#step-times rect").evaluate_all(
        "rs => rs.map(r => [r.dataset.ms === '' ? null : Number(r.dataset.ms), Number(r.dataset.input), "
        "Number(r.dataset.output)])")
    assert [tuple(b) for b in bars] == steps and steps
    calls = [int(v) for v in page.locator("#slowest-calls li").evaluate_all("ls => ls.map(l => l.dataset.ms)")]
    assert calls == sorted(call_durations(log), reverse=True)[:5]
    assert page.locator("section[data-testid=todo-panel] li").count() == len(todos)
