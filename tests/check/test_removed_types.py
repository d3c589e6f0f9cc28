"""When the audit and conformance disagree about whether the harness loads a log, the
audit and conformance both say why (issue 27, row 11): a harness scenario whose log holds context/message,
a type today's harness removed, is refused by the audit and byte-exact in conformance."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.helpers import corpus_file, replay_here

SCENARIO = "acp-2026-07-23/hook-cc-posttool-context"


def test_a_removed_type_is_refused_and_the_audit_says_why_conformance_matches(tmp_path: Path) -> None:
    folder = corpus_file(SCENARIO + "/session.jsonl").parent
    copy = tmp_path / "acp-2026-07-23" / folder.name
    shutil.copytree(folder, copy)
    audit = replay_here("audit", str(copy / "session.jsonl"), "--select", "B6")
    assert audit.code == 1
    [finding] = [line.strip() for line in audit.stdout.decode().splitlines() if "B6 error" in line]
    assert finding == (
        'line 66: B6 error: today\'s harness does not know the event type "context/message", and the event is not '
        'marked "ignorable": true, so it refuses the log. (Earlier harnesses wrote this type and today\'s removed '
        "it; their ACP agent streamed nothing for it, which is why `replay conformance` can find this log's recorded "
        "streams byte-exact: they are the earlier harness's.)")
    conformance = replay_here("conformance", str(tmp_path / "acp-2026-07-23"))
    assert conformance.code == 0, conformance.stdout
    out = conformance.stdout.decode()
    assert "1/1 scenarios byte-exact" in out
    assert ("[today's harness refuses this log (context/message: a type it does not know, rule B6 of `replay audit`); "
            "the goldens are the streams the harness that wrote it recorded, and they are compared as they are]") in out
