"""``replay view LOG`` is the site's page of that log, alone: the same audit, the same
page (apart from the links into the rest of a site), and the exit status of
``replay audit LOG``; ``render web --html LOG`` is the same page again (one renderer)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from replay.cli import main
from replay.render.site_layout import INDEX
from replay.render.web.page import esc
from replay.render.web.page_assets import (
    SESSION_CSP,
    SESSION_CSS,
    SESSION_SCRIPT,
    SITE_SCRIPT,
    SITE_SESSION_CSP,
    SITE_STYLE,
)
from tests.helpers import MULTI_TURN, PARALLEL_CALLS, TODO_WRITE, corpus_file, dump, index_of, records

SUBAGENT_PARENT = "sessions-2026-08-20/examples_acp-agent_tests_snapshots/subagent-multi/session.jsonl"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.stdout


def _without_site_links(page: str) -> str:
    """A site's page less what only a site has: the way back to the index, the links
    to the rule pages, a family's links; and the site's stylesheet and script, which a
    site's pages link (and their policy allows), inline."""
    page = page.replace(f'content="{esc(SITE_SESSION_CSP)}"', f'content="{esc(SESSION_CSP)}"', 1)
    page = page.replace(f'<link rel="stylesheet" href="{SITE_STYLE[0]}">', f"<style>{SESSION_CSS}</style>", 1)
    page = page.replace(f'<script src="{SITE_SCRIPT[0]}"></script>', f"<script>{SESSION_SCRIPT}</script>", 1)
    page = re.sub(r"<nav><a href=\"[^\"]*\" rel=\"index\">[^<]*</a></nav>", "", page)
    page = re.sub(r"<a class=\"rule\" href=\"[^\"]*\" title=\"[^\"]*\">([^<]*)</a>", r'<span class="rule">\1</span>',
                  page)
    page = re.sub(r"<p class=\"child[^\"]*\">.*?</p>\n", "", page)
    return re.sub(r"<dt>[^<]*</dt><dd data-fact=\"(parent|children)\"[^>]*>.*?</dd>", "", page)


def _duplicate_todo_id(tmp_path: Path) -> Path:
    """The tutorial's own path: a plan with one item twice (a T-rule error)."""
    recs = records(TODO_WRITE)
    todos = recs[index_of(recs, "todo/write")]["data"]["todos"]
    todos[1]["content"] = todos[0]["content"]
    path = tmp_path / "duplicate" / "session.jsonl"
    path.parent.mkdir()
    path.write_bytes(dump(recs))
    return path


@pytest.mark.parametrize("which", ["duplicate todo id", TODO_WRITE, MULTI_TURN, PARALLEL_CALLS, SUBAGENT_PARENT])
def test_the_page_of_one_log_is_its_page_in_a_site(tmp_path: Path, which: str) -> None:
    log = _duplicate_todo_id(tmp_path) if which == "duplicate todo id" else corpus_file(which)
    audited, _ = _run("audit", str(log))
    page = tmp_path / "page.html"
    assert _run("view", str(log), "-o", str(page)) == (audited, f"{page}\n")
    site = tmp_path / "site"
    assert _run("view", str(log), "-o", f"{site}/") == (audited, f"{site / INDEX}\n")
    index = (site / INDEX).read_text(encoding="utf-8")
    href = html.unescape(re.findall(r'<td class="path" data-v="[^"]*"><a href="([^"]*)"', index)[0])
    in_site = (site / href).read_text(encoding="utf-8")
    for name, data in (SITE_STYLE, SITE_SCRIPT):  # what the site's pages link: what a page alone inlines
        assert (site / href).with_name(name).read_bytes() == data
    alone = page.read_text(encoding="utf-8")
    assert alone == _without_site_links(in_site)
    rendered = tmp_path / "rendered.html"
    assert _run("render", "web", "--html", "-o", str(rendered), str(log)) == (0, "")
    assert rendered.read_bytes() == page.read_bytes()
    assert _run("render", "web", "--html", str(log)) == (0, alone)  # on standard output too
    if which == "duplicate todo id":
        assert audited == 1 and 'class="findings at"' in alone  # its findings, at their events
        assert "<h1>Use the todo_write tool to record a plan with exactly three todos" in alone  # not cut


def test_view_says_why_it_exits_1_and_that_no_browser_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import webbrowser

    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: False)  # no browser on this machine
    log = _duplicate_todo_id(tmp_path)
    page = tmp_path / "page.html"
    result = CliRunner().invoke(main, ["view", str(log), "-o", str(page), "--open"])
    assert (result.exit_code, result.stdout) == (1, f"{page}\n")
    assert result.stderr == (f"replay view: could not open a web browser; open {page} in one\n"
                             "replay view: exit 1: the audit found 1 log with error findings (the pages show the "
                             "findings at their events)\n")
    good = corpus_file(TODO_WRITE)
    result = CliRunner().invoke(main, ["view", str(good), "-o", str(page)])
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"{page}\n", "")


CORDIS = "sessions-2026-08-20/apps_web_tests_snapshots/cordis-tool-round/session.jsonl"


@pytest.mark.parametrize("which", ["duplicate todo id", CORDIS])
def test_each_finding_is_said_once_at_its_event(tmp_path: Path, which: str) -> None:
    """The banner says once what the harness would do, the list links to the places,
    and each finding's words are on the page once: at its event (the banner, the list
    and the event each said them)."""
    import json

    log = _duplicate_todo_id(tmp_path) if which == "duplicate todo id" else corpus_file(which)
    audited = CliRunner().invoke(main, ["audit", "--format", "json", str(log)])
    findings = json.loads(audited.stdout)["files"][0]["findings"]
    page = tmp_path / "page.html"
    _run("view", str(log), "-o", str(page))
    text = page.read_text(encoding="utf-8")
    placed = [f for f in findings if f.get("line") and f["line"] > 1]
    assert placed
    for f in placed:
        said = f'<span class="msg">{html.escape(f["message"], quote=True)}</span>'
        assert text.count(said) == sum(1 for g in placed if g["message"] == f["message"]), f
        assert f'<a href="#L{f["line"]}">line {f["line"]}</a>' in text  # the list links to its place
    if which == CORDIS:
        banner = re.search(r'<section class="banner".*?</section>', text, re.S)
        assert banner is not None and banner.group(0).count("<p") == 2 and 'class="msg"' not in banner.group(0)


def test_the_page_of_a_scenario_folder_is_the_page_of_its_primary_log(tmp_path: Path) -> None:
    log = corpus_file(TODO_WRITE)
    folder = tmp_path / "scenario"
    folder.mkdir()
    (folder / "session.jsonl").write_bytes(log.read_bytes())
    (folder / "input.json").write_text('{"steps": []}', encoding="utf-8")
    of_folder, of_log = tmp_path / "folder.html", tmp_path / "log.html"
    assert _run("render", "web", "--html", "-o", str(of_folder), str(folder)) == (0, "")
    assert _run("view", str(folder / "session.jsonl"), "-o", str(of_log))[0] == 0
    assert of_folder.read_bytes() == of_log.read_bytes()
    assert _run("render", "web", "--html", str(tmp_path))[0] == 2  # a folder that is no scenario: a usage error


def test_the_site_pages_differ_from_the_page_alone_only_in_their_links() -> None:
    """The comparison above can fail: a change to the page outside its site links is seen."""
    page = ('<body><header class="page" id="L1"><nav><a href="../index.html" rel="index">\u2190 All sessions</a></nav>'
            '<h1>t</h1></header><a class="rule" href="../rules/T5.html" title="T5">T5</a></body>')
    alone = '<body><header class="page" id="L1"><h1>t</h1></header><span class="rule">T5</span></body>'
    assert _without_site_links(page) == alone
    assert _without_site_links(page.replace("<h1>t", "<h1>u")) != alone
