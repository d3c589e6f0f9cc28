"""``replay review``: each pending golden in turn, its changes, and one key.

The loop is data in, decisions out: ``ask`` is shown one pending golden (its
changes, and its place such as ``[2/7]``) and answers with a key — ``a`` accept,
``r`` reject, ``s`` skip, ``q`` quit, or ``A`` / ``R`` / ``S`` for this one and
every one after it (as in insta). Reading keys from a terminal, help and unknown keys
are the caller's (the CLI); accepting and rejecting are ``Workflow``'s, so an accept
in review is refused exactly as ``replay accept`` refuses it.
"""

from __future__ import annotations

from collections.abc import Callable

from replay.goldens import DECISIONS, QUIT
from replay.goldens.pending import Decision, EntryView, PendingResult, Workflow
from replay.goldens.select import Selection
from replay.goldens.store import StoreError

KEYS = frozenset([*DECISIONS, *(key.upper() for key in DECISIONS), QUIT])

Ask = Callable[[EntryView, str], str]
"""Shows one pending golden and returns a key of ``KEYS``."""


def review(workflow: Workflow, ask: Ask, selection: Selection | None = None, *, full: bool = False,
           told: Callable[[Decision], None] | None = None) -> PendingResult:
    """Walk the selected pending goldens; ``told`` hears each decision as it is made."""
    entries = workflow.entries(selection)
    result = PendingResult(str(workflow.pending.root))
    every: str | None = None
    for number, entry in enumerate(entries, start=1):
        try:
            view = workflow.view(entry, full)
        except StoreError as exc:
            decisions = [Decision(entry, "refused", workflow.golden_path(entry), str(exc))]
        else:
            key = every or ask(view, f"[{number}/{len(entries)}]")
            if key not in KEYS:
                raise ValueError(f"not a review key: {key!r}")
            if key == QUIT:
                result.quit = True
                break
            if key.isupper():
                every = key = key.lower()
            action = DECISIONS[key]
            if action == "accept":
                decisions = workflow.accept([entry])  # the bytes shown: both hash to the entry
            elif action == "reject":
                decisions = workflow.reject([entry])
            else:
                decisions = [Decision(entry, "skipped", view.golden)]
        for decision in decisions:
            result.decisions.append(decision)
            if told is not None:
                told(decision)
    result.left = workflow.left()
    return result
