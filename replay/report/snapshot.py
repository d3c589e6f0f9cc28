"""Reporters of snapshot results: a check (``replay.scenarios.check.CheckReport``) as
text, JSON and GitHub annotations for ``--format``, a Markdown step summary and JUnit
XML beside them; a refresh (``RefreshResult``) as text; accept, reject and review
(``replay.goldens.pending.PendingResult``) as text, and one pending golden as review
shows it.

Every change is cited as ``goldens/<scenario>/<artefact>:<line>`` (the golden's line
it starts on), which editors and terminals open at that line.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from replay.goldens import DECISIONS, QUIT
from replay.hints import line
from replay.output import json_bytes
from replay.report.base import Reporter
from replay.report.github import annotation
from replay.report.junit import Case, Suite, junit_xml
from replay.scenarios.steps import Step, next_steps
from replay.style import PLAIN, Style, sanitize
from replay.words import by_count, counted

if TYPE_CHECKING:
    from replay.goldens.compare import FileResult
    from replay.goldens.lines import Change
    from replay.goldens.pending import EntryView, PendingResult
    from replay.scenarios.check import CheckReport, RefreshResult, ScenarioResult
    from replay.scenarios.compare_logs import LogDiff

_MARKS = {True: ("✗", "red"), False: ("✓", "green")}
ANNOTATION_LIMIT = 10
"""GitHub shows at most ten error annotations of a step; past that, the last one sums up."""
SUMMARY_WIDTH = 120
"""The widest a first change is shown in the step summary."""


def golden_path(goldens: str, f: FileResult) -> str:
    return f"{goldens}/{f.scenario}/{f.name}"


def location(path: str, change: Change) -> str:
    """``path:line`` (``path`` when the change has no line)."""
    return path if change.line is None else f"{path}:{change.line}"


def change_text(path: str, found: Sequence[Change], style: Style, indent: str) -> str:
    """Each change as ``path:line: text`` (its hunk's lines under it), sanitized."""
    out = []
    for change in found:
        where = style.paint("bold", sanitize(location(path, change))) + ": " if change.line is not None else ""
        out.append(f"{indent}{where}{sanitize(change.text)}\n")
        out.extend(f"{indent}  {sanitize(line)}\n" for line in change.body)
    return "".join(out)


def steps_text(steps: Sequence[Step], style: Style) -> str:
    out = []
    for step in steps:
        out.append(f"  {sanitize(step.why)}" + (":" if step.command else "") + "\n")
        if step.command:
            out.append("    " + style.paint("bold", sanitize(step.command)) + "\n")
    return "".join(out)


class CheckReporter(Reporter["ScenarioResult", "CheckReport"]):
    """A format of a check: its units are the scenarios' results, in check order.
    ``verbose``: the text names every scenario, not only those that failed."""

    shows_progress = True

    def __init__(self, stream: TextIO, style: Style = PLAIN, verbose: bool = False) -> None:
        super().__init__(stream, style)
        self.verbose = verbose

    def units(self, result: CheckReport) -> Sequence[ScenarioResult]:
        return result.scenarios

    @classmethod
    def render(cls, result: CheckReport, style: Style = PLAIN, verbose: bool = False) -> str:
        out = io.StringIO()
        cls(out, style, verbose).run(result)
        return out.getvalue()


def _failed_files(result: CheckReport) -> int:
    return sum(1 for r in result.scenarios for f in r.files if f.failed)


class CheckText(CheckReporter):
    """The scenarios that failed (every one with ``verbose``), each failed file with its
    changes under it; one verdict line, and the next commands."""

    def finish(self, result: CheckReport) -> None:
        paint = self.style.paint
        for r in result.scenarios:
            if not (r.failed or self.verbose):
                continue
            mark, color = _MARKS[r.failed]
            if r.error:
                self.write(f"{paint(color, mark)} {sanitize(r.name)}: did not run\n    {sanitize(r.error)}\n")
                continue
            ok = sum(1 for f in r.files if f.status == "ok")
            self.write(f"{paint(color, mark)} {sanitize(r.name)} ({ok} of {counted(len(r.files), 'golden')} "
                       "match)\n")
            for f in r.files:
                if not f.failed:
                    continue
                path = golden_path(result.goldens, f)
                self.write(f"    {sanitize(path)}: {f.status}\n")
                self.write(change_text(path, f.changes, self.style, "      "))
        scenarios = result.scenarios
        failed = sum(1 for r in scenarios if r.failed)
        files = _failed_files(result)
        verdict = (f"{failed} of {counted(len(scenarios), 'scenario')} failed"
                   + (f" ({counted(files, 'golden file')})" if files else "") if failed
                   else f"{'all ' if len(scenarios) > 1 else ''}{counted(len(scenarios), 'scenario')} "
                        f"{'match' if len(scenarios) > 1 else 'matches'} {'their' if len(scenarios) > 1 else 'its'} "
                        "goldens")
        steps = next_steps(result)
        self.write(("\n" if failed or self.verbose else "") + paint("red" if failed else "green", verdict)
                   + (". Next:" if steps else "") + "\n")
        self.write(steps_text(steps, self.style))


def _change_doc(c: Change) -> dict[str, Any]:
    return {"line": c.line, "text": c.text, "body": list(c.body)}


def check_document(result: CheckReport) -> dict[str, Any]:
    """The JSON report's document: every scenario with its files and changes, a
    summary, the pending goldens written and the next steps."""
    scenarios = result.scenarios
    pending = result.context.pending
    return {
        "scenarios": [{
            "name": r.name, "status": "failed" if r.failed else "ok", "error": r.error,
            "files": [{"path": golden_path(result.goldens, f), "name": f.name, "status": f.status, "line": f.line,
                       "changes": [_change_doc(c) for c in f.changes]} for f in r.files],
        } for r in scenarios],
        "summary": {"scenarios": len(scenarios), "failed": sum(1 for r in scenarios if r.failed),
                    "files": sum(len(r.files) for r in scenarios), "failed_files": _failed_files(result)},
        "pending": None if pending is None else {"folder": pending.folder, "count": pending.count},
        "next": [{"why": s.why, "command": s.command} for s in next_steps(result)],
    }


class CheckJson(CheckReporter):
    """One JSON document: every scenario with its files and changes, and a summary."""

    writes_json = True

    def finish(self, result: CheckReport) -> None:
        self.write(json_bytes(check_document(result), indent=True).decode())
        self.write("\n")


def scenario_file(result: CheckReport, r: ScenarioResult) -> str:
    return f"{result.context.scenarios_dir}/{r.name}/scenario.json"


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


class CheckGithub(CheckReporter):
    """GitHub Actions annotations: one per scenario that did not run and at most one per
    failed golden, on the line of its first change; past ten, the tenth sums up the
    rest and a folded group of the log lists every one."""

    def finish(self, result: CheckReport) -> None:
        items: list[tuple[str, str]] = []  # (annotation, the line the folded list shows)
        for r in result.scenarios:
            if r.error:
                where = scenario_file(result, r)
                items.append((annotation("error", r.error, file=where, title=f"scenario {r.name} did not run"),
                              f"{where}: did not run: {_first_line(r.error)}"))
            for f in r.files:
                if not f.failed:
                    continue
                path = golden_path(result.goldens, f)
                message = "\n".join(f"line {c.line}: {line}" if i == 0 and c.line is not None else line
                                    for c in f.changes for i, line in enumerate(c.lines()))
                first = f.changes[0].text if f.changes else ""
                items.append((annotation("error", message, file=path, line=f.line, title=f"golden {f.status}"),
                              f"{path}{'' if f.line is None else f':{f.line}'}: {f.status}: {first}"))
        if len(items) <= ANNOTATION_LIMIT:
            self.write("".join(a + "\n" for a, _ in items))
            return
        shown = ANNOTATION_LIMIT - 1
        group = f"{line('check')}: {len(items)} failing goldens and scenarios"
        self.write("".join(a + "\n" for a, _ in items[:shown]))
        more = len(items) - shown
        self.write(annotation("error", f"{more} more {by_count(more, 'golden or scenario|goldens or scenarios')} "
                                       f"failed; the folded group '{group}' of this step's log lists all {len(items)}",
                              title=line("check")) + "\n")
        self.write(f"::group::{group}\n")
        self.write("".join(sanitize(line) + "\n" for _, line in items))
        self.write("::endgroup::\n")


_MD_ESCAPES = str.maketrans({"\\": "\\\\", "|": "\\|", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[",
                             "]": "\\]", "#": "\\#", "<": "&lt;", ">": "&gt;", "&": "&amp;"})


def markdown(text: str, width: int | None = None) -> str:
    """Untrusted text as one Markdown table cell: sanitized, one line, nothing active."""
    text = sanitize(text)
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    return text.translate(_MD_ESCAPES)


def code_span(text: str) -> str:
    """``text`` as inline code when it can be one (no backtick, pipe or control in it),
    else as escaped text."""
    shown = sanitize(text)
    if shown == text and not any(ch in text for ch in "`|\n"):
        return f"`{text}`"
    return markdown(text)


def _status(r: ScenarioResult) -> str:
    if r.error:
        return "❌ did not run"
    bad = sorted({f.status for f in r.files if f.failed})
    return "❌ " + ", ".join(bad) if bad else "✅ ok"


def _first_change(result: CheckReport, r: ScenarioResult) -> str:
    if r.error:
        return markdown(r.error, SUMMARY_WIDTH)
    for f in r.files:
        if f.failed:
            path = golden_path(result.goldens, f)
            where = path if f.line is None else f"{path}:{f.line}"
            text = f.changes[0].text if f.changes else f.status
            return f"{code_span(where)}: {markdown(text, SUMMARY_WIDTH)}"
    return ""


class CheckStepSummary(CheckReporter):
    """A Markdown table for GitHub's job summary (``$GITHUB_STEP_SUMMARY``): each
    scenario's goldens, status and first change; then the next command."""

    def finish(self, result: CheckReport) -> None:
        scenarios = result.scenarios
        failed = sum(1 for r in scenarios if r.failed)
        title = (f"{failed} of {counted(len(scenarios), 'scenario')} failed "
                 f"({counted(_failed_files(result), 'golden file')})" if failed
                 else f"{'all ' if len(scenarios) > 1 else ''}{counted(len(scenarios), 'scenario')} "
                      f"{by_count(len(scenarios), 'matches its|match their')} goldens")
        out = [f"### {line('check')}: {title}", "", "| scenario | goldens | status | first change |",
               "| --- | --- | --- | --- |"]
        for r in scenarios:
            ok = sum(1 for f in r.files if f.status == "ok")
            cells = [markdown(r.name), f"{ok}/{len(r.files)} match", _status(r), _first_change(result, r)]
            out.append(f"| {' | '.join(cells)} |")
        steps = next_steps(result)
        if steps:
            out.append("")
            out.append("Next:")
            out.extend(f"- {markdown(s.why)}" + (f": {code_span(s.command)}" if s.command else "") for s in steps)
        self.write("\n".join(out) + "\n\n")


class CheckJunit(CheckReporter):
    """One suite per scenario, one test case per golden (``file`` is the golden), a
    ``<failure>`` typed by its status with the changes as text; a scenario that did not
    run is an ``<error>`` of its ``scenario.json``."""

    def finish(self, result: CheckReport) -> None:
        context = result.context
        timestamp = None if context.started is None else context.started.isoformat(timespec="seconds")
        suites = []
        for r in result.scenarios:
            suite = Suite(r.name, time=r.seconds, timestamp=timestamp, hostname=context.host or None)
            if r.error:
                suite.cases.append(Case("scenario.json", _first_line(r.error), r.error, kind="error",
                                        type="scenario error", time=r.seconds, file=scenario_file(result, r)))
            for f in r.files:
                path = golden_path(result.goldens, f)
                message = None
                if f.failed:
                    first = f.changes[0] if f.changes else None
                    message = f"{path}: {f.status}" if first is None else \
                        f"{location(path, first)}: {f.status}: {first.text}"
                details = change_text(path, f.changes, Style(), "") if f.failed else ""
                suite.cases.append(Case(f.name, message, details, type=f.status if f.failed else None,
                                        time=f.seconds, file=path))
            suites.append(suite)
        self.write(junit_xml(line("check"), suites, time=result.seconds).decode("utf-8"))


class RefreshText(Reporter["ScenarioResult", "RefreshResult"]):
    """Each golden created, updated or deleted (and each orphan kept), then the counts;
    a dry run says what it would do, with each golden's changes."""

    def units(self, result: RefreshResult) -> Sequence[ScenarioResult]:
        return result.scenarios

    def finish(self, result: RefreshResult) -> None:
        dry = result.dry_run
        for r in result.scenarios:
            if r.error:
                self.write(f"✗ {sanitize(r.name)}: {sanitize(r.error)}\n")
                continue
            for f in r.files:
                if f.status == "unchanged":
                    continue
                path = golden_path(result.goldens, f)
                verb = {"created": "create", "updated": "update", "deleted": "delete"}.get(f.status)
                label = f"would {verb}" if dry and verb else f.status
                self.write(f"{label:>{12 if dry else 9}} {sanitize(path)}\n")
                self.write(change_text(path, f.changes, self.style, "      "))
        counts = result.counts()
        orphans = (f"(orphans kept: {counts['orphan']}" + ("; use --prune to delete them)" if counts["orphan"]
                                                          else ")"))
        if dry:
            self.write(f"dry run, nothing written: would create {counts['created']}, update {counts['updated']}, "
                       f"delete {counts['deleted']}; unchanged {counts['unchanged']} {orphans}\n")
        else:
            self.write(f"created {counts['created']}, updated {counts['updated']}, unchanged {counts['unchanged']}, "
                       f"deleted {counts['deleted']} {orphans}\n")


def entry_text(view: EntryView, position: str, style: Style) -> str:
    """One pending golden as review shows it: which, then the changes accepting it makes."""
    state = "differs from the golden" if view.status == "differs" else "a new golden"
    head = style.paint("bold", f"{position} {sanitize(view.golden)}") + f" ({state})\n"
    return head + change_text(view.golden, view.changes, style, "  ")


REVIEW_KEYS = " · ".join([*(f"{key} {what}" for key, what in DECISIONS.items()), f"{QUIT} quit", "? help"])
REVIEW_HELP = """\
  a  accept: write the pending golden over the golden (refused if the golden changed since)
  r  reject: drop the pending golden; the golden is not touched
  s  skip:   leave it pending for later
  A  accept this and every one after it     R  reject this and every one after it
  S  skip this and every one after it       q  quit: leave the rest pending
"""


class PendingText(Reporter["Any", "PendingResult"]):
    """What an accept, reject or review did: each golden accepted, rejected or refused
    (with why), then the counts and what is still pending."""

    def units(self, result: PendingResult) -> Sequence[Any]:
        return result.decisions

    def finish(self, result: PendingResult) -> None:
        paint = self.style.paint
        colors = {"accepted": "green", "rejected": "yellow", "refused": "red", "skipped": "dim"}
        for d in result.decisions:
            if d.action == "skipped":
                continue
            self.write(f"{paint(colors[d.action], f'{d.action:>8}')} {sanitize(d.golden)}\n")
            if d.reason:
                self.write(f"         {sanitize(d.reason)}\n")
        if not result.decisions and not result.left:
            self.write(f"nothing pending in {sanitize(result.pending)}\n")
            return
        parts = [f"{action} {result.count(action)}" for action in ("accepted", "rejected", "skipped", "refused")
                 if result.count(action) or action in ("accepted", "rejected")]
        tail = f"{result.left} still pending in {sanitize(result.pending)}" if result.left else "nothing left pending"
        self.write(", ".join(parts) + f"; {tail}\n")


def diff_text(result: LogDiff, style: Style = PLAIN) -> str:
    """``replay diff``: each change at its line of A, then one verdict line."""
    if result.same:
        return f"{sanitize(result.a)} and {sanitize(result.b)} hold the same content\n"
    text = change_text(result.a, result.changes, style, "")
    return text + style.paint("red", f"{sanitize(result.a)} and {sanitize(result.b)} differ") + "\n"


def diff_json(result: LogDiff) -> str:
    """``replay diff --format json``: both paths, whether they hold the same, the changes."""
    document = {"a": result.a, "b": result.b, "same": result.same, "changes": [_change_doc(c) for c in result.changes]}
    return json_bytes(document, indent=True).decode() + "\n"
