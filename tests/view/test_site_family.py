"""Who is whose child in the session browser: proved by the parent (its folder, or a
result naming the child), never by a child's header alone; matched in time linear in
calls and children."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import replay.view.site as site_module
from replay.check.engine import LogReport
from replay.cli import main
from replay.render.site_layout import INDEX
from replay.render.web.session_draft import Delegation, SessionFacts
from replay.view.site import _delegations, _Entry, _family, _name, page_links
from tests.helpers import corpus_file, dump, index_of, records

SUBAGENT_MULTI = "sessions-2026-08-20/examples_acp-agent_tests_snapshots/subagent-multi"


def _facts(session_id: str, parent: str | None = None, delegations: tuple[Delegation, ...] = ()) -> SessionFacts:
    return SessionFacts(session_id=session_id, parent=parent, cwd=None, created=None, start=None, duration=None,
                        turns=0, steps=0, calls=len(delegations), outcomes=(0, 0, 0, 0), tokens=(0, 0, 0, 0, 0),
                        models=(), plan=None, title=None, generation=None, tools=(), delegations=delegations)


def _entry(shown: str, facts: SessionFacts) -> _Entry:
    return _Entry(LogReport(shown, "ok", 0), shown, facts, None, None)


def _family_of(n: int, named: bool) -> tuple[_Entry, list[_Entry]]:
    """A parent with ``n`` subagent calls and ``n`` children in its folder; each result
    names its child (``named``) or none."""
    calls = tuple(Delegation(k, "subagent", f"started child-{k}." if named else "done", False) for k in range(n))
    parent = _entry("logs/p/session.jsonl", _facts("parent", delegations=calls))
    children = [_entry(f"logs/p/session.{k + 1}.jsonl", _facts(f"child-{k}", "parent")) for k in range(n)]
    entries = [parent, *children]
    _name(entries)
    _family(entries)
    return parent, children


@pytest.mark.parametrize("named", [False, True])
def test_child_matching_is_linear_in_calls_and_children(monkeypatch: pytest.MonkeyPatch, named: bool) -> None:
    """Each result's words are read once, whatever the number of children (it was a
    regular expression per call and child: 953 s for 4,000 of each)."""
    read: list[str] = []
    words = site_module._words

    def counted(text: str) -> list[str]:
        read.append(text)
        return words(text)

    monkeypatch.setattr(site_module, "_words", counted)
    for n in (10, 1000):
        read.clear()
        parent, children = _family_of(n, named)
        linked = _delegations(parent)
        assert [linked[k] for k in range(n)] == children  # the k-th call, the k-th child either way
        assert len(read) <= n + 1  # one read of each result (a far parent's own, once)


def _work(run: Any) -> int:
    """Every call ``run`` makes, Python's and C's (a regular expression compiled or
    searched, a list built): the work, whatever way it is done."""
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        calls += 1

    sys.setprofile(count)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("named", [False, True])
def test_the_links_of_a_parent_and_its_children_are_linear_work(named: bool) -> None:
    """Issue 32 row 7 however it is matched: the names, the family and every page's
    links of a parent with ``n`` calls and ``n`` children are work linear in ``n`` (four
    times the calls and children cost at most five times the work; a match per call
    and child costs sixteen times)."""
    def links(n: int) -> None:
        parent, children = _family_of(n, named)
        for entry in (parent, *children):
            page_links(entry)

    small, large = _work(lambda: links(250)), _work(lambda: links(1000))
    assert large / small < 5, f"{small} → {large} calls for four times the calls and children"


def test_a_child_elsewhere_is_a_child_only_when_its_parent_names_it() -> None:
    named = Delegation(0, "subagent", "started subagent far-1", False)
    parent = _entry("logs/p/session.jsonl", _facts("parent", delegations=(named, Delegation(1, "subagent", "", False))))
    far = _entry("elsewhere/q/session.jsonl", _facts("far-1", "parent"))
    claimer = _entry("elsewhere/r/session.0.jsonl", _facts("evil", "parent"))
    entries = [parent, far, claimer]
    _name(entries)
    _family(entries)
    assert parent.children == [far] and far.parent is parent and claimer.parent is None
    assert _delegations(parent) == {0: far, 1: None}


def _site(tmp_path: Path, logs: Path) -> dict[str, Any]:
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["view", str(logs), "-o", str(site), "--jobs", "1"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    index = (site / INDEX).read_text(encoding="utf-8")
    pages = {html.unescape(m[0]): (site / html.unescape(m[1])).read_text(encoding="utf-8")
             for m in re.findall(r'<td class="path" data-v="([^"]*)"><a href="([^"]*)"', index)}
    return pages


def test_a_header_claiming_a_parent_elsewhere_links_nothing(tmp_path: Path) -> None:
    """Issue 32 row 10: a log elsewhere in the archive whose header names another
    session as its parent took that session's first subagent call's link."""
    victim = corpus_file(f"{SUBAGENT_MULTI}/session.jsonl")
    parent_id = records(f"{SUBAGENT_MULTI}/session.jsonl")[0]["id"]
    logs = tmp_path / "logs"
    (logs / "victim").mkdir(parents=True)
    (logs / "evil").mkdir()
    (logs / "victim" / "session.jsonl").write_bytes(victim.read_bytes())
    child = records(f"{SUBAGENT_MULTI}/session.1.jsonl")
    child[0]["id"] = "evil-session"
    assert child[0]["parentSession"] == parent_id
    (logs / "evil" / "session.0.jsonl").write_bytes(dump(child))
    pages = _site(tmp_path, logs)
    victim_page = next(text for shown, text in pages.items() if shown.endswith("victim/session.jsonl"))
    evil_page = next(text for shown, text in pages.items() if shown.endswith("evil/session.0.jsonl"))
    assert "evil" not in victim_page and 'data-fact="children"' not in victim_page
    assert 'data-fact="parent"' not in evil_page
    assert victim_page.count('class="child missing"') == 2  # both calls: their child is not in the site


def test_a_child_elsewhere_named_by_its_parent_is_linked(tmp_path: Path) -> None:
    recs = records(f"{SUBAGENT_MULTI}/session.jsonl")
    first = index_of(recs, "tool/result")
    recs[first]["data"]["message"]["content"][0]["content"][0]["text"] = "started subagent far-child: ALPHA"
    logs = tmp_path / "logs"
    (logs / "parent").mkdir(parents=True)
    (logs / "other").mkdir()
    (logs / "parent" / "session.jsonl").write_bytes(dump(recs))
    child = records(f"{SUBAGENT_MULTI}/session.1.jsonl")
    child[0]["id"] = "far-child"
    (logs / "other" / "session.1.jsonl").write_bytes(dump(child))
    pages = _site(tmp_path, logs)
    parent_page = next(text for shown, text in pages.items() if shown.endswith("parent/session.jsonl"))
    child_page = next(text for shown, text in pages.items() if shown.endswith("other/session.1.jsonl"))
    assert parent_page.count('<p class="child"><a href=') == 1 and 'class="child missing"' in parent_page
    assert 'data-fact="parent"' in child_page
