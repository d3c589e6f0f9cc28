"""Benchmark (not a timed test): wall time of `replay conformance` on the shared corpora.

Runs the real command in fresh processes, pinned to one core when possible, on the
two runs docs/performance.md reports — the editor-projection corpora (``acp-2026-07-23`` and
``acp-2026-06-29`` together) and today's agent
(``sessions-2026-08-20/examples_acp-agent_tests_snapshots``) — and reports the best
and median of --repeat runs and each run's score line. ``--repo`` times another
checkout of the project (for a before/after comparison: run it on an export of the
older tree), with this interpreter.

    python3 bench/conformance_speed.py [--repeat 7] [--corpus ../shared/corpus] [--repo PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNS = {
    "acp-2026-07-23 + acp-2026-06-29": ("acp-2026-07-23", "acp-2026-06-29"),
    "sessions-2026-08-20 acp-agent": ("sessions-2026-08-20/examples_acp-agent_tests_snapshots",),
}


def _pin() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _time(repo: Path, args: list[str]) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "replay", *args], cwd=repo, env=env, capture_output=True, text=True,
                          preexec_fn=_pin)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"replay {' '.join(args)} failed: {proc.stderr}")
    lines = proc.stdout.splitlines()
    return elapsed, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--corpus", type=Path, default=Path(os.environ.get("REPLAY_CORPUS", REPO.parent / "shared" /
                                                                           "corpus")))
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to time (default: this one)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    print(f"replay conformance ({repo}), {args.repeat} runs each, one core, Python {sys.version.split()[0]}")
    for label, roots in RUNS.items():
        paths = [str((args.corpus / r).resolve()) for r in roots]
        if not all(Path(p).is_dir() for p in paths):
            print(f"  {label}: corpus absent under {args.corpus}, skipped")
            continue
        results = [_time(repo, ["conformance", *paths]) for _ in range(args.repeat)]
        seconds = [s for s, _ in results]
        print(f"  {label}: best {min(seconds):.2f} s, median {statistics.median(seconds):.2f} s")
        print(f"    {results[-1][1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
