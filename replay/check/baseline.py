"""Baselines: the findings an archive already has, so that an audit reports only the
new ones. This is how a team adopts the audit on a year of logs, then keeps new logs
clean.

A baseline is a JSON file (``replay audit --write-baseline FILE`` writes one)::

    {"replay-baseline": 1,
     "findings": [{"file": "logs/a/session.jsonl", "rule": "A4",
                   "fingerprint": "3f0c…", "line": 1, "message": "…"}, …]}

A finding is in the baseline when an entry has its file, rule and fingerprint
(``replay.check.fingerprint``), not its line: appending to a log, or adding good
records before its bad ones, re-raises nothing. ``line`` and ``message`` are there
for people reading the file (a review of a baseline's diff) and take no part in
matching. Each entry matches one finding: two equal bad records need two entries.
File paths are relative to the folder the audit that wrote it was run from, and the
baseline says where that is: ``"root"`` is that folder relative to the baseline's
own (``"."`` when it was written where it was run, ``".."`` for
``.replay/baseline.json``), so an audit run from another folder matches the same logs
by the same names. (A baseline without ``"root"`` names them relative to the working
directory of the audit that reads it.) A baseline of which no entry matches is said
(``Baseline.unmatched``): an audit of other logs, or one given moved paths, must not
look like an archive that has nothing new.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.check.engine import LogReport
from replay.check.fingerprint import file_identity
from replay.check.selection import filtered
from replay.findings import Finding
from replay.fs import FsError, read_named
from replay.hints import command
from replay.log.reader import Limits
from replay.output import json_bytes
from replay.words import counted

FORMAT = 1
Key = tuple[str, str, str]
"""(file, rule, fingerprint)."""


class BaselineError(ValueError):
    """A baseline file that cannot be read (a usage error naming the file)."""


def finding_key(file: str, f: Finding) -> Key:
    if f.fingerprint is None:
        raise ValueError("a baseline matches fingerprinted findings (audit with fingerprints=True)")
    return file, f.rule, f.fingerprint


@dataclass
class Baseline:
    """The findings a baseline holds, by (file, rule, fingerprint), with how many."""

    entries: Counter[Key] = field(default_factory=Counter)
    matched: int = 0
    """Findings this baseline has held back so far (not reported)."""
    root: str | None = None
    """The folder its file paths are relative to (absolute; ``None``: the working
    directory)."""
    path: Path | None = None
    """The file it was read from."""
    size: int = 0
    """How many entries it holds."""

    def __len__(self) -> int:
        return sum(self.entries.values())

    def unmatched(self) -> str | None:
        """What to say of a baseline of which no entry matched a finding of the audit
        (``None`` when one did, or it holds none)."""
        if self.matched or not self.size:
            return None
        where = (f"its paths are relative to {self.root}, where the audit that wrote it ran: were the logs moved?"
                 if self.root is not None else
                 "its paths are relative to the folder the audit that wrote it ran from, which it does not name: "
                 "run this audit from there")
        return (f"no finding of this audit matched the {counted(self.size, 'entry', 'entries')} of the baseline "
                f"{self.path}, so every finding is reported; {where}")

    def apply(self, report: LogReport) -> LogReport:
        """The report without the findings the baseline holds (a log left with none
        is ``ok``); each entry is used once per audit."""
        if not self.entries or not report.findings:
            return report
        file = file_identity(report.path, self.root)
        kept = []
        for f in report.findings:
            key = finding_key(file, f)
            if self.entries.get(key, 0) > 0:
                self.entries[key] -= 1
                self.matched += 1
            else:
                kept.append(f)
        return filtered(report, kept)


MAX_BASELINE_BYTES = Limits().max_log_bytes
"""The largest baseline file read (a baseline is no larger than the logs it covers)."""


def read_baseline(path: Path) -> Baseline:
    try:
        data = read_named(path, MAX_BASELINE_BYTES, "the baseline")
    except FsError as exc:
        raise BaselineError(f"{exc}; write one with --write-baseline") from None
    try:
        doc = json.loads(data)  # not orjson: a file name may hold an escaped lone surrogate
    except (ValueError, RecursionError) as exc:
        raise BaselineError(f"{path}: not a baseline (not JSON: {exc})") from None
    version = doc.get("replay-baseline") if isinstance(doc, dict) else None
    if type(version) is not int or version != FORMAT or not isinstance(doc.get("findings"), list):
        raise BaselineError(f'{path}: not a baseline of this version (a JSON object with "replay-baseline": {FORMAT} '
                            'and a "findings" list)')
    entries: Counter[Key] = Counter()
    for i, entry in enumerate(doc["findings"]):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("file", "rule",
                                                                                           "fingerprint")):
            raise BaselineError(f"{path}: findings[{i}] needs a string file, rule and fingerprint")
        entries[(entry["file"], entry["rule"], entry["fingerprint"])] += 1
    root = doc.get("root")
    if root is not None and not isinstance(root, str):
        raise BaselineError(f'{path}: "root" is the folder its paths are relative to, as a string')
    where = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), root)) if root is not None \
        else None
    return Baseline(entries, root=where, path=path, size=len(doc["findings"]))


def baseline_document(reports: Iterable[LogReport], written_to: Path | None = None,
                      root: str | None = None) -> dict[str, Any]:
    """The baseline of these reports' findings (fingerprinted relative to ``root``,
    by default the working directory), in a stable order; written to ``written_to``,
    it says where ``root`` is from there."""
    rows = []
    for report in reports:
        file = file_identity(report.path, root)
        for f in report.findings:
            _, rule, fingerprint = finding_key(file, f)
            rows.append({"file": file, "rule": rule, "fingerprint": fingerprint, "line": f.line,
                         "message": f.message})
    rows.sort(key=lambda r: (r["file"], r["line"] if r["line"] is not None else 0, r["rule"], r["fingerprint"]))
    doc: dict[str, Any] = {
        "replay-baseline": FORMAT,
        "comment": f"Findings {command('audit', '--baseline')} does not report again; written by "
                   f"{command('audit', '--write-baseline')}. Paths are relative to root (from this file's "
                   "folder); line and message are for reading only."}
    if written_to is not None:
        base = os.path.abspath(root if root is not None else os.curdir)
        doc["root"] = os.path.relpath(base, os.path.dirname(os.path.abspath(written_to))).replace(os.sep, "/")
    doc["findings"] = rows
    return doc


def baseline_bytes(reports: Iterable[LogReport], written_to: Path | None = None, root: str | None = None) -> bytes:
    """The baseline file's bytes (strings that UTF-8 cannot carry, such as a lone
    surrogate in a file name, written as escapes)."""
    return json_bytes(baseline_document(reports, written_to, root), indent=True) + b"\n"
