"""The session fold: times, turns and steps, tokens by the harness's accounting rule,
models, call outcomes, the plan's progress and the title, on real corpus logs and
mutations of them."""

from __future__ import annotations

import copy
from typing import Any

from replay.project.session import Usage, session_fold
from tests.helpers import TODO_WRITE, filler, index_of, records
from tests.render.web.builders import to_events


def _usage_chunk(rec: dict[str, Any], seq: int, usage: dict[str, int]) -> dict[str, Any]:
    return {"type": "assistant/chunk", "seq": seq, "time": rec["time"],
            "data": {"turn": rec["data"]["turn"], "step": rec["data"]["step"],
                     "chunk": {"type": "usage", "usage": usage}}}


def test_the_numbers_of_a_real_log() -> None:
    recs = records(TODO_WRITE)
    fold = session_fold(to_events(recs))
    times = [r["time"] for r in recs[1:] if "time" in r]
    times += [recs[i]["time0"] + sum(recs[i]["data"]["dt"][:k]) for i in range(1, len(recs)) if "time0" in recs[i]
              for k in range(len(recs[i]["data"]["dt"]) + 1)]
    assert (fold.first, fold.last, fold.duration) == (min(times), max(times), max(times) - min(times))
    # step 1's usage chunk and step 2's: the two steps' tokens, added up
    assert fold.usage() == Usage(input=5778 + 154, output=117 + 5, cache_read=5760, reasoning=24 + 2)
    assert [(s.turn, s.step, s.model, s.latency) for s in fold.steps.values()] == [
        (1, 1, "deepseek-v4-flash", 1785987080633 - 1785987077430),
        (1, 2, "deepseek-v4-flash", 1785987081455 - 1785987080647)]
    assert [(t.turn, t.reason, t.steps, t.duration) for t in fold.turns] == [
        (1, "completed", 2, 1785987081455 - 1785987077401)]
    [call] = fold.calls
    assert (call.name, call.outcome, call.duration) == ("todo_write", "done", 1785987080633 - 1785987080619)
    assert fold.models() == ["deepseek-v4-flash"]
    assert fold.plan_progress() == (0, 3)


def test_usage_chunks_win_over_the_message_and_failed_attempts_count() -> None:
    """Per step, its usage chunks (every attempt's, a failed one included) are the
    record; the assistant message's usage counts only for a step that has none."""
    recs = records(TODO_WRITE)
    step1 = recs[index_of(recs, "assistant/chunk", step=1)]
    recs[index_of(recs, "assistant/message", step=1)]["data"]["usage"] = {"inputTokens": 999, "outputTokens": 999}
    failed = _usage_chunk(step1, step1["seq"], {"inputTokens": 10, "outputTokens": 1})
    at = index_of(recs, "assistant/chunk", step=1)
    recs[at] = failed  # an earlier attempt's accounting
    for rec in recs:  # step 2 loses its usage chunk: its message's usage counts
        if rec.get("type") == "assistant/chunk" and rec["data"]["chunk"].get("type") == "usage" \
                and rec["data"]["step"] == 2:
            rec.update(filler(rec))
    recs[index_of(recs, "assistant/message", step=2)]["data"]["usage"] = {"inputTokens": 7, "reasoningTokens": 3,
                                                                        "cacheWriteTokens": 2}
    fold = session_fold(to_events(recs))
    assert [s.usage for s in fold.steps.values()] == [
        Usage(input=5778 + 10, output=117 + 1, reasoning=24),
        Usage(input=7, cache_write=2, reasoning=3)]


def test_a_step_without_a_model_names_the_route_in_force() -> None:
    recs = records(TODO_WRITE)
    message = recs[index_of(recs, "assistant/message", step=2)]["data"]["message"]
    del message["source"]["model"]
    recs[index_of(recs, "request/context")]["data"]["model"] = "route-model"
    fold = session_fold(to_events(recs))
    assert [s.shown_model for s in fold.steps.values()] == ["deepseek-v4-flash", "route-model"]
    assert fold.models() == ["deepseek-v4-flash", "route-model"]


def test_outcomes_of_calls() -> None:
    recs = records(TODO_WRITE)
    result = recs[index_of(recs, "tool/result")]
    failed = copy.deepcopy(result)
    failed["data"]["message"]["content"][0]["isError"] = True
    stopped = copy.deepcopy(failed)
    stopped["data"]["error"] = {"name": "AbortError", "code": "interrupted"}
    for variant, outcome in ((result, "done"), (failed, "failed"), (stopped, "interrupted"), (None, "pending")):
        changed = copy.deepcopy(recs)
        at = index_of(changed, "tool/result")
        changed[at] = variant if variant is not None else filler(changed[at])
        fold = session_fold(to_events(changed))
        assert [c.outcome for c in fold.calls] == [outcome]
        assert fold.outcomes()[outcome] == 1


def test_a_fallback_title_gives_way_to_the_whole_prompt() -> None:
    """The log's title is the harness's fallback, its prompt's first words: the title
    shown is the prompt, whole; a title a provider gave wins."""
    recs = records(TODO_WRITE)
    prompt = recs[index_of(recs, "user/message")]["data"]["content"][0]["text"]
    fold = session_fold(to_events(recs))
    assert fold.fallback_title == "Use the todo_write tool to" and fold.shown_title() == prompt
    assert len(prompt) > 100 and prompt.startswith(fold.fallback_title)
    title = recs[index_of(recs, "session/title")]
    title["data"]["source"] = {"kind": "provider", "provider": "p"}
    title["data"]["title"] = "A title"
    assert session_fold(to_events(recs)).shown_title() == "A title"


def test_counts_that_are_not_counts_count_nothing() -> None:
    assert Usage.read({"inputTokens": True, "outputTokens": -4, "cacheReadTokens": 2.5, "reasoningTokens": "9"}) \
        == Usage()
    assert Usage.read([1, 2]) is None
