"""The header record (spec §1.2) and the rules that judge it: A1–A5 (the JSONL
header guard) and C1 (``Session`` construction)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from replay.findings import Example, Finding, Rule
from replay.hints import command
from replay.log.lines import Unparsable, decode_json
from replay.log.values import CWD_PLACEHOLDER, is_nonneg_safe_int, is_number, is_placeholder, json_type
from replay.output import show

A1 = Rule(
    "A1", "format", "storage", "the log starts with one complete header line",
    explanation="""
        A session log starts with exactly one complete line, ending in a newline, that holds the
        session header. An empty file, or a file whose first line never ends, has no header.""",
    examples=[
        Example(
            "an empty file", bad_line=1,
            log="",
            audit="""
                line 1: A1 error: the file is empty: a session log starts with a session header line
                """),
        Example(
            "a header line without a newline", bad_line=1, final_newline=False,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                """,
            audit="""
                line 1: A1 error: the log has a first line that never ends (no newline): a session log starts with one complete line (ending in a newline) holding the session header
                """),  # noqa: E501
    ],
    harness="""
        Refuses the log as "empty or header-less". (A session that was created but never written to
        has no file at all, so an empty file is always damage.)""",
)

A2 = Rule(
    "A2", "format", "storage", "the header line is valid JSON",
    explanation="""The first line, the session header, must be valid JSON.""",
    examples=[
        Example(
            "a header cut short", bad_line=1,
            log="""
                {"type":"session","version":0,"id":"s1",
                """,
            audit="""
                line 1: A2 error: the first line should be the session header, but it cannot be parsed: not valid JSON (Expecting property name enclosed in double quotes: line 1 column 41 (char 40))
                """),  # noqa: E501
    ],
    harness="""Refuses the log: its header line is not valid JSON.""",
)

A3 = Rule(
    "A3", "format", "storage", "the header's format version is 0 (a newer or older version is refused)",
    explanation="""
        The header's "version" is the format version of the whole log. Today's harness reads version 0
        only: a larger number means a newer harness wrote the log, a smaller one a format older than
        any harness can read.""",
    examples=[
        Example(
            "version 1", bad_line=1,
            log="""
                {"type":"session","version":1,"id":"s1","createdAt":0,"delegationDepth":0}
                """,
            audit="""
                line 1: A3 error: the header says format version 1, but today's harness reads only version 0: the log was written by a newer harness; upgrade the harness to read it
                """),  # noqa: E501
    ],
    harness="""
        Refuses the log before looking at anything else, saying whether it is too new (upgrade the
        harness) or too old (there is no upgrade path).""",
)

A4 = Rule(
    "A4", "format", "storage", "the session header has the fields today's reader requires, with the right types",
    explanation="""
        The session header must be a JSON object with "type": "session", a numeric "version", a string
        "id", and "createdAt" and "delegationDepth" as whole numbers from 0 (not -0); "origin", when
        present, is "subagent", and "agentPreset", when present, a string. Logs written before the
        delegation depth was recorded have no "delegationDepth" and fail here.""",
    examples=[
        Example(
            "no delegationDepth", bad_line=1,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work"}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 1: A4 error: today's harness refuses this session header: it has no "delegationDepth" field (logs written before the delegation depth was recorded lack it)
                """),  # noqa: E501
        Example(
            "createdAt -0", bad_line=1,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":-0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"turn/end","seq":1,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 1: A4 error: today's harness refuses this session header: "createdAt" must be a whole number from 0 to 2^53-1, got 0 (-0)
                """),  # noqa: E501
    ],
    harness="""Refuses the log: "the first line is not a session header".""",
)

A5 = Rule(
    "A5", "format", "storage", "the header has no retired sandboxMode or approvalPolicy field",
    explanation="""
        Headers once carried the session's sandbox mode and approval policy. Those fields
        ("sandboxMode", "approvalPolicy") were retired; a header that still has them is refused rather
        than silently reinterpreted.""",
    examples=[
        Example(
            "a retired approvalPolicy", bad_line=1,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0,"approvalPolicy":"never"}
                """,
            audit="""
                line 1: A5 error: the session header still has the retired field(s) approvalPolicy, which today's harness refuses: remove them
                """),  # noqa: E501
        Example(
            "a retired sandboxMode", bad_line=1,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0,"sandboxMode":"read-only"}
                """,
            audit="""
                line 1: A5 error: the session header still has the retired field(s) sandboxMode, which today's harness refuses: remove them
                """),  # noqa: E501
    ],
    harness="""Refuses the log: the header "uses retired policy baseline fields".""",
)

C1 = Rule(
    "C1", "format", "session", "the header's cwd is absolute; parentSession and seedLength have the right types",
    explanation="""
        Besides the reader's own header checks (rule A4), building the session needs an absolute "cwd"
        (the {{cwd}} placeholder of fixtures counts as one), a string "parentSession" and a
        whole-number "seedLength" from 0, when those are present.""",
    examples=[
        Example(
            "a relative cwd", bad_line=1,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"work","delegationDepth":0}
                """,
            audit="""
                line 1: C1 error: the session header's "cwd" must be an absolute path, got "work"
                """),
    ],
    harness="""Refuses the log: the session header is invalid.""",
)


_NEG_ZERO = {
    key: re.compile(rb'"' + key.encode() + rb'"\s*:\s*-0(?![0-9.eE])')
    for key in ("createdAt", "delegationDepth")
}


@dataclass(frozen=True, slots=True)
class Header:
    """The session header as read. ``record`` keeps every key, in file order."""

    record: dict[str, Any]

    @property
    def id(self) -> str | None:
        v = self.record.get("id")
        return v if isinstance(v, str) else None

    @property
    def cwd(self) -> str | None:
        v = self.record.get("cwd")
        return v if isinstance(v, str) else None


def looks_like(record: dict[str, Any]) -> str:
    """What a JSON first line that is not a session header looks like, in words, for
    the commands that need a session log (``render``, ``plan``, ``view``, ``new``)."""
    if "jsonrpc" in record:
        return ("an ACP transcript (JSON-RPC messages, such as a harness's stdout.expected.jsonl or what "
                f"{command('render', 'acp')} writes), not a session log: give the session.jsonl it was rendered from")
    if "seq" in record or "seq0" in record:
        return ("a session log's events without its session header (the log's first line is missing): give the "
                "whole log")
    return f'a JSON line whose "type" is {show(record.get("type"))}, not a session header: not a session log'


def _err(rule: Rule, message: str) -> Finding:
    return rule.error(message, line=1, type="session")


def _is_absolute_cwd(cwd: str) -> bool:
    # Fixtures write "{{cwd}}" (or "{{cwd}}/workspace") where the harness's fixture
    # loader substitutes the absolute temporary workspace.
    return cwd.startswith("/") or (is_placeholder(cwd) and cwd.startswith(CWD_PLACEHOLDER))


def parse_header(payload: bytes | bytearray | None, terminated: bool) -> tuple[Header | None, list[Finding]]:
    """Decode and judge the first record. A ``Header`` is returned whenever the record
    is a JSON object, even a non-conforming one, so the events can still be audited."""
    if payload is None or not terminated or not payload.strip():
        what = "a first line that never ends (no newline)" if payload and not terminated else "no header line"
        return None, [
            _err(A1, f"the log has {what}: a session log starts with one complete line (ending in a "
                       "newline) holding the session header")
        ]
    try:
        record = decode_json(payload)
    except Unparsable as exc:
        return None, [_err(A2, f"the first line should be the session header, but it cannot be parsed: {exc}")]
    if not isinstance(record, dict):
        return None, [_err(A4, "the first line should be the session header, a JSON object, but it is a "
                                 f"JSON {json_type(record)}")]
    version = record.get("version")
    if is_number(version) and version != 0:
        direction = (
            "the log was written by a newer harness; upgrade the harness to read it"
            if version is not None and version > 0
            else "the log is older than version 0, and no harness can upgrade it"
        )
        return Header(record), [_err(A3, f"the header says format version {show(version)}, but today's "
                                           f"harness reads only version 0: {direction}")]
    if record.get("type") != "session":
        return Header(record), [_err(A4, f'the first line is not a session header: its "type" is '
                                           f'{show(record.get("type"))}, not "session" (is this a transcript '
                                           "or another JSONL file?)")]
    findings: list[Finding] = []

    def guard(reason: str) -> None:
        findings.append(_err(A4, f"today's harness refuses this session header: {reason}"))

    if not is_number(version):
        guard(f'"version" must be the number 0, got {show(version)}'
              if "version" in record else 'it has no "version" field (headers from before format version 0 lack it)')
    if not isinstance(record.get("id"), str):
        guard(f'the session id "id" must be a string, got {show(record.get("id"))}')
    for key in ("createdAt", "delegationDepth"):
        if key not in record:
            guard(f'it has no "{key}" field'
                  + (" (logs written before the delegation depth was recorded lack it)"
                     if key == "delegationDepth" else ""))
        elif not is_nonneg_safe_int(record[key]) or _NEG_ZERO[key].search(payload):
            guard(f'"{key}" must be a whole number from 0 to 2^53-1, got {show(record[key])}'
                  + (" (-0)" if _NEG_ZERO[key].search(payload) else ""))
    if "origin" in record and record["origin"] != "subagent":
        guard(f'"origin" must be "subagent" when present, got {show(record["origin"])}')
    if "agentPreset" in record and not isinstance(record["agentPreset"], str):
        guard(f'"agentPreset" must be a string, got {show(record["agentPreset"])}')
    retired = [k for k in ("sandboxMode", "approvalPolicy") if k in record]
    if retired:
        findings.append(_err(A5, f"the session header still has the retired field(s) {', '.join(retired)}, "
                                   "which today's harness refuses: remove them"))
    cwd = record.get("cwd")
    if "cwd" in record and (not isinstance(cwd, str) or not _is_absolute_cwd(cwd)):
        findings.append(_err(C1, f'the session header\'s "cwd" must be an absolute path, got {show(cwd)}'))
    if "parentSession" in record and not isinstance(record["parentSession"], str):
        findings.append(_err(C1, 'the session header\'s "parentSession" must be a session id (a string), got '
                                   f"{show(record['parentSession'])}"))
    if "seedLength" in record and not is_nonneg_safe_int(record["seedLength"]):
        findings.append(_err(C1, 'the session header\'s "seedLength" must be a whole number from 0 to 2^53-1, '
                                   f"got {show(record['seedLength'])}"))
    return Header(record), findings
