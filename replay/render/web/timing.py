"""Where a session's time and tokens went: a bar per step of its duration and of its
tokens (inline SVG, seen without script), the slowest steps and tool calls, each
linking to its event. Gathered as a page is drafted, in bounded memory: the first
``MAX_BARS`` steps, and the ``SLOWEST`` slowest steps and calls (kept in heaps)."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from replay.render.web.locale import interpolate
from replay.render.web.page import esc
from replay.render.web.site_strings import SiteStrings, count
from replay.words import by_count

MAX_BARS = 300
"""Steps drawn, at most (the rest are counted)."""
SLOWEST = 5
"""Steps, and tool calls, listed as the slowest."""


@dataclass(frozen=True, slots=True)
class StepBar:
    label: str
    line: int
    ms: int | None
    input: int
    output: int


@dataclass
class Timing:
    """The numbers the section shows, gathered step by step and call by call."""

    bars: list[StepBar] = field(default_factory=list)
    steps: int = 0
    slow_steps: list[tuple[int, int, str, int]] = field(default_factory=list)
    """A min-heap of (duration, -order, label, line): the slowest steps."""
    slow_calls: list[tuple[int, int, str, int]] = field(default_factory=list)
    """A min-heap of (duration, -number, tool, line): the slowest tool calls."""

    def step(self, label: str, line: int, ms: int | None, tokens_in: int, tokens_out: int) -> None:
        self.steps += 1
        if len(self.bars) < MAX_BARS:
            self.bars.append(StepBar(label, line, ms, tokens_in, tokens_out))
        if ms is not None:
            _keep(self.slow_steps, (ms, -self.steps, label, line))

    def call(self, number: int, tool: str, line: int, ms: int | None) -> None:
        if ms is not None:
            _keep(self.slow_calls, (ms, -number, tool, line))


def _keep(heap: list[tuple[int, int, str, int]], item: tuple[int, int, str, int]) -> None:
    if len(heap) < SLOWEST:
        heapq.heappush(heap, item)
    elif item > heap[0]:
        heapq.heapreplace(heap, item)


def _bars(key: str, title: str, values: list[tuple[StepBar, int, str]]) -> str:
    """One bar per step, its height a value; each bar's name says its step and the value."""
    most = max((v for _, v, _ in values), default=0)
    width, height = 600, 80
    step = width / max(len(values), 1)
    rects = []
    for i, (bar, value, shown) in enumerate(values):
        h = 0.0 if not most else max(1.0, (height - 4) * value / most)
        rects.append(f"<a href=\"#L{bar.line}\"><rect class=\"bar\" x=\"{i * step:.1f}\" y=\"{height - h:.1f}\" "
                     f"width=\"{max(step * 0.85, 0.5):.1f}\" height=\"{h:.1f}\" data-line=\"{bar.line}\" "
                     f"data-ms=\"{'' if bar.ms is None else bar.ms}\" data-input=\"{bar.input}\" "
                     f"data-output=\"{bar.output}\"><title>{esc(f'{bar.label}: {shown}')}</title></rect></a>")
    return (f"<figure class=\"chart\" id=\"{key}\"><figcaption id=\"{key}-title\">{esc(title)}</figcaption>"
            f"<svg viewBox=\"0 0 {width} {height}\" role=\"img\" aria-labelledby=\"{key}-title\" "
            f"preserveAspectRatio=\"none\" xmlns=\"http://www.w3.org/2000/svg\">{''.join(rects)}</svg></figure>")


def _slowest(key: str, title: str, heap: list[tuple[int, int, str, int]], ss: SiteStrings) -> str:
    items = "".join(f"<li data-ms=\"{ms}\"><a href=\"#L{line}\">{esc(label)}</a> "
                    f"<span class=\"dur\">{esc(ss.duration(ms))}</span></li>"
                    for ms, _, label, line in sorted(heap, reverse=True))
    return (f"<div class=\"slowest\"><h3 id=\"{key}-title\">{esc(title)}</h3>"
            f"<ol id=\"{key}\" aria-labelledby=\"{key}-title\">{items}</ol></div>") if items else ""


def timing_html(timing: Timing, ss: SiteStrings) -> str:
    """The section (empty for a log of no step)."""
    if not timing.steps:
        return ""
    bars = timing.bars
    times = _bars("step-times", ss.timing_durations, [(b, b.ms or 0, ss.duration(b.ms)) for b in bars])
    tokens = _bars("step-tokens", ss.timing_tokens, [
        (b, b.input + b.output, interpolate(ss.timing_step_tokens, input=count(b.input), output=count(b.output)))
        for b in bars])
    left = timing.steps - len(bars)
    more = (f"<p class=\"note\">{esc(interpolate(by_count(left, ss.timing_more), count=count(left)))}</p>"
            if left else "")
    lists = _slowest("slowest-steps", ss.slowest_steps, timing.slow_steps, ss) + \
        _slowest("slowest-calls", ss.slowest_calls, timing.slow_calls, ss)
    return (f"<section class=\"timing\" aria-labelledby=\"timing-title\"><details><summary><h2 id=\"timing-title\">"
            f"{esc(ss.timing_title)}</h2></summary><div class=\"charts\">{times}{tokens}</div>{more}"
            f"<div class=\"lists\">{lists}</div></details></section>\n")


__all__ = ["MAX_BARS", "SLOWEST", "Timing", "timing_html"]
