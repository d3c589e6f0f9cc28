#!/usr/bin/env python3
"""Benchmark (not a timed test): the plan timeline and the folds at 1k, 4k and 16k
``todo/write`` events, with the seqs in order, with one out of order, and reversed.

Builds, outside the repo (``--out``, default ``$TMPDIR/replay-bench-timeline``), one
log per size and seq order: N turns, each a ``todo_write`` call, its ``todo/write``
(three items), its result, and the turn's end. Then times, each in a fresh process:

* ``replay render web --html -o page.html`` (the page: its plan timeline steps
  through every write, the page's quadratic case before issue 9);
* ``replay render web`` (the golden text: the pairing fold and the standing plan);
* ``replay plan --at SEQ`` (the standing plan at a seq in the middle);

and prints wall seconds and peak RSS (MB of 10**6 bytes). ``--code DIR`` runs another
checkout's ``replay`` (its folder is put first on the path), for before/after figures.

    python3 bench/timeline.py [--sizes 1000 4000 16000] [--code DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
STATUSES = ("completed", "in_progress", "pending")
ORDERS = ("in order", "one out of order", "reversed")


def records(writes: int, order: str = "in order", deltas: int = 0) -> list[dict[str, Any]]:
    """The log (header first): ``writes`` turns, each a ``todo_write`` call, its
    ``todo/write`` (three items), its result, an answer streamed in ``deltas`` text
    deltas, and the turn's end; the seqs in ``order`` (one of ``ORDERS``). The tests
    build their logs with it too."""
    header = {"type": "session", "version": 0, "id": "synthetic", "createdAt": 0, "cwd": "/w",
              "delegationDepth": 0}
    recs: list[dict[str, Any]] = []

    def add(type_: str, data: dict[str, Any], **extra: Any) -> None:
        recs.append({"type": type_, "seq": len(recs), "time": 0, "data": data, **extra})

    for i in range(writes):
        todos = [{"content": f"task {i}.{k}", "status": STATUSES[(i + k) % 3]} for k in range(3)]
        call = f"call_{i}"
        add("turn/start", {"turn": i + 1})
        add("tool/call", {"turn": i + 1, "step": 1, "callId": call, "name": "todo_write",
                          "arguments": json.dumps({"todos": todos})})
        add("todo/write", {"todos": todos})
        add("tool/result", {"turn": i + 1, "step": 1, "message": {
            "role": "user", "source": {"kind": "tool", "callId": call},
            "content": [{"type": "tool-result", "toolCallId": call, "toolName": "todo_write",
                         "content": [{"type": "text", "text": f"Updated todo list {i}."}], "isError": False}]}},
            surfaceOp="append")
        for k in range(deltas):
            add("assistant/chunk", {"turn": i + 1, "step": 2,
                                    "chunk": {"type": "text-delta", "index": 0, "text": f"Done {i}, part {k}. "}})
        add("assistant/message", {"turn": i + 1, "step": 2, "message": {
            "role": "assistant", "source": {"kind": "model"}, "content": [{"type": "text", "text": f"Done {i}."}]}},
            surfaceOp="append")
        add("turn/end", {"turn": i + 1, "reason": {"kind": "completed"}})
    if order == "one out of order":
        middle = next(r for r in recs[len(recs) // 2:] if r["type"] == "todo/write")
        middle["seq"] = -7
    elif order == "reversed":
        for rec in recs:
            rec["seq"] = len(recs) - rec["seq"]
    return [header, *recs]


def build(path: Path, writes: int, order: str) -> int:
    """Write the log; return the seq ``plan --at`` asks about (the middle one)."""
    recs = records(writes, order)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in recs:
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
    return int(recs[len(recs) // 2]["seq"])


def main() -> int:
    sys.path.insert(0, str(BENCH))
    from bounds import measure  # a sibling script, not a package (imported here: the tests import records)

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "replay-bench-timeline")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 16000])
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose replay runs (default: this)")
    parser.add_argument("--page-up-to", type=int, default=None,
                        help="time the page only up to this size (a quadratic page takes many minutes)")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    if out == REPO or REPO in out.parents:
        raise SystemExit(f"error: --out {out} is inside the repo")
    out.mkdir(parents=True, exist_ok=True)
    code = args.code.resolve()
    print(f"Python {sys.version.split()[0]}, replay from {code}")
    print(f"{'writes':>7}  {'seq order':<17}{'render --html s':>16}{'RSS MB':>8}{'render web s':>14}"
          f"{'plan --at s':>13}")
    for size in args.sizes:
        for order in ORDERS:
            log = out / f"timeline-{size}-{order.replace(' ', '-')}.jsonl"
            at = build(log, size, order)
            page = out / "page.html"
            if args.page_up_to is not None and size > args.page_up_to:
                html = {"seconds": float("nan"), "rss_mb": float("nan")}
            else:
                html = measure(["render", "web", "--html", "-o", str(page), str(log)], out, code)
            web = measure(["render", "web", str(log)], out, code)
            plan = measure(["plan", "--at", str(at), str(log)], out, code)
            print(f"{size:>7}  {order:<17}{html['seconds']:>16.2f}{html['rss_mb']:>8.1f}{web['seconds']:>14.2f}"
                  f"{plan['seconds']:>13.2f}", flush=True)
            page.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
