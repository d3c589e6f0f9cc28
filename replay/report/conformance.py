"""Reporters of a conformance run (``replay.scenarios.conformance.ConformanceReport``):
text and JSON for ``--format``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from replay.output import pretty_json
from replay.report.base import Reporter
from replay.style import sanitize

if TYPE_CHECKING:
    from replay.scenarios.conformance import ConformanceReport, ConformanceResult, ModeResult

CLIP = 200
"""The widest a compared line is shown in the text report."""


class ConformanceReporter(Reporter["ConformanceResult", "ConformanceReport"]):
    """A format of a conformance run: its units are the scenarios, in corpus order."""

    def units(self, result: ConformanceReport) -> Sequence[ConformanceResult]:
        return result.scenarios


def score_line(report: ConformanceReport) -> str:
    """``exact/scored scenarios byte-exact``, then each mode's score, the profiles used
    and the scenarios counted apart: those with ``replay.override.json`` (derived by a
    keyless run with the override as the model, and from the log as a second figure)
    and those not derivable."""
    scored = report.scored
    modes = []
    for mode in ("live", "load"):
        exact, compared = report.mode_score(mode)
        if compared:
            modes.append(f"{mode} {exact}/{compared}")
    profiles = ", ".join(f"profile {p}: {n}" for p, n in sorted(report.profiles.items()))
    line = f"{report.exact}/{len(scored)} scenarios byte-exact ({'; '.join([*modes, profiles])})"
    overridden = report.overridden
    if overridden:
        plain = [s for s in scored if not s.overridden]
        exact_plain = sum(1 for s in plain if s.status == "exact")
        from_log = sum(1 for s in overridden if s.exact_from_log)
        line += f"; without an override {exact_plain}/{len(plain)}; with replay.override.json {len(overridden)}: "
        if any(s.keyless is not None for s in overridden):
            derived = sum(1 for s in overridden if s.keyless == "derived" and s.status == "exact")
            line += f"{derived}/{len(overridden)} byte-exact derived by a keyless run with the override as the model"
            no_run = sum(1 for s in overridden if s.keyless == "no run")
            if no_run:
                line += f" ({no_run} with no keyless run, not scored)"
            line += f"; from the log {from_log}/{len(overridden)}"
        else:
            line += f"{from_log} byte-exact from the log"
            if report.count("overridden"):
                line += f", {report.count('overridden')} not scored"
    if report.count("not derivable"):
        line += f"; not derivable: {report.count('not derivable')}"
    return line


def _clip(line: str | None, width: int = CLIP) -> str:
    if line is None:
        return "(none)"
    return sanitize(line if len(line) <= width else line[: width - 3] + "...")


class ConformanceText(ConformanceReporter):
    """One line per scenario (what differs, per stream), each stream's first difference,
    then the score."""

    def finish(self, result: ConformanceReport) -> None:
        out = []
        for s in result.scenarios:
            note = f" [{sanitize(s.reason)}]" if s.reason else ""
            out.append(f"{s.status:<13} {sanitize(s.folder)}  ({s.streams}){note}")
            shown = [("", m) for m in s.modes] + [("from the log: ", m) for m in s.from_log]
            for label, m in shown:
                d = m.first_diff
                if d is None:
                    continue
                golden_at = f"golden line {d.index + 1}" if d.index is not None else "no golden line"
                rendered_at = (f"rendered line {d.rendered_index + 1}" if d.rendered_index is not None
                               else "none rendered")
                out.append(f"    {label}{m.mode} vs {sanitize(m.golden)}, {golden_at} / {rendered_at}: "
                           f"{sanitize(d.summary)}")
                out.append(f"      expected: {_clip(d.expected)}")
                out.append(f"      got:      {_clip(d.got)}")
        out.append(score_line(result))
        self.write("\n".join(out) + "\n")


def _mode_doc(m: ModeResult) -> dict[str, Any]:
    d = m.first_diff
    return {
        "mode": m.mode,
        "golden": m.golden,
        "exact": m.exact,
        "expected": m.expected,
        "rendered": m.rendered,
        "matching": m.matching,
        "missing": m.missing,
        "extra": m.extra,
        "changed": m.changed,
        "firstDiff": None if d is None else {
            "index": d.index,
            "renderedIndex": d.rendered_index,
            "expected": d.expected,
            "got": d.got,
            "summary": d.summary,
        },
    }


class ConformanceJson(ConformanceReporter):
    """One JSON document: every scenario with each stream's result, and the score."""

    writes_json = True

    def finish(self, result: ConformanceReport) -> None:
        summary: dict[str, Any] = {
            "scenarios": len(result.scenarios),
            "scored": len(result.scored),
            "exact": result.exact,
            "differs": result.count("differs"),
            "overridden": len(result.overridden),
            "overriddenExact": sum(1 for s in result.overridden if s.status == "exact"),
            "overriddenKeyless": sum(1 for s in result.overridden if s.keyless == "derived"),
            "overriddenExactFromLog": sum(1 for s in result.overridden if s.exact_from_log),
            "overriddenNotScored": result.count("overridden"),
            "notDerivable": result.count("not derivable"),
            "profiles": result.profiles,
        }
        for mode in ("live", "load"):
            exact, compared = result.mode_score(mode)
            summary[mode] = {"exact": exact, "compared": compared}
        summary["score"] = score_line(result)
        doc = {
            "scenarios": [
                {
                    "name": s.name,
                    "folder": s.folder,
                    "status": s.status,
                    "profile": s.profile,
                    "profileSource": s.profile_source,
                    "reason": s.reason,
                    "overridden": s.overridden,
                    "modes": [_mode_doc(m) for m in s.modes],
                    **({} if s.keyless is None else {"keyless": {
                        "outcome": s.keyless,
                        "overridePlays": s.override_plays,
                        "fromLog": [_mode_doc(m) for m in s.from_log],
                    }}),
                }
                for s in result.scenarios
            ],
            "summary": summary,
        }
        self.write(pretty_json(doc) + "\n")
