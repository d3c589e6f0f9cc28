"""What a page shows of an audit, as the shapes it reads (``replay.check.engine``'s
``LogReport`` and ``AuditResult`` are ones): the renderers take an audit's result and
never run one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from replay.findings import Finding, Severity


class Audited(Protocol):
    """One log's audit: its path, how it was read, its events and findings."""

    @property
    def path(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def events(self) -> int: ...

    @property
    def findings(self) -> Sequence[Finding]: ...

    def count(self, severity: Severity) -> int: ...


class Totals(Protocol):
    """The totals of many logs' audits."""

    @property
    def files(self) -> int: ...

    @property
    def events(self) -> int: ...

    @property
    def errors(self) -> int: ...

    @property
    def warnings(self) -> int: ...

    @property
    def policy(self) -> int: ...


class AuditedMany(Protocol):
    """Many logs' audits, and their totals."""

    @property
    def reports(self) -> Sequence[Audited]: ...

    @property
    def summary(self) -> Totals: ...


__all__ = ["Audited", "AuditedMany", "Totals"]
