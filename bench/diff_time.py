#!/usr/bin/env python3
"""Benchmark (not a timed test): wall time of the diff of a golden and a run on hostile
content, each made by mutating a real golden of ``goldens/multi-turn`` (the tests build
theirs with the same functions, smaller):

* ``two-kinds``: 3,000 ACP records of two kinds, in another order on each side and each
  with its own text, so that no record is on both sides (aligning their kinds is cubic
  for difflib);
* ``long-text``: the ACP golden with one message chunk holding 8,000 lines of 101 kinds,
  in another order in the run (deepdiff diffs multi-line strings with difflib);
* ``scalar-list``: the plan golden with one list of 10,000 small numbers, other numbers
  in the run (deepdiff aligns lists of scalars with difflib);
* ``text``: the stdio golden's lines grown to 240 KB of 101 kinds, in another order in
  the run (difflib's unified diff);
* ``small-records``: about 1 MiB (under the limit) of the session golden's shortest
  record, each changed in the run: no alignment to make, but one comparison a record;
* ``deep``: the plan golden with a value nested 300 deep, changed at the bottom;
* ``lines``: 3 MiB of text (past the limit: the line diff) whose every other line differs;
* ``newlines``: a golden of 32 MiB of newlines (33 million lines) against one line of a
  run: the line diff's report is full after 40 lines.

Each case runs in a fresh process (``replay.snapshot.diff.changes`` of the two files,
the code of ``--code DIR``, default this checkout) under ``--timeout`` seconds; the
table shows seconds (or "> timeout"), the report's lines and its first line.

    python3 bench/diff_time.py [--timeout 300] [--code DIR] [--only CASE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "goldens" / "multi-turn"

Case = tuple[str, bytes, bytes]
"""A golden's file name (its kind), the golden's bytes and the run's."""


def _records(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (GOLDEN / name).read_bytes().splitlines() if line]


def _jsonl(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records).encode()


def _chunk(kind: str, text: str) -> dict[str, Any]:
    """The first record of the ACP golden of that kind, with ``text`` as its text."""
    record = next(r for r in _records("stdout.expected.jsonl") if r["params"]["update"]["sessionUpdate"] == kind)
    copy: dict[str, Any] = json.loads(json.dumps(record))
    copy["params"]["update"]["content"]["text"] = text
    return copy


def two_kinds(count: int) -> Case:
    """``count`` thought and message chunks: every third a thought in the golden, every
    other one in the run; each with its own text."""
    def side(every: int, mark: str) -> bytes:
        return _jsonl([_chunk("agent_thought_chunk" if i % every == 0 else "agent_message_chunk", f"{mark}{i}")
                       for i in range(count)])

    return "stdout.expected.jsonl", side(3, "g"), side(2, "r")


KINDS = 101
"""The kinds of line of the repetitive texts: each is in under 1% of the lines, or
difflib would pass over it (its ``autojunk``); line i is kind i mod KINDS in the golden,
7i mod KINDS in the run."""


def long_text(lines: int) -> Case:
    """The ACP golden with its first message chunk holding ``lines`` lines of ``KINDS`` kinds."""
    def side(step: int) -> bytes:
        records = _records("stdout.expected.jsonl")
        at = next(k for k, r in enumerate(records) if r["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        records[at] = _chunk("agent_message_chunk", "".join(f"row {i * step % KINDS}\n" for i in range(lines)))
        return _jsonl(records)

    return "stdout.expected.jsonl", side(1), side(7)


def scalar_list(items: int) -> Case:
    """The plan golden with the todos of its first update a list of ``items`` numbers
    (i mod 3 in the golden, i mod 2 in the run)."""
    def side(kinds: int) -> bytes:
        plan = json.loads((GOLDEN / "plan.expected.json").read_bytes())
        plan["updates"][0]["todos"] = [i % kinds for i in range(items)]
        return json.dumps(plan, indent=2).encode()

    return "plan.expected.json", side(3), side(2)


def text(size: int) -> Case:
    """About ``size`` bytes of ``KINDS`` kinds of line: the stdio golden's lines, numbered."""
    base = (GOLDEN / "stdio.expected.txt").read_text().splitlines()

    def side(step: int) -> bytes:
        out: list[str] = []
        total = 0
        while total < size:
            kind = len(out) * step % KINDS
            out.append(f"{base[kind % len(base)]} {kind}")
            total += len(out[-1]) + 1
        return ("\n".join(out) + "\n").encode()

    return "stdio.expected.txt", side(1), side(7)


def small_records(size: int) -> Case:
    """Copies of the session golden's shortest record, each changed in the run (its data
    gets a field), the run about ``size`` bytes."""
    shortest = min(_records("session.expected.jsonl"), key=lambda r: len(json.dumps(r)))
    golden: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    total = 0
    while total < size:
        record = {**shortest, "seq": len(golden)}
        golden.append(record)
        run.append({**record, "data": {**record["data"], "copy": 1}})
        total += len(json.dumps(run[-1], separators=(",", ":"))) + 1
    return "session.expected.jsonl", _jsonl(golden), _jsonl(run)


def deep(depth: int) -> Case:
    """The plan golden whose final plan is a value nested ``depth`` lists deep, its
    innermost number changed in the run."""
    def side(value: int) -> bytes:
        plan = json.loads((GOLDEN / "plan.expected.json").read_bytes())
        nested: Any = value
        for _ in range(depth):
            nested = [nested]
        plan["final"] = nested
        return json.dumps(plan).encode()

    return "plan.expected.json", side(1), side(2)


def lines(size: int) -> Case:
    """About ``size`` bytes of the stdio golden's lines, numbered; every other line
    changed in the run."""
    base = (GOLDEN / "stdio.expected.txt").read_text().splitlines()
    golden: list[str] = []
    run: list[str] = []
    total = 0
    while total < size:
        i = len(golden)
        golden.append(f"{base[i % len(base)]} {i}")
        run.append(golden[-1] + (" changed" if i % 2 else ""))
        total += len(golden[-1]) + 1
    return "stdio.expected.txt", ("\n".join(golden) + "\n").encode(), ("\n".join(run) + "\n").encode()


CASES: dict[str, Callable[[], Case]] = {
    "two-kinds": lambda: two_kinds(3000),
    "long-text": lambda: long_text(8000),
    "scalar-list": lambda: scalar_list(10_000),
    "text": lambda: text(240_000),
    "small-records": lambda: small_records(1_040_000),
    "deep": lambda: deep(300),
    "lines": lambda: lines(3 << 20),
    "newlines": lambda: ("stdout.expected.jsonl", b"\n" * (32 << 20), b'{"a":1}\n'),
}

_CHILD = """
import sys, time
from pathlib import Path
from replay.goldens.diff import changes
try:
    from replay.scenarios.artefacts import comparator
except ImportError:  # a checkout from before the producers declared how their goldens compare
    comparator = str
name, golden, run = sys.argv[1], Path(sys.argv[2]).read_bytes(), Path(sys.argv[3]).read_bytes()
start = time.perf_counter()
try:
    found = changes(comparator(name), golden, run)
except BaseException as error:
    print(f"{time.perf_counter() - start:.2f}\\t-\\t{type(error).__name__}")
else:
    first = found[0].text if found else ""
    print(f"{time.perf_counter() - start:.2f}\\t{len(found)}\\t{first[:90]}")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose replay runs (default: this)")
    parser.add_argument("--only", nargs="*", choices=list(CASES), default=list(CASES))
    args = parser.parse_args()
    code = args.code.resolve()
    print(f"Python {sys.version.split()[0]}, replay from {code}, timeout {args.timeout:.0f} s")
    print(f"{'case':<14} {'golden':>10} {'run':>10} {'seconds':>9}  lines  first line")
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory(prefix="replay-bench-diff-") as tmp:
        for label in args.only:
            name, golden, run = CASES[label]()
            (Path(tmp) / "golden").write_bytes(golden)
            (Path(tmp) / "run").write_bytes(run)
            start = time.perf_counter()
            try:
                out = subprocess.run([sys.executable, "-c", _CHILD, name, str(Path(tmp) / "golden"),
                                      str(Path(tmp) / "run")], capture_output=True, text=True, env=env, cwd=tmp,
                                     timeout=args.timeout, check=False).stdout.strip()
                seconds, count, first = out.split("\t", 2) if out.count("\t") >= 2 else ("?", "-", out)
            except subprocess.TimeoutExpired:
                seconds, count, first = f"> {time.perf_counter() - start:.0f}", "-", "(stopped)"
            print(f"{label:<14} {len(golden):>10,} {len(run):>10,} {seconds:>9}  {count:>5}  {first}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
