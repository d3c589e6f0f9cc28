"""``replay export --format otlp``: the sessions as OpenTelemetry GenAI traces."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from replay.check.engine import LogReport
from replay.export.request import ExportRefused
from replay.log.source import PassedOver

if TYPE_CHECKING:
    from replay.export.request import ExportRequest, ExportResult


def export_traces(request: ExportRequest, passed_over: PassedOver,
                  on_report: Callable[[LogReport], None]) -> ExportResult:
    raise ExportRefused("--format otlp: not written yet")
