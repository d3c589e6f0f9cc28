#!/usr/bin/env python3
"""Byte-identity of ``replay audit``'s outputs between two checkouts of replay.

Runs ``replay audit --no-cache --format F --jobs J PATH...`` for every output format (text, json,
sarif, github; the text run also writes ``--junit FILE``) and every ``--jobs`` value (default 1 and
2) once with each checkout first on ``PYTHONPATH``, and compares stdout, stderr, the exit status
and the JUnit file. A change that speeds the audit up
must leave every one of them byte-identical to the checkout before it::

    git worktree add ../before main
    python3 bench/audit_identity.py --before ../before --after . "$REPLAY_CORPUS"

Exit status: 0 every output is identical, 1 one differs, 2 setup error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

FORMATS = ("text", "json", "sarif", "github")


def run(code: Path, fmt: str, jobs: int, paths: list[str]) -> tuple[int, bytes, bytes, bytes]:
    env = dict(os.environ, PYTHONPATH=str(code.resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        extra = ["--junit", str(junit)] if fmt == "text" else []
        cmd = [sys.executable, "-m", "replay", "audit", "--no-cache", "--format", fmt, "--jobs", str(jobs),
               *extra, *paths]
        done = subprocess.run(cmd, env=env, capture_output=True, check=False)
        xml = junit.read_bytes() if junit.is_file() else b""
    return done.returncode, done.stdout, done.stderr, xml


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout before the change")
    parser.add_argument("--after", type=Path, required=True, help="the checkout with the change")
    parser.add_argument("--jobs", type=lambda v: [int(x) for x in v.split(",")], default=[1, 2],
                        help="comma-separated --jobs values (default: 1,2)")
    parser.add_argument("paths", nargs="+", help="the logs or folders to audit")
    args = parser.parse_args()
    for code in (args.before, args.after):
        if not (code / "replay" / "__init__.py").is_file():
            print(f"not a checkout of replay: {code}", file=sys.stderr)
            return 2
    differ = 0
    for fmt in FORMATS:
        for jobs in args.jobs:
            before = run(args.before, fmt, jobs, args.paths)
            after = run(args.after, fmt, jobs, args.paths)
            same = before == after
            differ += not same
            sizes = f"{len(before[1]) + len(before[3]):,} / {len(after[1]) + len(after[3]):,} bytes"
            print(f"{fmt:7} --jobs {jobs}: {'identical' if same else 'DIFFERS'} "
                  f"(exit {before[0]} / {after[0]}, {sizes})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
