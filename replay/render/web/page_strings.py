"""The page's own UI strings: what the harness has no key for (the reasoning toggle,
the ``+N`` suffix's spoken name, the plan timeline), in the same two locales.

The harness's strings stay in ``locale.py``; these are the page's additions, keyed by
the same locales and interpolated by the same ``interpolate``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from replay.render.web.locale import strings


@dataclass(frozen=True, slots=True)
class PageStrings:
    """One locale's page strings."""

    reasoning: str
    """The label of a collapsed reasoning block."""
    suffix_more: str
    """The accessible name of the ``+N`` suffix: ``{extra}`` more tasks in progress."""
    timeline_title: str
    timeline_slider: str
    """The accessible name of the timeline's range input."""
    timeline_previous: str
    timeline_next: str
    timeline_step: str
    """One step's label: the ``{turn}`` it happened in and its ``{cause}``."""
    timeline_step_outside: str
    """The label of a step outside any turn: its ``{seq}`` and ``{cause}``."""
    timeline_progress: str
    """Appended to a step's label when a plan stands: ``{done}`` of ``{total}`` items completed."""
    timeline_position: str
    """Where the timeline stands: ``{index}`` of ``{total}``."""
    timeline_written: str
    """The cause of a step made by a ``todo/write``."""
    timeline_cleared: str
    """The cause of a step made by a ``turn/start`` (the plan is cleared)."""
    timeline_empty: str
    """Shown when no plan stands at a step."""
    timeline_steps: str
    """The accessible name of the list of steps."""
    clipped: str
    """Under a tool row's input or output cut short: ``{shown}`` of ``{total}`` characters."""
    status_completed: str
    status_in_progress: str
    status_pending: str
    """The spoken names of a plan item's status glyph (an unknown status is named as written)."""
    label_in: str
    label_out: str
    """The labels of a tool row's input and output."""
    default_title: str
    """The page's title when the session has none."""

    def status_name(self, status: str) -> str:
        """The accessible name of a plan item's glyph."""
        return {"completed": self.status_completed, "in_progress": self.status_in_progress,
                "pending": self.status_pending}.get(status, status)


PAGE_EN = PageStrings(
    reasoning="Reasoning",
    suffix_more="{extra} more in progress",
    timeline_title="Plan timeline",
    timeline_slider="Plan change",
    timeline_previous="Previous change",
    timeline_next="Next change",
    timeline_step="turn {turn} · {cause}",
    timeline_step_outside="seq {seq} · {cause}",
    timeline_progress=" · {done} of {total} done",
    timeline_position="{index} of {total}",
    timeline_written="plan written",
    timeline_cleared="new turn, plan cleared",
    timeline_empty="No plan",
    timeline_steps="Plan changes",
    clipped="… clipped: the first {shown} of {total} characters are shown",
    status_completed="Completed",
    status_in_progress="In progress",
    status_pending="Pending",
    label_in="IN",
    label_out="OUT",
    default_title="Session replay",
)

PAGE_ZH = PageStrings(
    reasoning="推理过程",
    suffix_more="另有 {extra} 项进行中",
    timeline_title="计划时间线",
    timeline_slider="计划变更",
    timeline_previous="上一次变更",
    timeline_next="下一次变更",
    timeline_step="第 {turn} 轮 · {cause}",
    timeline_step_outside="seq {seq} · {cause}",
    timeline_progress=" · 已完成 {done}/{total}",
    timeline_position="第 {index} / {total} 次",
    timeline_written="写入计划",
    timeline_cleared="新一轮，计划已清空",
    timeline_empty="无计划",
    timeline_steps="计划变更列表",
    clipped="……已截断：显示前 {shown} 个字符，共 {total} 个",
    status_completed="已完成",
    status_in_progress="进行中",
    status_pending="待处理",
    label_in="输入",
    label_out="输出",
    default_title="会话回放",
)

_BY_LOCALE: Mapping[str, PageStrings] = {"en": PAGE_EN, "zh": PAGE_ZH}


def page_strings(locale: str) -> PageStrings:
    """The page strings of ``locale``; ``ValueError`` for a locale ``strings`` refuses."""
    strings(locale)
    return _BY_LOCALE[locale]
