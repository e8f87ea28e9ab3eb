"""Viewer benchmark: the page for a ~200-event run, its size and how fast it opens.

    python -m citeloop.eval.bench_viewer [--loads 5] [--out bench-out/viewer.json]

Researches a multi-hop question over the embedded corpus with a budget large enough for
about 200 events (more rounds, more sources needed per sub-question), writes the run and
its `citeloop view` page, then opens the page from file:// in headless Chromium `--loads`
times, each in a fresh tab state. Per load it reads the Navigation Timing entry
(DOMContentLoaded and load event end, from navigation start), the moment the viewer's
script finished building the page (`data-ready-ms`), and the time to render every other
view (timeline, decisions, events, run facts) by switching to it. Targets (issue 7): the
page under 2 MB, open in under 2 s. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from citeloop.eval.headless import chromium, missing
from citeloop.eval.viewer import run_page
from citeloop.runtime.config import load_config
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import read_run

QUESTION = "What is the population of the county where Leland is located, and which river flows through it?"
BIG_BUDGET = {
    "budget.max_searches": 40, "budget.max_reads": 60, "budget.per_subq_searches": 12, "budget.per_subq_reads": 24,
    "budget.max_rounds": 14, "stop.min_rounds": 6, "stop.coverage_target": 1.0, "read.reads_per_search": 4,
    "read.cards_per_doc": 3, "planner.sources_needed": 4, "planner.answer_sources_needed": 4,
    "dead_end.min_angles": 8,
}
SIZE_TARGET_BYTES = 2 * 1024 * 1024
LOAD_TARGET_MS = 2000.0
RENDER_ALL = """
const t0 = performance.now();
for (const name of ['timeline', 'decisions', 'events', 'run', 'report']) showView(name);
return performance.now() - t0;
"""


def _load_once(driver, url: str) -> dict[str, float]:
    driver.get("about:blank")
    t0 = time.perf_counter()
    driver.get(url)  # returns after the load event
    wall = (time.perf_counter() - t0) * 1000
    nav = driver.execute_script("const n = performance.getEntriesByType('navigation')[0];"
                                "return [n.domContentLoadedEventEnd, n.loadEventEnd];")
    ready = float(driver.execute_script("return document.body.dataset.readyMs"))
    views = driver.execute_script(RENDER_ALL)
    return {"dom_content_loaded_ms": nav[0], "load_event_end_ms": nav[1], "viewer_ready_ms": ready,
            "render_other_views_ms": views, "driver_get_ms": wall}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=5, help="page loads to time")
    parser.add_argument("--out", type=Path, default=Path("bench-out/viewer.json"))
    args = parser.parse_args(argv)
    lacking = missing()
    if lacking:
        print(f"bench_viewer needs {', '.join(lacking)} (apt-get install chromium chromium-driver; "
              "pip install -e '.[dev]')", file=sys.stderr)
        return 2

    work = Path(tempfile.mkdtemp(prefix="citeloop-bench-viewer-"))
    kit = ResearchKit.load()
    _, run_path = run_research(QUESTION, kit, load_config(overrides=BIG_BUDGET), out_dir=work)
    assert run_path is not None
    run = read_run(run_path)
    t0 = time.perf_counter()
    page = run_page(run)
    build_ms = (time.perf_counter() - t0) * 1000
    page_path = args.out.parent / "viewer-200-events.html"
    page_path.parent.mkdir(parents=True, exist_ok=True)
    page_path.write_text(page, encoding="utf-8")
    size = page_path.stat().st_size

    with chromium() as driver:
        loads = [_load_once(driver, page_path.resolve().as_uri()) for _ in range(args.loads)]
        severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    keys = list(loads[0])
    summary = {k: {"median": round(statistics.median(x[k] for x in loads), 1),
                   "max": round(max(x[k] for x in loads), 1)} for k in keys}
    result = {
        "question": QUESTION, "events": len(run.events), "run_file_bytes": run_path.stat().st_size,
        "page": str(page_path), "page_bytes": size, "build_ms": round(build_ms, 1), "loads": args.loads,
        "timings_ms": summary, "console_errors": severe,
        "targets": {"page_bytes": SIZE_TARGET_BYTES, "load_event_end_ms": LOAD_TARGET_MS},
        "meets_targets": size < SIZE_TARGET_BYTES and summary["load_event_end_ms"]["max"] < LOAD_TARGET_MS,
    }
    print(f"run: {len(run.events)} events, run file {run_path.stat().st_size / 1024:.0f} KiB; "
          f"page {size / 1024:.0f} KiB (target < {SIZE_TARGET_BYTES / 1024:.0f} KiB), built in {build_ms:.0f} ms")
    print(f"{'headless Chromium, ' + str(args.loads) + ' loads':<34}{'median ms':>10}{'max ms':>10}")
    for k in keys:
        print(f"{k:<34}{summary[k]['median']:>10.1f}{summary[k]['max']:>10.1f}")
    print(f"targets met (< 2 MB, load < 2 s): {result['meets_targets']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"wrote {args.out} and {page_path}")
    return 0 if not severe else 1


if __name__ == "__main__":
    sys.exit(main())
