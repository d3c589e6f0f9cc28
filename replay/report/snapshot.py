"""Reporters of snapshot results: a check (``replay.snapshot.compare.CheckReport``)
as text, JSON and GitHub annotations for ``--format``, JUnit XML for ``--junit``; a
refresh (``RefreshResult``) as text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from replay.report.base import Reporter
from replay.report.github import annotation
from replay.report.junit import Case, Suite, junit_xml
from replay.style import sanitize

if TYPE_CHECKING:
    from replay.snapshot.compare import CheckReport, FileResult, RefreshResult, ScenarioResult

_MARKS = {True: ("✗", "red"), False: ("✓", "green")}


def golden_path(goldens: str, f: FileResult) -> str:
    return f"{goldens}/{f.scenario}/{f.name}"


class CheckReporter(Reporter["ScenarioResult", "CheckReport"]):
    """A format of a check: its units are the scenarios' results, in check order."""

    shows_progress = True

    def units(self, result: CheckReport) -> Sequence[ScenarioResult]:
        return result.scenarios


class CheckText(CheckReporter):
    """One line per scenario; failed files with their differences under it; a verdict."""

    def finish(self, result: CheckReport) -> None:
        paint = self.style.paint
        for r in result.scenarios:
            mark, color = _MARKS[r.failed]
            ok = sum(1 for f in r.files if f.status == "ok")
            self.write(f"{paint(color, mark)} {sanitize(r.name)} ({ok}/{len(r.files)} goldens match)\n")
            if r.error:
                self.write(f"    error: {sanitize(r.error)}\n")
            for f in r.files:
                if not f.failed:
                    continue
                self.write(f"    {sanitize(golden_path(result.goldens, f))}: {f.status}\n")
                for change in f.changes:
                    self.write(f"        {sanitize(change)}\n")
        scenarios = result.scenarios
        failed = sum(1 for r in scenarios if r.failed)
        files = sum(1 for r in scenarios for f in r.files if f.failed)
        verdict = (f"{failed} of {len(scenarios)} scenarios failed ({files} golden files); run `replay refresh` "
                   "to accept the new output" if failed else f"all {len(scenarios)} scenarios match their goldens")
        self.write("\n" + paint("red" if failed else "green", verdict) + "\n")


def check_document(result: CheckReport) -> dict[str, Any]:
    """The JSON report's document: every scenario with its files and changes, and a summary."""
    scenarios = result.scenarios
    return {
        "scenarios": [{
            "name": r.name, "status": "failed" if r.failed else "ok", "error": r.error,
            "files": [{"path": golden_path(result.goldens, f), "name": f.name, "status": f.status,
                       "changes": list(f.changes)} for f in r.files],
        } for r in scenarios],
        "summary": {"scenarios": len(scenarios), "failed": sum(1 for r in scenarios if r.failed),
                    "files": sum(len(r.files) for r in scenarios),
                    "failed_files": sum(1 for r in scenarios for f in r.files if f.failed)},
    }


class CheckJson(CheckReporter):
    """One JSON document: every scenario with its files and changes, and a summary."""

    def finish(self, result: CheckReport) -> None:
        self.write(orjson.dumps(check_document(result), option=orjson.OPT_INDENT_2).decode())
        self.write("\n")


class CheckGithub(CheckReporter):
    """An error annotation per scenario that did not run and per failed golden."""

    def finish(self, result: CheckReport) -> None:
        for r in result.scenarios:
            if r.error:
                self.write(annotation("error", r.error, title=f"scenario {r.name}") + "\n")
            for f in r.files:
                if f.failed:
                    self.write(annotation("error", f"{f.status}: " + "\n".join(f.changes),
                                          file=golden_path(result.goldens, f), title=f"golden {f.status}") + "\n")


class CheckJunit(CheckReporter):
    """One test case per golden file, grouped in one suite per scenario."""

    def finish(self, result: CheckReport) -> None:
        suites = []
        for r in result.scenarios:
            suite = Suite(r.name)
            if r.error:
                suite.cases.append(Case("run", "the scenario did not run", r.error))
            suite.cases.extend(Case(f.name, f"{golden_path(result.goldens, f)}: {f.status}" if f.failed else None,
                                    "\n".join(f.changes)) for f in r.files)
            suites.append(suite)
        self.write(junit_xml("replay check", suites).decode("utf-8"))


class RefreshText(Reporter["ScenarioResult", "RefreshResult"]):
    """Each golden created, updated or deleted (and each orphan kept), then the counts."""

    def units(self, result: RefreshResult) -> Sequence[ScenarioResult]:
        return result.scenarios

    def finish(self, result: RefreshResult) -> None:
        for r in result.scenarios:
            if r.error:
                self.write(f"✗ {sanitize(r.name)}: {sanitize(r.error)}\n")
                continue
            for f in r.files:
                if f.status != "unchanged":
                    self.write(f"{f.status:>9} {sanitize(golden_path(result.goldens, f))}\n")
        counts = result.counts()
        self.write(f"created {counts['created']}, updated {counts['updated']}, unchanged {counts['unchanged']}, "
                   f"deleted {counts['deleted']} (orphans kept: {counts['orphan']}"
                   + ("; use --prune to delete them)" if counts["orphan"] else ")") + "\n")
