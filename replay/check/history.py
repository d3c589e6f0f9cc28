"""A log's history across audits (rule H1): a session log is append-only, so a log
whose bytes already audited have changed since was rewritten. The audit cache
(``replay.check.cache``) remembers what each log held when it was last audited and
judges this rule; this module declares it and words its findings."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from replay.check.fingerprint import Fingerprints, file_identity, fingerprint, relative_to
from replay.findings import Finding, Rule, message_shape

H1 = Rule(
    "H1", "invariant", "history", "a log already audited only grew since (it was not rewritten)",
    explanation="""
        The harness only ever appends to a session log: records are added at its end, and a crash
        repair cuts off a torn last line at most. The audit cache (on by default; see the audit
        guide) remembers, for every log it audited, how many bytes it audited (up to the last
        complete line) and a digest of them. When a later audit finds those bytes changed, or the
        log shorter than them, something other than the harness rewrote the log: an edit, a
        truncation, a copy of another session over it, a restore from an older backup. The log is
        audited again in full, and this finding names the first range of bytes that differs and
        when the log was last audited.

        A log that only grew (a live session, a resumed one) is not rewritten; neither is one that
        was touched, copied with a new modification time, or restored from a CI cache with the same
        bytes. The finding is said once, by the audit that sees the change: the cache then holds
        the log as it is now. Logs read from standard input, URLs and archives are not judged.

        For example, a log audited when it held 48213 bytes whose byte 1200 was changed afterwards
        is reported as rewritten in bytes 0–65535 (the first block of the digest that differs); the
        same log cut back to 30000 bytes is reported as shorter, bytes 30000–48212 gone.""",
    harness="""
        Nothing tells it: the harness loads a rewritten log as it finds it, and a session's history
        then silently differs from what was audited.""",
)


@dataclass(frozen=True, slots=True)
class Rewrite:
    """How a log differs from what an earlier audit read of it: the bytes
    ``[start, end)`` (of the ``audited`` bytes audited then) differ, or, with
    ``shorter``, are gone (the log is now ``start`` bytes long)."""

    start: int
    end: int
    audited: int
    when: str
    """When the log was last audited (UTC, ISO 8601)."""
    shorter: bool = False


def rewritten(rewrite: Rewrite, path: str, fingerprints: Fingerprints = False) -> Finding:
    """The H1 finding of a rewritten log (fingerprinted as other findings without a
    line are, when asked: see ``replay.check.fingerprint``)."""
    last = rewrite.end - 1
    if rewrite.shorter:
        what = (f"the log is now {rewrite.start} bytes long, shorter than the {rewrite.audited} bytes audited "
                f"{rewrite.when}: bytes {rewrite.start}–{last} are gone")
    else:
        what = (f"bytes {rewrite.start}–{last} differ from what the audit of {rewrite.when} read (the first "
                f"change among the {rewrite.audited} bytes audited then)")
    found = H1.warning(f"this log was rewritten: {what}; a session log is only ever appended to, so it was "
                       "audited again in full")
    if fingerprints:
        content = hashlib.sha256(b"message:" + message_shape(found.message).encode("utf-8", "surrogatepass")
                                 ).hexdigest()
        found = replace(found, fingerprint=fingerprint(file_identity(path, relative_to(fingerprints)), H1.id,
                                                                content, 0))
    return found
