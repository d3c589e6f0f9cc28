"""The typed reading and the exact one give every surface the same thing (issue 27,
point 6): real logs with records bent (a value replaced, a key added, dropped or
repeated, a type changed, invalid UTF-8, deep nesting), read typed and read exactly,
render the same ACP streams (live and load, each generation), the same stdio
transcript, the same standing plan and the same session facts. The audit's judgement
of the same logs is held equal by tests/log/test_typed.py."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.log.reader import iter_events, read_log
from replay.project.session import SessionFold
from replay.render.acp.profiles import PROFILES
from replay.render.acp.stream import normalized_lines
from replay.render.stdio import render_stdio
from replay.todo.plan import plan_changes
from tests.helpers import bytes_source, examples
from tests.log.test_typed import LOGS, _lines, bent_log


def _facts(fold: SessionFold) -> Any:
    """What a session browser shows of a log, as plain values."""
    return (repr(fold.usage()), fold.models(), fold.shown_title(), fold.plan_progress(), sorted(
        (str(k), v) for k, v in fold.outcomes().items()), fold.duration)


def _surfaces(data: bytes, typed: bool) -> list[Any]:
    """Every surface of one reading of a log, as values to compare (an exception is a
    value too: both readings must fail alike)."""
    out: list[Any] = []

    def events() -> Any:
        return iter_events(read_log(bytes_source(data), typed=typed).items())

    log = read_log(bytes_source(data), typed=typed)
    header = log.header.record if log.header is not None else {}
    log.close()
    session = str(header.get("id", "s"))
    cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
    for profile, info in PROFILES.items():
        for mode in ("live", "load") if info.has_load else ("live",):
            try:
                out.append(list(normalized_lines(events(), session_id=session, header_cwd=cwd, mode=mode,
                                                 profile=profile)))
            except Exception as exc:  # compared, not hidden: both readings must fail alike
                out.append(("raised", type(exc).__name__, str(exc)))
    for surface in (lambda: "".join(render_stdio(events(), color=False)),
                    lambda: [repr(change) for change in plan_changes(events())]):
        try:
            out.append(surface())
        except Exception as exc:
            out.append(("raised", type(exc).__name__, str(exc)))
    fold = SessionFold()
    try:
        for ev in events():
            fold.event(ev)
        out.append(_facts(fold))
    except Exception as exc:
        out.append(("raised", type(exc).__name__, str(exc)))
    return out


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LOGS), st.data())
def test_bent_real_logs_render_typed_as_exactly(log: str, draw: st.DataObject) -> None:
    data = bent_log(log, draw)
    assert _surfaces(data, typed=True) == _surfaces(data, typed=False)


def test_the_real_logs_render_typed_as_exactly() -> None:
    for log in LOGS:
        data = b"\n".join(_lines(log)) + b"\n"
        typed = _surfaces(data, typed=True)
        assert typed == _surfaces(data, typed=False), log
        assert not any(isinstance(s, tuple) and s and s[0] == "raised" for s in typed), (log, typed)
