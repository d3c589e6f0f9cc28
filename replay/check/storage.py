"""Storage identity (rule A10, spec §1.6): where a log sits in a production root must
match its header. The other storage rules are judged while reading, where
``replay.log`` declares them."""

from __future__ import annotations

import os
from collections.abc import Callable

from replay.findings import Finding, Rule
from replay.log.header import Header
from replay.log.source import STORED_NAMES

A10 = Rule(
    "A10", "format", "storage", "a log in a session root sits where its header's id and cwd place it",
    explanation="""
        In a production session root, a log's place is derived from its header:
        --<project key of cwd>--/<encoded id>/session.jsonl (or .jsonl.zstd). A log moved to another
        project or session folder, or a session stored both plain and compressed, is not where the
        harness looks. Logs outside such a root (fixtures, copies) are not judged. For example, a log
        whose header has "cwd":"/home/dev/proj" belongs under --home-dev-proj--/, not
        --home-dev-other--/.""",
    harness="""Refuses to load the session ("corrupt session log", or a duplicate or encoding mismatch).""",
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


def storage_identity(location: str, header: Header | None,
                     exists: Callable[[str], bool] = os.path.exists) -> list[Finding]:
    """A10, for logs that sit in a production root (``--<project>--/<id>/session.*``).

    Fixture folders (scenario directories, ``session.N.jsonl``) are not a root
    layout and are not judged. ``exists`` tells whether a path in the same storage
    exists (the other encoding of the session, beside the log).
    """
    if not judges_identity(location, header):
        return []
    assert header is not None
    folder, name = os.path.split(location)
    root, session_dir = os.path.split(folder)
    project = os.path.basename(root)
    found: list[Finding] = []
    session_id = header.id
    if session_id is not None:
        want = f"{project_key(header.cwd)}/{encode_segment(session_id)}"
        have = f"{project}/{session_dir}"
        if want != have:
            found.append(A10.error(f"the header's id and cwd place this session at {want}/{name}, but the "
                                   f"file is at {have}/{name}: the harness cannot load it until the session "
                                   "directory is moved back", line=1, type="session"))
    if exists(twin_location(location)):
        found.append(both_encodings(location))
    return found


def judges_identity(location: str, header: Header | None) -> bool:
    """Whether A10 judges a log: it has a header and sits in a production root."""
    if header is None or not location.endswith(tuple(STORED_NAMES)):
        return False
    folder, name = os.path.split(location)
    if name not in STORED_NAMES:
        return False
    project = os.path.basename(os.path.dirname(folder))
    return (project.startswith("--") and project.endswith("--") and len(project) >= 4) or project == "_no-cwd"


def twin_location(location: str) -> str:
    """The same session's log in the other encoding (``session.jsonl`` ↔ ``.zstd``)."""
    folder, name = os.path.split(location)
    return os.path.join(folder, STORED_NAMES[name])


def both_encodings(location: str) -> Finding:
    name = os.path.basename(location)
    return A10.error(f"both {name} and {STORED_NAMES[name]} exist for this session, but a session "
                     "is stored in one encoding only: the harness refuses it", line=1, type="session")
