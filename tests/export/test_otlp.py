"""``replay export --format otlp``: every file of the shared corpus's traces parses as
an ``ExportTraceServiceRequest`` (protobuf's JSON mapping, the ids hex as OTLP/JSON
wants them), each is one well-formed tree (one root, every parent present, children
inside their parents' times), subagent sessions hang under the call that started
them, and the chat spans' token attributes sum to the totals of the logs in the
trace (computed from the raw lines, independently of replay)."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replay.cli import main
from tests.helpers import corpus_root
from tests.render.web.log_numbers import log_numbers

pytest.importorskip("pyarrow", reason="the export extra (pyarrow) is not installed")
json_format = pytest.importorskip("google.protobuf.json_format", reason="protobuf is not installed")
trace_service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2",
                                    reason="opentelemetry-proto (the test extra) is not installed")

pytestmark = pytest.mark.slow


def export(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["export", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def parse(doc: dict[str, Any]) -> Any:
    """The document as protobuf reads it: OTLP/JSON's hex ids are base64 in protobuf's
    JSON mapping (the one difference between the two)."""
    doc = copy.deepcopy(doc)
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return json_format.ParseDict(doc, trace_service.ExportTraceServiceRequest())


def spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for r in doc["resourceSpans"] for sc in r["scopeSpans"] for s in sc["spans"]]


def attrs(span: dict[str, Any]) -> dict[str, Any]:
    found = {}
    for a in span["attributes"]:
        (kind, value), = a["value"].items()
        found[a["key"]] = int(value) if kind == "intValue" else value
    return found


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"the shared corpus {root} is absent (set REPLAY_CORPUS)")
    out = tmp_path_factory.mktemp("otlp") / "traces"
    code, text = export(str(root), "-o", str(out), "--format", "otlp", "--jobs", "1")
    return out, code, text


def test_every_trace_parses_and_is_one_well_formed_tree(traces: tuple[Path, int, str]) -> None:
    out, code, text = traces
    assert code == 1 and text.splitlines()[0] == str(out)
    files = sorted(out.glob("*.otlp.json"))
    sessions = under_calls = 0
    for path in files:
        doc = json.loads(path.read_bytes())
        request = parse(doc)
        assert len(request.resource_spans[0].scope_spans[0].spans) == len(spans(doc))
        found = {s["spanId"]: s for s in spans(doc)}
        assert len(found) == len(spans(doc)), path  # ids unique
        assert len({s["traceId"] for s in found.values()}) == 1, path
        roots = [s for s in found.values() if "parentSpanId" not in s]
        assert [r["name"] for r in roots] == ["invoke_agent"], path
        for span in found.values():
            assert int(span["startTimeUnixNano"]) <= int(span["endTimeUnixNano"]), path
            if "parentSpanId" in span:
                parent = found[span["parentSpanId"]]
                assert int(parent["startTimeUnixNano"]) <= int(span["startTimeUnixNano"]) <= \
                    int(span["endTimeUnixNano"]) <= int(parent["endTimeUnixNano"]), (path, span["name"])
            if span["name"] == "invoke_agent":
                sessions += 1
                if "parentSpanId" in span:  # a subagent's session: under the call that started it, when
                    holder = found[span["parentSpanId"]]["name"]  # the parent has one (else under its session:
                    assert holder.startswith("execute_tool subagent") or holder == "invoke_agent", path  # workflow)
                    under_calls += holder.startswith("execute_tool subagent")
        assert {s["name"].split(" ")[0] for s in found.values()} <= {"invoke_agent", "chat", "execute_tool"}
    assert f"traces: {len(files)} rows" in text.splitlines()
    assert f"sessions: {sessions} rows" in text.splitlines()
    assert sessions > len(files) >= 250  # children are in their parents' traces
    assert under_calls > 20


def test_the_token_attributes_sum_to_the_sessions_totals(traces: tuple[Path, int, str]) -> None:
    checked = 0
    for path in sorted(traces[0].glob("*.otlp.json")):
        found = [attrs(s) | {"name": s["name"]} for s in spans(json.loads(path.read_bytes()))]
        expected = [0, 0, 0, 0]
        calls = 0
        for session in (a for a in found if a["name"] == "invoke_agent"):
            _, n, tokens = log_numbers(Path(session["replay.log.path"]))
            inp, out, cache_read, cache_write, reasoning = map(int, tokens.split())
            for i, v in enumerate((inp + cache_read + cache_write, cache_read, out + reasoning, reasoning)):
                expected[i] += v
            calls += int(n)
        chats = [a for a in found if a["name"].startswith("chat")]
        keys = ("gen_ai.usage.input_tokens", "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.output_tokens",
                "gen_ai.usage.reasoning.output_tokens")
        assert [sum(a[k] for a in chats) for k in keys] == expected, path
        assert sum(1 for a in found if a["name"].startswith("execute_tool")) == calls, path
        checked += 1
    assert checked >= 250


def test_a_stream_with_content(tmp_path: Path) -> None:
    """``-o FILE.jsonl``: one request per line; ``--with-content`` adds the arguments and
    results, which are otherwise left out."""
    log = corpus_root() / "sessions-2026-08-20/examples_acp-agent_tests_snapshots/subagent-multi"
    if not log.is_dir():
        pytest.skip(f"the shared corpus {log} is absent (set REPLAY_CORPUS)")
    for content in (False, True):
        out = tmp_path / f"traces-{content}.jsonl"
        code, text = export(str(log), "-o", str(out), "--format", "otlp", *(["--with-content"] * content))
        assert code == 0, text
        lines = out.read_bytes().splitlines()
        assert len(lines) == 1
        doc = json.loads(lines[0])
        parse(doc)
        keys = {a["key"] for s in spans(doc) for a in s["attributes"]}
        assert ("gen_ai.tool.call.arguments" in keys) is content
        assert sum(s["name"] == "invoke_agent" for s in spans(doc)) == 3
