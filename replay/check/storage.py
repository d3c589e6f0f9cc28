"""Storage-layer rules (spec §4.1, §6): detected while reading (``replay.log``),
judged here. A8 is the damage tolerance: storage damage before the last decodable
``turn/end`` is fatal, after it a torn tail the harness repairs."""

from __future__ import annotations

import os

from replay.check.rules import RuleInfo
from replay.findings import Finding, Severity
from replay.log.header import Header

RULES = (
    RuleInfo("INTERNAL", "format", "storage", "replay itself failed on the file (a bug to report)"),
    RuleInfo("IO", "format", "storage", "the file can be opened and read"),
    RuleInfo("A1", "format", "storage", "the first record is one newline-terminated line"),
    RuleInfo("A2", "format", "storage", "the header line parses as JSON"),
    RuleInfo("A3", "format", "storage", "a numeric header version other than 0 is refused (direction-aware)"),
    RuleInfo("A4", "format", "storage",
             "the JSONL header guard (type, version, id, createdAt, delegationDepth, origin, agentPreset)"),
    RuleInfo("A5", "format", "storage", "no retired sandboxMode/approvalPolicy header fields"),
    RuleInfo("A6", "format", "storage", "every committed record parses (packed rows validated)"),
    RuleInfo("A7", "format", "storage", "decoded seqs equal the running count"),
    RuleInfo("A8", "format", "storage", "damage is tolerated only in the uncommitted tail after the last turn/end"),
    RuleInfo("A9", "format", "storage", "zstd container: magic, reserved bits, checksums, header frame, whole records"),
    RuleInfo("A10", "format", "storage",
             "storage identity: the path matches the header's id and cwd; one encoding per session"),
    RuleInfo("B3", "format", "storage", "no request/header-delta, mode/set, or request/header reason fallback"),
    RuleInfo("B4", "format", "storage", "legacy shapes are migrated (warning) or malformed (error)"),
)



def encode_segment(session_id: str) -> str:
    """The directory name of a session id (spec §1.6), over UTF-16 code units."""
    if session_id == ".":
        return "~002E"
    if session_id == "..":
        return "~002E~002E"
    return "".join(u if _kept(u) else f"~{ord(u):04X}" for u in _utf16_units(session_id))


def project_key(cwd: str | None) -> str:
    """The project directory name of a cwd (spec §1.6)."""
    if cwd is None:
        return "_no-cwd"
    out: list[str] = []
    in_separator_run = False
    for unit in _utf16_units(cwd):
        if unit in "/\\:":
            if not in_separator_run:
                out.append("-")
            in_separator_run = True
            continue
        in_separator_run = False
        out.append(unit if _kept(unit) else f"~{ord(unit):04X}")
    key = "".join(out).lstrip("-") or "root"
    return f"--{key[:251]}--"


def _kept(unit: str) -> bool:
    return unit.isascii() and (unit.isalnum() or unit in "._-")


def _utf16_units(text: str) -> list[str]:
    raw = text.encode("utf-16-be", "surrogatepass")
    return [chr(int.from_bytes(raw[i : i + 2], "big")) for i in range(0, len(raw), 2)]


_STORED_NAMES = {"session.jsonl": "session.jsonl.zstd", "session.jsonl.zstd": "session.jsonl"}


def storage_identity(location: str, header: Header | None) -> list[Finding]:
    """A10, for logs that sit in a production root (``--<project>--/<id>/session.*``).

    Fixture folders (scenario directories, ``session.N.jsonl``) are not a root
    layout and are not judged.
    """
    if header is None or not location.endswith(("session.jsonl", "session.jsonl.zstd")):
        return []
    folder, name = os.path.split(location)
    if name not in _STORED_NAMES:
        return []
    root, session_dir = os.path.split(folder)
    project = os.path.basename(root)
    if not ((project.startswith("--") and project.endswith("--") and len(project) >= 4)
            or project == "_no-cwd"):
        return []
    found: list[Finding] = []
    session_id = header.id
    if session_id is not None:
        want = f"{project_key(header.cwd)}/{encode_segment(session_id)}"
        have = f"{project}/{session_dir}"
        if want != have:
            found.append(Finding("A10", Severity.ERROR,
                                 f"corrupt session log: header id and cwd identify {want}/{name}, "
                                 f"but the file is at {have}/{name}; move the session directory "
                                 "back or the harness cannot load it", line=1, type="session"))
    if os.path.exists(os.path.join(folder, _STORED_NAMES[name])):
        found.append(Finding("A10", Severity.ERROR,
                             f"both {name} and {_STORED_NAMES[name]} exist for this session; a "
                             "root holds one encoding only", line=1, type="session"))
    return found
