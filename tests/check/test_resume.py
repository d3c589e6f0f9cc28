"""A resumed audit (``replay.check.resume``): an audit that goes on from the checkpoint
of an earlier audit of a log's first bytes gives the report of a cold audit of the
whole log, on real logs damaged anywhere and cut anywhere; a checkpoint is typed data,
and one that is damaged, truncated, foreign, out of bounds or of the wrong shape is
refused (the log audited from its start), with no traceback, no hang and no effect on
any later audit; the audit cache keeps and uses one only for the bytes its entry settled."""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay.check import cache as cache_module
from replay.check import resume
from replay.check.audit import Audit, AuditRequest
from replay.check.cache import CacheRequest
from replay.check.core import CoreChecker
from replay.check.engine import AuditResult, Policy, audit_source, checkers
from replay.check.passes import MAX_PER_RULE
from replay.check.resume import Checkpoint, ResumableSource, resume_reading
from replay.findings import Severity
from replay.log.reader import Limits
from replay.log.scan import MAX_DAMAGED, ScanState
from replay.log.seqmap import HIGH, LOW, int64s
from replay.log.source import file_source
from tests.check.test_repair_reread import LOGS, _judged, _mutated
from tests.helpers import PARALLEL_CALLS, corpus_file, corpus_root, examples

ABSENT = "the shared corpus is absent (set REPLAY_CORPUS to the shared corpus folder)"




def _resumable(path: Path, checkpoint: bytes | None = None) -> ResumableSource:
    source = file_source(str(path))
    return ResumableSource(source.path, source.open, source.is_file, source.discovered, checkpoint)




class _Taken:
    """Whether each audit went on from its checkpoint (``resume_reading`` said so)."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.taken: list[bool] = []
        self.offered: list[bytes | None] = []
        real = resume_reading

        def counted(log: Any, checkpoint: bytes, judges: Any) -> Any:
            found = real(log, checkpoint, judges)
            self.offered.append(checkpoint)
            self.taken.append(found is not None)
            return found

        patch.setattr("replay.check.engine.resume_reading", counted)


@pytest.mark.skipif(not LOGS, reason=ABSENT)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.integers(0, 5), st.integers(0, 10**6), st.integers(0, 10**6),
       st.sampled_from(list(Policy)), st.sampled_from([b"", b"\n", b"{\"type\":\"turn/e"]))
def test_a_resumed_audit_is_the_cold_audit_of_the_whole_log(tmp_path: Path, which: int, how: int, at: int,
                                                            cut: int, policy: Policy, tail: bytes) -> None:
    """The exact path is the cold audit of the whole log (damaged anywhere, perhaps
    with an empty line or a torn record at its end); the fast one audits its first
    lines, keeps the checkpoint, and goes on from it over the rest."""
    lines = LOGS[which % len(LOGS)].read_bytes().split(b"\n")[:-1]
    if len(lines) < 2:
        return
    lines = _mutated(lines, how, at)
    whole = b"\n".join(lines) + b"\n" + tail
    first = 1 + cut % len(lines)
    log = tmp_path / f"case-{which}-{how}-{at}-{cut}" / "session.jsonl"
    log.parent.mkdir(exist_ok=True)  # hypothesis may draw an example twice
    log.write_bytes(b"\n".join(lines[:first]) + b"\n")
    earlier = audit_source(_resumable(log), policy)
    assert earlier is not None
    if earlier.checkpoint is None:  # a seq said twice put one node on the surface twice: no checkpoint keeps it
        assert how == 2
        return
    log.write_bytes(whole)
    with pytest.MonkeyPatch.context() as patch:
        taken = _Taken(patch)
        resumed = audit_source(_resumable(log, earlier.checkpoint), policy)
    assert taken.taken == [True]  # the fast path is taken
    assert _judged(resumed) == _judged(audit_source(file_source(str(log)), policy))
    assert resumed is not None
    assert resumed.checkpoint is not None or tail.strip() or how == 2  # kept again to a final newline


def test_no_checkpoint_is_kept_of_a_torn_tail_a_zstd_log_or_a_plain_source(tmp_path: Path) -> None:
    header = b'{"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}\n'
    turn = b'{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}\n'
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(header + turn + b'{"type":"turn/e')
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(header + turn)
    torn_report, whole_report = audit_source(_resumable(torn)), audit_source(_resumable(whole))
    assert torn_report is not None and torn_report.checkpoint is None
    assert whole_report is not None and whole_report.checkpoint is not None
    plain = audit_source(file_source(str(whole)))
    assert plain is not None and plain.checkpoint is None
    capped = audit_source(_resumable(whole), limits=Limits(max_log_bytes=len(header) + 10))
    assert capped is not None and capped.checkpoint is None  # a cap stopped the reading
    import zstandard

    packed = tmp_path / "whole.jsonl.zstd"
    packed.write_bytes(zstandard.ZstdCompressor().compress(header) + zstandard.ZstdCompressor().compress(turn))
    packed_report = audit_source(_resumable(packed))
    assert packed_report is not None and packed_report.checkpoint is None


def test_a_checkpoint_says_the_length_and_lines_it_resumes_at(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    log.write_bytes(b'{"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}\n'
                    b'{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}\n')
    report = audit_source(_resumable(log))
    assert report is not None and report.checkpoint is not None
    assert resume.head_of(report.checkpoint) == (log.stat().st_size, 2)
    body = _body(report.checkpoint)
    assert (body.scan.number, body.scan.total, body.scan.expected) == (2, log.stat().st_size, 1)
    assert body.core is not None and body.core.dev.open_turn == 1


def test_an_interrupted_log_resumed_says_where_it_ends(tmp_path: Path) -> None:
    """B7 names the log's last line, whether the resumed audit read more lines, an empty
    one or none."""
    for more in (b"", b"\n", b'{"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}\n'):
        log = tmp_path / "session.jsonl"
        log.write_bytes(b'{"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}\n'
                        b'{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}\n')
        earlier = audit_source(_resumable(log))
        assert earlier is not None and earlier.checkpoint is not None
        with log.open("ab") as fh:
            fh.write(more)
        resumed = audit_source(_resumable(log, earlier.checkpoint))
        cold = audit_source(file_source(str(log)))
        assert cold is not None and _judged(resumed) == _judged(cold)


# -- hostile checkpoints, handed to the audit as if the cache's entry named them -----------


def _body(data: bytes) -> Checkpoint:
    return msgspec.msgpack.decode(data[data.index(b"\n") + 1:], type=Checkpoint)


def _bytes_of(body: Any, head: tuple[int, int] | None = None) -> bytes:
    if head is None:
        head = (body.scan.total, body.scan.number)
    return resume.FORMAT + b" %d %d\n" % head + msgspec.msgpack.encode(body)


class _Hostile:
    """A small real log with findings, tool results, a surface and calls waiting at its
    cut, its checkpoint there, the cold audit of it grown, and a log of its own whose
    report must not change whatever is restored before it."""

    def __init__(self, tmp_path: Path) -> None:
        lines = corpus_file(PARALLEL_CALLS).read_bytes().split(b"\n")[:-1]
        # A seq said again (damage) on a todo/write whose todos are no list (a finding on the damage's line)
        lines.insert(3, b'{"type":"todo/write","seq":0,"time":0,"data":{"todos":"x"}}')
        cut = next(i for i, line in enumerate(lines) if b'"tool/result"' in line)  # one call answered, one waiting
        self.log = tmp_path / "session.jsonl"
        self.log.write_bytes(b"\n".join(lines[: cut + 1]) + b"\n")
        earlier = audit_source(_resumable(self.log))
        assert earlier is not None and earlier.checkpoint is not None
        self.checkpoint = earlier.checkpoint
        self.log.write_bytes(b"\n".join(lines) + b"\n")
        self.cold = _judged(audit_source(file_source(str(self.log))))
        self.other = tmp_path / "other" / "session.jsonl"
        self.other.parent.mkdir()
        self.other.write_bytes(b"\n".join(_mutated(lines, 5, 4)) + b"\n")
        self.other_cold = _judged(audit_source(file_source(str(self.other))))

    def body(self) -> Checkpoint:
        return _body(self.checkpoint)

    def audited(self, data: bytes, refused: bool = True) -> None:
        """The log audited from ``data``: the cold report (with ``refused``, by auditing
        from its start), and the later audit of another log unchanged."""
        with pytest.MonkeyPatch.context() as patch:
            taken = _Taken(patch)
            report = audit_source(_resumable(self.log, data))
        if refused:
            assert taken.taken == [False]
            assert _judged(report) == self.cold
        assert _judged(audit_source(file_source(str(self.other)))) == self.other_cold
        assert _judged(audit_source(_resumable(self.other))) == self.other_cold


@pytest.fixture
def hostile(tmp_path: Path) -> _Hostile:
    if not corpus_root().exists():
        pytest.skip(ABSENT)
    return _Hostile(tmp_path)


def test_the_hostile_fixture_s_checkpoint_is_taken_and_holds_what_the_mutations_change(hostile: _Hostile) -> None:
    hostile.audited(hostile.checkpoint, refused=False)
    with pytest.MonkeyPatch.context() as patch:
        taken = _Taken(patch)
        assert _judged(audit_source(_resumable(hostile.log, hostile.checkpoint))) == hostile.cold
    assert taken.taken == [True]
    body = hostile.body()
    assert body.core is not None and body.core.dev.pending and body.core.prints.seqs and body.done.findings.kept
    assert body.done.damage.kept and body.migrator.uuids.seqs


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=600), st.booleans())
def test_random_bytes_are_no_checkpoint(hostile: _Hostile, data: bytes, headed: bool) -> None:
    total, lines = resume.head_of(hostile.checkpoint) or (0, 0)
    hostile.audited(resume.FORMAT + b" %d %d\n" % (total, lines) + data if headed else data)


def test_a_truncated_checkpoint_is_none(hostile: _Hostile) -> None:
    data = hostile.checkpoint
    for end in sorted({*range(0, len(data), max(1, len(data) // 60)), len(data) - 1}):
        hostile.audited(data[:end])


def test_a_pickle_or_another_format_is_refused_before_anything_is_built(hostile: _Hostile) -> None:
    """The withdrawn format's attack (a pickle that builds on replay's own classes) is
    bytes that do not decode as the checkpoint's type: nothing is called or changed."""
    total, lines = resume.head_of(hostile.checkpoint) or (0, 0)
    before = dict(vars(CoreChecker))
    for payload in (pickle.dumps((CoreChecker, {"event": None}), protocol=5), b"\x80\x05garbage",
                    # lengths claimed, not there:
                    b"\xdd\xff\xff\xff\xff", b"\x99\xc0\xce\xff\xff\xff\xff\xdc\xff\xff", b"\x99\xc6\xff\xff\xff\xff",
                    msgspec.json.encode(hostile.body()), msgspec.msgpack.encode([1, 2, 3])):
        hostile.audited(resume.FORMAT + b" %d %d\n" % (total, lines) + payload)
        hostile.audited(b"replay-audit-resume/1 %d\n" % total + payload)
    assert dict(vars(CoreChecker)) == before


def _nodes(**changes: Any) -> Callable[[Any], None]:
    def change(body: Any) -> None:
        body.core.nodes = msgspec.structs.replace(body.core.nodes, **changes)
    return change


def _set(path: str, value: Any) -> Callable[[Any], None]:
    """A change of the field at ``path`` (dotted) to ``value``."""
    def change(body: Any) -> None:
        *parents, name = path.split(".")
        target = body
        for part in parents:
            target = getattr(target, part)
        setattr(target, name, value(getattr(target, name)) if callable(value) else value)
    return change


def _row(line: int | None = 3, rule: str = "A6", severity: Any = Severity.ERROR, tail: bool = False) -> Any:
    return (rule, severity, "m", line, None, None, tail, None)


MUTATIONS: dict[str, Callable[[Any], None]] = {
    "no line": _set("scan.number", 0),
    "a huge line": _set("scan.number", HIGH - 1),
    "a length past the file": _set("scan.total", lambda n: n + 1),
    "a huge length": _set("scan.total", HIGH - 1),
    "a negative length": _set("scan.total", -1),
    "too many damaged records": _set("scan.damaged", MAX_DAMAGED + 1),
    "negative damage": _set("scan.damaged", -1),
    "a seq past the arrays' range": _set("scan.expected", HIGH),
    "a seq below it": _set("scan.expected", LOW - 1),
    "more events than bytes": _set("done.events", HIGH - 1),
    "negative events": _set("done.events", -5),
    "a last line of 0": _set("done.last_line", 0),
    "a last line past the lines": _set("done.last_line", lambda n: n + 10**9),
    "a turn/end on the header": _set("done.last_turn_end", 1),
    "a boundary of 0": _set("done.boundary", 0),
    "damage past the lines": _set("done.first_damage", HIGH - 1),
    "a finding past the lines": _set("done.findings.kept", lambda kept: [*kept, _row(line=10**9)]),
    "a finding on line 0": _set("done.findings.kept", lambda kept: [*kept, _row(line=0)]),
    "a rule that is no id": _set("done.findings.kept", lambda kept: [*kept, _row(rule="a6; rm")]),
    "a severity that is none": _set("done.findings.kept", lambda kept: [*kept, _row(severity="fatal")]),
    "damage kept as a finding": _set("done.findings.kept", lambda kept: [*kept, _row(tail=True)]),
    "a finding kept as damage": _set("done.damage.kept", lambda kept: [*kept, _row(tail=False)]),
    "a count that is not the findings'": _set("done.findings.counts", lambda counts: [(r, n + 1) for r, n in counts]),
    "a count said twice": _set("done.findings.counts", lambda counts: [*counts, *counts]),
    "a count of a rule no finding has": _set("done.damage.counts", lambda counts: [*counts, ("B4", 1)]),
    "more kept than a rule keeps": _set("done.findings.kept", lambda kept: [_row()] * (MAX_PER_RULE + 1)),
    "findings dropped with some kept": _set("done.damage.dropped", [("A6", Severity.ERROR, 5, 3, 4)]),
    "none dropped": _set("done.damage.dropped", lambda dropped: [("A6", Severity.ERROR, 0, 3, 3)]),
    "a group said twice": _set("done.groups", [("B4:x", 2), ("B4:x", 3)]),
    "a group of none": _set("done.groups", [("B4:x", 0)]),
    "a call waiting twice": _set("core.dev.pending", lambda pending: [*pending, *pending]),
    "a turn past the range": _set("core.dev.next_turn", HIGH),
    "an open turn that is a text": _set("core.dev.open_turn", "1"),
    "slots not whole integers": _nodes(slots=b"\x01\x02\x03"),
    "slots out of order": _set("core.nodes", lambda nodes: msgspec.structs.replace(
        nodes, slots=int64s([5, 3, 4]), alive=b"\x01\x01\x01", moved=b"")),
    "marks of another length": _set("core.nodes", lambda nodes: msgspec.structs.replace(
        nodes, alive=nodes.alive + b"\x01")),
    "a mark that is no mark": _set("core.nodes", lambda nodes: msgspec.structs.replace(
        nodes, alive=b"\x02" * len(nodes.alive))),
    "a run that starts dead": _nodes(slots=int64s([1, 2]), alive=b"\x00\x01", moved=b""),
    "half a replacing node": _nodes(slots=int64s([1, 2]), alive=b"\x01\x01", moved=int64s([0])),
    "a replacing node off the slots": _nodes(slots=int64s([1, 2]), alive=b"\x01\x01", moved=int64s([7, 9])),
    "a replacing node on a dead slot": _nodes(slots=int64s([1, 2]), alive=b"\x01\x00", moved=int64s([1, 9])),
    "a replacing node that is another node": _nodes(slots=int64s([1, 2]), alive=b"\x01\x01", moved=int64s([0, 2])),
    "two replacing nodes the same": _nodes(slots=int64s([1, 2, 3]), alive=b"\x01\x01\x01",
                                           moved=int64s([0, 9, 1, 9])),
    "a general node twice (a cycle)": _nodes(general=True, slots=int64s([4, 2, 4]), alive=b"", moved=b""),
    "a general form with slots": _nodes(general=True, slots=int64s([4, 2]), alive=b"\x01\x01", moved=b""),
    "prints of the wrong width": _set("core.prints", lambda prints: msgspec.structs.replace(
        prints, values=prints.values + b"\x00")),
    "a print of a seq past the range": _set("core.prints", lambda prints: msgspec.structs.replace(
        prints, seqs=b"\xff" * 7 + b"\x7f" + b"\x00" * 8, values=bytes(32))),
    "prints of one seq twice": _set("core.prints", lambda prints: msgspec.structs.replace(
        prints, seqs=int64s([3, 3]), values=bytes(32))),
    "prints out of order": _set("core.prints", lambda prints: msgspec.structs.replace(
        prints, seqs=int64s([5, 3]), values=bytes(32))),
    "ids of the wrong width": _set("migrator.uuids", lambda ids: msgspec.structs.replace(
        ids, seqs=int64s([3]), values=bytes(15))),
    "an id twice": _set("migrator.other", [(3, "a"), (3, "b")]),
    "an id both a UUID and not": _set("migrator", lambda ids: msgspec.structs.replace(
        ids, uuids=msgspec.structs.replace(ids.uuids, seqs=int64s([3]), values=bytes(16)), other=[(3, "x")])),
    "another session": _set("session", "another"),
    "another record cap": _set("max_record", lambda n: n - 1),
    "another log cap": _set("max_log", 10),
    "the exact reading": _set("typed", False),
    "another policy": _set("checkers", ["core", "todo", "single"]),
    "a checker left out": _set("checkers", ["core"]),
    "no checker state": _set("core", None),
    "more calls waiting than the bytes hold": _set("core.dev.pending", [f"c{i}" for i in range(20_000)]),
    "more nodes than the bytes hold": _nodes(general=True, slots=int64s(range(20_000, 0, -1)), alive=b"", moved=b""),
    "more ids than the bytes hold": _set("migrator.other", [(i, None) for i in range(20_000)]),
    "more groups than the bytes hold": _set("done.groups", [(f"B4:{i}", 1) for i in range(20_000)]),
    "more findings than a pass keeps": _set("done.findings.kept", [_row(rule=f"X{i}") for i in range(30_000)]),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_a_checkpoint_with_a_field_out_of_bounds_or_of_the_wrong_shape_is_refused(hostile: _Hostile,
                                                                                  name: str) -> None:
    body = hostile.body()
    MUTATIONS[name](body)
    try:
        data = _bytes_of(body)
    except OverflowError:  # past what MessagePack holds: the head says the length, the body is garbage
        data = _bytes_of(hostile.body())[:-3] + b"\xcf" * 3
    hostile.audited(data)


def test_a_head_that_is_not_the_body_s_is_refused(hostile: _Hostile) -> None:
    body = hostile.body()
    total, lines = body.scan.total, body.scan.number
    for head in ((total + 1, lines), (total, lines - 1), (10**30, lines)):
        hostile.audited(_bytes_of(body, head))


def test_a_failure_while_auditing_on_from_a_checkpoint_audits_from_the_start(hostile: _Hostile,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A state that passes every check but that the records after it do not fit (here,
    the calls waiting made something no set is) is no traceback: from the start."""
    real = CoreChecker.restored

    def broken(state: Any) -> CoreChecker:
        checker = real(state)
        checker.pending = None  # type: ignore[assignment]
        return checker

    monkeypatch.setattr(CoreChecker, "restored", broken)
    with pytest.MonkeyPatch.context() as patch:
        taken = _Taken(patch)
        report = audit_source(_resumable(hostile.log, hostile.checkpoint))
    assert taken.taken == [True] and _judged(report) == hostile.cold
    assert report is not None and report.checkpoint is not None  # the cold audit's, kept


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_field_set_to_an_extreme_value_is_no_traceback_and_changes_no_other_audit(hostile: _Hostile,
                                                                                       data: st.DataObject) -> None:
    """Whatever one field of a checkpoint says (within its type or not), the audit of
    the log ends in a report, and the later audit of another log is unchanged. (A value
    within every bound may change this log's report: the cache's entry, which names the
    checkpoint's digest, is trusted as far as its log's report goes, no further.)"""
    body = hostile.body()
    extremes = st.sampled_from([0, -1, 1, HIGH - 1, LOW, 2**64 - 1, None, "", "x" * 1000, b"", b"\xff" * 9, [], True])
    paths = ["scan.number", "scan.total", "scan.expected", "scan.damaged", "done.events", "done.first_damage",
             "done.last_turn_start", "done.last_turn_end", "done.last_line", "done.boundary", "done.groups",
             "done.findings.kept", "done.findings.counts", "done.findings.dropped", "core.dev.open_turn",
             "core.dev.open_step", "core.dev.next_turn", "core.dev.next_step", "core.dev.pending",
             "core.nodes.slots", "core.nodes.alive", "core.nodes.moved", "core.nodes.general",
             "core.prints.seqs", "core.prints.values", "migrator.other", "session", "checkers"]
    _set(data.draw(st.sampled_from(paths)), data.draw(extremes))(body)
    try:
        raw = _bytes_of(body)
    except (OverflowError, TypeError, msgspec.EncodeError):
        return
    report = audit_source(_resumable(hostile.log, raw))
    assert report is not None and all(f.rule != "INTERNAL" for f in report.findings)
    assert _judged(audit_source(file_source(str(hostile.other)))) == hostile.other_cold


def test_restoring_many_nodes_is_linear_in_the_checkpoint() -> None:
    """A checkpoint's nodes are rebuilt by appends and one replace per run: a compact
    surface of 200,000 nodes, every other one replaced by a later seq, and a general one
    (no timing: the work is counted in calls)."""
    from replay.check.nodes import NodesState, SurfaceNodes

    n = 200_000
    slots = int64s(range(n))
    alive = b"\x01\x00" * (n // 2)
    moved = int64s(value for slot in range(0, n, 4) for value in (slot, n + slot))
    calls = {"replace": 0}
    real = SurfaceNodes.replace

    def counted(self: SurfaceNodes, run: list[Any], seq: Any) -> None:
        calls["replace"] += 1
        real(self, run, seq)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SurfaceNodes, "replace", counted)
        nodes = SurfaceNodes.restored(NodesState(False, slots, alive, moved))
    assert calls["replace"] == n // 2
    assert list(nodes)[:4] == [n, 2, n + 4, 6]
    general = SurfaceNodes.restored(NodesState(True, int64s(range(n, 0, -1)), b"", b""))
    assert list(general)[:2] == [n, n - 1]


def test_checkers_of_an_audit_are_the_kinds_a_checkpoint_names() -> None:
    assert resume._kinds(checkers(Policy.SINGLE)) == ["core", "todo", "single"]
    assert resume._kinds(checkers(Policy.PARALLEL, skip=frozenset({CoreChecker}))) == ["todo"]


# -- the audit cache's use of checkpoints -------------------------------------------------


def _audit(folder: Path, cache: Path | None, policy: Policy = Policy.PARALLEL) -> AuditResult:
    request = AuditRequest((str(folder),), cache=None if cache is None else CacheRequest(cache, resume_from=0),
                           policy=policy)
    return Audit(request).run()


def _reports(result: AuditResult) -> list[tuple[object, ...] | None]:
    return [_judged(r) for r in result.reports]


def _grown_copy(tmp_path: Path, share: int = 2) -> tuple[Path, Path, bytes]:
    sources = sorted((corpus_root() / "sessions-2026-08-20").rglob("session.jsonl"))
    if not sources:
        pytest.skip(ABSENT)
    source = max(sources[:20], key=lambda p: p.stat().st_size)
    folder = tmp_path / "logs"
    (folder / "s").mkdir(parents=True, exist_ok=True)
    log = folder / "s" / "session.jsonl"
    data = source.read_bytes()
    log.write_bytes(data[: data.index(b"\n", len(data) // share) + 1])
    return folder, log, data


def test_the_cache_resumes_a_grown_log_from_its_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder, log, data = _grown_copy(tmp_path)
    cache = tmp_path / "cache"
    _audit(folder, cache)
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    assert resume.head_of(kept.read_bytes()) == (log.stat().st_size, log.read_bytes().count(b"\n"))
    log.write_bytes(data)
    taken = _Taken(monkeypatch)
    grown = _audit(folder, cache)
    assert taken.taken == [True]
    assert _reports(grown) == _reports(_audit(folder, None))
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    assert resume.head_of(kept.read_bytes()) == (len(data), data.count(b"\n"))  # the next growth goes on from here


def test_a_small_log_keeps_no_checkpoint_by_default(tmp_path: Path) -> None:
    folder, _, _ = _grown_copy(tmp_path)
    Audit(AuditRequest((str(folder),), cache=CacheRequest(tmp_path / "cache"))).run()
    assert not list((tmp_path / "cache").glob(f"*/{cache_module.RESUME_PREFIX}*"))


@pytest.mark.parametrize("damage", ["flipped", "another log's", "removed", "garbage", "random", "truncated",
                                    "another cut of the log", "another policy's"])
def test_a_checkpoint_the_entry_does_not_name_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          damage: str) -> None:
    """A checkpoint file replaced in the cache folder: damaged, another log's, or a valid
    one that is wrong here (of the same log at another length; of the same length under
    another policy): the log is audited from its start, to the cold report."""
    folder, log, data = _grown_copy(tmp_path)
    cache = tmp_path / "cache"
    _audit(folder, cache)
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    ours = kept.read_bytes()

    def theirs(setup: Callable[[Path], None], policy: Policy = Policy.PARALLEL) -> bytes:
        other = tmp_path / f"other-{damage}"
        shutil.copytree(folder, other)
        setup(other / "s" / "session.jsonl")
        _audit(other, tmp_path / f"other-cache-{damage}", policy)
        (found,) = (tmp_path / f"other-cache-{damage}").glob(f"*/{cache_module.RESUME_PREFIX}*")
        return found.read_bytes()

    if damage == "flipped":
        body = bytearray(ours)
        body[-5] ^= 1
        kept.write_bytes(bytes(body))
    elif damage == "another log's":
        lines = data.split(b"\n")
        kept.write_bytes(theirs(lambda path: path.write_bytes(b"\n".join(_mutated(lines, 5, 7)[: len(lines) // 2])
                                                              + b"\n")))
    elif damage == "removed":
        kept.unlink()
    elif damage == "garbage":
        kept.write_bytes(resume.FORMAT + b" 10 2\n" + b"\x80\x05garbage")
    elif damage == "random":
        kept.write_bytes(bytes(range(256)) * 4)
    elif damage == "truncated":
        kept.write_bytes(ours[: len(ours) // 2])
    elif damage == "another cut of the log":
        kept.write_bytes(theirs(lambda path: path.write_bytes(data[: data.index(b"\n", len(data) // 3) + 1])))
    else:
        kept.write_bytes(theirs(lambda path: None, Policy.SINGLE))
    log.write_bytes(data)
    taken = _Taken(monkeypatch)
    grown = _audit(folder, cache)
    assert taken.offered == []  # audited from its start: no checkpoint offered
    assert _reports(grown) == _reports(_audit(folder, None))


def test_a_checkpoint_whose_entry_length_is_not_after_a_newline_is_not_used(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry's length and the checkpoint's head both moved one byte (a hostile cache
    folder, self-consistent): the byte before is no newline, so the log's own lines
    refuse it."""
    folder, log, data = _grown_copy(tmp_path)
    cache = tmp_path / "cache"
    _audit(folder, cache)
    length = log.stat().st_size
    log.write_bytes(data)
    scan = cache_module._scan(str(log), length - 1, True)
    assert scan.earlier_lines is None
    scan = cache_module._scan(str(log), length, True)
    assert scan.earlier_lines == data[:length].count(b"\n")


def _forged(cache: Path, data: bytes) -> None:
    """The checkpoint file replaced by ``data`` and the entry made to name its digest
    (a cache folder forged whole, the log left as it is)."""
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    kept.write_bytes(data)
    digest = cache_module._digest(data)
    for shard in kept.parent.glob("*.json"):
        doc = msgspec.json.decode(shard.read_bytes())
        for entry in doc["entries"].values():
            if entry.get("resume"):
                entry["resume"] = msgspec.json.decode(msgspec.json.encode(digest))
        shard.write_bytes(msgspec.json.encode(doc))


@pytest.mark.parametrize("head", ["one line more", "one line less", "one byte more", "one byte less"])
def test_a_forged_entry_and_checkpoint_that_the_log_s_lines_refute_are_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, head: str) -> None:
    """Even with the entry naming it, a checkpoint resumes only after as many lines as
    the log's first bytes hold, where a line ends: the cache counts them as it digests."""
    folder, log, data = _grown_copy(tmp_path)
    cache = tmp_path / "cache"
    _audit(folder, cache)
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    body = _body(kept.read_bytes())
    total, lines = body.scan.total, body.scan.number
    body.scan.number, body.scan.total = {"one line more": (lines + 1, total), "one line less": (lines - 1, total),
                                         "one byte more": (lines, total + 1),
                                         "one byte less": (lines, total - 1)}[head]
    _forged(cache, _bytes_of(body))
    log.write_bytes(data)
    taken = _Taken(monkeypatch)
    grown = _audit(folder, cache)
    assert True not in taken.taken
    assert _reports(grown) == _reports(_audit(folder, None))


def test_a_forged_entry_naming_a_valid_checkpoint_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The forging helper itself: the checkpoint as it was, named again, is used."""
    folder, log, data = _grown_copy(tmp_path)
    cache = tmp_path / "cache"
    _audit(folder, cache)
    (kept,) = cache.glob(f"*/{cache_module.RESUME_PREFIX}*")
    _forged(cache, kept.read_bytes())
    log.write_bytes(data)
    taken = _Taken(monkeypatch)
    assert _reports(_audit(folder, cache)) == _reports(_audit(folder, None))
    assert taken.taken == [True]


def test_a_checkpoint_says_every_piece_of_state_an_audit_keeps() -> None:
    """Each stateful object of an audit has these attributes and no others: a new one
    must be said in its snapshot (and this test told)."""
    from replay.check.passes import Pass
    from replay.log.legacy import Migrator
    from replay.todo.rules import SingleActivePolicy, TodoChecker

    core = CoreChecker()
    assert set(vars(core)) == {"scanned", "index", "last_seq", "open_turn", "open_step", "next_turn", "next_step",
                               "pending", "nodes", "tool_prints"}
    assert set(vars(Migrator("s"))) == {"_session_id", "_tool_result_ids"}
    assert not vars(TodoChecker()) and not vars(SingleActivePolicy())
    assert Pass.__slots__ == ("events", "findings", "damage", "after_damage", "groups", "first_damage",
                              "last_turn_start", "last_turn_end", "last_line", "boundary")
    assert set(resume.ScanRow.__struct_fields__) | {"pending", "stopped"} == set(ScanState.__slots__)
