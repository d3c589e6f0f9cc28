#!/usr/bin/env python3
"""Benchmark (not a timed test): every reader of a log, this checkout against another.

Runs ``render acp``, ``render stdio``, ``render web``, ``plan`` and ``view`` of the 50 MB
clean log ``bench/bounds.py`` builds (``long-50mb.jsonl`` in ``--out``, built there when
absent) and ``conformance`` of the two editor-projection corpora (``acp-2026-07-23``,
``acp-2026-06-29``), each command with this checkout's ``replay`` and with the one of
``--code`` (an export of the older tree), in fresh processes pinned to one core, the two
alternating round by round so that both see the same load. Prints, for each command,
the median seconds of each over ``--repeat`` rounds and their ratio (before / after:
above 1 is faster now); the figure to compare across machines is the ratio, not the
seconds. It checks that both write the same bytes (their standard output; a page's
file for ``view``).

    python3 bench/readers_speed.py --code DIR [--repeat 5] [--out DIR] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import audit_throughput as at
import bounds

MB = 1_000_000


def _pin() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def run(code: Path, args: list[str], out_dir: Path) -> tuple[float, str]:
    """``replay ARGS`` of the checkout ``code`` in a fresh process: its wall time and a
    digest of what it wrote."""
    env = {**os.environ, "TMPDIR": str(out_dir), "NO_COLOR": "1", "PYTHONPATH": str(code)}
    with tempfile.TemporaryFile(dir=out_dir) as out:
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "replay", *args], stdout=out, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, env=env, cwd=code, preexec_fn=_pin, check=False)
        seconds = time.perf_counter() - started
        if proc.returncode not in (0, 1):
            raise SystemExit(f"error: replay {' '.join(args)} ({code}) exited {proc.returncode}: "
                             f"{proc.stderr.decode(errors='replace')[-2000:]}")
        out.seek(0)
        written = out.read()
    if args[0] == "view":  # the page's path is printed: the page is the output
        page = Path(written.decode().strip())
        written = page.read_bytes()
        page.unlink()
    return seconds, hashlib.sha256(written).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", type=Path, required=True, help="the other checkout (the tree before a change)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "replay-bench-bounds")
    parser.add_argument("--corpus", type=Path, default=at.default_corpus())
    args = parser.parse_args()
    out: Path = args.out.resolve()
    if out == at.REPO_ROOT or at.REPO_ROOT in out.parents:
        raise SystemExit(f"error: --out {out} is inside the repo")
    out.mkdir(parents=True, exist_ok=True)
    log = out / "long-50mb.jsonl"
    if not log.exists():
        bounds.build_long(args.corpus, log, 50 * MB)
    corpora = [str((args.corpus / name).resolve()) for name in ("acp-2026-07-23", "acp-2026-06-29")]
    commands = {
        "render acp (50 MB log)": ["render", "acp", str(log)],
        "render stdio (50 MB log)": ["render", "stdio", str(log)],
        "render web (50 MB log)": ["render", "web", str(log)],
        "plan (50 MB log)": ["plan", str(log)],
        "view (50 MB log)": ["view", str(log)],
        "conformance acp-2026-07-23 + 06-29": ["conformance", *corpora],
    }
    after, before = at.REPO_ROOT, args.code.resolve()
    print(f"Python {sys.version.split()[0]}, CPU {at.cpu_model()}; after: {after}; before: {before}; "
          f"median of {args.repeat}, one core")
    print(f"{'command':38}{'before s':>10}{'after s':>10}{'before/after':>14}")
    failed = False
    for label, argv in commands.items():
        times: dict[Path, list[float]] = {before: [], after: []}
        digests: set[str] = set()
        for _ in range(args.repeat):
            for code in (before, after):
                seconds, digest = run(code, argv, out)
                times[code].append(seconds)
                digests.add(digest)
        b, a = statistics.median(times[before]), statistics.median(times[after])
        same = "" if len(digests) == 1 else "  OUTPUTS DIFFER"
        failed |= bool(same)
        print(f"{label:38}{b:>10.2f}{a:>10.2f}{b / a:>13.2f}×{same}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
