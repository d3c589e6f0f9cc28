"""Which findings an audit reports: rules selected and ignored, and a least severity.

Selectors are rule ids (``A6``, ``D1``: that rule alone, so ``D1`` is not ``D10``),
series (a rule id's letters: ``T`` is every T rule; ``IO``, ``LIMIT`` and ``INTERNAL``
are series of one), or ``ALL``. A rule is reported when a selector of ``select``
matches it (no ``select`` means ``ALL``) and no *more specific or equally specific*
selector of ``ignore`` does: ``select T`` with ``ignore T3`` is every T rule but T3;
``select T3`` with ``ignore T`` is T3 (the id is more specific than the series). ``min_severity`` then drops findings
below it (``policy`` < ``warning`` < ``error``).

The choice is made once per audit and applied to each log's report after the log is
judged (``Selection.apply``), never inside the per-event loop; a checker none of whose
rules is selected (the code table says which rules each emits) is not run at all
(``Selection.skipped``), so ``--select T`` does not pay for the session core. A repository fixes its choice in the
``[tool.replay.audit]`` table of its ``pyproject.toml`` (found from the working
directory upward, the nearest file that has the table); options on the command line
win over the table, key by key (``audit_selection``).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from replay.check.engine import LogReport
from replay.check.registry import CHECKERS, RULES, checker_rules, rule_series
from replay.checker import Checker
from replay.findings import Finding, Severity
from replay.fs import FsError, read_named
from replay.hints import command

SEVERITY_ORDER: Mapping[Severity, int] = {Severity.POLICY: 0, Severity.WARNING: 1, Severity.ERROR: 2}
"""Severities from least to most severe (what ``min_severity`` compares)."""

CONFIG_TABLE = ("tool", "replay", "audit")
CONFIG_KEYS = ("select", "ignore", "min-severity")


class SelectionError(ValueError):
    """A selector or a configuration table a user must fix (a usage error)."""


def _series_names() -> frozenset[str]:
    return frozenset(rule_series(r) for r in RULES)


def parse_selectors(values: Iterable[str], where: str) -> tuple[str, ...]:
    """Selectors from the command line or the table: each value may hold several,
    separated by commas; case does not matter. ``where`` names the option or the key
    in the error for an unknown one."""
    found: list[str] = []
    series = _series_names()
    for value in values:
        for raw in value.split(","):
            token = raw.strip().upper()
            if not token:
                continue
            if token != "ALL" and token not in RULES and token not in series:
                known = ", ".join(sorted(series))
                raise SelectionError(f"{where}: {raw.strip()!r} is neither a rule id nor a series of rules "
                                     f"(series: {known}, or ALL; {command('rules')} lists every rule id)")
            found.append(token)
    return tuple(found)


def parse_severity(value: str, where: str) -> Severity:
    try:
        return Severity(value.strip().lower())
    except ValueError:
        raise SelectionError(f"{where}: {value!r} is not a severity (error, warning or policy)") from None


def _specificity(selector: str, rule: str) -> int | None:
    """How specifically ``selector`` names ``rule``: 2 the id, 1 its series, 0 ALL,
    ``None`` not at all."""
    if selector == rule:
        return 2
    if selector == rule_series(rule):
        return 1
    if selector == "ALL":
        return 0
    return None


@dataclass(frozen=True)
class Selection:
    """What an audit reports (see the module docstring). The default reports
    everything."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    min_severity: Severity = Severity.POLICY
    _decided: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def everything(self) -> bool:
        """True when nothing is filtered (``apply`` returns reports unchanged)."""
        return not self.ignore and self.select in ((), ("ALL",)) and self.min_severity is Severity.POLICY

    def selects(self, rule: str) -> bool:
        """Whether findings of ``rule`` are reported (whatever their severity)."""
        decided = self._decided.get(rule)
        if decided is None:
            chosen = max((s for s in (_specificity(x, rule) for x in self.select or ("ALL",)) if s is not None),
                         default=None)
            dropped = max((s for s in (_specificity(x, rule) for x in self.ignore) if s is not None), default=None)
            decided = chosen is not None and (dropped is None or chosen > dropped)
            self._decided[rule] = decided
        return decided

    @cached_property
    def skipped(self) -> frozenset[type[Checker]]:
        """The per-log checkers none of whose rules is selected: an audit leaves them out
        (their work would all be filtered away)."""
        if self.everything:
            return frozenset()
        return frozenset(c for c in CHECKERS if not any(self.selects(r) for r in checker_rules(c)))

    def keeps(self, finding: Finding) -> bool:
        return SEVERITY_ORDER[finding.severity] >= SEVERITY_ORDER[self.min_severity] and self.selects(finding.rule)

    def apply(self, report: LogReport) -> LogReport:
        """The report with only the selected findings (see ``filtered``). An unreadable
        log is shown whole whatever the selection: no rule could be judged on it, so
        hiding why would pass a log that was never audited (as a linter never hides a
        file it could not parse). A baseline can still accept it."""
        if self.everything or report.status == "unreadable":
            return report
        return filtered(report, [f for f in report.findings if self.keeps(f)])


def filtered(report: LogReport, kept: list[Finding]) -> LogReport:
    """``report`` with only the findings ``kept``: a log left with none is ``ok``, even
    an unreadable one (its every finding was deselected or accepted, so nothing about
    it is reported or fails the audit)."""
    if len(kept) == len(report.findings):
        return report
    status = "ok" if not kept else report.status
    return replace(report, status=status, findings=kept)


@dataclass(frozen=True)
class AuditConfig:
    """The ``[tool.replay.audit]`` table of one ``pyproject.toml``: each key as given,
    ``None`` when absent."""

    path: Path
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    min_severity: Severity | None = None


MAX_CONFIG_BYTES = 1 << 20
"""The largest ``pyproject.toml`` read for the table."""
_CLAIM = "tool.replay"


def _parse_toml(path: Path) -> dict[str, Any]:
    """A ``pyproject.toml`` parsed (read under a cap, a regular file only);
    ``SelectionError`` naming the file and why it cannot be."""
    try:
        text = read_named(path, MAX_CONFIG_BYTES, "it").decode("utf-8")
        return tomllib.loads(text)
    except FsError as exc:
        raise SelectionError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise SelectionError(f"{path}: cannot read it as TOML (not UTF-8: {exc.reason} at byte {exc.start})") \
            from None
    except tomllib.TOMLDecodeError as exc:
        raise SelectionError(f"{path}: cannot read it as TOML ({exc})") from None
    except RecursionError:
        raise SelectionError(f"{path}: cannot read it as TOML (nested too deeply)") from None


def _claims(path: Path) -> bool:
    """Whether a file that cannot be parsed names the table (then its problems are ours)."""
    try:
        return _CLAIM.encode() in read_named(path, MAX_CONFIG_BYTES, "it").replace(b" ", b"").replace(b'"', b"")
    except FsError:
        return False


def find_config(start: Path | None = None) -> AuditConfig | None:
    """The ``[tool.replay.audit]`` table of the nearest ``pyproject.toml`` that has one,
    from ``start`` (the working directory) upward; ``None`` when there is none. A file
    that cannot be parsed is passed over unless it names the table: then it is a
    ``SelectionError`` naming the file (a broken table is never silently skipped)."""
    folder = Path(os.path.abspath(start or os.getcwd()))
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if not path.is_file():
            continue
        try:
            doc = _parse_toml(path)
        except SelectionError:
            if _claims(path):
                raise
            continue  # not ours to judge
        if _table(doc) is not None:
            return _config(path, doc)
    return None


def _table(doc: Mapping[str, Any]) -> Any:
    node: Any = doc
    for key in CONFIG_TABLE:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def read_config(path: Path) -> AuditConfig:
    """Read and check the table of ``path``; every problem is a ``SelectionError``
    naming the file and the key."""
    return _config(path, _parse_toml(path))


def _config(path: Path, doc: Mapping[str, Any]) -> AuditConfig:
    where = f"{path} [tool.replay.audit]"
    table = _table(doc)
    if not isinstance(table, dict):
        raise SelectionError(f"{where}: must be a table")
    unknown = sorted(set(table) - set(CONFIG_KEYS))
    if unknown:
        raise SelectionError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(CONFIG_KEYS)})")

    def selectors(key: str) -> tuple[str, ...] | None:
        if key not in table:
            return None
        value = table[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SelectionError(f"{where}: {key} must be a list of rule ids or series, such as [\"T\", \"A6\"]")
        return parse_selectors(value, f"{where} {key}")

    severity = None
    if "min-severity" in table:
        value = table["min-severity"]
        if not isinstance(value, str):
            raise SelectionError(f"{where}: min-severity must be \"error\", \"warning\" or \"policy\"")
        severity = parse_severity(value, f"{where} min-severity")
    return AuditConfig(path, selectors("select"), selectors("ignore"), severity)


def audit_selection(select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
                    min_severity: str | None = None, config: AuditConfig | None = None) -> Selection:
    """The selection of one audit: each of ``select``, ``ignore`` and ``min_severity``
    from the command line when given (``None``: not given), else from the table."""
    chosen = parse_selectors(select, "--select") if select is not None else None
    dropped = parse_selectors(ignore, "--ignore") if ignore is not None else None
    least = parse_severity(min_severity, "--min-severity") if min_severity is not None else None
    if config is not None:
        chosen = chosen if chosen is not None else config.select
        dropped = dropped if dropped is not None else config.ignore
        least = least if least is not None else config.min_severity
    return Selection(chosen or (), dropped or (), least or Severity.POLICY)
