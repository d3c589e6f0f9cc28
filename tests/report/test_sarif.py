"""SARIF 2.1.0 output, validated against the official schema.

``sarif-schema-2.1.0.json`` beside this file is the OASIS SARIF TC's schema, as
published at
https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json
and committed to the TC's repository oasis-tcs/sarif-spec as
``Schemata/sarif-schema-2.1.0.json`` (commit 0a8091f7d4057e57b6d8d9b56129e5f918747b34),
byte for byte: its SHA-256 is checked below, so an edit cannot pass unnoticed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from replay.check.engine import AuditResult, LogReport
from replay.check.registry import RULES
from replay.cli import main
from replay.findings import Finding, Severity
from replay.report.sarif import AuditSarif, artifact_uri, sarif_document
from tests.helpers import TODO_WRITE, corpus_root, dump, index_of, records

SCHEMA_FILE = Path(__file__).with_name("sarif-schema-2.1.0.json")
SCHEMA_SHA256 = "ddddcccbf95c7c50c037b5b07eff4140556278ca574ff374db46786b5fce7949"
FOLDERS = ("acp-2026-06-29", "acp-2026-07-23", "sessions-2026-08-20")


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    data = SCHEMA_FILE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SCHEMA_SHA256
    schema = json.loads(data)
    assert schema["id"] == ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                            "sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def _valid(validator: jsonschema.Draft4Validator, doc: dict[str, Any]) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert errors == []


def test_the_schema_catches_what_is_wrong(validator: jsonschema.Draft4Validator) -> None:
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "replay"}},
                                         "results": [{"ruleId": "A4", "level": "fatal", "message": {"text": "x"}}]}]}
    assert [e.message for e in validator.iter_errors(bad)] == [
        "'fatal' is not one of ['none', 'note', 'warning', 'error']"]


@pytest.mark.slow
def test_the_corpus_audit_is_valid_sarif_with_every_finding(validator: jsonschema.Draft4Validator,
                                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [corpus_root() / name for name in FOLDERS]
    if not all(p.exists() for p in paths):
        pytest.skip(f"corpus folders {FOLDERS} are absent (set REPLAY_CORPUS to the shared corpus folder)")
    result = CliRunner().invoke(main, ["audit", "--format", "sarif", *map(str, paths)])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    _valid(validator, doc)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    assert all(r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["markdown"]
               for r in rules)
    results = run["results"]
    document = json.loads(CliRunner().invoke(main, ["audit", "--no-cache", "--format", "json",
                                                    *map(str, paths)]).stdout)
    wanted = [(f["rule"], f["severity"], f["line"], f["message"]) for file in document["files"]
              for f in file["findings"]]
    levels = {"error": "error", "warning": "warning", "policy": "note"}
    shown = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
              r["message"]["text"]) for r in results]
    assert shown == [(rule, levels[sev], line, msg) for rule, sev, line, msg in wanted]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    prints = [r["partialFingerprints"]["replay/v1"] for r in results]
    assert len(set(prints)) == len(prints) == 385
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
    # Paths relative to the working directory, as the text report shows them.
    monkeypatch.chdir(corpus_root())
    again = json.loads(CliRunner().invoke(main, ["audit", "--format", "sarif", *FOLDERS]).stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in again["runs"][0]["results"]}
    assert "acp-2026-06-29/cancel/session.jsonl" in uris


def test_hostile_strings_and_integers_are_carried(validator: jsonschema.Draft4Validator, tmp_path: Path) -> None:
    evil = "\x1b]52;c;AAAA\x07\x9b2J\u202e\ud800"
    report = LogReport(str(tmp_path / f"a b{evil}.jsonl"), "findings", 3, [
        Finding("A4", Severity.ERROR, f"header: {evil}\nnext", 1, None, f"type{evil}", fingerprint="f" * 32),
        Finding("A7", Severity.WARNING, "seq", 2, 2**80, "turn/start"),
        Finding("P1", Severity.POLICY, "what-if", None, -(2**70)),
        Finding("NOPE", Severity.ERROR, "a rule no registry knows", 0),
    ])
    doc = sarif_document(AuditResult([report]), cwd=str(tmp_path), baseline=True)
    text = AuditSarif.render(AuditResult([report]))
    message = json.loads(text)["runs"][0]["results"][0]["message"]["text"]
    assert message == "header: \x1b]52;c;AAAA\x07\x9b2J\u202e\ufffd\nnext"
    _valid(validator, doc)
    results = doc["runs"][0]["results"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "a%20b%1B%5D52%3Bc%3BAAAA%07%C2%9B2J%E2%80%AE%ED%A0%80.jsonl", "uriBaseId": "%SRCROOT%"}
    assert results[0]["properties"] == {"severity": "error", "type": "type\x1b]52;c;AAAA\x07\x9b2J\u202e\ufffd"}
    assert results[0]["fingerprints"] == {"replay/v1": "f" * 32} and results[0]["baselineState"] == "new"
    assert results[1]["properties"]["seq"] == str(2**80)
    assert results[2]["properties"]["seq"] == str(-(2**70))
    assert "region" not in results[2]["locations"][0]["physicalLocation"]
    assert "region" not in results[3]["locations"][0]["physicalLocation"] and "ruleIndex" not in results[3]


def test_a_log_outside_the_working_directory_is_an_absolute_uri(tmp_path: Path) -> None:
    assert artifact_uri("/var/log/x y/session.jsonl", str(tmp_path)) == ("file:///var/log/x%20y/session.jsonl", None)
    assert artifact_uri("../logs/session.jsonl", str(tmp_path)) == ("../logs/session.jsonl", "%SRCROOT%")


def test_with_a_baseline_only_new_results_are_marked_new(validator: jsonschema.Draft4Validator, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    recs = records(TODO_WRITE)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "session.jsonl").write_bytes(dump(recs))
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["audit", "--write-baseline", "b.json", "logs"]).exit_code == 0
    i = index_of(recs, "todo/write")
    recs[i]["data"]["todos"][2]["status"] = "done"
    (tmp_path / "logs" / "session.jsonl").write_bytes(dump(recs))
    # --no-cache: the log was rewritten, which the cache would report too (rule H1)
    result = CliRunner().invoke(main, ["audit", "--no-cache", "--format", "sarif", "--baseline", "b.json", "logs"])
    doc = json.loads(result.stdout)
    _valid(validator, doc)
    [new] = doc["runs"][0]["results"]
    assert (new["ruleId"], new["baselineState"], new["locations"][0]["physicalLocation"]) == (
        "T5", "new", {"artifactLocation": {"uri": "logs/session.jsonl", "uriBaseId": "%SRCROOT%"},
                      "region": {"startLine": 21}})
