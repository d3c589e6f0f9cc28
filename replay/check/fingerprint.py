"""Fingerprints: a finding's identity that survives a log growing or moving.

A fingerprint is the first 32 hex digits of the SHA-256 of
``replay/1 NUL file NUL rule NUL content NUL n`` (UTF-8), where:

* **file** is the log's path as the reports show it: relative to the working
  directory when the log is inside it, else as given; ``/`` as the separator; a final
  ``.zstd`` / ``.zst`` dropped (a log compressed later keeps its findings). Standard
  input is ``<stdin>``.
* **rule** is the finding's rule id.
* **content** is the SHA-256 (hex) of the record on the finding's line, with what
  shifts when records move taken out: the record is parsed and, unless it is the
  header (line 1), loses ``seq``, ``time``, ``seq0``, ``time0`` and
  ``sourceEventSeqs``, the ``start`` and ``end`` of a ``surfaceOp`` object, and in
  ``data`` the ``turn`` and ``dt`` (turns are renumbered when turns are added
  before); a repair result's message id ``interrupted-tool-result-<callId>-<seq>``
  loses its ``-<seq>``. What is left is written as JSON with sorted keys. A record
  that cannot be parsed counts as its bytes, one over the size limit as its line
  being oversize; a finding without a line (or on a line with no record) counts as
  its message with every number written ``#``.
* **n** counts the findings of this file, rule and content before this one, in line
  order (0 for the first): two equal bad records are two findings.

So appending to a log, or adding good records before its bad ones with the seqs
renumbered, leaves every old finding's fingerprint as it was; a new bad record gets a
new one. Line numbers, seqs, times and message wording take no part.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import orjson

from replay.findings import Finding, message_shape
from replay.log.lines import Unparsable, decode_json
from replay.log.source import display_path

VERSION = "replay/1"
_VOLATILE = frozenset({"seq", "time", "seq0", "time0", "sourceEventSeqs"})
_VOLATILE_DATA = frozenset({"turn", "dt"})
_REPAIR_ID = re.compile(r"^(interrupted-tool-result-.*)-\d+$", re.DOTALL)


Fingerprints = bool | str
"""Whether an audit fingerprints its findings, and the folder their file parts are
relative to: ``False`` none; ``True`` the working directory; a folder's path that
folder (a baseline's root: where the one that wrote it was run)."""


def relative_to(fingerprints: Fingerprints) -> str | None:
    """The folder a fingerprint's file is relative to (``None``: the working directory)."""
    return fingerprints if isinstance(fingerprints, str) else None


def file_identity(path: str, cwd: str | None = None) -> str:
    """The file part of a fingerprint (see the module docstring)."""
    shown = display_path(path, cwd).replace(os.sep, "/")
    for suffix in (".zstd", ".zst"):
        if shown.endswith(".jsonl" + suffix):
            return shown[: -len(suffix)]
    return shown


def normalized(record: Any) -> Any:
    """An event record (or packed row) without what shifts when records move."""
    if not isinstance(record, dict):
        return record
    out = {k: v for k, v in record.items() if k not in _VOLATILE}
    op = out.get("surfaceOp")
    if isinstance(op, dict):
        out["surfaceOp"] = {k: v for k, v in op.items() if k not in ("start", "end")}
    data = out.get("data")
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in _VOLATILE_DATA}
        message = data.get("message")
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            repaired = _REPAIR_ID.match(message["id"])
            if repaired:
                data["message"] = {**message, "id": repaired.group(1)}
        out["data"] = data
    return out


def _canonical(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        # Integers beyond 64 bits, lone surrogates, nesting deeper than orjson writes.
        return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode()


def record_content(line: int, payload: bytes | None) -> str:
    """The content part of a fingerprint for the record ``payload`` on ``line``."""
    if payload is None:
        blob = b"oversize record"
    else:
        try:
            record = decode_json(payload)
            blob = b"json:" + _canonical(record if line == 1 else normalized(record))
        except (Unparsable, RecursionError, ValueError):
            blob = b"bytes:" + payload
    return hashlib.sha256(blob).hexdigest()


def fingerprint(file: str, rule: str, content: str, n: int) -> str:
    text = "\0".join((VERSION, file, rule, content, str(n)))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def fingerprint_findings(findings: Sequence[Finding], records: Iterable[tuple[int, bytes | None]],
                         file: str) -> list[Finding]:
    """The findings of one log (in line order), each with its fingerprint.
    ``records`` is the log's records with their line numbers
    (``replay.log.reader.LogRead.records``); only those findings name are kept."""
    wanted = {f.line for f in findings if f.line is not None}
    found: dict[int, bytes | None] = {}
    if wanted:
        last = max(wanted)
        for line, payload in records:
            if line in wanted:
                found[line] = payload
            if line >= last:
                break
    seen: dict[tuple[str, str], int] = {}
    out = []
    for f in findings:
        if f.line is not None and f.line in found:
            content = record_content(f.line, found[f.line])
        else:
            content = hashlib.sha256(b"message:" + message_shape(f.message).encode("utf-8", "surrogatepass")
                                     ).hexdigest()
        n = seen.get((f.rule, content), 0)
        seen[(f.rule, content)] = n + 1
        out.append(replace(f, fingerprint=fingerprint(file, f.rule, content, n)))
    return out
