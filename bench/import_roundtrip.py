"""Benchmark (not a timed test): import and keyless refresh of every derivable scenario
of the shared ACP corpora, and the round trip that proves it.

Each run, in a fresh process pinned to one core, imports every scenario of
``acp-2026-07-23`` and ``acp-2026-06-29`` that conformance calls derivable (with
``--force`` where the audit finds errors, as ``replay new --from-log --force``
would), refreshes them all keylessly (``replay refresh``), and times those two
steps together. It then checks the round trip: the ACP streams rendered from
each re-persisted ``session.expected.jsonl`` (live and ``session/load``) must equal
the harness's goldens, compared as ``replay conformance`` compares the recordings.
Reports the count and the best and median of --repeat runs.

    python3 bench/import_roundtrip.py [--repeat 5] [--corpus ../shared/corpus]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
ROOTS = ("acp-2026-07-23", "acp-2026-06-29")

def one_run(corpus: Path, work: Path) -> dict[str, Any]:
    """Import and refresh every derivable scenario into ``work``; time those two steps."""
    from replay.log.harness import find_harness_scenarios
    from replay.scenarios.check import refresh_scenarios
    from replay.scenarios.conformance import check_conformance, corpus_profile, round_trip
    from replay.scenarios.importer import ImportRefused, import_log

    scenarios, goldens = work / "scenarios", work / "goldens"
    found = [s for root in ROOTS for s in find_harness_scenarios([corpus / root])
             if s.has_golden and check_conformance(s, keyless=False).status != "not derivable"]
    profiles = {root: corpus_profile(find_harness_scenarios([corpus / root])) for root in ROOTS}
    names = [f"{s.folder.parent.name}-{s.name}" for s in found]
    start = time.perf_counter()
    forced = 0
    for s, name in zip(found, names, strict=True):
        try:
            import_log(scenarios, name, s.folder)
        except ImportRefused:
            import_log(scenarios, name, s.folder, force=True)
            forced += 1
    refreshed = refresh_scenarios(scenarios, goldens)
    elapsed = time.perf_counter() - start
    exact = sum(1 for s, name in zip(found, names, strict=True)
                if round_trip(s, goldens / name / "session.expected.jsonl", profiles[s.folder.parent.name]).status
                == "exact")
    return {"scenarios": len(found), "forced": forced, "failed": refreshed.failed, "exact": exact,
            "seconds": elapsed}


def _pin() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _run(corpus: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="replay-import-bench-") as work:
        proc = subprocess.run([sys.executable, __file__, "--one-run", str(corpus), work], cwd=REPO,
                              capture_output=True, text=True, preexec_fn=_pin)
    if proc.returncode != 0:
        raise SystemExit(f"the run failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def main() -> int:
    if sys.argv[1:2] == ["--one-run"]:
        print(json.dumps(one_run(Path(sys.argv[2]), Path(sys.argv[3]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=Path(os.environ.get("REPLAY_CORPUS", REPO.parent / "shared" /
                                                                           "corpus")))
    args = parser.parse_args()
    runs = [_run(args.corpus) for _ in range(args.repeat)]
    first = runs[0]
    seconds = [r["seconds"] for r in runs]
    print(f"import + keyless refresh of {first['scenarios']:.0f} derivable scenarios ({', '.join(ROOTS)}; "
          f"{first['forced']:.0f} imported with --force), {args.repeat} runs, one core, Python "
          f"{sys.version.split()[0]}")
    print(f"  import + refresh: best {min(seconds):.2f} s, median {statistics.median(seconds):.2f} s")
    print(f"  round trip: {first['exact']:.0f}/{first['scenarios']:.0f} byte-exact")
    return 0 if all(not r["failed"] and r["exact"] == r["scenarios"] for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
