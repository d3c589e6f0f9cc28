#!/usr/bin/env python3
"""Benchmark (not a timed test): peak RSS and wall time of every reading command on a
long log and on a log holding one huge record.

Builds, outside the repo (``--out``, default ``$TMPDIR/replay-bench-bounds``), from the
real logs of ``$REPLAY_CORPUS`` (default ``../shared/corpus``):

* ``long-<N>mb.jsonl``: a clean log of about N MB for each ``--sizes`` value (default 12
  and 50), made of copies of one clean corpus log with seqs, turns and ids shifted (the
  builder of ``audit_throughput.py``); the two sizes show whether memory grows with the
  log;
* ``calls-<N>.jsonl``: a clean log of ``--events`` events (default 2,000,000; 0 skips),
  more than half of them tool calls and results: turns of ten steps, each an
  assistant/message asking for two calls, the calls and their results, every record
  in the shape of its type's record in the ``todo_write`` log, every id fresh (what a
  fold keeps per call, a reading per tool result, shows here);
* ``children-<N>/``: a parent log with ``--children`` subagent calls (default 4,000; 0
  skips) whose results name no child, and as many children, copies of a real child
  log whose headers name the parent (``view`` of the folder against its ``audit``);
* ``record-<N>mib.jsonl``: a real log whose one tool result holds a text of N MiB
  (``--record-mib``, default 100), so the record is one line of that size;
* ``golden-<N>mb/``: this repo's scenarios and goldens with one golden
  (``multi-turn/stdout.expected.jsonl``) replaced by about N MB (``--golden-mb``,
  default 140; 0 skips) of its own records, each changed (its text gets a number), so
  that every line differs from what the scenario renders; and ``review/``, the
  untouched scenarios and goldens with a pending folder whose pending golden is that
  file (its manifest as ``check --pending`` writes one).

Then runs, each in a fresh process (peak RSS from ``os.wait4`` of that child alone):
``audit --format json``, ``render acp``, ``render stdio``, ``render web``, ``render web
--html -o FILE``, ``plan``, ``view`` (its page goes to the output folder) and ``new
--from-log`` (the import with its keyless test run, into a scenarios folder there), with
stdout sent to a file; and on the golden trees ``check`` of the scenario, ``review`` of
the pending golden (on a pseudo-terminal, answering ``s``: it shows the changes and
skips) and ``accept`` of it. Prints tables (seconds, peak RSS in MB of 10**6 bytes,
output size) and, with ``--json``, the figures as JSON.

Each figure an issue sets a target for is printed with its target and ``ok`` or
``FAILS``: peak RSS under ``RSS_TARGET_MB`` for ``audit``, ``render acp`` and ``view -o`` (of
its page alone and of its site) of the log of tool calls, and ``view -o`` of the children's
folder within ``CHILDREN_RATIO`` times the CPU time (user + system, its workers included)
of its ``audit``. The exit status is 1 when a measured target fails, 0 when every measured
one holds (a target whose rows are skipped is not measured): the run reads as a pass/fail
check.

It also builds three ``.tar.zst`` bombs of hand-made headers, each a few KB on disk, and
measures ``audit --format json`` of each (``--archives-only``: only these):

* ``pax-3gib.tar.zst``: a pax header declaring 3 GiB, followed by 3 GiB of zeros;
* ``member-1tb.tar.zst``: a real log, then a member named like a log declaring 1 TB;
* ``members-1m.tar.zst``: ``--members`` (default 1,000,000) empty members named like logs.

    python3 bench/bounds.py [--sizes 12 50] [--events 2000000] [--children 4000] [--record-mib 100]
                            [--golden-mb 140] [--members N] [--archives-only] [--code DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import zstandard

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import audit_throughput as at  # noqa: E402  (a sibling script, not a package)

MB = 1_000_000
TEMPLATE = "sessions-2026-08-20/examples_acp-agent_tests_snapshots/todo-write/session.jsonl"
PARENT = "sessions-2026-08-20/examples_acp-agent_tests_snapshots/subagent-parallel"
"""A parent log and its children (``session.jsonl``, ``session.1.jsonl``)."""
NAMESPACE = uuid.UUID("0b6f1c52-2d7e-4b8e-9a51-3c9e4f7d2a60")
RSS_TARGET_MB = 150
"""The peak RSS (MB) each command of ``CALL_ROWS`` stays under on the log of tool calls."""
CHILDREN_RATIO = 2.0
"""``view -o`` of the children's folder takes at most this many times its ``audit``'s CPU time."""
CALL_ROWS = [("audit", ["audit", "--no-cache", "--format", "json"]), ("render acp", ["render", "acp"]),
             ("view -o", ["view", "--no-cache", "-o", "{page}"]),
             ("view -o DIR/", ["view", "--no-cache", "-o", "{site}/"])]
"""The commands measured on the long log of tool calls (its page to a file, its site to a folder)."""
COMMANDS: list[tuple[str, list[str]]] = [
    ("audit", ["audit", "--no-cache", "--format", "json"]),
    ("render acp", ["render", "acp"]),
    ("render stdio", ["render", "stdio"]),
    ("render web", ["render", "web"]),
    ("render web --html", ["render", "web", "--html", "-o", "{page}"]),
    ("plan", ["plan"]),
    ("view", ["view", "--no-cache"]),
    ("new --from-log", ["new", "imported", "--force", "--scenarios", "{scenarios}", "--from-log"]),
]


def build_long(corpus: Path, target: Path, size: int) -> None:
    sources = at.load_sources(corpus)
    template = next((t for log in sources if log.rel.as_posix() == TEMPLATE if (t := at.as_template(log))), None)
    if template is None:
        raise SystemExit(f"error: {corpus / TEMPLATE} is missing or cannot be repeated")
    built = at.Built()
    at.build_long(template, target, 0, size, built)


def _fresh(name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, name))


def calls_lines(recs: list[dict[str, Any]], events: int, calls: int = 2, steps: int = 10) -> Iterator[bytes]:
    """The lines of a clean log of at least ``events`` events, more than half of them
    tool calls and results: turns of ``steps`` steps, each an assistant/message asking
    for ``calls`` calls, the calls and their results. Each record has the shape of its
    type's first record in ``recs`` (a real log, header first), every id fresh (UUIDs,
    as the harness writes them). The tests build their logs with it too."""
    first: dict[str, dict[str, Any]] = {}
    for rec in recs:
        first.setdefault(rec["type"], rec)
    user, message, result = first["user/message"]["data"], first["assistant/message"]["data"], first["tool/result"]
    time0 = first["tool/call"]["time"]
    seq = 0

    def line(type_: str, data: dict[str, Any], **extra: Any) -> bytes:
        nonlocal seq
        seq += 1
        return orjson.dumps({"type": type_, "seq": seq - 1, "time": time0 + seq, "data": data, **extra}) + b"\n"

    yield orjson.dumps(recs[0]) + b"\n"
    args = '{"file_path": "a.txt"}'
    block = result["data"]["message"]["content"][0]
    turn = number = 0
    while seq < events:
        turn += 1
        yield line("turn/start", {"turn": turn})
        yield line("user/message", {**user, "id": _fresh(f"u{turn}")}, surfaceOp="append")
        for step in range(1, steps + 1):
            at = {"turn": turn, "step": step}
            ids = [f"call_{number + i}" for i in range(calls)]
            number += calls
            yield line("step/start", at)
            yield line("assistant/message", {**at, "message": {**message["message"], "id": _fresh(f"m{turn}.{step}"),
                       "content": [{"type": "tool-call", "id": i, "name": "read", "arguments": args} for i in ids]},
                       "usage": message["usage"]}, sourceEventSeqs=[], surfaceOp="append")
            called = seq
            for i in ids:
                yield line("tool/call", {**at, "callId": i, "name": "read", "arguments": args})
            for k, i in enumerate(ids):
                yield line("tool/result", {**at, "message": {
                    **result["data"]["message"], "id": _fresh(i), "source": {"kind": "tool", "callId": i},
                    "content": [{**block, "toolCallId": i, "content": [{"type": "text", "text": "1: alpha"}]}]}},
                    sourceEventSeqs=[called + k], surfaceOp="append")
            yield line("step/end", at)
        yield line("turn/end", {"turn": turn, "reason": {"kind": "completed"}})


def build_calls(corpus: Path, target: Path, events: int) -> None:
    recs = [orjson.loads(line) for line in (corpus / TEMPLATE).read_bytes().splitlines() if line]
    with target.open("wb") as out:
        out.writelines(calls_lines(recs, events))


def build_children(corpus: Path, folder: Path, n: int) -> None:
    """A parent with ``n`` subagent calls whose results name no child (each in a step of
    its own, in the shapes of the real parent's records), and ``n`` children: the real
    child log, each with a fresh id, its header naming the parent."""
    parent = [orjson.loads(line) for line in (corpus / PARENT / "session.jsonl").read_bytes().splitlines() if line]
    child = (corpus / PARENT / "session.1.jsonl").read_bytes()
    child_id = orjson.loads(child.split(b"\n", 1)[0])["id"].encode()
    first: dict[str, dict[str, Any]] = {}
    for rec in parent:
        first.setdefault(rec["type"], rec)
    call, result, message = first["tool/call"], first["tool/result"], first["assistant/message"]["data"]
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    records = [parent[0], {**first["turn/start"], "seq": 0}]
    for i in range(n):
        at = {"turn": 1, "step": i + 1}
        call_id = f"call_child_{i}"
        call_block = {"type": "tool-call", "id": call_id, "name": call["data"]["name"],
                      "arguments": call["data"]["arguments"]}
        records += [
            {"type": "step/start", "data": at},
            {"type": "assistant/message", "data": {**at, "message": {**message["message"], "id": _fresh(f"m{i}"),
             "content": [call_block]}}, "sourceEventSeqs": [], "surfaceOp": "append"},
            {"type": "tool/call", "data": {**call["data"], **at, "callId": call_id}},
            {"type": "tool/result", "data": {**at, "message": {
                **result["data"]["message"], "id": _fresh(f"r{i}"), "source": {"kind": "tool", "callId": call_id},
                "content": [{**result["data"]["message"]["content"][0], "toolCallId": call_id}]}},
             "surfaceOp": "append"},
            {"type": "step/end", "data": at},
        ]
        (tmp / f"session.{i + 1}.jsonl").write_bytes(child.replace(child_id, _fresh(f"child{i}").encode()))
    records.append({**first["turn/end"]})
    with (tmp / "session.jsonl").open("wb") as out:
        out.write(orjson.dumps(records[0]) + b"\n")
        for seq, rec in enumerate(records[1:]):
            called = seq - 1 if rec["type"] == "tool/result" else None
            rec = {"type": rec["type"], "seq": seq, "time": call["time"] + seq, "data": rec["data"],
                   **{k: v for k, v in rec.items() if k in ("surfaceOp",)},
                   **({"sourceEventSeqs": [called]} if called is not None else
                      {"sourceEventSeqs": rec["sourceEventSeqs"]} if "sourceEventSeqs" in rec else {})}
            out.write(orjson.dumps(rec) + b"\n")
    tmp.rename(folder)


def build_record(corpus: Path, target: Path, mib: int) -> None:
    """The template log with its first tool result's text grown to ``mib`` MiB."""
    lines = (corpus / TEMPLATE).read_bytes().split(b"\n")
    for i, line in enumerate(lines):
        if b'"type":"tool/result"' in line:
            rec = orjson.loads(line)
            block = rec["data"]["message"]["content"][0]["content"][0]
            unit = "a line of a very long tool output\\n"
            block["text"] = "PLACEHOLDER"
            head, tail = orjson.dumps(rec).split(b"PLACEHOLDER")
            body = unit.encode() * ((mib << 20) // len(unit))
            lines[i] = head + body + tail
            break
    else:
        raise SystemExit("error: the template has no tool/result")
    target.write_bytes(b"\n".join(lines))


def _header(name: str, size: int, kind: bytes = tarfile.REGTYPE, fmt: int = tarfile.GNU_FORMAT) -> bytes:
    """A member header declaring ``size`` bytes, whatever follows it."""
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    return info.tobuf(format=fmt)


def build_bombs(corpus: Path, out: Path, members: int) -> list[tuple[str, Path]]:
    """The archive bombs (built once, streamed to disk: never held)."""
    bombs = [("3 GiB pax header", out / "pax-3gib.tar.zst"), ("1 TB member", out / "member-1tb.tar.zst"),
             (f"{members:,} empty members", out / f"members-{members}.tar.zst")]
    end = bytes(2 * tarfile.BLOCKSIZE)
    for name, path in bombs:
        if path.exists():
            continue
        with open(path, "wb") as fh, zstandard.ZstdCompressor().stream_writer(fh) as writer:
            if name.endswith("pax header"):
                writer.write(_header("pax", 3 << 30, tarfile.XHDTYPE, tarfile.USTAR_FORMAT))
                zeros = bytes(1 << 20)
                for _ in range(3 << 10):
                    writer.write(zeros)
            elif name.endswith("member"):
                log = (corpus / TEMPLATE).read_bytes()
                writer.write(_header("logs/a.jsonl", len(log)) + log + bytes(-len(log) % tarfile.BLOCKSIZE))
                writer.write(_header("logs/big.jsonl", 10**12))
            else:
                batch = _header("logs/empty.jsonl", 0) * 1000
                for _ in range(members // 1000):
                    writer.write(batch)
                writer.write(_header("logs/empty.jsonl", 0) * (members % 1000))
            writer.write(end)
    return bombs
GOLDEN = ("multi-turn", "stdout.expected.jsonl")
"""The golden the golden trees replace with a large file of its own records, changed."""
PROMPT = b"? help > "
"""The end of ``replay review``'s prompt for a key."""


def build_golden(source: Path, target: Path, size: int) -> None:
    """About ``size`` bytes of the records of the golden ``source``, in turn, each changed:
    its text gets the record's number (a record without text gets a field)."""
    records = [orjson.loads(line) for line in source.read_bytes().splitlines() if line]
    written = 0
    with target.open("wb") as out:
        number = 0
        while written < size:
            record = records[number % len(records)]
            update = record.get("params", {}).get("update", {})
            content = update.get("content")
            if isinstance(content, dict) and isinstance(content.get("text"), str):
                changed = {**record, "params": {**record["params"], "update": {
                    **update, "content": {**content, "text": f"{content['text']} #{number}"}}}}
            else:
                changed = {**record, "copy": number}
            line = orjson.dumps(changed) + b"\n"
            out.write(line)
            written += len(line)
            number += 1


def golden_tree(out: Path, mb: int) -> Path:
    return out / f"golden-{mb}mb"


def build_golden_trees(out: Path, mb: int) -> None:
    """``golden-<N>mb/`` (built once) and ``review/`` (made again each run: accept uses it up)."""
    tree = golden_tree(out, mb)
    hostile = tree / "goldens" / GOLDEN[0] / GOLDEN[1]
    if not hostile.exists():
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(at.REPO_ROOT / "scenarios", tree / "scenarios")
        shutil.copytree(at.REPO_ROOT / "goldens", tree / "goldens")
        build_golden(at.REPO_ROOT / "goldens" / GOLDEN[0] / GOLDEN[1], hostile, mb * MB)
    review = out / "review"
    shutil.rmtree(review, ignore_errors=True)
    shutil.copytree(at.REPO_ROOT / "scenarios", review / "scenarios")
    shutil.copytree(at.REPO_ROOT / "goldens", review / "goldens")
    (review / "pending" / GOLDEN[0]).mkdir(parents=True)
    os.link(hostile, review / "pending" / GOLDEN[0] / GOLDEN[1])

    def sha256(path: Path) -> str:
        digest = hashlib.sha256()
        with path.open("rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
        return digest.hexdigest()

    entry = {"scenario": GOLDEN[0], "artefact": GOLDEN[1],
             "golden_sha256": sha256(review / "goldens" / GOLDEN[0] / GOLDEN[1]), "pending_sha256": sha256(hostile),
             "replay_version": "bench"}
    (review / "pending" / "manifest.json").write_text(json.dumps({"format": 1, "entries": [entry]}, indent=2) + "\n")


def golden_commands(out: Path, mb: int) -> list[tuple[str, list[str], bytes | None]]:
    """(label, ``replay`` arguments, the key to type on a terminal or ``None``) of the golden rows."""
    tree, review = golden_tree(out, mb), out / "review"
    trees = ["--pending", str(review / "pending"), "--scenarios", str(review / "scenarios"), "--goldens",
             str(review / "goldens")]
    return [
        ("check", ["check", "--scenarios", str(tree / "scenarios"), "--goldens", str(tree / "goldens"), GOLDEN[0]],
         None),
        ("review (s)", ["review", *trees], b"s"),
        ("accept", ["accept", *trees], None),
    ]


def measure_tty(args: list[str], key: bytes, out_dir: Path, code: Path = at.REPO_ROOT) -> dict[str, Any]:
    """``replay ARGS`` on a pseudo-terminal, typing ``key`` at each prompt, as ``measure``."""
    env = {**os.environ, "TMPDIR": str(out_dir), "NO_COLOR": "1", "PYTHONPATH": str(code)}
    env.pop("CI", None)
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal on stdin, stdout and stderr
        os.chdir(code)
        os.execve(sys.executable, [sys.executable, "-m", "replay", *args], env)
    size = 0
    tail = b""  # what it printed last
    unanswered = b""  # what it printed since the last key typed
    while True:
        ready, _, _ = select.select([fd], [], [], 600)
        if not ready:
            raise SystemExit(f"error: replay {' '.join(args)} printed nothing for 10 minutes")
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        size += len(chunk)
        tail = (tail + chunk)[-4096:]
        unanswered = (unanswered + chunk)[-len(PROMPT):]
        if unanswered.endswith(PROMPT):
            os.write(fd, key)
            unanswered = b""
    _, status, usage = os.wait4(pid, 0)
    os.close(fd)
    seconds = time.perf_counter() - started
    exit_code = os.waitstatus_to_exitcode(status)
    if exit_code not in (0, 1):
        raise SystemExit(f"error: replay {' '.join(args)} exited {exit_code}: {tail.decode(errors='replace')}")
    return {"seconds": round(seconds, 2), "rss_mb": round(usage.ru_maxrss * 1024 / MB, 1), "output": size,
            "exit": exit_code}


def measure(args: list[str], out_dir: Path, code: Path = at.REPO_ROOT) -> dict[str, Any]:
    """``replay ARGS`` in a fresh process (the ``replay`` of the checkout ``code``): its
    wall time, peak RSS (MB), output size and exit status. Only the start of its output
    is read back: this process stays small, so the next child's peak is its own."""
    env = {**os.environ, "TMPDIR": str(out_dir), "NO_COLOR": "1", "PYTHONPATH": str(code)}
    with tempfile.TemporaryFile(dir=out_dir) as out:
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "replay", *args], stdout=out, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=env, cwd=code)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        size = out.seek(0, os.SEEK_END)
        out.seek(0)
        head = out.read(4096)
        bomb = args[-1].endswith(".tar.zst") and size < 1 << 20  # an archive bomb: its report is small
        if bomb:
            head += out.read()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"error: replay {' '.join(args)} exited {code}: {err.decode(errors='replace')[-2000:]}")
    finding = ""
    if args[0] == "view":  # the page's (the index's) path is printed: its size is the output
        page = Path(head.decode().strip())
        size = page.stat().st_size
        if page.name != "index.html":
            page.unlink()
    elif bomb:  # the archive's own finding comes last
        files = orjson.loads(head)["files"]
        finding = " ".join(f"{f['rule']}: {f['message']}" for f in files[-1]["findings"]) if files else ""
    return {"seconds": round(seconds, 2), "cpu": round(usage.ru_utime + usage.ru_stime, 2),
            "user": round(usage.ru_utime, 2), "sys": round(usage.ru_stime, 2),
            "rss_mb": round(usage.ru_maxrss * 1024 / MB, 1), "output": size, "exit": code, "finding": finding}


def verdict(holds: bool) -> str:
    return "ok" if holds else "FAILS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "replay-bench-bounds")
    parser.add_argument("--corpus", type=Path, default=at.default_corpus())
    parser.add_argument("--sizes", type=int, nargs="+", default=[12, 50], help="long-log sizes in MB")
    parser.add_argument("--events", type=int, default=2_000_000, help="events of the log of tool calls (0: none)")
    parser.add_argument("--children", type=int, default=4000, help="children of the parent (0: none)")
    parser.add_argument("--record-mib", type=int, default=100)
    parser.add_argument("--members", type=int, default=1_000_000, help="empty members of the members bomb")
    parser.add_argument("--archives-only", action="store_true", help="only the archive bombs")
    parser.add_argument("--golden-mb", type=int, default=140, help="the large golden's size in MB (0: no golden rows)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--code", type=Path, default=at.REPO_ROOT,
                        help="the checkout whose replay runs (default: this one), for before/after figures")
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    out: Path = args.out.resolve()
    if out == at.REPO_ROOT or at.REPO_ROOT in out.parents:
        raise SystemExit(f"error: --out {out} is inside the repo")
    out.mkdir(parents=True, exist_ok=True)
    longs = [out / f"long-{size}mb.jsonl" for size in args.sizes]
    record = out / f"record-{args.record_mib}mib.jsonl"
    calls = out / f"calls-{args.events}.jsonl"
    children = out / f"children-{args.children}"
    if args.build_only:
        build_bombs(args.corpus, out, args.members)
        if args.archives_only:
            return 0
        for size, path in zip(args.sizes, longs, strict=True):
            if not path.exists():
                build_long(args.corpus, path, size * MB)
        if not record.exists():
            build_record(args.corpus, record, args.record_mib)
        if args.events and not calls.exists():
            build_calls(args.corpus, calls, args.events)
        if args.children and not children.exists():
            build_children(args.corpus, children, args.children)
        if args.golden_mb:
            build_golden_trees(out, args.golden_mb)
        return 0
    # Built in a child: a child's peak RSS counts what its parent held when it forked.
    subprocess.run([sys.executable, __file__, "--build-only", *sys.argv[1:]], check=True)
    print(f"Python {sys.version.split()[0]}, CPU {at.cpu_model()}, replay from {args.code.resolve()}")
    results: dict[str, dict[str, Any]] = {"audit of an archive bomb": {}}
    targets: list[tuple[str, bool]] = []
    """Each measured target: what was measured against what, and whether it holds."""
    print(f"{'audit --format json':28}{'on disk':>10}{'s':>8}{'RSS MB':>9}{'exit':>6}  the archive's finding")
    for name, path in build_bombs(args.corpus, out, args.members):
        r = measure(["audit", "--no-cache", "--format", "json", str(path)], out, args.code.resolve())
        results["audit of an archive bomb"][name] = r
        print(f"{name:28}{path.stat().st_size:>10,}{r['seconds']:>8.2f}{r['rss_mb']:>9.1f}{r['exit']:>6}  "
              f"{r['finding'][:70]}", flush=True)
    if args.archives_only:
        if args.json:
            print(orjson.dumps(results).decode())
        return 0
    logs = [(f"{path.stat().st_size / MB:.0f} MB log", path) for path in longs]
    logs.append((f"{args.record_mib} MiB record", record))
    page = out / "page.html"
    print(f"{'':20}" + "".join(f"{name:>26}" for name, _ in logs))
    print(f"{'':20}" + "".join(f"{'s':>8}{'RSS MB':>9}{'out MB':>9}" for _ in logs))
    for label, command in COMMANDS:
        row = results.setdefault(label, {})
        cells = []
        for name, path in logs:
            scenarios = out / "imported-scenarios"
            argv = [a.replace("{page}", str(page)).replace("{scenarios}", str(scenarios)) for a in command] \
                + [str(path)]
            if command[0] == "render" and "-o" in command:
                page.unlink(missing_ok=True)
            shutil.rmtree(scenarios, ignore_errors=True)  # an import never overwrites: each starts afresh
            r = measure(argv, out, args.code.resolve())
            if page.exists():
                r["output"] = page.stat().st_size
                page.unlink()
            row[name] = r
            cells.append(f"{r['seconds']:>8.2f}{r['rss_mb']:>9.1f}{r['output'] / MB:>9.1f}")
        print(f"{label:20}" + "".join(cells), flush=True)
    if args.events:
        print(f"\n{calls.name}: {args.events:,} events, {calls.stat().st_size / MB:.0f} MB")
        print(f"{'':20}{'s':>8}{'RSS MB':>9}{'out MB':>9}  target")
        site = out / "calls-site"
        for label, command in CALL_ROWS:
            page.unlink(missing_ok=True)
            shutil.rmtree(site, ignore_errors=True)
            r = measure([*(a.replace("{page}", str(page)).replace("{site}", str(site)) for a in command), str(calls)],
                        out, args.code.resolve())
            results.setdefault(label, {})[f"{args.events:,} events"] = r
            holds = r["rss_mb"] < RSS_TARGET_MB
            targets.append((f"{label} of {args.events:,} events: peak RSS {r['rss_mb']:.1f} MB < {RSS_TARGET_MB} MB",
                            holds))
            print(f"{label:20}{r['seconds']:>8.2f}{r['rss_mb']:>9.1f}{r['output'] / MB:>9.1f}  "
                  f"RSS < {RSS_TARGET_MB} MB: {verdict(holds)}", flush=True)
    if args.children:
        site = out / "children-site"
        print(f"\n{children.name}: a parent, {args.children:,} subagent calls naming no child, {args.children:,} "
              "children")
        print(f"{'':20}{'s':>8}{'RSS MB':>9}{'CPU s':>8}{'user':>7}{'sys':>7}")
        timed = {}
        for label, command in [("audit", ["audit", "--no-cache", "--format", "json", str(children)]),
                               ("view -o DIR", ["view", "--no-cache", str(children), "-o", str(site), "--force"])]:
            shutil.rmtree(site, ignore_errors=True)
            r = measure(command, out, args.code.resolve())
            results.setdefault(label, {})[f"{args.children:,} children"] = timed[label] = r
            print(f"{label:20}{r['seconds']:>8.2f}{r['rss_mb']:>9.1f}{r['cpu']:>8.2f}{r['user']:>7.2f}"
                  f"{r['sys']:>7.2f}", flush=True)
        shutil.rmtree(site, ignore_errors=True)
        view, audit = timed["view -o DIR"], timed["audit"]
        ratio = view["cpu"] / max(audit["cpu"], 0.01)
        holds = ratio <= CHILDREN_RATIO
        results["view / audit CPU"] = {f"{args.children:,} children": round(ratio, 2)}
        targets.append((f"view -o of {args.children:,} children: {ratio:.2f} x the CPU time of its audit "
                        f"<= {CHILDREN_RATIO:g} x", holds))
        print(f"view / audit: {ratio:.2f} x the CPU time (wall {view['seconds'] / max(audit['seconds'], 0.01):.2f} x); "
              f"target <= {CHILDREN_RATIO:g} x: {verdict(holds)}")
    if args.golden_mb:
        golden = golden_tree(out, args.golden_mb) / "goldens" / GOLDEN[0] / GOLDEN[1]
        print(f"\n{GOLDEN[0]}/{GOLDEN[1]}: {golden.stat().st_size / MB:.0f} MB")
        print(f"{'':20}{'s':>8}{'RSS MB':>9}{'out MB':>9}")
        for label, command, key in golden_commands(out, args.golden_mb):
            if key is None:
                r = measure(command, out, args.code.resolve())
            else:
                r = measure_tty(command, key, out, args.code.resolve())
            results.setdefault(label, {})[f"{args.golden_mb} MB golden"] = r
            print(f"{label:20}{r['seconds']:>8.2f}{r['rss_mb']:>9.1f}{r['output'] / MB:>9.1f}", flush=True)
    if targets:
        print("\ntargets:")
        for text, holds in targets:
            print(f"  {verdict(holds):6}{text}")
    results["targets"] = {text: holds for text, holds in targets}
    if args.json:
        print(orjson.dumps(results).decode())
    shutil.rmtree(out / "tmp", ignore_errors=True)
    return 0 if all(holds for _, holds in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
