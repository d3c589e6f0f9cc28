"""The plan timeline: every change of the standing plan, steppable on the page.

A step is each ``todo/write`` and each ``turn/start`` that clears a plan (one that
finds no plan standing changes nothing and is no step). The plan shown at a step is
the standing plan at that seq, read from ``replay.todo.plan`` (``plans_at``: the same
answer as ``standing_plan(events, at=seq)``, so the page always agrees with ``replay
plan --at SEQ``, computed for every step at once, in O(n log n) whatever the seq order).

The steps travel to the page as JSON in a ``<script type="application/json">`` data
block, escaped so that no log text can end the element (``script_json``); the page's
script renders them with ``textContent`` only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from replay.log.event import Event
from replay.render.web.locale import interpolate
from replay.render.web.page_strings import PageStrings, page_strings
from replay.render.web.panel import PanelFields, panel_fields
from replay.style import sanitize
from replay.todo.plan import PlanChange, plan_changes, plans_at

WRITE = "todo/write"
CLEAR = "turn/start"
STATUS_JOINER = "\u2002\u2014\u2002"
"""Between the step and its progress in the status line: EN SPACE, EM DASH, EN SPACE."""


@dataclass(frozen=True, slots=True)
class TimelineStep:
    """One step: the event that changed the plan, and the panel of the plan it left."""

    seq: int
    cause: str
    """``todo/write`` or ``turn/start``."""
    label: str
    """In words, localised: ``turn 3 · plan written · 2 of 5 done`` (``seq {seq}`` for a
    write outside any turn; the progress only when a plan stands)."""
    position: str
    """``{index} of {total}``, localised (1-based)."""
    panel: PanelFields | None
    """The standing plan after the event; ``None`` when none shows (absent or ``[]``)."""


def timeline_steps(events: Iterable[Event], locale: str = "en") -> tuple[TimelineStep, ...]:
    """The steps of a log's plan timeline, in log order."""
    return steps_of(list(plan_changes(events)), locale)


def steps_of(changes: Sequence[PlanChange], locale: str = "en") -> tuple[TimelineStep, ...]:
    """The timeline of a log's plan changes (in log order). The plan shown at a step is
    ``standing_plan(events, at=step.seq)``, computed for all steps at once (``plans_at``)."""
    s = page_strings(locale)
    chosen: list[PlanChange] = []
    turns: list[Any] = []
    standing: list[Any] | None = None
    turn: Any = None
    for change in changes:
        if change.cause == CLEAR:
            turn = change.turn
        if change.cause == WRITE or standing is not None:
            chosen.append(change)
            turns.append(turn)
        standing = change.todos
    plans = plans_at(changes, (change.seq for change in chosen))
    total = len(chosen)
    return tuple(
        TimelineStep(
            seq=change.seq,
            cause=change.cause,
            label=_label(change, turn, plan, s),
            position=interpolate(s.timeline_position, index=index, total=total),
            panel=panel_fields(plan, locale),
        )
        for index, (change, turn, plan) in enumerate(zip(chosen, turns, plans, strict=True), start=1)
    )


def _label(change: PlanChange, turn: Any, plan: list[Any] | None, s: PageStrings) -> str:
    """A step named in words: its turn (its seq outside any turn), what happened, and
    how far the plan it left stands."""
    cause = s.timeline_written if change.cause == WRITE else s.timeline_cleared
    label = (interpolate(s.timeline_step_outside, seq=change.seq, cause=cause) if turn is None
             else interpolate(s.timeline_step, turn=_turn_text(turn), cause=cause))
    if plan:
        done = sum(1 for item in plan if isinstance(item, dict) and item.get("status") == "completed")
        label += interpolate(s.timeline_progress, done=done, total=len(plan))
    return label


def _turn_text(turn: Any) -> str:
    return turn if isinstance(turn, str) else json.dumps(turn, ensure_ascii=False)


_SCRIPT_ESCAPES = str.maketrans({
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
})


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: ``<``, ``>``, ``&``, U+2028 and U+2029
    are written as ``\\u`` escapes, so ``</script>`` or ``<!--`` can never appear. Every
    string is text the page shows: it passes the one sanitizer first."""
    return json.dumps(_shown(value), ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_ESCAPES)


def _shown(value: Any) -> Any:
    if isinstance(value, str):
        return sanitize(value, keep_newlines=True)
    if isinstance(value, list | tuple):
        return [_shown(v) for v in value]
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    return value


def timeline_head(s: PageStrings) -> dict[str, Any]:
    """The data's fields before its steps."""
    return {"empty": s.timeline_empty, "joiner": STATUS_JOINER}


def step_data(step: TimelineStep, s: PageStrings) -> dict[str, Any]:
    """One step of the data: its seq, cause, label, position, progress (``None``: no
    plan) and items, each ``[status, the status's spoken name, content]``."""
    return {
        "seq": step.seq,
        "cause": step.cause,
        "label": step.label,
        "position": step.position,
        "progress": step.panel.progress if step.panel is not None else None,
        "items": [[item.status, s.status_name(item.status), item.content]
                  for item in step.panel.items] if step.panel else [],
    }


def timeline_json(steps: Sequence[TimelineStep], s: PageStrings) -> Iterator[str]:
    """What the page's script reads, as JSON in pieces, one step at a time (never the
    whole data at once: a long timeline is most of a page): the text shown when no plan
    stands, the joiner of the status line, and each step's ``step_data``."""
    head = script_json(timeline_head(s))
    yield head[:-1] + ',"steps":['
    for i, step in enumerate(steps):
        yield ("," if i else "") + script_json(step_data(step, s))
    yield "]}"
