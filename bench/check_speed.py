"""Benchmark (not a timed test): wall time of `replay check` over every scenario.

Runs the real command in fresh processes, pinned to one core when possible, and
reports the best and median of --repeat runs, plus the split between interpreter
start-up (`replay --version`) and the check itself. Target: under 2 s on the
project's 2-core machine.

    python3 bench/check_speed.py [--repeat 7]
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
TARGET_SECONDS = 2.0


def _pin() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _time(args: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "replay", *args], cwd=REPO, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, preexec_fn=_pin)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"replay {' '.join(args)} failed: {proc.stderr.decode()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    scenarios = sorted(p.parent.name for p in (REPO / "scenarios").glob("*/scenario.json"))
    startup = [_time(["--version"]) for _ in range(args.repeat)]
    check = [_time(["check"]) for _ in range(args.repeat)]
    print(f"replay check over {len(scenarios)} scenarios, {args.repeat} runs, one core, Python "
          f"{sys.version.split()[0]}")
    print(f"  start-up (replay --version): best {min(startup):.3f} s, median {statistics.median(startup):.3f} s")
    print(f"  replay check:                best {min(check):.3f} s, median {statistics.median(check):.3f} s")
    verdict = "PASS" if statistics.median(check) < TARGET_SECONDS else "FAIL"
    print(f"  target: median under {TARGET_SECONDS:.1f} s: {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
