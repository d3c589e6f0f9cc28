#!/usr/bin/env python3
"""Benchmark (not a timed test) of ``replay export CORPUS -o OUT`` over the 220 MB
corpus of ``bench/audit_throughput.py`` (26 copies of the real logs of
``$REPLAY_CORPUS`` with fresh ids, and 8 long logs of ~16 MB), built or reused the way
that script builds it (the same ``--out`` folder and manifest).

Each measurement runs in a fresh process pinned to one CPU, best of ``--repeat``:

* ``replay audit --format json --jobs 1 CORPUS``;
* ``replay export CORPUS -o OUT/ --jobs 1`` (the Parquet folder) and
  ``replay export CORPUS -o OUT.duckdb --jobs 1``: their times as ratios to the
  audit's (target ≤ 1.5);
* the peak RSS of the largest process of each (target < 200 MB);
* the size of the Parquet folder and of the database.

    python3 bench/export.py [--repeat 3] [--out DIR] [--events] [--json]

Exit status: 0 every target passes, 1 a target fails, 2 setup error.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import audit_throughput as corpus  # noqa: E402  (the corpus's builder and the measuring harness)

MB = corpus.MB
TARGET_RATIO = 1.5
TARGET_RSS_MB = 200.0


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = corpus.corpus_parser("Benchmark replay export on the 220 MB benchmark corpus.")
    parser.add_argument("--events", action="store_true", help="export the events table too")
    args = parser.parse_args(argv)

    out, manifest = corpus.prepared_corpus(parser, args)
    corpus_dir = out / "corpus"
    folder, database = out / "export", out / "export.duckdb"
    cpu = args.cpu if args.cpu is not None else (min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                                 else None)
    events = ["--events"] if args.events else []
    commands = {
        "audit --jobs 1": [sys.executable, "-m", "replay", "audit", "--no-cache", "--format", "json", "--jobs", "1",
                           str(corpus_dir)],
        "export parquet": [sys.executable, "-m", "replay", "export", str(corpus_dir), "-o", str(folder), "--jobs", "1",
                           *events],
        "export duckdb": [sys.executable, "-m", "replay", "export", str(corpus_dir), "-o", str(database), "--jobs",
                          "1", *events],
    }
    print(f"corpus: {corpus_dir}: {manifest['files']} files, {manifest['bytes'] / MB:.1f} MB", flush=True)
    runs: dict[str, list[Any]] = {name: [] for name in commands}
    for i in range(args.repeat):
        for name, cmd in commands.items():
            if name == "export parquet" and folder.exists():
                shutil.rmtree(folder)
            if name == "export duckdb" and database.exists():
                database.unlink()
            runs[name].append(corpus.measure(cmd, cpu))
        print(f"  run {i + 1}/{args.repeat}: " + ", ".join(f"{name} {r[-1].seconds:.2f} s" for name, r in runs.items()),
              flush=True)
    for name, measured in runs.items():
        if measured[-1].exit_code not in (0, 1):
            print(f"error: {name} exited {measured[-1].exit_code}", file=sys.stderr)
            return 2
    best = {name: min(r.seconds for r in measured) for name, measured in runs.items()}
    cpu_best = {name: min(r.cpu_seconds for r in measured) for name, measured in runs.items()}
    rss = {name: max(r.rss_bytes for r in measured) / MB for name, measured in runs.items()}
    ratios = {name: best[name] / best["audit --jobs 1"] for name in commands if name != "audit --jobs 1"}
    cpu_ratios = {name: cpu_best[name] / cpu_best["audit --jobs 1"] for name in ratios}
    results: dict[str, Any] = {
        "corpus": {"path": str(corpus_dir), "files": manifest["files"], "bytes": manifest["bytes"]},
        "seconds": {k: round(v, 3) for k, v in best.items()}, "ratio": {k: round(v, 3) for k, v in ratios.items()},
        "cpu_seconds": {k: round(v, 3) for k, v in cpu_best.items()},
        "cpu_ratio": {k: round(v, 3) for k, v in cpu_ratios.items()},
        "peak_rss_mb": {k: round(v, 1) for k, v in rss.items()},
        "parquet_bytes": _size(folder), "duckdb_bytes": _size(database),
        "tables": {p.stem: p.stat().st_size for p in sorted(folder.glob("*.parquet"))},
        "load_average": os.getloadavg()[0],
    }
    checks = [(f"{name} {ratio:.2f} × the audit's time (target ≤ {TARGET_RATIO})", ratio <= TARGET_RATIO)
              for name, ratio in ratios.items()]
    checks.append((f"peak RSS per process {max(rss.values()):.1f} MB (target < {TARGET_RSS_MB:.0f} MB)",
                   max(rss.values()) < TARGET_RSS_MB))
    print()
    print(f"{'':16}{'seconds':>9}{'CPU seconds':>13}{'peak RSS MB':>13}")
    for name in runs:
        print(f"{name:16}{best[name]:>9.2f}{cpu_best[name]:>13.2f}{rss[name]:>13.1f}")
    for name in ratios:
        print(f"{name}: {ratios[name]:.2f} × the audit (wall), {cpu_ratios[name]:.2f} × (CPU)")
    print(f"Parquet folder: {results['parquet_bytes'] / MB:.1f} MB ("
          + ", ".join(f"{t} {b / MB:.2f}" for t, b in results["tables"].items())
          + f"); DuckDB database: {results['duckdb_bytes'] / MB:.1f} MB")
    print(f"(best of {args.repeat}; MB = 10**6 bytes; pinned to CPU {cpu}; load average now "
          f"{os.getloadavg()[0]:.2f})")
    for what, ok in checks:
        print(f"{what}: {'PASS' if ok else 'FAIL'}")
    if args.json:
        import json

        print(json.dumps(results))
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
