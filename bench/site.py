#!/usr/bin/env python3
"""Benchmark (not a timed test) of the session browser: ``replay view CORPUS -o SITE``
over the 220 MB corpus of ``bench/audit_throughput.py`` (8,198 logs: 26 copies of the
real logs of ``$REPLAY_CORPUS`` with fresh ids, and 8 long logs of ~16 MB), built or
reused the way that script builds it (the same ``--out`` folder and manifest).

Each measurement runs in a fresh process, best of ``--repeat``:

* ``replay audit --format json --jobs 1 CORPUS`` and ``replay view CORPUS -o SITE
  --jobs 1``, both pinned to one CPU: the build time as a ratio to the audit's
  (target ≤ 2.0);
* the peak RSS of the largest process of each (target < 150 MB);
* the size of ``index.html`` and of the largest page of the site;
* the time Debian's Chromium takes to load the index from ``file://`` and to paint it
  first (Playwright, the navigation's ``loadEventEnd`` and the ``first-paint`` entry,
  best of ``--repeat``; target < 2 s).

    python3 bench/site.py [--repeat 3] [--out DIR] [--no-browser] [--json]

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
TARGET_RATIO = 2.0
TARGET_RSS_MB = 150.0
TARGET_PAINT_S = 2.0
CHROMIUM = Path("/usr/bin/chromium")


def paint_seconds(index: Path, repeat: int) -> dict[str, float]:
    """Chromium's load and first paint of the index, in seconds (best of ``repeat``)."""
    from playwright.sync_api import sync_playwright

    best: dict[str, float] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(repeat):
                context = browser.new_context(viewport={"width": 1280, "height": 900}, offline=True)
                page = context.new_page()
                page.goto(index.as_uri(), wait_until="load")
                timing: dict[str, float] = page.evaluate("""() => {
                    const nav = performance.getEntriesByType("navigation")[0];
                    const paint = performance.getEntriesByName("first-paint")[0];
                    const contentful = performance.getEntriesByName("first-contentful-paint")[0];
                    return {load: nav.loadEventEnd, paint: paint ? paint.startTime : -1,
                            contentful: contentful ? contentful.startTime : -1,
                            rows: document.querySelectorAll("#sessions tbody tr").length};
                }""")
                context.close()
                for key, value in timing.items():
                    seconds = value / 1000 if key != "rows" else value
                    best[key] = min(best.get(key, seconds), seconds)
        finally:
            browser.close()
    return best


def main(argv: list[str] | None = None) -> int:
    parser = corpus.corpus_parser("Benchmark replay view -o SITE on the 220 MB benchmark corpus.")
    parser.add_argument("--no-browser", action="store_true", help="do not measure Chromium's load of the index")
    args = parser.parse_args(argv)

    out, manifest = corpus.prepared_corpus(parser, args)
    corpus_dir = out / "corpus"
    site = out / "site"
    cpu = args.cpu if args.cpu is not None else (min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                                 else None)
    audit = [sys.executable, "-m", "replay", "audit", "--no-cache", "--format", "json", "--jobs", "1", str(corpus_dir)]
    view = [sys.executable, "-m", "replay", "view", "--no-cache", str(corpus_dir), "-o", str(site), "--jobs", "1"]
    print(f"corpus: {corpus_dir}: {manifest['files']} files, {manifest['bytes'] / MB:.1f} MB", flush=True)
    runs: dict[str, list[Any]] = {"audit --jobs 1": [], "view --jobs 1": []}
    for i in range(args.repeat):
        runs["audit --jobs 1"].append(corpus.measure(audit, cpu))
        if site.exists():
            shutil.rmtree(site)
        runs["view --jobs 1"].append(corpus.measure(view, cpu))
        print(f"  run {i + 1}/{args.repeat}: " + ", ".join(f"{name} {r[-1].seconds:.2f} s" for name, r in runs.items()),
              flush=True)
    for name, measured in runs.items():
        if measured[-1].exit_code not in (0, 1):
            print(f"error: {name} exited {measured[-1].exit_code}", file=sys.stderr)
            return 2
    best = {name: min(r.seconds for r in measured) for name, measured in runs.items()}
    cpu_best = {name: min(r.cpu_seconds for r in measured) for name, measured in runs.items()}
    cpu_ratio = cpu_best["view --jobs 1"] / cpu_best["audit --jobs 1"]
    rss = {name: max(r.rss_bytes for r in measured) / MB for name, measured in runs.items()}
    ratio = best["view --jobs 1"] / best["audit --jobs 1"]
    pages = [p for p in (site / "sessions").rglob("*.html")]
    largest = max(pages, key=lambda p: p.stat().st_size)
    index = site / "index.html"
    results: dict[str, Any] = {
        "corpus": {"path": str(corpus_dir), "files": manifest["files"], "bytes": manifest["bytes"]},
        "seconds": {k: round(v, 3) for k, v in best.items()}, "ratio": round(ratio, 3),
        "cpu_seconds": {k: round(v, 3) for k, v in cpu_best.items()}, "cpu_ratio": round(cpu_ratio, 3),
        "peak_rss_mb": {k: round(v, 1) for k, v in rss.items()},
        "pages": len(pages), "site_bytes": sum(p.stat().st_size for p in site.rglob("*") if p.is_file()),
        "index_bytes": index.stat().st_size, "largest_page": str(largest.relative_to(site)),
        "largest_page_bytes": largest.stat().st_size,
    }
    checks = [(f"build time {ratio:.2f} × the audit's (target ≤ {TARGET_RATIO})", ratio <= TARGET_RATIO),
              (f"peak RSS per process {max(rss.values()):.1f} MB (target < {TARGET_RSS_MB:.0f} MB)",
               max(rss.values()) < TARGET_RSS_MB)]
    if not args.no_browser:
        timing = paint_seconds(index, args.repeat)
        results["chromium"] = timing
        slowest = max(timing["load"], timing["paint"])
        checks.append((f"Chromium loads the index in {timing['load']:.2f} s and paints it first at "
                       f"{timing['paint']:.2f} s, {int(timing['rows'])} rows shown (target < {TARGET_PAINT_S} s)",
                       slowest < TARGET_PAINT_S))
    print()
    print(f"{'':16}{'seconds':>9}{'CPU seconds':>13}{'peak RSS MB':>13}")
    for name in runs:
        print(f"{name:16}{best[name]:>9.2f}{cpu_best[name]:>13.2f}{rss[name]:>13.1f}")
    print(f"ratio: {ratio:.2f} (wall), {cpu_ratio:.2f} (CPU)")
    print(f"site: {len(pages)} session pages, {results['site_bytes'] / MB:.1f} MB; index.html "
          f"{results['index_bytes'] / MB:.2f} MB; largest page {results['largest_page_bytes'] / MB:.2f} MB "
          f"({results['largest_page']})")
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
