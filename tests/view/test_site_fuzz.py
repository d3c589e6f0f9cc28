"""The site under hostile logs (issue 27, point 6): titles, session ids, cwds, tool and
model names of any characters, in folders whose names collide once case is folded or
Unicode normalized. Every page stays inert (no script or handler from a log, nothing
that loads from elsewhere), every link resolves, and no two pages share a name a
case-insensitive or normalizing file system would merge."""

from __future__ import annotations

import re
import shutil
import tempfile
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.cli import main
from replay.render.site_layout import INDEX
from replay.render.web.page_assets import SITE_SCRIPT, SITE_STYLE
from tests.helpers import TODO_WRITE, ascii_dump, examples, hostile_text, index_of, records

COLLIDING = ["Logs", "logs", "LOGS", "caf\u00e9", "cafe\u0301", "\ufb01le", "file", "\u212bngstr\u00f6m",
             "\u00c5ngstr\u00f6m"]
"""Folder names equal after case folding or after NFC / NFKC normalization."""

HOSTILE = st.one_of(hostile_text(max_size=40), st.sampled_from([
    "<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>", "javascript:alert(3)", "</td></tr><b>x",
    "\u202egnp.exe", "{{cwd}}", "A" * 5000, "//evil.example/x.js", "../../index.html"]))


def _log(title: str, session_id: str, cwd: str, tool: str, model: str) -> bytes:
    recs = records(TODO_WRITE)
    recs[0]["id"], recs[0]["cwd"] = session_id, cwd
    data = recs[index_of(recs, "session/title")]["data"]
    data["title"], data["source"] = title, {"kind": "user"}
    recs[index_of(recs, "tool/call")]["data"]["name"] = tool
    text = ascii_dump(recs).replace(b'"model":"deepseek-v4-flash"', b'"model":' + _json(model))
    return text


def _json(value: str) -> bytes:
    import json

    return json.dumps(value, ensure_ascii=True).encode()


class _Tags(HTMLParser):
    """Every tag of a page with its attributes, as a browser's tokenizer reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "srcset", "poster", "data", "xlink:href"})
LOADING_TAGS = frozenset({"img", "iframe", "frame", "object", "embed", "link", "base", "video", "audio", "source",
                          "track", "image", "use", "foreignobject"})


def _check_inert(page: Path, site: Path) -> None:
    text = page.read_text(encoding="utf-8")
    parser = _Tags()
    parser.feed(text)
    parser.close()
    session = re.search(r"<body class=\"session\"", text) is not None
    own = 1 if re.search(r"<body class=\"index\"", text) else 0  # the index's own script, inline
    scripts = [dict(attrs) for tag, attrs in parser.tags if tag == "script"]
    assert sum(1 for a in scripts if "type" not in a and "src" not in a) == own, page
    # A session page's own script and stylesheet are the site's files, and nothing else is loaded.
    assert [a for a in scripts if "src" in a] == ([{"src": SITE_SCRIPT[0]}] if session else []), page
    links = [dict(attrs) for tag, attrs in parser.tags if tag == "link"]
    assert links == ([{"rel": "stylesheet", "href": SITE_STYLE[0]}] if session else []), page
    assert all(a.get("type") in (None, "application/json") for a in scripts), page
    for tag, attrs in parser.tags:
        assert tag not in LOADING_TAGS or (session and tag == "link" and dict(attrs) == links[0]), (page, tag)
        assert tag != "form" or dict(attrs).get("method") == "dialog", (page, tag)
        assert tag != "meta" or dict(attrs).get("http-equiv", "").lower() != "refresh", page
        for name, value in attrs:
            assert not name.startswith("on"), (page, tag, name)  # no event handler
            if name in URL_ATTRIBUTES and value is not None:
                assert not re.match(r"^\s*[a-zA-Z][a-zA-Z0-9+.-]*:|^\s*//", value), (page, value)  # nothing leaves
                target = value.split("#", 1)[0]
                if target:
                    assert (page.parent / target).resolve().is_file(), (page, value)


@settings(max_examples=examples(20), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.tuples(st.sampled_from(COLLIDING), HOSTILE, HOSTILE, HOSTILE, HOSTILE, HOSTILE),
                min_size=2, max_size=3))
def test_a_site_of_hostile_logs_stays_inert_and_whole(logs: list[tuple[str, str, str, str, str, str]]) -> None:
    work = Path(tempfile.mkdtemp(prefix="replay-fuzz-"))
    try:
        root = work / "logs"
        for k, (folder, title, sid, cwd, tool, model) in enumerate(logs):
            place = root / folder / f"s{k}"
            place.mkdir(parents=True, exist_ok=True)
            (place / "session.jsonl").write_bytes(_log(title, sid, cwd, tool, model))
        site = work / "site"
        result = CliRunner().invoke(main, ["view", str(root), "-o", str(site), "--jobs", "1"])
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code in (0, 1), result.output
        pages = sorted(p for p in site.rglob("*.html"))
        names = [p.relative_to(site).as_posix() for p in pages]
        folded = {unicodedata.normalize("NFKC", n).casefold() for n in names}
        assert len(folded) == len(names)  # no two pages one file on a folding file system
        assert sorted(p.name for p in (site / "sessions").iterdir() if p.suffix != ".html") == sorted(
            (SITE_SCRIPT[0], SITE_STYLE[0]))
        assert len(list((site / "sessions").glob("*.html"))) == len(logs)
        for page in pages:
            _check_inert(page, site)
        index = (site / INDEX).read_text(encoding="utf-8")
        assert index.count('<td class="path"') == len(logs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_checker_sees_what_it_looks_for(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    for bad in ("<img src=x>", "<a href=\"https://evil.example/\">x</a>", "<div onclick=\"x()\">",
                "<script>alert(1)</script>", "<a href=\"missing.html\">x</a>",
                f"<script src=\"{SITE_SCRIPT[0]}\"></script>", f"<link rel=\"stylesheet\" href=\"{SITE_STYLE[0]}\">"):
        page.write_text(f"<!doctype html><p>{bad}</p>", encoding="utf-8")
        try:
            _check_inert(page, tmp_path)
        except AssertionError:
            continue
        raise AssertionError(f"not seen: {bad}")
