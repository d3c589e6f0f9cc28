"""Counts and plurals right everywhere, through one helper (issue 27, row 11):
``replay.words``, the site's strings, and what the CLI and the session browser say."""

from __future__ import annotations

import os
import re
from dataclasses import fields
from pathlib import Path

import pytest

from replay.render.web.site_strings import SITE_EN, SITE_ZH
from tests.helpers import dump, records, replay_here


def test_counted_and_by_count() -> None:
    from replay.words import by_count, counted

    assert [counted(n, "golden") for n in (0, 1, 2)] == ["0 goldens", "1 golden", "2 goldens"]
    assert counted(1, "entry", "entries") == "1 entry" and counted(3, "entry", "entries") == "3 entries"
    assert [by_count(n, "{count} session|{count} sessions") for n in (0, 1, 2)] == [
        "{count} sessions", "{count} session", "{count} sessions"]
    assert by_count(1, "{count} 个会话") == by_count(2, "{count} 个会话") == "{count} 个会话"


def test_every_english_count_of_the_site_has_a_form_for_one() -> None:
    """A site template that counts (``{count}``) and says a plural holds both forms; the
    Chinese ones hold one."""
    for name in (f.name for f in fields(SITE_EN)):
        template = getattr(SITE_EN, name)
        if "{count}" in template and re.search(r"\{count\} (\w+ )?\w+s\b", template):
            assert "|" in template, name
            one, other = template.split("|")
            assert "{count}" in one and "{count}" in other, name
    for f in fields(SITE_ZH):
        assert "|" not in getattr(SITE_ZH, f.name), f.name


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_the_site_counts_one_as_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One session a day, one path passed over: "1 session", "1 path was passed over";
    a page's findings heading counts each severity with its plural."""
    broken = records("acp-2026-07-23/multi-turn/session.jsonl")
    broken[2]["seq"] = 999
    for name, recs in (("a", broken), ("b", records("acp-2026-07-23/cancel/session.jsonl"))):
        (tmp_path / "logs" / name).mkdir(parents=True)
        (tmp_path / "logs" / name / "session.jsonl").write_bytes(dump(recs))
    os.mkfifo(tmp_path / "logs" / "b" / "x.jsonl")
    monkeypatch.chdir(tmp_path)
    run = replay_here("view", "logs", "-o", "site/", "--jobs", "1")
    assert run.code == 1, run.stderr
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    titles = re.findall(r"<title>([^<]*)</title>", index)
    assert "2026-07-06: 1 session" in titles
    assert "1,000 to 9,999 tokens: 1 session" in titles and "1 to 9 tokens: 0 sessions" in titles
    assert '<p class="note">1 path was passed over by the search (a FIFO, a link out of the folder, …).</p>' in index
    headings = sorted(m for page in (tmp_path / "site" / "sessions").glob("*.html")
                      for m in re.findall(r'id="findings-title">([^<]+)<', page.read_text(encoding="utf-8")))
    assert headings == ["Findings (2 errors · 3 warnings)", "Findings (3 warnings)"]
