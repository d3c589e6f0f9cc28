"""SARIF 2.1.0 (``replay audit --format sarif``): the audit as code-scanning tools and
SARIF viewers read it, GitHub code scanning among them.

One run of the tool ``replay``: every rule as a reporting descriptor (id, short and
full description, help with the rule's example, kind and domain as tags), and one
result per finding: its rule, a level (error → ``error``, warning → ``warning``,
policy → ``note``), its message, its location (the log's path relative to the working
directory, ``%SRCROOT%``, and the line) and its fingerprint (``replay.check.fingerprint``)
as both a full and a partial fingerprint, so a code-scanning service tracks a
finding across runs as the baseline does. With ``--baseline`` every result is
``baselineState: new``.

Any string a log holds is carried safely: a lone surrogate (which UTF-8 cannot
carry) becomes U+FFFD, every other character is escaped by JSON as needed; paths
become percent-encoded URIs from their bytes; an integer beyond JavaScript's safe
range (a seq a log made up) is written as a string.
"""

from __future__ import annotations

import os
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from replay.check.engine import AuditResult, LogReport
from replay.check.explain import RuleHelp, rule_help
from replay.check.registry import RULES
from replay.findings import Finding, Severity
from replay.jsjson import MAX_SAFE_INTEGER
from replay.log.source import display_path
from replay.report.audit import AuditReporter
from replay.report.rules import help_text, paragraphs
from replay.style import LONE_SURROGATE
from replay.urls import is_url

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ROOT = "%SRCROOT%"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.POLICY: "note"}
FINGERPRINT_KEY = "replay/v1"


def text(value: str) -> str:
    """A string SARIF (UTF-8 JSON) can carry: lone surrogates as U+FFFD."""
    return LONE_SURROGATE.sub("\ufffd", value)


def number(value: int | None) -> int | str | None:
    """An integer as JSON readers keep it exactly: as a string beyond ±(2^53-1)."""
    return value if value is None or -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else str(value)


_URL_SAFE = ":/?#[]@!$&'()*+,;=%~"
"""What stays as it is when a URL is written as a SARIF URI (its own syntax)."""


def artifact_uri(path: str, cwd: str | None = None) -> tuple[str, str | None]:
    """The URI of a log and its base id: relative to the working directory
    (``%SRCROOT%``) when the log is inside it or was named relatively, else an absolute
    ``file`` URI; each path segment percent-encoded from its bytes. A log found at a
    URL is that URL (as reports name it: without credentials)."""
    if is_url(path):
        return quote(path.encode("utf-8", "surrogatepass"), safe=_URL_SAFE), None
    shown = display_path(path, cwd)
    segments = [quote(_path_bytes(part), safe="") for part in shown.split(os.sep)]
    if os.path.isabs(shown):
        return "file://" + "/".join(segments), None
    return "/".join(segments), ROOT


def _path_bytes(part: str) -> bytes:
    """A path segment's bytes: as the file system gave them (undecodable bytes come back
    from their surrogate escapes), any other lone surrogate as its UTF-8 form."""
    try:
        return os.fsencode(part)
    except UnicodeEncodeError:
        return part.encode("utf-8", "surrogatepass")


def _tool_version() -> str:
    try:
        return metadata.version("replay")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def help_markdown(help: RuleHelp) -> str:
    """A rule's help in Markdown: what it checks, the example (its bad line marked),
    what the audit says of it, and what the harness does."""
    rule = help.rule
    example = rule.example
    parts = [f"**{rule.id}**: {rule.summary}", paragraphs(rule.explanation)]
    if example is not None:
        lines = [f"{'>' if n == example.bad_line else ' '} {line}" for n, line in enumerate(example.lines, start=1)]
        parts.append(f"Example: line {example.bad_line} of this log breaks {rule.id}"
                     + (f" (with `--policy {example.policy}`)" if example.policy else "") + ":\n\n```\n"
                     + ("\n".join(lines) if lines else "(an empty file)") + "\n```")
        parts.extend(f"The audit says: `{f.severity.value}`: {f.message}" for f in help.findings)
    parts.append("What today's harness does: " + " ".join(rule.harness.split()))
    return "\n\n".join(parts)


@cache
def _rules() -> tuple[dict[str, Any], ...]:
    descriptors = []
    for rule_id in RULES:
        help = rule_help(rule_id)
        rule = help.rule
        descriptors.append({
            "id": rule.id,
            "name": rule.id,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": " ".join(rule.explanation.split())},
            "help": {"text": help_text(help), "markdown": help_markdown(help)},
            "properties": {"tags": [rule.kind, rule.domain], "kind": rule.kind, "domain": rule.domain},
        })
    return tuple(descriptors)


def _result(report: LogReport, f: Finding, rule_index: dict[str, int], cwd: str | None,
            baseline: bool) -> dict[str, Any]:
    uri, base = artifact_uri(report.path, cwd)
    artifact: dict[str, Any] = {"uri": uri}
    if base is not None:
        artifact["uriBaseId"] = base
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if f.line is not None and f.line >= 1:
        physical["region"] = {"startLine": f.line}
    result: dict[str, Any] = {"ruleId": f.rule}
    if f.rule in rule_index:
        result["ruleIndex"] = rule_index[f.rule]
    result.update({"level": LEVELS[f.severity], "message": {"text": text(f.message)},
                   "locations": [{"physicalLocation": physical}]})
    if f.fingerprint is not None:
        result["fingerprints"] = {FINGERPRINT_KEY: f.fingerprint}
        result["partialFingerprints"] = {FINGERPRINT_KEY: f.fingerprint}
    if baseline:
        result["baselineState"] = "new"
    properties: dict[str, Any] = {"severity": f.severity.value}
    if f.seq is not None:
        properties["seq"] = number(f.seq)
    if f.type is not None:
        properties["type"] = text(f.type)
    result["properties"] = properties
    return result


def sarif_document(result: AuditResult, cwd: str | None = None, baseline: bool = False) -> dict[str, Any]:
    """The SARIF log of an audit (see the module docstring)."""
    rules = _rules()
    rule_index = {r["id"]: i for i, r in enumerate(rules)}
    base = Path(cwd if cwd is not None else os.getcwd()).resolve()
    results = [_result(report, f, rule_index, cwd, baseline) for report in result.reports for f in report.findings]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "replay", "version": _tool_version(), "rules": list(rules)}},
            "invocations": [{"executionSuccessful": True}],
            "originalUriBaseIds": {ROOT: {"uri": base.as_uri() + "/"}},
            "results": results,
        }],
    }


class AuditSarif(AuditReporter):
    """One SARIF 2.1.0 log (see the module docstring)."""

    writes_json = True

    needs_fingerprints = True

    def finish(self, result: AuditResult) -> None:
        self.write_utf8(orjson.dumps(sarif_document(result, self.view.cwd, self.view.baseline),
                                     option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))

