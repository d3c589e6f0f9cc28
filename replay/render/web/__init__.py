"""The web UI of the harness, replayed: the todo row and plan panel, their golden
text format, and a self-contained HTML page (web-stdio-todo.md §1).

Public API:

- ``web_golden(events, locale="en") -> str``: the assembled snapshot's text format
  (§1.4): per ``todo_write`` call ``row=``/``title=``/``summary=``/``suffix=``, then
  ``panel=`` and ``item=`` lines for the standing plan at the end of the log.
- ``golden_text(rows, panel) -> str``: the same format for fields built elsewhere.
- ``row_fields(call, locale="en") -> RowFields``: one tool call's collapsed row
  (state, hidden state label, title, summary, ``+N`` suffix); the call comes from
  ``replay.project.tools.tool_calls``.
- ``plan_summary(args_raw, call_id, strings) -> PlanSummary`` and
  ``generic_summary(name, args_raw, call_id) -> str``: the summary rules alone.
- ``panel_fields(plan, locale="en") -> PanelFields | None``: the panel of a standing
  plan (``replay.todo.plan.standing_plan``); ``None`` when there is no panel.
- ``html_page(events, *, locale="en", report=None, header=None, links=None) -> str``:
  a session's page from its events (and an audit's findings, at their events), the
  page ``replay view LOG``, ``render web --html`` and the site make
  (``session_page.page_chunks`` of the draft ``session_page.drafted`` makes, in pieces).
- ``strings(locale) -> Strings``, ``EN``, ``ZH``: the locale strings (§1.3).

Locales are ``en`` and ``zh``; any other raises ``ValueError``. Everything here is
pure: events in, strings or frozen dataclasses out.
"""

from replay.render.web.golden import golden_text, web_golden
from replay.render.web.locale import EN, LOCALES, ZH, Locale, Strings, strings
from replay.render.web.panel import PanelFields, PanelItem, panel_fields
from replay.render.web.row import PlanSummary, RowFields, RowState, generic_summary, plan_summary, row_fields
from replay.render.web.session_page import html_page

__all__ = [
    "EN",
    "LOCALES",
    "ZH",
    "Locale",
    "PanelFields",
    "PanelItem",
    "PlanSummary",
    "RowFields",
    "RowState",
    "Strings",
    "generic_summary",
    "golden_text",
    "html_page",
    "panel_fields",
    "plan_summary",
    "row_fields",
    "strings",
    "web_golden",
]
