#!/usr/bin/env python3
"""Throughput and memory benchmark of ``replay audit`` against a parse-only baseline.

The script builds a large corpus (default ≥ 220 MB) *outside the repo* by replicating
the real session logs of ``$REPLAY_CORPUS`` (default ``../shared/corpus`` next to the
repo root):

* ``corpus/small/copy-NNNN/<original relative path>``: one copy of every real session
  log per ``copy-NNNN`` folder, each with fresh session ids (every header id and
  ``parentSession`` of a scenario folder is replaced, as a plain byte replace, wherever
  the string occurs in that folder's logs, so parent/child links survive);
* ``corpus/long/long-NN-<scenario>/session.jsonl``: a few long logs, each the events of
  one clean acp-agent log repeated many times, with ``seq``/``seq0``, turn numbers,
  ``sourceEventSeqs``, ``surfaceOp`` replace ranges and ``messageSeqs`` shifted so the
  long log is still valid (seq contiguous from 0, turns 1, 2, 3, …), and every UUID in
  the events renamed per copy (message and call ids stay unique).

It then measures, each in a fresh child process (best of ``--repeat``):

* the baseline, pinned to one CPU: read every ``*.jsonl`` file in binary (1 MiB
  blocks, like the reader), split on ``b"\\n"`` and ``orjson.loads`` every non-empty line;
* ``replay audit --format json --jobs 1 <corpus>``, pinned to the same CPU;
* ``replay audit --format json --jobs 1 --select T <corpus>``, pinned to the same CPU
  (the checkers none of whose rules is selected are not run);
* ``replay audit --jobs N`` for each other ``--jobs`` value (not pinned: N worker
  processes on the machine's CPUs);
* unless ``--scheduler none``: ``replay audit --scheduler ADDRESS``, on a Dask
  ``LocalCluster`` of ``--cluster-workers`` single-threaded worker processes that the
  script starts (``--scheduler local``, the default) or on an existing scheduler.

and prints seconds, MB/s (MB = 10**6 bytes), the ratio to the baseline's MB/s, and the
peak RSS per process: the largest resident set of any one process of the run (the
command, its worker processes; a Dask worker's peak from ``/proc/<pid>/status``). It
checks the audit JSON is byte-identical across every way of running it, and the
targets: single-core ratio ≥ 0.6, ``--jobs 2`` ≥ 1.8 × ``--jobs 1``, peak RSS per
process < 150 MB, ``--select T`` < 0.8 × the time of ``--jobs 1``.

The corpus is reused by later runs (``manifest.json`` in ``--out``) unless it is missing,
smaller than ``--size-mb``, or ``--rebuild`` is given.

Exit status: 0 every target passes, 1 a target fails, 2 setup error.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

REPO_ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "manifest.json"
MARKER = ".replay-bench"
FORMAT = 1
PACKED_TAGS = {"text-chunks": "texts", "reasoning-chunks": "texts", "tool-call-chunks": "args"}
MESSAGE_SEQ_TYPES = frozenset({"session/title", "session/title-llm-request"})
CLEAN_SUBDIR = "sessions-2026-08-20/examples_acp-agent_tests_snapshots"
UUID_RE = re.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
NAMESPACE = uuid.UUID("7d6c2f0e-4b0a-4c55-9a49-6f1d2b8e0a11")
TARGET_RATIO = 0.6
TARGET_SPEEDUP = 1.8
TARGET_RSS_MB = 150.0
TARGET_SELECT = 0.8
SELECT = "T"
"""``replay audit --select T`` must take < ``TARGET_SELECT`` × a full audit's time: the
checkers none of whose rules is selected are not run."""
MB = 1_000_000

BASELINE_CODE = '''\
"""Parse-only baseline: read every *.jsonl below ROOT, orjson.loads every non-empty line."""
import json
import os
import sys

import orjson

root = sys.argv[1]
loads = orjson.loads
files = lines = nbytes = 0
for dirpath, dirnames, filenames in os.walk(root):
    dirnames.sort()
    for name in sorted(filenames):
        if not name.endswith(".jsonl"):
            continue
        files += 1
        with open(os.path.join(dirpath, name), "rb") as fh:
            tail = b""
            while True:
                block = fh.read(1 << 20)
                if not block:
                    break
                nbytes += len(block)
                parts = (tail + block).split(b"\\n") if tail else block.split(b"\\n")
                tail = parts.pop()
                for part in parts:
                    if part:
                        loads(part)
                        lines += 1
            if tail:
                loads(tail)
                lines += 1
print(json.dumps({"files": files, "lines": lines, "bytes": nbytes}))
'''


# -- the source corpus ------------------------------------------------------------------


@dataclass
class SourceLog:
    path: Path
    rel: Path
    raw: bytes
    header: dict[str, Any]
    lines: int = 0
    events: int = 0


@dataclass
class Template:
    """A clean log whose events can be repeated: seq 0..n-1, turns 1..turns, ends with turn/end."""

    source: SourceLog
    events: list[dict[str, Any]]
    count: int
    turns: int
    has_replace: bool = False
    has_packed: bool = False


@dataclass
class Built:
    files: int = 0
    bytes: int = 0
    lines: int = 0
    events: int = 0
    long: list[dict[str, Any]] = field(default_factory=list)


def default_corpus() -> Path:
    env = os.environ.get("REPLAY_CORPUS")
    return Path(env) if env else (REPO_ROOT.parent / "shared" / "corpus").resolve()


def logical_counts(raw: bytes) -> tuple[int, int]:
    """Non-empty lines (header included) and logical events (packed rows count their members)."""
    lines = events = 0
    for i, part in enumerate(raw.split(b"\n")):
        if not part:
            continue
        lines += 1
        if i == 0:
            continue
        try:
            rec = orjson.loads(part)
        except orjson.JSONDecodeError:
            events += 1
            continue
        field_name = PACKED_TAGS.get(rec.get("type")) if isinstance(rec, dict) else None
        data = rec.get("data") if isinstance(rec, dict) else None
        if field_name and isinstance(data, dict) and isinstance(data.get(field_name), list):
            events += len(data[field_name])
        else:
            events += 1
    return lines, events


def load_sources(corpus: Path) -> list[SourceLog]:
    """Every ``*.jsonl`` below ``corpus`` whose first line is a session header."""
    found: list[SourceLog] = []
    for path in sorted(corpus.rglob("*.jsonl")):
        raw = path.read_bytes()
        try:
            header = orjson.loads(raw.split(b"\n", 1)[0])
        except orjson.JSONDecodeError:
            continue
        if not isinstance(header, dict) or header.get("type") != "session":
            continue
        log = SourceLog(path, path.relative_to(corpus), raw, header)
        log.lines, log.events = logical_counts(raw)
        found.append(log)
    return found


def as_template(log: SourceLog) -> Template | None:
    """The log as a repeatable template, or None when it cannot be concatenated safely."""
    header = log.header
    if "seedLength" in header or not log.raw.endswith(b"\n"):
        return None
    events: list[dict[str, Any]] = []
    expected = 0
    turns = 0
    has_replace = has_packed = False
    for part in log.raw.split(b"\n")[1:]:
        if not part:
            continue
        rec = orjson.loads(part)
        t = rec.get("type")
        if t == "session/end-seed":
            return None
        if t in PACKED_TAGS:
            has_packed = True
            if rec.get("seq0") != expected:
                return None
            expected += len(rec["data"][PACKED_TAGS[t]])
        else:
            if rec.get("seq") != expected:
                return None
            expected += 1
        data = rec.get("data")
        if t == "turn/start":
            turns += 1
            if not isinstance(data, dict) or data.get("turn") != turns:
                return None
        if isinstance(rec.get("surfaceOp"), dict):
            has_replace = True
        events.append(rec)
    if not events or events[-1].get("type") != "turn/end" or turns == 0:
        return None
    return Template(log, events, expected, turns, has_replace, has_packed)


# -- building ---------------------------------------------------------------------------


def _shift_event(rec: dict[str, Any], seq_off: int, turn_off: int) -> dict[str, Any]:
    """A copy of ``rec`` moved ``seq_off`` events and ``turn_off`` turns later (template untouched)."""
    out = dict(rec)
    t = rec["type"]
    if t in PACKED_TAGS:
        out["seq0"] = rec["seq0"] + seq_off
    else:
        out["seq"] = rec["seq"] + seq_off
    data = rec.get("data")
    if isinstance(data, dict):
        turn = data.get("turn")
        if type(turn) is int:
            data = {**data, "turn": turn + turn_off}
        seqs = data.get("messageSeqs")
        if t in MESSAGE_SEQ_TYPES and isinstance(seqs, list):
            data = {**data, "messageSeqs": [s + seq_off if type(s) is int else s for s in seqs]}
        out["data"] = data
    sources = rec.get("sourceEventSeqs")
    if isinstance(sources, list):
        out["sourceEventSeqs"] = [s + seq_off if type(s) is int else s for s in sources]
    op = rec.get("surfaceOp")
    if isinstance(op, dict):
        op = dict(op)
        for key in ("start", "end"):
            if type(op.get(key)) is int:
                op[key] = op[key] + seq_off
        out["surfaceOp"] = op
    return out


def _fresh_id(*parts: object) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(str(p) for p in parts)))


def build_small(sources: list[SourceLog], dest: Path, copies: int, built: Built) -> None:
    """``copies`` copies of every source log, each copy with fresh session ids."""
    by_dir: dict[Path, set[str]] = {}
    for log in sources:
        ids = by_dir.setdefault(log.rel.parent, set())
        for key in ("id", "parentSession"):
            value = log.header.get(key)
            if isinstance(value, str) and value:
                ids.add(value)
    plans: list[tuple[SourceLog, list[str]]] = []
    for log in sources:
        present = [i for i in by_dir[log.rel.parent] if i.encode() in log.raw]
        plans.append((log, sorted(present, key=lambda s: (-len(s), s))))
    for k in range(copies):
        root = dest / f"copy-{k:04d}"
        for log, ids in plans:
            data = log.raw
            for old in ids:
                data = data.replace(old.encode(), _fresh_id("small", k, log.rel.parent, old).encode())
            target = root / log.rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            built.files += 1
            built.bytes += len(data)
            built.lines += log.lines
            built.events += log.events


def pick_templates(templates: list[Template], n: int) -> list[Template]:
    """The ``n`` largest templates, making sure one with a surface replace and one with
    packed rows are among them (so the shifting of both is exercised)."""
    by_size = sorted(templates, key=lambda t: (-len(t.source.raw), str(t.source.rel)))
    first: list[Template] = []
    for want in (lambda t: t.has_replace, lambda t: t.has_packed):
        hit = next((t for t in by_size if want(t)), None)
        if hit is not None and hit not in first:
            first.append(hit)
    rest = [t for t in by_size if t not in first]
    return [*first, *rest][:n]


def build_long(template: Template, target: Path, index: int, size: int, built: Built) -> None:
    """One long log of at least ``size`` bytes made of copies of ``template``'s events."""
    header = template.source.header
    old_id = header.get("id")
    new_id = _fresh_id("long", index, template.source.rel)
    keep = {v.encode() for v in (old_id, header.get("parentSession")) if isinstance(v, str)}
    head = orjson.dumps({**header, "id": new_id}) + b"\n"
    target.parent.mkdir(parents=True, exist_ok=True)
    written = len(head)
    copies = 0
    with open(target, "wb") as fh:
        fh.write(head)
        while written < size:
            k = copies
            names: dict[bytes, bytes] = {}

            def rename(m: re.Match[bytes], k: int = k, names: dict[bytes, bytes] = names) -> bytes:
                old = m.group(0)
                if old in keep:
                    return old
                new = names.get(old)
                if new is None:
                    new = names[old] = _fresh_id("long", index, k, old.decode()).encode()
                return new

            seq_off = k * template.count
            turn_off = k * template.turns
            blob = b"\n".join(orjson.dumps(_shift_event(e, seq_off, turn_off)) for e in template.events) + b"\n"
            blob = UUID_RE.sub(rename, blob)
            if isinstance(old_id, str):
                blob = blob.replace(old_id.encode(), new_id.encode())
            fh.write(blob)
            written += len(blob)
            copies += 1
    lines = 1 + copies * len(template.events)
    events = copies * template.count
    built.files += 1
    built.bytes += written
    built.lines += lines
    built.events += events
    built.long.append({
        "path": str(target), "source": str(template.source.rel), "copies": copies, "bytes": written,
        "lines": lines, "events": events, "turns": copies * template.turns,
    })


def run_audit_json(path: Path) -> tuple[int, dict[str, Any]]:
    with tempfile.TemporaryFile() as out:
        proc = subprocess.run([sys.executable, "-m", "replay", "audit", "--no-cache", "--format", "json", str(path)],
                              stdout=out, stderr=subprocess.PIPE, check=False)
        out.seek(0)
        body = out.read()
    try:
        report = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise SystemExit(f"error: replay audit {path} printed no JSON (exit {proc.returncode}): "
                         f"{proc.stderr.decode(errors='replace')[-2000:]}") from None
    return proc.returncode, report


def _first_findings(report: dict[str, Any], limit: int = 5) -> list[str]:
    shown: list[str] = []
    for f in report.get("files", []):
        for finding in f.get("findings", []):
            if len(shown) < limit:
                shown.append(f"{f.get('path')}: {orjson.dumps(finding).decode()[:300]}")
    return shown


def verify(corpus_dir: Path, source: Path, built: Built) -> dict[str, Any]:
    """Audit the long logs (must be clean) and one small copy (must match the source corpus)."""
    checks: dict[str, Any] = {}
    _, long_report = run_audit_json(corpus_dir / "long")
    summary = long_report["summary"]
    checks["long"] = summary
    if summary["errors"] or summary["warnings"] or summary["files"] != len(built.long):
        print(f"WARNING: the long logs do not audit clean: {summary}", file=sys.stderr)
        print("WARNING: the seq/turn shifting is probably wrong; first findings:", file=sys.stderr)
        for line in _first_findings(long_report):
            print(f"  {line}", file=sys.stderr)
    elif summary["events"] != sum(entry["events"] for entry in built.long):
        print(f"WARNING: the long logs hold {summary['events']} events by the audit, "
              f"{sum(e['events'] for e in built.long)} by the builder", file=sys.stderr)
    _, copy_report = run_audit_json(corpus_dir / "small" / "copy-0000")
    _, source_report = run_audit_json(source)
    keys = ("files", "ok", "failed", "events", "errors", "warnings", "policy")
    mine = {k: copy_report["summary"][k] for k in keys}
    theirs = {k: source_report["summary"][k] for k in keys}
    checks["small_copy_0000"] = mine
    checks["source_corpus"] = theirs
    if mine != theirs:
        print(f"WARNING: small/copy-0000 audits as {mine}, the source corpus as {theirs}",
              file=sys.stderr)
    return checks


def corpus_on_disk(corpus_dir: Path) -> tuple[int, int]:
    files = total = 0
    for dirpath, _dirs, names in os.walk(corpus_dir):
        for name in names:
            if name.endswith(".jsonl"):
                files += 1
                total += os.path.getsize(os.path.join(dirpath, name))
    return files, total


def corpus_parser(description: str) -> argparse.ArgumentParser:
    """The options every benchmark over this corpus takes: where it is built, its size, the
    real logs it is built from, the runs, the CPU, JSON output."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "replay-bench-corpus",
                        help="the corpus folder of bench/audit_throughput.py, outside the repo (default: %(default)s)")
    parser.add_argument("--size-mb", type=float, default=220.0, help="minimum corpus size (default: %(default)s)")
    parser.add_argument("--corpus", type=Path, default=default_corpus(), help="the real logs (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement (default: %(default)s)")
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the first one allowed)")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON object")
    return parser


def prepared_corpus(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[Path, dict[str, Any]]:
    """The options of ``corpus_parser`` checked, the corpus built (or reused): its folder and manifest."""
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if not args.corpus.is_dir():
        parser.error(f"--corpus {args.corpus}: no such folder (set REPLAY_CORPUS)")
    out: Path = args.out.resolve()
    prepare_out(out)
    size = int(args.size_mb * MB)
    return out, load_manifest(out, size) or build(out, args.corpus.resolve(), size, 8, 0.6)


def prepare_out(out: Path) -> None:
    resolved = out.resolve()
    if resolved == REPO_ROOT or REPO_ROOT in resolved.parents:
        raise SystemExit(f"error: --out {out} is inside the repo; pick a folder outside {REPO_ROOT}")
    if resolved.exists() and any(resolved.iterdir()) and not (resolved / MARKER).exists():
        raise SystemExit(f"error: --out {out} exists, is not empty and was not made by this script "
                         f"(no {MARKER}); pick another folder")
    resolved.mkdir(parents=True, exist_ok=True)
    (resolved / MARKER).write_text("made by replay bench/audit_throughput.py; safe to delete\n")


def load_manifest(out: Path, size_bytes: int) -> dict[str, Any] | None:
    try:
        manifest: dict[str, Any] = orjson.loads((out / MANIFEST).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if manifest.get("format") != FORMAT or manifest.get("bytes", 0) < size_bytes:
        return None
    if corpus_on_disk(out / "corpus") != (manifest.get("files"), manifest.get("bytes")):
        return None
    return manifest


def build(out: Path, source: Path, size_bytes: int, long_logs: int, long_share: float) -> dict[str, Any]:
    started = time.perf_counter()
    sources = load_sources(source)
    if not sources:
        raise SystemExit(f"error: no session logs under {source}")
    templates = [t for log in sources if CLEAN_SUBDIR in log.rel.as_posix()
                 if (t := as_template(log)) is not None]
    if long_logs and not templates:
        raise SystemExit(f"error: no concatenable clean logs under {source / CLEAN_SUBDIR}")
    chosen = pick_templates(templates, long_logs) if long_logs else []
    long_each = math.ceil(size_bytes * long_share / len(chosen)) if chosen else 0
    small_bytes = sum(len(s.raw) for s in sources)
    copies = max(1, math.ceil(max(0, size_bytes - long_each * len(chosen)) / small_bytes))

    corpus_dir = out / "corpus"
    if corpus_dir.exists():
        shutil.rmtree(corpus_dir)
    (out / MANIFEST).unlink(missing_ok=True)
    built = Built()
    print(f"building {size_bytes / MB:.0f} MB corpus in {corpus_dir}: {copies} copies of "
          f"{len(sources)} logs ({small_bytes / MB:.2f} MB each) + {len(chosen)} long logs of "
          f"≥ {long_each / MB:.1f} MB …", flush=True)
    build_small(sources, corpus_dir / "small", copies, built)
    small_files, small_total = built.files, built.bytes
    for i, template in enumerate(chosen):
        name = f"long-{i:02d}-{template.source.rel.parent.name}"
        build_long(template, corpus_dir / "long" / name / "session.jsonl", i, long_each, built)
    print(f"built in {time.perf_counter() - started:.1f} s; verifying …", flush=True)
    checks = verify(corpus_dir, source, built) if chosen else {}
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "source": str(source),
        "source_logs": len(sources),
        "source_bytes": small_bytes,
        "templates": len(templates),
        "requested_bytes": size_bytes,
        "files": built.files,
        "bytes": built.bytes,
        "lines": built.lines,
        "events": built.events,
        "small": {"copies": copies, "files": small_files, "bytes": small_total},
        "long": built.long,
        "checks": checks,
    }
    (out / MANIFEST).write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    return manifest


# -- measuring --------------------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    cpu_seconds: float
    rss_bytes: int
    exit_code: int
    stdout: bytes


def measured_env() -> dict[str, str]:
    """The environment a measured command runs in: this one's, but with Python's
    bytecode caches written and read (``PYTHONDONTWRITEBYTECODE`` left out), as an
    installed replay has them; with it, every run would compile replay from source, a
    fixed cost (about 0.13 s a command) no user pays and that skews every ratio."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def measure(cmd: list[str], cpu: int | None, others: list[int] | None = None) -> Run:
    """Run ``cmd`` in a fresh child: wall time, CPU time (the child and its worker
    processes) and the peak RSS of its largest process, ``others`` included (pids of
    processes outside it that did work for it: a Dask cluster's workers).

    The child is started by GNU ``time``, not by this script: a process's peak RSS
    (``ru_maxrss``) counts the memory of the process it was forked from, and this one
    is not small. ``ru_maxrss`` is the maximum over the child and the children it
    reaped (its worker processes)."""
    pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
    with tempfile.NamedTemporaryFile("r") as usage, tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-o", usage.name, "-f", "%U %S %M", *pin, *cmd], stdout=out,
                              stdin=subprocess.DEVNULL, check=False, env=measured_env())
        seconds = time.perf_counter() - started
        user, system, max_kib = usage.read().splitlines()[-1].split()
        out.seek(0)
        body = out.read()
    rss = max([int(max_kib) * 1024, *(peak_rss(pid) for pid in others or ())])
    return Run(seconds, float(user) + float(system), rss, proc.returncode, body)


def peak_rss(pid: int) -> int:
    """A live process's peak resident set (``VmHWM``), in bytes; 0 when unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


CLUSTER_CODE = """\
import json, os, sys
from distributed import Client, LocalCluster
cluster = LocalCluster(n_workers=int(sys.argv[1]), threads_per_worker=1, processes=True,
                       dashboard_address=":0", host="127.0.0.1")
with Client(cluster) as client:
    pids = list(client.run(os.getpid).values())
print(json.dumps({"address": cluster.scheduler_address, "pids": pids}), flush=True)
sys.stdin.read()  # until the benchmark is done
cluster.close()
"""


def local_cluster(workers: int) -> tuple[subprocess.Popen[str], str, list[int]]:
    """A Dask LocalCluster of ``workers`` single-threaded worker processes, in a
    process of its own (so it shares no memory with the measured commands): the
    process, the scheduler's address, the workers' pids."""
    proc = subprocess.Popen([sys.executable, "-c", CLUSTER_CODE, str(workers)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        from replay.extras import install_hint

        raise SystemExit("error: the local Dask cluster did not start (is dask[distributed] installed? "
                         f"{install_hint('dask')}, or pass --scheduler none)")
    started = orjson.loads(line)
    return proc, started["address"], started["pids"]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_describe() -> str:
    try:
        done = subprocess.run(["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, check=False, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() or "unknown"


def _best(runs: list[Run]) -> Run:
    return min(runs, key=lambda r: r.seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark `replay audit` against an orjson parse-only baseline on a large "
                    "corpus built from the real logs (MB/s, events/s, peak RSS).",
        epilog="Exit status: 0 every target passes, 1 a target fails, 2 setup error.")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "replay-bench-corpus",
                        help="folder for the generated corpus, outside the repo (default: %(default)s)")
    parser.add_argument("--size-mb", type=float, default=220.0,
                        help="minimum corpus size in MB of 10**6 bytes (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each measurement; the fastest is reported (default: %(default)s)")
    parser.add_argument("--corpus", type=Path, default=default_corpus(),
                        help="the real logs: $REPLAY_CORPUS or ../shared/corpus next to the repo "
                             "(default: %(default)s)")
    parser.add_argument("--long-logs", type=int, default=8,
                        help="number of long concatenated logs (default: %(default)s)")
    parser.add_argument("--long-share", type=float, default=0.6,
                        help="share of --size-mb made of long logs; the rest is copies of every real "
                             "log (default: %(default)s)")
    parser.add_argument("--cpu", type=int, default=None,
                        help="CPU to pin the single-core measurements to (default: the first one allowed)")
    parser.add_argument("--jobs", type=lambda v: [int(x) for x in v.split(",")], default=[1, 2],
                        help="comma-separated --jobs values to measure; 1 is always measured (default: 1,2)")
    parser.add_argument("--scheduler", default="local",
                        help="Dask scheduler to measure --scheduler on: local (a LocalCluster this script "
                             "starts), an address (tcp://host:8786), or none (default: %(default)s)")
    parser.add_argument("--cluster-workers", type=int, default=2,
                        help="worker processes of the local cluster (default: %(default)s)")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the measurements to one CPU")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the corpus even if it can be reused")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON object")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.size_mb <= 0 or args.long_logs < 0 or not 0 <= args.long_share < 1:
        parser.error("need --repeat ≥ 1, --size-mb > 0, --long-logs ≥ 0 and 0 ≤ --long-share < 1")
    if not args.corpus.is_dir():
        parser.error(f"--corpus {args.corpus}: no such folder (set REPLAY_CORPUS)")

    out: Path = args.out.resolve()
    size_bytes = int(args.size_mb * MB)
    prepare_out(out)
    manifest = None if args.rebuild else load_manifest(out, size_bytes)
    if manifest is None:
        manifest = build(out, args.corpus.resolve(), size_bytes, args.long_logs, args.long_share)
        reused = False
    else:
        reused = True
    corpus_dir = out / "corpus"
    baseline_script = out / "parse_baseline.py"
    baseline_script.write_text(BASELINE_CODE)

    cpu: int | None = None
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        cpu = args.cpu if args.cpu is not None else min(os.sched_getaffinity(0))
    baseline_cmd = [sys.executable, str(baseline_script), str(corpus_dir)]
    audit = [sys.executable, "-m", "replay", "audit", "--no-cache", "--format", "json"]
    prefix = ["taskset", "-c", str(cpu)] if cpu is not None else []
    jobs = sorted({1, *args.jobs})
    cluster: subprocess.Popen[str] | None = None
    cluster_pids: list[int] = []
    if args.scheduler == "local":
        cluster, address, cluster_pids = local_cluster(args.cluster_workers)
        cluster_name = f"LocalCluster ({args.cluster_workers} workers)"
    elif args.scheduler != "none":
        address = args.scheduler
        cluster_name = f"scheduler {address}"
    ways: list[tuple[str, list[str], int | None, list[int]]] = [("parse-only", baseline_cmd, cpu, [])]
    ways += [(f"audit --jobs {n}", [*audit, "--jobs", str(n), str(corpus_dir)], cpu if n == 1 else None, [])
             for n in jobs]
    selected = f"audit --jobs 1 --select {SELECT}"
    ways.append((selected, [*audit, "--jobs", "1", "--select", SELECT, str(corpus_dir)], cpu, []))
    if args.scheduler != "none":
        ways.append((f"audit --scheduler, {cluster_name}", [*audit, "--scheduler", address, str(corpus_dir)],
                     None, cluster_pids))

    print(f"corpus: {corpus_dir} ({'reused' if reused else 'built'}): {manifest['files']} files, "
          f"{manifest['bytes'] / MB:.1f} MB, {manifest['lines']} lines, {manifest['events']} events", flush=True)
    load_before = os.getloadavg()[0]
    print(f"load average before: {load_before:.2f}", flush=True)
    runs: dict[str, list[Run]] = {name: [] for name, *_ in ways}
    try:
        for i in range(args.repeat):
            for name, cmd, pin, others in ways:
                runs[name].append(measure(cmd, pin, others))
            print(f"  run {i + 1}/{args.repeat}: " + ", ".join(f"{name} {r[-1].seconds:.2f} s"
                                                               for name, r in runs.items()), flush=True)
    finally:
        if cluster is not None:
            cluster.communicate("", timeout=60)
    load_after = os.getloadavg()[0]
    for name, *_ in ways:
        code = runs[name][-1].exit_code
        if code not in ((0,) if name == "parse-only" else (0, 1)):
            print(f"error: {name} exited {code}", file=sys.stderr)
            return 2
    reports = {name: r[-1].stdout for name, r in runs.items() if name not in ("parse-only", selected)}
    identical = len(set(reports.values())) == 1
    base_counts = orjson.loads(runs["parse-only"][-1].stdout)
    summary = orjson.loads(runs["audit --jobs 1"][-1].stdout)["summary"]
    total = manifest["bytes"]
    if base_counts["bytes"] != total:
        print(f"WARNING: the baseline read {base_counts['bytes']} bytes, the manifest says {total}",
              file=sys.stderr)
    events = int(summary["events"])
    base_mbs = total / MB / _best(runs["parse-only"]).seconds
    rows: dict[str, dict[str, Any]] = {}
    for name, *_ in ways:
        best = _best(runs[name])
        rows[name] = {
            "seconds": round(best.seconds, 3), "cpu_seconds": round(best.cpu_seconds, 3),
            "mb_per_s": round(total / MB / best.seconds, 2), "ratio": round(total / MB / best.seconds / base_mbs, 3),
            "events_per_s": round(events / best.seconds),
            "peak_rss_mb": round(max(r.rss_bytes for r in runs[name]) / MB, 1),
            "runs": [round(r.seconds, 3) for r in runs[name]],
        }
    single = rows["audit --jobs 1"]
    checks: list[tuple[str, bool]] = [
        (f"single-core ratio {single['ratio']:.3f} (target ≥ {TARGET_RATIO})", single["ratio"] >= TARGET_RATIO)]
    if "audit --jobs 2" in rows:
        speedup = rows["audit --jobs 2"]["mb_per_s"] / single["mb_per_s"]
        checks.append((f"--jobs 2 speed-up {speedup:.2f} × --jobs 1 (target ≥ {TARGET_SPEEDUP})",
                       speedup >= TARGET_SPEEDUP))
    share = rows[selected]["seconds"] / single["seconds"]
    checks.append((f"--select {SELECT} takes {share:.2f} × a full audit's time (target < {TARGET_SELECT})",
                   share < TARGET_SELECT))
    worst = max(row["peak_rss_mb"] for name, row in rows.items() if name != "parse-only")
    checks.append((f"peak RSS per process {worst:.1f} MB (target < {TARGET_RSS_MB:.0f} MB)", worst < TARGET_RSS_MB))
    checks.append(("the audit JSON is byte-identical across every way of running it", identical))
    results: dict[str, Any] = {
        "corpus": {
            "path": str(corpus_dir), "reused": reused, "files": manifest["files"], "bytes": total,
            "lines": manifest["lines"], "events": events,
            "small": manifest["small"], "long_logs": len(manifest["long"]),
            "long_bytes": sum(e["bytes"] for e in manifest["long"]),
            "checks": manifest.get("checks", {}),
        },
        "rows": rows,
        "summary": summary,
        "targets": [{"what": what, "pass": ok} for what, ok in checks],
        "load_average": {"before": round(load_before, 2), "after": round(load_after, 2)},
        "environment": {
            "python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "orjson": orjson.__version__, "cpu_model": cpu_model(), "cpus": os.cpu_count(),
            "pinned_cpu": cpu, "platform": platform.platform(), "replay_git": git_describe(),
        },
        "commands": {name: shlex.join((prefix if pin is not None else []) + cmd) for name, cmd, pin, _ in ways},
    }

    env = results["environment"]
    small = manifest["small"]
    print()
    print(f"Python {env['python']} ({env['implementation']}), orjson {env['orjson']}, CPU {env['cpu_model']} "
          f"({env['cpus']} cpus, single-core runs pinned to {cpu if cpu is not None else 'none'}), "
          f"replay {env['replay_git']}")
    print(f"corpus  {corpus_dir}: {manifest['files']} files, {total / MB:.1f} MB, {base_counts['lines']} lines, "
          f"{events} events")
    print(f"        {small['files']} small files ({small['copies']} copies of {manifest['source_logs']} "
          f"real logs, {small['bytes'] / MB:.1f} MB) + {len(manifest['long'])} long logs "
          f"({results['corpus']['long_bytes'] / MB:.1f} MB)")
    for name, command in results["commands"].items():
        print(f"{name}: {command}")
    print()
    width = max(len(name) for name in rows)
    print(f"{'':{width}}{'seconds':>9}{'MB/s':>9}{'× parse':>9}{'events/s':>12}{'peak RSS MB':>13}")
    for name, r in rows.items():
        print(f"{name:{width}}{r['seconds']:>9.2f}{r['mb_per_s']:>9.1f}{r['ratio']:>9.3f}{r['events_per_s']:>12,}"
              f"{r['peak_rss_mb']:>13.1f}")
    print(f"(best of {args.repeat}; MB = 10**6 bytes; peak RSS = the largest process, max over the runs; "
          f"load average after: {load_after:.2f})")
    print()
    for what, ok in checks:
        print(f"{what}: {'PASS' if ok else 'FAIL'}")
    print(f"audit summary: {summary}")
    if args.json:
        print(orjson.dumps(results).decode())
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
