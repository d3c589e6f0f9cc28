#!/usr/bin/env python3
"""The audit cache's benchmark: ``replay audit`` over the 220 MB corpus of
``bench/audit_throughput.py`` (built there, or reused), on one CPU, cold, warm and
after appends.

A working copy of the corpus is made beside it (its logs are appended to), and each
run is a fresh child process pinned to one CPU (best of ``--repeat``):

* ``--no-cache``: the reference report;
* cold: the cache folder removed before each run;
* warm: nothing changed since the last run (answered from the cache's run record);
* warm, no record: the same with the run records removed first (the audit looks every
  log up in the shards, walks the folders and writes the report);
* appended: before each run, one more record appended to 1 % of the logs (a copy of
  each one's last record), which are audited again;
* added (no target): before each run, 1 % as many new sessions, each a folder of its
  own holding a copy of a small log, as a day of a harness adds them;
* ``--verify-cache``: every cached log read and digested again.

It checks that every report is the ``--no-cache`` one byte for byte but for the JSON
summary's ``cached`` count (the appended ones against a ``--no-cache`` run after the
last appends), and the targets: warm ≤ 5 % of cold, appended ≤ 10 %, verify ≤ 1.2 ×,
peak RSS < 150 MB. It prints seconds, CPU seconds, peak RSS, the ratios and the load
average at the start and the end.

Exit status: 0 every target passes, 1 a target fails, 2 setup error.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import audit_throughput as corpus  # the corpus's builder and the measuring harness

MB = corpus.MB
TARGET_WARM = 0.05
TARGET_APPENDED = 0.10
TARGET_VERIFY = 1.2
TARGET_RSS_MB = 150.0
APPENDED_SHARE = 0.01


def uncounted(body: bytes) -> bytes:
    """A JSON report without the cache's count."""
    doc = orjson.loads(body)
    doc["summary"].pop("cached", None)
    return orjson.dumps(doc)


def cached(body: bytes) -> int:
    return int(orjson.loads(body)["summary"].get("cached", 0))


def append_to(logs: list[Path]) -> None:
    """One more record on each log: a copy of its last complete one."""
    for path in logs:
        data = path.read_bytes()
        end = data.rstrip(b"\n").rfind(b"\n")
        last = data[end + 1:].rstrip(b"\n") + b"\n"
        with path.open("ab") as fh:
            fh.write(last if data.endswith(b"\n") else b"\n" + last)


def add_sessions(folder: Path, logs: list[Path]) -> None:
    """A new session for each of ``logs``: a folder of its own below ``folder`` with a copy."""
    for i, log in enumerate(logs):
        target = folder / f"session-{i:04d}" / "session.jsonl"
        target.parent.mkdir(parents=True)
        shutil.copyfile(log, target)


def main(argv: list[str] | None = None) -> int:
    parser = corpus.corpus_parser("Benchmark the audit cache on the 220 MB benchmark corpus.")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()
    out, manifest = corpus.prepared_corpus(parser, args)
    work, cache = out / "cache-work", out / "cache"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(out / "corpus", work)
    cpu = args.cpu if args.cpu is not None else (min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                                 else None)
    base = [sys.executable, "-m", "replay", "audit", "--format", "json", "--jobs", "1"]
    with_cache = [*base, "--cache-dir", str(cache), str(work)]
    print(f"corpus: {work}: {manifest['files']} files, {manifest['bytes'] / MB:.1f} MB", flush=True)

    reference = corpus.measure([*base, "--no-cache", str(work)], cpu)
    if reference.exit_code not in (0, 1):
        print(f"error: the audit exited {reference.exit_code}", file=sys.stderr)
        return 2
    files = [Path(f["path"]) for f in orjson.loads(reference.stdout)["files"]]
    runs: dict[str, list[Any]] = {"no cache": [reference], "cold": [], "warm": [], "no record": [], "appended": [],
                                  "added": [], "verify": []}
    same: dict[str, bool] = {}
    for i in range(args.repeat):
        if cache.exists():
            shutil.rmtree(cache)
        runs["cold"].append(corpus.measure(with_cache, cpu))
        runs["warm"].append(corpus.measure(with_cache, cpu))
        for record in cache.glob("*/run-*"):
            record.unlink()
        runs["no record"].append(corpus.measure(with_cache, cpu))
        if i < args.repeat - 1:
            runs["no cache"].append(corpus.measure([*base, "--no-cache", str(work)], cpu))
        print(f"  run {i + 1}/{args.repeat}: " + ", ".join(f"{name} {r[-1].seconds:.2f} s" for name, r in
                                                            runs.items() if r), flush=True)
    same["cold"] = all(r.stdout == reference.stdout for r in runs["cold"])
    same["warm"] = all(uncounted(r.stdout) == uncounted(reference.stdout) for r in runs["warm"])
    same["no record"] = all(r.stdout == runs["warm"][0].stdout for r in runs["warm"] + runs["no record"])
    warm_count = cached(runs["warm"][-1].stdout)
    for _ in range(args.repeat):
        runs["verify"].append(corpus.measure([*with_cache[:-1], "--verify-cache", str(work)], cpu))
    same["verify"] = all(uncounted(r.stdout) == uncounted(reference.stdout) for r in runs["verify"])
    step = max(1, round(1 / APPENDED_SHARE))
    grown = files[::step]
    grown_bytes = sum(path.stat().st_size for path in grown)
    for _ in range(args.repeat):
        append_to(grown)
        runs["appended"].append(corpus.measure(with_cache, cpu))
    after = corpus.measure([*base, "--no-cache", str(work)], cpu)
    same["appended"] = uncounted(runs["appended"][-1].stdout) == uncounted(after.stdout)
    appended_count = cached(runs["appended"][-1].stdout)
    small = [path for path in files if path.stat().st_size < MB][:len(grown)]
    for i in range(args.repeat):
        add_sessions(work / f"added-{i}", small)
        runs["added"].append(corpus.measure(with_cache, cpu))
    added = corpus.measure([*base, "--no-cache", str(work)], cpu)
    same["added"] = uncounted(runs["added"][-1].stdout) == uncounted(added.stdout)
    load_after = os.getloadavg()

    best = {name: min(r.seconds for r in measured) for name, measured in runs.items()}
    cpu_best = {name: min(r.cpu_seconds for r in measured) for name, measured in runs.items()}
    rss = {name: max(r.rss_bytes for r in measured) / MB for name, measured in runs.items()}
    compared = ("no cache", "warm", "no record", "appended", "added", "verify")
    ratio = {name: best[name] / best["cold"] for name in compared}
    cpu_ratio = {name: cpu_best[name] / cpu_best["cold"] for name in compared}
    shard_bytes = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    results: dict[str, Any] = {
        "corpus": {"path": str(work), "files": manifest["files"], "bytes": manifest["bytes"], "logs": len(files),
                   "appended_to": len(grown), "appended_bytes": grown_bytes},
        "seconds": {k: round(v, 3) for k, v in best.items()},
        "cpu_seconds": {k: round(v, 3) for k, v in cpu_best.items()},
        "ratio_to_cold": {k: round(v, 4) for k, v in ratio.items()},
        "cpu_ratio_to_cold": {k: round(v, 4) for k, v in cpu_ratio.items()},
        "peak_rss_mb": {k: round(v, 1) for k, v in rss.items()},
        "cached": {"warm": warm_count, "appended": appended_count}, "cache_bytes": shard_bytes,
        "identical": same, "load_average": {"before": load_before, "after": load_after},
    }
    checks = [
        (f"warm, nothing changed: {ratio['warm']:.3f} × cold (target ≤ {TARGET_WARM})", ratio["warm"] <= TARGET_WARM),
        (f"{len(grown)} logs ({APPENDED_SHARE:.0%}, {grown_bytes / manifest['bytes']:.1%} of the bytes) appended to: "
         f"{ratio['appended']:.3f} × cold (target ≤ {TARGET_APPENDED})", ratio["appended"] <= TARGET_APPENDED),
        (f"--verify-cache: {ratio['verify']:.2f} × cold (target ≤ {TARGET_VERIFY})", ratio["verify"] <= TARGET_VERIFY),
        (f"peak RSS {max(rss.values()):.1f} MB (target < {TARGET_RSS_MB:.0f} MB)", max(rss.values()) < TARGET_RSS_MB),
        (f"every report the --no-cache one ({', '.join(k for k, v in same.items() if v)}), and "
         f"{warm_count} of {len(files)} logs from the cache when warm, {appended_count} after appends",
         all(same.values()) and warm_count == len(files) and appended_count == len(files) - len(grown)),
    ]
    print()
    print(f"{'':12}{'seconds':>9}{'CPU seconds':>13}{'× cold':>8}{'× cold CPU':>12}{'peak RSS MB':>13}")
    for name in runs:
        shown = f"{best[name] / best['cold']:>8.3f}{cpu_best[name] / cpu_best['cold']:>12.3f}"
        print(f"{name:12}{best[name]:>9.2f}{cpu_best[name]:>13.2f}{shown}{rss[name]:>13.1f}")
    print(f"cache: {shard_bytes / MB:.1f} MB; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    for text, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {text}")
    if args.json:
        print(orjson.dumps(results).decode())
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
