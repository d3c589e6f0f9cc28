"""Formatters of snapshot results (check and refresh): text, JSON, GitHub
annotations and JUnit XML. Pure functions of the results."""

from __future__ import annotations

from collections.abc import Iterator

import orjson

from replay.report.audit import gh_escape, neutral
from replay.report.junit import Case, Suite, junit_xml
from replay.snapshot.compare import FileResult, RefreshResult, ScenarioResult

_MARK = {True: "✗", False: "✓"}
_GREEN, _RED, _DIM, _RESET = "\x1b[32m", "\x1b[31m", "\x1b[2m", "\x1b[0m"


def _golden_path(goldens: str, f: FileResult) -> str:
    return f"{goldens}/{f.scenario}/{f.name}"


def check_text(results: list[ScenarioResult], goldens: str, color: bool) -> Iterator[str]:
    """One line per scenario; failed files with their differences under it."""
    for r in results:
        mark = _MARK[r.failed]
        if color:
            mark = f"{_RED if r.failed else _GREEN}{mark}{_RESET}"
        ok = sum(1 for f in r.files if f.status == "ok")
        yield f"{mark} {r.name} ({ok}/{len(r.files)} goldens match)\n"
        if r.error:
            yield f"    error: {neutral(r.error)}\n"
        for f in r.files:
            if not f.failed:
                continue
            yield f"    {_golden_path(goldens, f)}: {f.status}\n"
            for change in f.changes:
                yield f"        {neutral(change)}\n"
    failed = sum(1 for r in results if r.failed)
    files = sum(1 for r in results for f in r.files if f.failed)
    verdict = (f"{failed} of {len(results)} scenarios failed ({files} golden files); run `replay refresh` to "
               "accept the new output" if failed else f"all {len(results)} scenarios match their goldens")
    yield "\n" + (f"{_RED if failed else _GREEN}{verdict}{_RESET}" if color else verdict) + "\n"


def refresh_text(result: RefreshResult, goldens: str) -> Iterator[str]:
    for r in result.scenarios:
        if r.error:
            yield f"✗ {r.name}: {neutral(r.error)}\n"
            continue
        touched = [f for f in r.files if f.status != "unchanged"]
        for f in touched:
            yield f"{f.status:>9} {_golden_path(goldens, f)}\n"
    counts = result.counts()
    yield (f"created {counts['created']}, updated {counts['updated']}, unchanged {counts['unchanged']}, "
           f"deleted {counts['deleted']} (orphans kept: {counts['orphan']}"
           + ("; use --prune to delete them)" if counts["orphan"] else ")") + "\n")


def check_json(results: list[ScenarioResult], goldens: str) -> bytes:
    doc = {
        "scenarios": [{
            "name": r.name, "status": "failed" if r.failed else "ok", "error": r.error,
            "files": [{"path": _golden_path(goldens, f), "name": f.name, "status": f.status,
                       "changes": list(f.changes)} for f in r.files],
        } for r in results],
        "summary": {"scenarios": len(results), "failed": sum(1 for r in results if r.failed),
                    "files": sum(len(r.files) for r in results),
                    "failed_files": sum(1 for r in results for f in r.files if f.failed)},
    }
    encoded: bytes = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    return encoded + b"\n"


def check_github(results: list[ScenarioResult], goldens: str) -> Iterator[str]:
    for r in results:
        if r.error:
            yield f"::error title={gh_escape('scenario ' + r.name, True)}::{gh_escape(r.error)}\n"
        for f in r.files:
            if f.failed:
                message = f"{f.status}: " + "\n".join(f.changes)
                yield (f"::error file={gh_escape(_golden_path(goldens, f), True)},"
                       f"title={gh_escape('golden ' + f.status, True)}::{gh_escape(message)}\n")


def check_junit(results: list[ScenarioResult], goldens: str) -> bytes:
    """One test case per golden file, grouped in one suite per scenario."""
    suites = []
    for r in results:
        suite = Suite(r.name)
        if r.error:
            suite.cases.append(Case("run", "the scenario did not run", r.error))
        suite.cases.extend(Case(f.name, f"{_golden_path(goldens, f)}: {f.status}" if f.failed else None,
                                "\n".join(f.changes)) for f in r.files)
        suites.append(suite)
    return junit_xml("replay check", suites)
