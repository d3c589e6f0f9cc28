"""The session browser: ``replay view PATH... -o DIR`` writes a static site of every
log ``replay audit`` finds in the paths, audited exactly as it audits them
(``replay.check.audit.Audit``: the same discovery, caps, workers, selection, baseline
and ``[tool.replay.audit]`` table), each log read once: its page is drafted from the
audit's own reading (``PageWatch``), where the audit runs.

The site, below ``DIR``::

    index.html                  every session: totals, charts, a sortable, filterable table
    sessions/<folder>--<log>.html  one page per log (its folder's readable end and a hash, its name)
    sessions/session-<hash>.css, .js  the session pages' stylesheet and script
    rules/index.html, <ID>.html   what each audit rule checks (``replay rules ID``)
    .replay-site                 the marker: this folder is a site replay wrote

The index and the rule pages carry their style and script inline, allowed by their
hashes; the session pages link the site's two files of their style and script,
``sessions/session-<hash>.css`` and ``.js``, written once (thousands of pages do not
carry the same 20 KB each), allowed by the site's origin. Each page's
Content-Security-Policy lets nothing else run or load, and the site works from
``file://`` and from any static host.

``DIR`` is the user's; what is inside is written as a confined tree
(``replay.fs.Tree``: no link followed or written through). A folder that is not empty
and has no marker is refused unless ``force`` (then what it has under the site's
names is replaced). The site is first written whole into a hidden staging folder of
``DIR`` (its files are not flushed to disk one by one: a site is made again by
running the command again), then published in one step: the rule pages, the session
pages, ``index.html`` and the marker each take the place of the old ones, as one
``replay.fs.Commit``: SIGINT and SIGTERM wait for its end, and a run killed during it
(SIGKILL) leaves its journal, which the next run finishes first. So an interrupted run
leaves the old site or the new one, whole: no page links to a missing one. A staging
or old folder a dead run left behind is removed by the next run.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import posixpath
import re
import secrets
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from replay.check.audit import Audit, AuditRequest
from replay.check.engine import Attachments, AuditResult, LogReport, Reading, Watch
from replay.describe import reason
from replay.fs import (
    ASIDE_PREFIX,
    LEFTOVER_PREFIXES,
    Commit,
    FsError,
    Tree,
    abandoned,
    recover,
    within,
)
from replay.log.discover import local_path
from replay.log.reader import AuditItem, LogRead
from replay.log.source import PassedOver, display_path, ignore
from replay.output import OutputError
from replay.project.spill import Spill
from replay.render.choices import DEFAULT_LOCALE, Locale
from replay.render.site_layout import DEFAULT_SITE, INDEX, OLD, RULES_FOLDER, SESSIONS, SITE_MARKER, STAGING
from replay.render.web.page_assets import SITE_SCRIPT, SITE_STYLE
from replay.render.web.rule_pages import Breaking, rule_pages
from replay.render.web.session_draft import DraftWriter, PageDraft, SessionFacts
from replay.render.web.session_page import Link, PageLinks, page_chunks
from replay.render.web.site_index import Row, index_chunks
from replay.style import sanitize
from replay.urls import is_url

NAME_CHARS = 60
"""Characters of a log's path kept in its page's name (the rest is a hash)."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_CHILD = re.compile(r"\.(\d+)\.jsonl(?:\.zstd?)?$")


class PageWatch(Watch):
    """The session browser's watch: it drafts the page of every log the audit reads,
    in ``locale``. Pickles (only its locale travels)."""

    def __init__(self, locale: Locale = DEFAULT_LOCALE) -> None:
        super().__init__()
        self.locale = locale

    def reading(self, log: LogRead) -> Reading:
        return _Drafting(DraftWriter(log.header.record if log.header is not None else None, self.locale))


class _Drafting(Reading):
    """A log's page drafted from the audit's batches, as the audit reads them."""

    def __init__(self, writer: DraftWriter) -> None:
        self.writer = writer

    def batch(self, items: Sequence[AuditItem]) -> None:
        self.writer.batch(items)

    def done(self, report: LogReport) -> Drafted:
        draft = self.writer.done(report)
        if not draft.store.held:
            return Drafted(draft.facts, draft)
        pickled = pickle.dumps(draft, protocol=pickle.HIGHEST_PROTOCOL)  # a short log's: its blocks inside
        draft.store.close()
        return Drafted(draft.facts, None, pickled)


@dataclass(frozen=True, slots=True)
class Drafted:
    """A log's page draft as it travels back from where the log was audited: its facts
    (the site's links and index need them), and the draft: a short log's pickled where
    it was drafted, its blocks inside (the site puts those bytes in its spool as they
    are); a longer one's whole (its HTML and places in a ``Spill``, which travels as its
    bytes; the site copies them to its spool and pickles the draft with where they are).
    The site unpickles a draft when it writes its page."""

    facts: SessionFacts
    page: PageDraft | None
    pickled: bytes | None = None

    def draft(self) -> PageDraft:
        """The draft, unpickled if it came pickled."""
        if self.page is not None:
            return self.page
        assert self.pickled is not None
        page: PageDraft = pickle.loads(self.pickled)
        return page


class _Spooling(pickle.Pickler):
    """A draft whose spill is in the spool, pickled without it: where it is instead."""

    def persistent_id(self, obj: object) -> object:
        return obj.where() if isinstance(obj, Spill) else None


class _Unspooling(pickle.Unpickler):
    def __init__(self, data: bytes, spool: IO[bytes]) -> None:
        super().__init__(io.BytesIO(data))
        self.spool = spool

    def persistent_load(self, pid: object) -> object:
        return Spill.placed(pid, self.spool)  # type: ignore[arg-type]


class SiteRefused(Exception):
    """The folder named for the site is not empty and not a site replay made."""


@dataclass(frozen=True)
class SiteRequest:
    """What ``replay view PATH... -o DIR`` was asked."""

    audit: AuditRequest
    out: Tree
    """The folder of the site (``Tree.named`` for one the user named)."""
    locale: Locale = DEFAULT_LOCALE
    force: bool = False
    """Write into a folder that is not empty and not a site replay made."""
    rule_text: Callable[[str], str] | None = None
    """A rule's whole help, as ``replay rules ID`` prints it (``None``: its summary only)."""


@dataclass(frozen=True)
class SiteResult:
    audit: AuditResult
    index: Path
    pages: int


@dataclass
class _Entry:
    """One log of the site."""

    report: LogReport
    shown: str
    facts: SessionFacts | None
    spooled: tuple[int, int] | None
    """Where its draft is in the spool (``None``: no draft)."""
    failure: str | None
    folder: str = ""
    name: str = ""
    parent: _Entry | None = None
    children: list[_Entry] = field(default_factory=list)

    @property
    def child_index(self) -> int:
        """``N`` of ``session.N.jsonl`` (the order a harness made its children in)."""
        found = _CHILD.search(self.shown)
        return int(found.group(1)) if found else 1 << 30


def _slug(text: str) -> str:
    """The readable end of a path, as a file name: its last components that fit in
    ``NAME_CHARS`` (at least the end of the last one), every other character ``-``."""
    kept: list[str] = []
    size = 0
    for part in reversed([_UNSAFE.sub("-", p).strip("-.") for p in re.split(r"[/\\]+", text)]):
        if not part:
            continue
        if kept and size + len(part) + 1 > NAME_CHARS:
            break
        kept.insert(0, part[-NAME_CHARS:])
        size += len(kept[0]) + 1
    return "-".join(kept).strip("-.")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def folder_name(folder: str) -> str:
    """A folder of logs, as the start of its pages' names: its path's readable end and
    a hash of all of it (never hidden, never a link's or a parent's name)."""
    slug = _slug(folder)
    return f"{slug}-{_digest(folder)}" if slug else f"logs-{_digest(folder)}"


def page_name(folder: str, base: str, taken: set[str]) -> str:
    """A log's page: its folder's name, ``--``, its own name without the log suffix
    (a hash when that is unreadable), ``.html``. Every page is in one folder (no folder
    to make per folder of logs), so the name is checked against every name given
    before (``taken``, case folded: a case-insensitive file system keeps one file for
    both) and a hash is added until it is free."""
    stem = re.sub(r"\.jsonl(?:\.zstd?)?$", "", base)
    name = f"{folder}--{_slug(stem) or f'log-{_digest(base)}'}"
    page, salt = f"{name}.html", base
    while page.casefold() in taken:
        salt = _digest(salt + page)
        page = f"{name}-{salt}.html"
    taken.add(page.casefold())
    return page


# -- the audit, drafting every page -----------------------------------------------------


def _audit(audit: Audit, spool: IO[bytes], on_report: Callable[[LogReport], None]) -> tuple[AuditResult, list[_Entry]]:
    """Audit every log, each page drafted as it is read; the drafts wait in ``spool``."""
    waiting = Attachments()
    entries: list[_Entry] = []

    def reported(report: LogReport) -> None:
        item = waiting.take(report)
        draft = item.value if item is not None and isinstance(item.value, Drafted) else None
        spooled = None
        if draft is not None:
            try:
                if draft.pickled is not None:  # a short log's, pickled where it was drafted
                    data = draft.pickled
                else:  # the blocks copied to the spool, the pickle says where they are
                    assert draft.page is not None
                    page = replace(draft.page, store=draft.page.store.moved(spool))
                    buffer = io.BytesIO()
                    _Spooling(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(page)
                    data = buffer.getvalue()
                spooled = (spool.seek(0, os.SEEK_END), len(data))
                spool.write(data)
            except OSError as exc:  # the temporary folder is full
                raise OutputError(f"{tempfile.gettempdir()}: cannot write the pages' drafts ({reason(exc)})") \
                    from None
        entries.append(_Entry(report, display_path(report.path), draft.facts if draft is not None else None,
                              spooled, item.failure if item is not None else None))
        on_report(report)

    result = audit.run(reported, waiting.add)
    return result, entries


# -- the links between pages -----------------------------------------------------------


def _name(entries: list[_Entry]) -> None:
    taken: set[str] = set()
    folders: dict[str, str] = {}  # a folder's name, made once for all its logs
    for entry in entries:
        folder = posixpath.dirname(entry.shown)
        named = folders.get(folder)
        if named is None:
            named = folders[folder] = folder_name(folder)
        entry.folder = named
        entry.name = page_name(entry.folder, posixpath.basename(entry.shown) or entry.shown, taken)


def _family(entries: list[_Entry]) -> None:
    """Each log's parent and children. A child names its parent in its header
    (``parentSession``), but a header is only a claim: the log of that session id in
    the child's own folder (a harness writes a session's children beside it,
    ``session.N.jsonl``) is its parent; a log of that id elsewhere is its parent only
    when that log names the child (a ``subagent`` result naming the child's session
    id): a log anywhere in an archive cannot make itself another session's child."""
    by_id: dict[str, list[_Entry]] = {}
    for entry in entries:
        if entry.facts is not None and entry.facts.session_id:
            by_id.setdefault(entry.facts.session_id, []).append(entry)
    named: dict[int, frozenset[str]] = {}
    for entry in entries:
        facts = entry.facts
        if facts is None or not facts.parent or not facts.session_id:
            continue
        found = [e for e in by_id.get(facts.parent, ()) if e is not entry]
        near = [e for e in found if e.folder == entry.folder]
        parent = near[0] if near else None
        if parent is None and len(found) == 1:
            far = found[0]
            if id(far) not in named:
                named[id(far)] = _named_ids(far)
            parent = far if facts.session_id in named[id(far)] else None
        if parent is not None:
            entry.parent = parent
            parent.children.append(entry)
    for entry in entries:
        entry.children.sort(key=lambda e: (e.child_index, e.shown))


_ID = re.compile(r"[\w-]+")
"""What can be a session id named in a text: a run of word characters and ``-``
(``s1`` is not named in ``s12``)."""


def _words(text: str) -> list[str]:
    return _ID.findall(text)


def _named_ids(entry: _Entry) -> frozenset[str]:
    """The session ids a log names in its delegations' results."""
    facts = entry.facts
    return frozenset(w for d in facts.delegations for w in _words(d.result_head)) if facts is not None else frozenset()


def _names(text: str, session_id: str) -> bool:
    """Whether ``text`` names ``session_id`` as a whole word (``s1`` is not named in
    ``s12``: a short id must not take another child's call)."""
    return session_id in _words(text)


def _delegations(entry: _Entry) -> dict[int, _Entry | None]:
    """Which child each ``subagent`` call of ``entry`` started: the child its result
    names by session id; else, of the children of its own folder (a harness's
    ``session.N.jsonl``), the next in order, to the calls that did not fail first (a
    call refused before it started one is often one that failed). A child from
    elsewhere is linked only to the call that names it. Linear in calls and
    children: each result's words are looked up, never searched for each child."""
    facts = entry.facts
    if facts is None:
        return {}
    by_id: dict[str, _Entry] = {}
    for kin in entry.children:
        if kin.facts is not None and kin.facts.session_id:
            by_id.setdefault(kin.facts.session_id, kin)
    found: dict[int, _Entry | None] = {d.number: None for d in facts.delegations}
    taken: set[int] = set()
    for d in facts.delegations:
        for word in _words(d.result_head):
            child = by_id.get(word)
            if child is not None and id(child) not in taken:
                found[d.number] = child
                taken.add(id(child))
                break
    free = [c for c in entry.children if id(c) not in taken and c.folder == entry.folder]
    next_free = 0
    for failed in (False, True):
        for d in facts.delegations:
            if found[d.number] is None and d.failed is failed and next_free < len(free):
                found[d.number] = free[next_free]
                next_free += 1
    return found


def _label(source: _Entry, target: _Entry) -> str:
    return posixpath.basename(target.shown) if source.folder == target.folder else target.shown


def page_links(entry: _Entry) -> PageLinks:
    def link(target: _Entry) -> Link:
        return Link(target.name, _label(entry, target))

    return PageLinks(
        index=f"../{INDEX}",
        rules=f"../{RULES_FOLDER}/",
        parent=link(entry.parent) if entry.parent is not None else None,
        children=tuple(link(c) for c in entry.children),
        delegations={n: link(c) if c is not None else None for n, c in _delegations(entry).items()},
        assets=(SITE_STYLE[0], SITE_SCRIPT[0]),
    )


# -- the rule pages ----------------------------------------------------------------------


def breaking(entries: list[_Entry]) -> dict[str, list[Breaking]]:
    """Each rule's sessions in the site: their pages (from the rule pages), their
    findings of it and its first line, most findings first."""
    found: dict[str, list[Breaking]] = {}
    for entry in entries:
        counts: dict[str, list[int | None]] = {}
        for f in entry.report.findings:
            seen = counts.get(f.rule)
            if seen is None:
                counts[f.rule] = [1, f.line]
            else:
                seen[0] = (seen[0] or 0) + 1
        for rule, (n, line) in counts.items():
            found.setdefault(rule, []).append(Breaking(f"../{SESSIONS}/{entry.name}", entry.shown, n or 0, line))
    for sessions in found.values():
        sessions.sort(key=lambda b: -b.findings)
    return found


# -- writing and publishing ------------------------------------------------------------


MARKER_HEAD = b"A session browser replay wrote; each run rewrites this folder. The files it wrote:\n"
"""The marker's first line; the files the site wrote follow, one a line."""
MAX_MARKER_BYTES = 64 << 20
_OLD_MARKER = b"A session browser replay wrote; each run rewrites this folder.\n"
"""The marker of a site written before the marker listed its files (its pages are
recognised by their names)."""


def _written(tree: Tree) -> set[str] | None:
    """The files the site in ``tree`` says it wrote (its marker), ``None`` when there is
    no marker; a marker that lists none (an older replay's) counts its pages."""
    try:
        raw = tree.read(SITE_MARKER, limit=MAX_MARKER_BYTES, what="the site's marker")
    except FsError:
        return None
    if raw is None:
        return None
    if raw.startswith(MARKER_HEAD):
        return set(raw[len(MARKER_HEAD):].decode("utf-8", "replace").splitlines())
    if raw == _OLD_MARKER:
        return {INDEX, *(f"{folder}/{e.name}" for folder in (RULES_FOLDER, SESSIONS)
                         for e in tree.entries(folder) if e.is_file and e.name.endswith(".html"))}
    return set()


def _foreign(tree: Tree, written: set[str]) -> list[str]:
    """What, under the names a site replaces, replay did not write (by ``written``)."""
    found = []
    for name in PUBLISHED:
        if name == SITE_MARKER or not tree.exists(name):
            continue
        if name in (RULES_FOLDER, SESSIONS) and tree.is_folder(name):
            found += [f"{name}/{e.name}" + ("/" if e.is_dir else "") for e in tree.entries(name)
                      if not e.is_file or f"{name}/{e.name}" not in written]
        elif name not in written:
            found.append(name + ("/" if tree.is_folder(name) else ""))
    return found


def claim(tree: Tree, force: bool) -> None:
    """``SiteRefused`` when the folder holds anything but a site replay wrote (or what
    a run of it left behind), unless ``force``; and, ``force`` or not, when a file under
    the names a site replaces is not one replay wrote there (its marker lists what it
    wrote): a site never deletes a file it did not write."""
    names = [e for e in tree.entries() if not e.name.startswith((STAGING, OLD, *LEFTOVER_PREFIXES))]
    if not names:
        return
    written = _written(tree)
    if written is None and not force:
        raise SiteRefused(f"{tree.path}: not empty, and not a site replay wrote (it has no {SITE_MARKER}): "
                          "name a new or empty folder, or add --force to write the site into it")
    foreign = _foreign(tree, written or set())
    if foreign:
        shown = ", ".join(str(tree.at(f)) for f in foreign[:3]) + (f" and {len(foreign) - 3} more"
                                                                   if len(foreign) > 3 else "")
        raise SiteRefused(f"{tree.path}: {shown}: not written by replay, and a site replaces {_replaced()}; refused "
                          "(replay never deletes a file it did not write): move them away, or name another folder")


def _replaced() -> str:
    return ", ".join(f"{n}/" if n in (RULES_FOLDER, SESSIONS) else n for n in PUBLISHED)


def refuse_inputs(tree: Tree, paths: Sequence[str]) -> None:
    """``SiteRefused`` when the site's folder holds one of the inputs, or lies inside
    one: the site would be written over or among the logs it is made of."""
    site = os.path.realpath(tree.path)
    for path in paths:
        local = local_path(path)
        if path == "-" or is_url(local):
            continue
        real = os.path.realpath(local)
        if within(Path(real), Path(site)) or within(Path(site), Path(real)):
            where = "holds" if within(Path(real), Path(site)) else "is inside"
            raise SiteRefused(f"{tree.path}: {where} {sanitize(path)}, a path to read; the site goes to a folder "
                              "apart from its logs")


def _clean(tree: Tree) -> None:
    """Remove what a run that is no longer running left behind."""
    for entry in tree.entries():
        if entry.is_dir and any(abandoned(entry.name, prefix) for prefix in (STAGING, OLD, ASIDE_PREFIX)):
            tree.remove_tree(entry.name)


def _write(tree: Tree, staging: str, entries: list[_Entry], result: AuditResult, request: SiteRequest,
           spool: IO[bytes], passed_over: int) -> None:
    """The whole site, into the staging folder."""
    locale = request.locale
    rows = [Row(e.report, e.shown, f"{SESSIONS}/{e.name}", e.facts, len(e.children)) for e in entries]
    names: list[str] = []
    with tree.writer(staging, staged=True) as write:
        for name, page in rule_pages(locale, request.rule_text, breaking(entries)):
            write(RULES_FOLDER, name, data=[page], what="rule page", durable=False)
            names.append(f"{RULES_FOLDER}/{name}")
        for (asset, data), what in ((SITE_STYLE, "stylesheet"), (SITE_SCRIPT, "script")):  # every session page's
            write(SESSIONS, asset, data=data, what=f"session pages' {what}", durable=False)
            names.append(f"{SESSIONS}/{asset}")
        for entry in entries:
            write(SESSIONS, entry.name, what="session page", durable=False,
                  data=page_chunks(_draft(entry, spool), entry.report, entry.shown, page_links(entry), locale,
                                   entry.failure))
        write(INDEX, data=index_chunks(rows, result, locale, passed_over), what="index", durable=False)
        names += [f"{SESSIONS}/{entry.name}" for entry in entries]
        write(SITE_MARKER, data=MARKER_HEAD + "".join(f"{n}\n" for n in [*names, INDEX]).encode(), durable=False)


PUBLISHED = (RULES_FOLDER, SESSIONS, INDEX, SITE_MARKER)
"""What a site is, in the order it is put in place (what links comes after what it
links to)."""


def _publish(tree: Tree, staging: str) -> None:
    """Put the staged site in place of the old one, as one step (``replay.fs.Commit``):
    each of ``PUBLISHED`` takes the place of its old self, then the staging folder and
    what was replaced are removed; SIGINT and SIGTERM wait for the end, and a run
    killed half-way is finished by the next one (``recover``)."""
    commit = Commit(tree)
    for name in PUBLISHED:
        commit.replace((staging, name), (name,))
    commit.remove_tree(staging)
    commit.run()


def build_site(request: SiteRequest, passed_over: PassedOver = ignore,
               on_report: Callable[[LogReport], None] = lambda report: None) -> SiteResult:
    """Audit the paths and write their site (see the module docstring); every page is
    drafted where its log is audited. ``on_report`` is told each log's report."""
    tree = request.out
    tree.check_root()
    refuse_inputs(tree, request.audit.paths)
    recover(tree)  # a publication a killed run left half-done is finished first
    claim(tree, request.force)
    passed: list[str] = []

    def told(path: str, why: str) -> None:
        passed.append(path)
        passed_over(path, why)

    audit = Audit(request.audit, told, watch=PageWatch(request.locale))
    staging = f"{STAGING}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        with tempfile.TemporaryFile() as spool:
            result, entries = _audit(audit, spool, on_report)
            _name(entries)
            _family(entries)
            _clean(tree)
            _write(tree, staging, entries, result, request, spool, len(passed))
    except BaseException:
        with contextlib.suppress(FsError):
            tree.remove_tree(staging)
        raise
    _publish(tree, staging)  # from its journal on, a commit is finished, by this run or the next
    return SiteResult(result, tree.at(INDEX), len(entries))


def _draft(entry: _Entry, spool: IO[bytes]) -> PageDraft | None:
    if entry.spooled is None:
        return None
    spool.seek(entry.spooled[0])
    draft: PageDraft = _Unspooling(spool.read(entry.spooled[1]), spool).load()
    return draft


__all__ = ["DEFAULT_SITE", "SITE_MARKER", "PageWatch", "SiteRefused", "SiteRequest", "SiteResult", "build_site",
           "claim"]
