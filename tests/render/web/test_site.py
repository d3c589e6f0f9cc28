"""The session browser's site (``replay view PATH -o DIR``), read as files: one row per
log the audit reports, every link resolving, children linked both ways, each page's
numbers equal to what its log holds (computed here from the raw lines, independently
of replay), findings at their events, the folder's ownership, a publication that an
interruption cannot leave with a link to a missing page, hostile logs inert, and
every label in both locales."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from click.testing import CliRunner

from replay.cli import main
from replay.render.site_layout import INDEX, OLD, SITE_MARKER, STAGING
from replay.render.web.page_assets import SITE_SCRIPT
from replay.render.web.site_index import COLUMNS, clipped
from replay.render.web.site_strings import SITE_EN, SITE_ZH
from tests.helpers import TODO_WRITE, corpus_file, corpus_root, dump, errors_first, index_of, records
from tests.render.web.dom import Node, parse
from tests.render.web.log_numbers import log_numbers

pytestmark = pytest.mark.slow

CORDIS = "sessions-2026-08-20/apps_web_tests_snapshots/cordis-tool-round/session.jsonl"
SUBAGENT_MULTI = "sessions-2026-08-20/examples_acp-agent_tests_snapshots/subagent-multi"


def _view(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["view", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.stdout if result.exit_code in (0, 1) else result.output  # usage errors: stderr


@pytest.fixture(scope="module")
def corpus_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"the shared corpus {root} is absent (set REPLAY_CORPUS)")
    site = tmp_path_factory.mktemp("corpus") / "site"
    code, out = _view(str(root), "-o", str(site), "--jobs", "1")
    return site, code, out


def _rows(site: Path) -> list[tuple[str, str]]:
    """The index's rows: each log's path as shown, and its page."""
    text = (site / INDEX).read_text(encoding="utf-8")
    return [(html.unescape(m[0]), html.unescape(m[1]))
            for m in re.findall(r'<td class="path" data-v="([^"]*)"><a href="([^"]*)"', text)]


def _pages(site: Path) -> Iterator[Path]:
    return (p for p in site.rglob("*.html") if not any(part.startswith(".") for part in p.relative_to(site).parts))


def _fact(page: Node, key: str) -> str | None:
    found = page.find_all("dd", data_fact=key)
    return found[0].attrs.get("data-value", "") if found else None


def test_one_row_per_log_the_audit_reports(corpus_site: tuple[Path, int, str]) -> None:
    site, code, out = corpus_site
    assert (code, out) == (1, f"{site / INDEX}\n")  # exit 1: the audit finds errors, as replay audit does
    audited = CliRunner().invoke(main, ["audit", "--format", "json", "--jobs", "1", str(corpus_root())])
    files = json.loads(audited.stdout)["files"]
    rows = _rows(site)
    assert sorted(shown for shown, _ in rows) == sorted(f["path"] for f in files)
    assert [shown for shown, _ in rows] == errors_first(files)  # the index's own order
    assert errors_first(files) != [f["path"] for f in files]  # not the audit's order: the test can fail
    for _, href in rows:
        assert (site / href).is_file(), href
    assert (site / SITE_MARKER).is_file()
    assert sorted(p.name for p in site.iterdir()) == sorted([INDEX, SITE_MARKER, "rules", "sessions"])


def test_every_link_leads_to_a_page_that_exists(corpus_site: tuple[Path, int, str]) -> None:
    site = corpus_site[0]
    checked = 0
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        ids = set(re.findall(r' id="([^"]+)"', text))
        runs = [tuple(map(int, m)) for m in re.findall(r'data-lines="(\d+) (\d+)"', text)]
        for href in re.findall(r' href="([^"]*)"', text):
            href = html.unescape(href)
            target, _, fragment = href.partition("#")
            assert "://" not in target and not target.startswith(("/", "javascript:")), (page, href)
            if target:
                assert (page.parent / target).resolve().is_file(), (page, href)
            elif fragment not in ids:  # a line inside a run of stream chunks: the run's element
                line = int(fragment.removeprefix("L"))
                assert any(first <= line <= last for first, last in runs), (page, href)
            checked += 1
    assert checked > 1000


def test_children_are_linked_both_ways(corpus_site: tuple[Path, int, str]) -> None:
    site = corpus_site[0]
    rows = dict(_rows(site))
    folder = str(corpus_file(f"{SUBAGENT_MULTI}/session.jsonl").parent)
    page_of = {shown: href.removeprefix("sessions/") for shown, href in rows.items()}
    parent = parse((site / rows[f"{folder}/session.jsonl"]).read_text(encoding="utf-8"))
    children = parent.find("dd", data_fact="children")
    one, two = page_of[f"{folder}/session.1.jsonl"], page_of[f"{folder}/session.2.jsonl"]
    assert one.endswith("-subagent-multi-" + one.split("-subagent-multi-")[1]) and one.endswith("--session.1.html")
    assert [(a.attrs["href"], a.text) for a in children.find_all("a")] == [
        (one, "session.1.jsonl"), (two, "session.2.jsonl")]
    # each subagent call's row is followed by the link to the child it started, in order
    assert [(a.attrs["href"], a.text) for p in parent.find_all("p", "child") for a in p.find_all("a")] == [
        (one, "Child session: session.1.jsonl"), (two, "Child session: session.2.jsonl")]
    for child in ("session.1", "session.2"):
        page = parse((site / rows[f"{folder}/{child}.jsonl"]).read_text(encoding="utf-8"))
        up = page.find("dd", data_fact="parent").find("a")
        assert (up.attrs["href"], up.text) == (page_of[f"{folder}/session.jsonl"], "session.jsonl")
    # every parent link anywhere is answered by the parent's list of children
    linked = 0
    for page_path in _pages(site / "sessions"):
        page = parse(page_path.read_text(encoding="utf-8"))
        for dd in page.find_all("dd", data_fact="parent"):
            target = page_path.parent / dd.find("a").attrs["href"]
            back = parse(target.read_text(encoding="utf-8")).find("dd", data_fact="children")
            assert os.path.relpath(page_path, target.parent) in [a.attrs["href"] for a in back.find_all("a")]
            linked += 1
    # as many as the corpus holds logs whose header names another session of their folder as its parent
    headers: dict[Path, dict[str, Any]] = {}
    for path, _ in _rows(site):
        try:
            headers[Path(path)] = orjson.loads(Path(path).read_bytes().split(b"\n", 1)[0])
        except orjson.JSONDecodeError:
            continue
    ids = {(path.parent, h.get("id")) for path, h in headers.items() if isinstance(h, dict)}
    assert linked == sum(1 for path, h in headers.items() if isinstance(h, dict) and h.get("parentSession")
                         and h["parentSession"] != h.get("id") and (path.parent, h["parentSession"]) in ids) > 30


def test_every_page_holds_the_numbers_of_its_log(corpus_site: tuple[Path, int, str]) -> None:
    """For every log of the shared corpus: duration, tool calls and tokens on its page
    and in its index row are what its lines hold."""
    site = corpus_site[0]
    index = parse((site / INDEX).read_text(encoding="utf-8"))
    cells = {html.unescape(tr.find("td", "path").attrs["data-v"]): tr for tr in index.find_all("tr")
             if tr.find_all("td", "path")}
    checked = 0
    for shown, href in _rows(site):
        duration, calls, tokens = log_numbers(Path(shown))
        page = parse((site / href).read_text(encoding="utf-8"))
        assert (_fact(page, "duration") or "", (_fact(page, "calls") or "").split(" ")[0], _fact(page, "tokens")) \
            == (duration, calls, tokens), shown
        row = [td.attrs.get("data-v", "") for td in cells[shown].find_all("td")]
        inp, out, cache_read, _, reasoning = tokens.split()
        keys = ("duration", "calls", "input", "output", "cache_read", "reasoning")
        at = {key: row[COLUMNS.index(key)] for key in keys}
        assert at == {"duration": duration, "calls": calls, "input": inp, "output": out, "cache_read": cache_read,
                      "reasoning": reasoning}, shown
        checked += 1
    assert checked == len(cells) >= 300


def test_every_row_s_status_children_and_plan_are_the_audit_s_the_headers_and_replay_plan_s(
        corpus_site: tuple[Path, int, str]) -> None:
    """The status column: the worst severity of the audit's findings (unreadable apart)
    and the rule with the most findings of it; the children column: the logs of the
    folder whose header names the session as its parent; the plan column: what
    ``replay plan`` prints, as done of all."""
    from replay.check.registry import rule_order

    site = corpus_site[0]
    audited = CliRunner().invoke(main, ["audit", "--format", "json", "--jobs", "1", str(corpus_root())])
    files = {f["path"]: f for f in json.loads(audited.stdout)["files"]}
    index = parse((site / INDEX).read_text(encoding="utf-8"))
    rows = {html.unescape(tr.find("td", "path").attrs["data-v"]): tr.find_all("td") for tr in index.find_all("tr")
            if tr.find_all("td", "path")}
    headers: dict[str, Any] = {}
    for path in rows:
        try:
            headers[path] = orjson.loads(Path(path).read_bytes().split(b"\n", 1)[0])
        except orjson.JSONDecodeError:
            headers[path] = None
    parents: dict[tuple[str, str], int] = {}
    for path, h in headers.items():
        if isinstance(h, dict) and isinstance(h.get("parentSession"), str) and h["parentSession"] != h.get("id"):
            key = (os.path.dirname(path), h["parentSession"])
            parents[key] = parents.get(key, 0) + 1
    statuses = set()
    for path, cells in rows.items():
        findings = files[path].get("findings", [])
        order = ["error", "warning", "policy"]
        worst = min((order.index(f["severity"]) for f in findings), default=None)
        counts: dict[str, int] = {}
        for f in findings:
            if order.index(f["severity"]) == worst:
                counts[f["rule"]] = counts.get(f["rule"], 0) + 1
        status = "unreadable" if files[path]["status"] == "unreadable" else \
            "ok" if worst is None else "errors" if worst == 0 else "warnings"
        rule = min(counts, key=lambda r: (-counts[r], rule_order(r), r)) if counts else None
        assert cells[COLUMNS.index("status")].text == SITE_EN.status(status) + (f" · {rule}" if rule else ""), path
        assert cells[COLUMNS.index("findings")].text == str(len(findings)), path
        statuses.add(status)
        h = headers[path]
        children = parents.get((os.path.dirname(path), h.get("id")), 0) if isinstance(h, dict) else 0
        assert cells[COLUMNS.index("children")].text == str(children), path
    assert statuses >= {"ok", "warnings", "errors"}
    planned = 0
    with_plans = [path for path in rows if b'"todo/write"' in Path(path).read_bytes()]
    for path in with_plans + list(rows)[::25]:  # the logs that write a plan, and some others
        result = CliRunner().invoke(main, ["plan", path])
        plan = json.loads(result.stdout) if result.exit_code == 0 else None
        text = rows[path][COLUMNS.index("plan")].text
        if plan:
            done = sum(1 for t in plan if t["status"] == "completed")
            assert text == f"{done}/{len(plan)} done", path
            planned += 1
        else:
            assert text == "", path
    assert planned >= 3


def test_findings_sit_at_their_events_and_damage_has_a_banner(corpus_site: tuple[Path, int, str]) -> None:
    site = corpus_site[0]
    rows = dict(_rows(site))
    text = (site / rows[str(corpus_file(CORDIS))]).read_text(encoding="utf-8")
    page = parse(text)
    banner = page.find("section", "banner")
    assert banner.attrs["data-kind"] == "refused"
    assert banner.find("p", "headline").text == "Today's harness would refuse to load this log."
    for line, seq in ((8, 87), (9, 99), (19, 131)):  # A7 errors (seq gaps), each at the element of its line

        before = text[:_holder(text, line)]
        block = before[before.rindex('<ul class="findings at"'):]
        assert block.rstrip().endswith("</ul>") and block.count("</ul>") == 1, line
        assert 'data-rule="A7"' in block and f"the event has seq {seq} where" in block
        assert '<a class="rule" href="../rules/A7.html"' in block
    assert (site / "rules" / "A7.html").is_file()
    rule = parse((site / "rules" / "A7.html").read_text(encoding="utf-8"))
    assert rule.find("pre", "help").text.startswith("A7: seqs count 0, 1, 2, … with no gap or repeat")


def _holder(text: str, line: int) -> int:
    """Where the element that holds a line starts: its own, or the run of stream chunks
    whose lines it is among."""
    exact = text.find(f' id="L{line}"')
    if exact >= 0:
        return text.rindex("<", 0, exact)
    for m in re.finditer(r'<div class="ev stream[^"]*" id="L\d+" data-lines="(\d+) (\d+)"', text):
        if int(m[1]) <= line <= int(m[2]):
            return m.start()
    raise AssertionError(f"no element holds line {line}")


# -- the folder -------------------------------------------------------------------------


def _log(folder: Path, name: str, recs: list[dict[str, Any]]) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dump(recs))
    return path


def test_a_folder_that_is_not_a_site_is_refused(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    _log(logs, "a/session.jsonl", records(TODO_WRITE))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    code, out = _view(str(logs), "-o", str(mine))
    assert code == 2
    assert out.endswith(f"Error: Invalid value for -o: {mine}: not empty, and not a site replay wrote (it has "
                        f"no {SITE_MARKER}): name a new or empty folder, or add --force to write the site into it\n")
    assert os.listdir(mine) == ["notes.txt"]
    code, _ = _view(str(logs), "-o", str(mine), "--force")
    assert code == 0 and (mine / "notes.txt").read_text() == "keep" and (mine / INDEX).is_file()


def test_a_rebuild_replaces_the_site_and_leaves_nothing_behind(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    _log(logs, "a/session.jsonl", records(TODO_WRITE))
    gone = _log(logs, "b/session.jsonl", records(TODO_WRITE))
    site = tmp_path / "site"
    assert _view(str(logs), "-o", str(site))[0] == 0
    before = sorted(str(p.relative_to(site)) for p in site.rglob("*"))
    gone.unlink()
    dead = f"{STAGING}999999999-0000"
    (site / dead).mkdir()  # what a dead run left behind
    assert _view(str(logs), "-o", str(site))[0] == 0
    after = sorted(str(p.relative_to(site)) for p in site.rglob("*"))
    assert [p for p in before if p not in after] == [p for p in before if "-logs-b-" in p]
    assert len(before) - len(after) == 1  # b's page
    assert not [p for p in after if p.startswith((STAGING, OLD))]


def test_an_interrupted_publication_links_to_no_missing_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whenever the publication stops, every page in the folder links to pages that
    exist (the old site's, the new one's, or both)."""
    from replay.fs import Tree

    logs = tmp_path / "logs"
    recs = records(TODO_WRITE)
    for name in ("a/session.jsonl", "b/session.jsonl"):
        _log(logs, name, recs)
    site = tmp_path / "site"
    assert _view(str(logs), "-o", str(site))[0] == 0
    _log(logs, "c/session.jsonl", recs)  # the new site has one more folder
    moves = 0
    real = Tree.move

    def counted(self: Tree, source: tuple[str, ...], target: tuple[str, ...]) -> None:
        nonlocal moves
        moves += 1
        if moves == stop:
            raise KeyboardInterrupt
        real(self, source, target)

    monkeypatch.setattr(Tree, "move", counted)
    for stop in range(1, 12):
        moves = 0
        result = CliRunner().invoke(main, ["view", str(logs), "-o", str(site)])
        assert result.exit_code in (0, 130), result.output
        for page in _pages(site):
            for href in re.findall(r' href="([^"#]+)', page.read_text(encoding="utf-8")):
                assert (page.parent / html.unescape(href)).resolve().is_file(), (stop, page, href)
    assert len(_rows(site)) == 3


def test_page_names_never_meet_even_case_folded() -> None:
    """Every page is in one folder: names that would meet (the same name in another
    case, the same readable end, a folder's name and a log's that add up to another
    page's) get a hash until they are free, as a case-insensitive file system sees it."""
    from replay.view.site import page_name

    taken: set[str] = set()
    names = [page_name(folder, base, taken) for folder, base in (
        ("f-0123456789", "A.jsonl"), ("f-0123456789", "a.jsonl"), ("f-0123456789", "a b.jsonl"),
        ("f-0123456789", "a-b.jsonl"), ("f-0123456789--x", "y.jsonl"), ("f-0123456789", "x--y.jsonl"),
        ("f-0123456789", "A.jsonl.zst"))]
    assert names[0] == "f-0123456789--A.html" and names[2] == "f-0123456789--a-b.html"
    assert names[4] == "f-0123456789--x--y.html"
    assert [re.fullmatch(r"f-0123456789--(a|a-b|x--y|A)-[0-9a-f]{10}\.html", n) is not None for n in names] == [
        False, True, False, True, False, True, True]
    assert len({n.casefold() for n in names}) == len(names) and len(taken) == len(names)


def test_logs_whose_names_meet_each_have_their_page(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    recs = records(TODO_WRITE)
    for i, name in enumerate(("A.jsonl", "a.jsonl", "a b.jsonl", "a-b.jsonl", "a-b.jsonl.zst")):
        recs[0]["id"] = f"session-{i}"
        if name.endswith(".zst"):
            header, rest = dump(recs).split(b"\n", 1)  # the header alone in the first frame
            (logs / name).write_bytes(b"".join(zstandard.ZstdCompressor().compress(b) for b in (header + b"\n", rest)))
        else:
            _log(logs, name, recs)
    site = tmp_path / "site"
    assert _view(str(logs), "-o", str(site)) == (0, f"{site / INDEX}\n")
    rows = _rows(site)
    assert sorted(shown for shown, _ in rows) == sorted(str(p) for p in logs.iterdir())
    assert len({href.casefold() for _, href in rows}) == 5
    for shown, href in rows:
        page = parse((site / href).read_text(encoding="utf-8"))
        assert page.find("dd", data_fact="log").text == shown
    assert len(list((site / "sessions").glob("*.html"))) == 5


def _site_of(where: str, site: Path) -> tuple[int, list[tuple[str, str]], list[list[str]]]:
    """The exit status, the rows (path as shown, page) and each page's links to its
    family, as (link, text)."""
    code, out = _view(where, "-o", str(site), "--jobs", "1")
    assert out == f"{site / INDEX}\n"
    rows = _rows(site)
    family = []
    for _, href in rows:
        page = parse((site / href).read_text(encoding="utf-8"))
        family.append([f"{a.attrs['href']} {a.text}" for key in ("parent", "children")
                       for dd in page.find_all("dd", data_fact=key) for a in dd.find_all("a")])
    return code, rows, family


def test_an_archive_and_a_url_give_the_site_their_folder_gives(tmp_path: Path) -> None:
    """PATH is found as replay audit finds it: the same rows (the archive's or the URL's
    path in place of the folder's), the same family links, every page there."""
    import tarfile

    fsspec = pytest.importorskip("fsspec", reason="fsspec is the remote extra")
    family = corpus_file(f"{SUBAGENT_MULTI}/session.jsonl").parent
    logs = tmp_path / "logs"
    shutil.copytree(family, logs / "subagent-multi")
    shutil.copyfile(corpus_file(CORDIS), logs / "cordis.jsonl")
    code, rows, links = _site_of(str(logs), tmp_path / "folder")
    assert code == 1 and len(rows) == 4 and sum(map(len, links)) == 4  # two children, each linked both ways
    archive = tmp_path / "logs.tar"
    with tarfile.open(archive, "w") as tar:
        for path in sorted(logs.rglob("*")):
            tar.add(path, arcname=f"./{path.relative_to(logs).as_posix()}", recursive=False)
    memory = fsspec.filesystem("memory")
    for path in logs.rglob("*"):
        if path.is_file():
            memory.pipe(f"/site-test/{path.relative_to(logs).as_posix()}", path.read_bytes())
    try:
        for where in (str(archive), "memory://site-test"):
            got_code, got_rows, got_links = _site_of(where, tmp_path / where.replace("/", "-"))
            assert [shown for shown, _ in got_rows] == [shown.replace(str(logs), where) for shown, _ in rows]
            assert (got_code, len(got_links), [len(x) for x in got_links]) == (code, 4, [len(x) for x in links])
            for (_, href), page_links in zip(got_rows, got_links, strict=True):
                site = tmp_path / where.replace("/", "-")
                assert (site / href).is_file()
                assert all((site / "sessions" / link.split(" ")[0]).is_file() for link in page_links)
    finally:
        memory.rm("/site-test", recursive=True)


# -- hostile logs -------------------------------------------------------------------------


LONG_NAME = "n" * 10_000
HOSTILE_TITLE = "<script>alert(1)</script>\u202eevil\u2066"


def test_hostile_logs_stay_inert(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    title = recs[index_of(recs, "session/title")]
    title["data"]["title"] = HOSTILE_TITLE + LONG_NAME
    title["data"]["source"] = {"kind": "user"}
    recs[0]["id"] = "<img src=x onerror=alert(2)>"
    recs[0]["cwd"] = "/\u202e" + LONG_NAME
    call = recs[index_of(recs, "tool/call")]["data"]
    call["name"] = "</td><script>alert(3)</script>" + LONG_NAME
    logs = tmp_path / "logs"
    _log(logs, "<b>x</b>/session.jsonl", recs)
    site = tmp_path / "site"
    assert _view(str(logs), "-o", str(site))[0] == 0  # hostile, not broken: the audit passes
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        own = re.escape(f' src="{SITE_SCRIPT[0]}"')  # a session page's script: the site's file
        assert text.lower().count("<script") == len(re.findall(rf"<script(?: type=\"application/json\"[^>]*|{own})?>",
                                                               text))
        assert "<img" not in text and "<b>x" not in text and "\u202e" not in text and "\u2066" not in text
    index = parse((site / INDEX).read_text(encoding="utf-8"))
    cell = index.find("td", "title")
    whole = sanitize_shown(HOSTILE_TITLE + LONG_NAME)
    assert html.unescape(cell.find("div", "t").attrs["title"]) == sanitize_shown((HOSTILE_TITLE + LONG_NAME)[:1000])
    assert whole.startswith(html.unescape(cell.find("div", "t").attrs["title"]))  # its start, for the tooltip
    assert cell.text == sanitize_shown(clipped(HOSTILE_TITLE + LONG_NAME))  # shown with its long word cut
    page = parse((site / _rows(site)[0][1]).read_text(encoding="utf-8"))
    assert page.find("h1").text == sanitize_shown(HOSTILE_TITLE + LONG_NAME)
    assert page.find("dd", data_fact="id").text == "<img src=x onerror=alert(2)>"
    assert page.find("details", "tool").attrs["data-tool"].startswith("</td><script>")


def sanitize_shown(text: str) -> str:
    from replay.style import sanitize

    return sanitize(text, keep_newlines=True)


# -- locales ------------------------------------------------------------------------------


def _labels(strings: Any) -> set[str]:
    """The labels that are words (no placeholder), English ones that differ from zh."""
    return {getattr(strings, f.name) for f in fields(strings)
            if isinstance(getattr(strings, f.name), str) and "{" not in getattr(strings, f.name)}


def _chrome(node: Node) -> Iterator[str]:
    """The page's own words: its text and labelling attributes, without what comes
    from the log (the transcript, paths, ids, titles, messages, help text)."""
    content = {"transcript", "path", "title", "msg", "brief", "help", "models", "timeline", "planList"}
    if node.tag in ("code", "pre", "h1", "title", "script", "style") or content & set(node.classes):
        return
    for name in ("aria-label", "placeholder", "title", "data-template", "data-count", "data-none"):
        if name in node.attrs:
            yield node.attrs[name]
    for child in node.children:
        if isinstance(child, str):
            yield child
        else:
            yield from _chrome(child)


def test_every_label_is_in_the_chosen_locale(tmp_path: Path) -> None:
    recs = records(TODO_WRITE)
    logs = tmp_path / "logs"
    _log(logs, "a/session.jsonl", recs)
    site = tmp_path / "site"
    assert _view(str(logs), "-o", str(site), "--locale", "zh")[0] == 0
    english = {label for label in _labels(SITE_EN) - _labels(SITE_ZH) if len(label) > 2}
    pages = [site / INDEX, site / _rows(site)[0][1], site / "rules" / INDEX]
    for page in pages:
        words = " ".join(_chrome(parse(page.read_text(encoding="utf-8"))))
        assert [label for label in sorted(english) if re.search(rf"\b{re.escape(label)}\b", words)] == [], page
    index = (site / INDEX).read_text(encoding="utf-8")
    session = (site / _rows(site)[0][1]).read_text(encoding="utf-8")
    assert '<html lang="zh">' in index and '<html lang="zh">' in session
    for label in (SITE_ZH.col_calls, SITE_ZH.only_errors, SITE_ZH.chart_rules):
        assert label in index
    for label in (SITE_ZH.fact_tokens, SITE_ZH.search_label, SITE_ZH.errors_only, "输入", "输出"):
        assert label in session


# -- one log: one page ------------------------------------------------------------------


def test_one_log_is_one_page_and_o_names_its_file(tmp_path: Path) -> None:
    log = corpus_file(TODO_WRITE)
    out = tmp_path / "page.html"
    assert _view(str(log), "-o", str(out)) == (0, f"{out}\n")
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert _view(str(log), "-o", str(out), "--select", "T3") == (0, f"{out}\n")  # audited as replay audit does
    code, text = _view(str(log), "--jobs", "2")
    assert code == 2 and text.endswith("Error: --jobs, --scheduler and --force belong to a site: name a folder, "
                                       "several logs, or -o DIR/\n")
    folder = tmp_path / "site"
    code, text = _view(str(log), "-o", f"{folder}/")
    assert (code, text) == (0, f"{folder / INDEX}\n") and len(_rows(folder)) == 1
    shutil.rmtree(folder)


def test_open_opens_the_index_or_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: opened.append(url) or True)
    log = corpus_file(TODO_WRITE)
    site = tmp_path / "site"
    assert _view(str(log.parent), "-o", str(site), "--open") == (0, f"{site / INDEX}\n")
    page = tmp_path / "page.html"
    assert _view(str(log), "-o", str(page), "--open") == (0, f"{page}\n")
    assert opened == [(site / INDEX).as_uri(), page.as_uri()]


def test_a_child_is_named_by_its_whole_session_id() -> None:
    """A subagent result that names child ``s12`` does not take child ``s1``."""
    from replay.view.site import _names

    assert [_names("started session s12.", sid) for sid in ("s1", "s12", "s")] == [False, True, False]
    assert _names("child abc-def-1 done", "abc-def-1") and not _names("child abc-def-12", "abc-def-1")


def test_force_never_deletes_a_file_replay_did_not_write(tmp_path: Path) -> None:
    """`--force` into a folder holding the user's own `sessions/` and `rules/`: refused,
    naming the files, which survive; a site replay wrote, with a file the user put in
    its `sessions/`, is refused too, and the file survives."""
    logs = tmp_path / "logs"
    _log(logs, "a/session.jsonl", records(TODO_WRITE))
    mine = tmp_path / "mine"
    (mine / "sessions").mkdir(parents=True)
    (mine / "rules").mkdir()
    (mine / "sessions" / "my-notes.txt").write_text("mine")
    (mine / "rules" / "firewall.conf").write_text("allow")
    code, out = _view(str(logs), "-o", str(mine), "--force")
    assert code == 2
    assert out.endswith(f"Error: Invalid value for -o: {mine}: {mine / 'rules' / 'firewall.conf'}, "
                        f"{mine / 'sessions' / 'my-notes.txt'}: not written by replay, and a site replaces rules/, "
                        "sessions/, index.html, .replay-site; refused (replay never deletes a file it did not write): "
                        "move them away, or name another folder\n")
    assert (mine / "sessions" / "my-notes.txt").read_text() == "mine"
    assert (mine / "rules" / "firewall.conf").read_text() == "allow"
    site = tmp_path / "site"
    assert _view(str(logs), "-o", str(site))[0] == 0
    (site / "sessions" / "my-notes.txt").write_text("mine")
    for force in ((), ("--force",)):
        code, out = _view(str(logs), "-o", str(site), *force)
        assert code == 2 and f"{site / 'sessions' / 'my-notes.txt'}: not written by replay" in out
    assert (site / "sessions" / "my-notes.txt").read_text() == "mine"
    (site / "sessions" / "my-notes.txt").unlink()
    assert _view(str(logs), "-o", str(site), "--force")[0] == 0  # its own pages are replaced


@pytest.mark.parametrize("where", ["the logs' folder", "a folder above it", "inside it"])
def test_a_site_folder_that_holds_or_lies_in_the_inputs_is_refused(tmp_path: Path, where: str) -> None:
    """`replay view logs -o logs --force` with the logs under `logs/sessions/` and
    `logs/rules/`: refused before anything is read or written; the logs survive."""
    logs = tmp_path / "logs"
    first = _log(logs, "sessions/session.jsonl", records(TODO_WRITE))
    _log(logs, "rules/session.jsonl", records(TODO_WRITE))
    out_dir = {"the logs' folder": logs, "a folder above it": tmp_path, "inside it": logs / "site"}[where]
    code, out = _view(str(logs), "-o", str(out_dir), "--force")
    assert code == 2
    what = "is inside" if where == "inside it" else "holds"
    assert out.endswith(f"Error: Invalid value for -o: {out_dir}: {what} {logs}, a path to read; the site goes to a "
                        "folder apart from its logs\n")
    assert first.read_bytes() == dump(records(TODO_WRITE)) and (logs / "rules" / "session.jsonl").is_file()
    assert not (out_dir / INDEX).exists()


def test_view_help_says_which_names_a_site_replaces() -> None:
    result = CliRunner().invoke(main, ["view", "--help"], terminal_width=200)
    assert ("A site replaces index.html, sessions/, rules/, .replay-site and nothing else; it is refused, with or "
            "without --force, when those hold a file replay did not write, or when the folder holds the logs to "
            "read.") in " ".join(result.output.split())


def test_a_rule_page_lists_the_sessions_that_break_it(corpus_site: tuple[Path, int, str]) -> None:
    """Styled from the rule's fields, with the sessions of the archive that break it
    (most findings first), each linked to its first finding's event."""
    site = corpus_site[0]
    audited = CliRunner().invoke(main, ["audit", "--format", "json", "--jobs", "1", str(corpus_root())])
    files = json.loads(audited.stdout)["files"]
    rows = dict(_rows(site))
    for rule in ("A7", "B4"):
        want = []
        for f in files:
            found = [g for g in f.get("findings", []) if g["rule"] == rule]
            if found:
                want.append((f"../{rows[f['path']]}" + (f"#L{found[0]['line']}" if found[0].get("line") else ""),
                             len(found)))
        want.sort(key=lambda item: -item[1])
        page = parse((site / "rules" / f"{rule}.html").read_text(encoding="utf-8"))
        got = [(tr.find("a").attrs["href"], int(tr.find("td", "num").attrs["data-v"]))
               for tr in page.find("table", "breaking").find("tbody").find_all("tr")]
        assert sorted(got, key=lambda item: -item[1]) == got and sorted(got) == sorted(want), rule
        assert page.find("p", "summary").text.startswith(f"{rule} ")
        assert page.find("pre", "help").text.startswith(f"{rule}: ")  # the terminal text, folded away
