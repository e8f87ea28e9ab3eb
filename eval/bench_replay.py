"""Replay benchmark: how long `replay --check` takes against the run it checks.

    python -m citeloop.eval.bench_replay [--data DIR] [--limit 50] [--out bench-out/replay.json]

For each HotpotQA question it runs the research (heuristic, default config, file sink),
then replays the file exactly (load the file, rebuild the components from the header,
re-run on the recorded tool responses, compare every deterministic line), and reports the
median and total of both and their ratio, plus how many replays matched. The replay reads
no corpus and makes no tool call, so the ratio says what re-execution costs beyond the
tools. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from citeloop.eval.datasets import BUILTIN_DATA_DIR
from citeloop.eval.gold import load_hotpotqa
from citeloop.runtime.replay import check_run
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import read_run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=BUILTIN_DATA_DIR)
    parser.add_argument("--limit", type=int, default=50, help="questions from HotpotQA-100")
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--out", type=Path, default=Path("bench-out/replay.json"))
    args = parser.parse_args(argv)

    kit = ResearchKit.load()
    questions = load_hotpotqa(args.data / "multihop" / "hotpotqa_100.json", kit.corpus)[: args.limit]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for q in questions:
            t0 = time.perf_counter()
            _, path = run_research(q.question, kit, policy_spec=args.policy, out_dir=Path(tmp))
            run_s = time.perf_counter() - t0
            assert path is not None
            t0 = time.perf_counter()
            check = check_run(read_run(path))
            check_s = time.perf_counter() - t0
            rows.append({"qid": q.qid, "events": check.events_recorded, "run_ms": round(run_s * 1000, 2),
                         "check_ms": round(check_s * 1000, 2), "ok": check.ok,
                         "divergence": check.divergence.reason if check.divergence else None})
    run_total = sum(r["run_ms"] for r in rows)
    check_total = sum(r["check_ms"] for r in rows)
    summary = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "policy": args.policy,
        "questions": len(rows),
        "identical": sum(r["ok"] for r in rows),
        "events_per_run": round(statistics.mean(r["events"] for r in rows), 1),
        "run_median_ms": round(statistics.median(r["run_ms"] for r in rows), 2),
        "check_median_ms": round(statistics.median(r["check_ms"] for r in rows), 2),
        "run_total_s": round(run_total / 1000, 3),
        "check_total_s": round(check_total / 1000, 3),
        "ratio": round(check_total / run_total, 3),
        "per_question": rows,
    }
    header = f"{'questions':>10}{'identical':>10}{'events/run':>11}{'run med ms':>11}{'check med ms':>13}" \
             f"{'run total s':>12}{'check total s':>14}{'ratio':>7}"
    print(header)
    print("-" * len(header))
    print(f"{summary['questions']:>10}{summary['identical']:>10}{summary['events_per_run']:>11}"
          f"{summary['run_median_ms']:>11.1f}{summary['check_median_ms']:>13.1f}{summary['run_total_s']:>12.3f}"
          f"{summary['check_total_s']:>14.3f}{summary['ratio']:>7.3f}")
    for r in rows:
        if not r["ok"]:
            print(f"diverged: {r['qid']}: {r['divergence']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
