"""Runtime benchmark: `heuristic` against `naive` on the same questions and budget, in one run.

    python -m citeloop.eval.bench_runtime [--data DIR] [--limit N] [--out bench-out/runtime.json]

For each data set (HotpotQA-100 sentence-level gold, MuSiQue-100 paragraph-level gold)
and each policy it reports gold recall of what was retrieved (read), carded and cited,
cited-evidence precision, searches and reads per question, the median and p90 run time
after the index is built, and runs per second. It then measures trajectory capture: the
same batch with a file sink against a null sink, as a ratio. Peak RSS is reported for the
whole process. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from citeloop.eval.datasets import BUILTIN_DATA_DIR
from citeloop.eval.gold import GoldQuestion, load_hotpotqa, load_musique, precision, recall, run_units
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import MemorySink, NullSink

# name -> (planner, policy spec). `naive` is seed 003's loop: no plan, naive decisions.
# `naive-policies` keeps citeloop's plan and engine but decides naively: it shows how much
# of the difference comes from decomposition and how much from the decision policies.
POLICIES: dict[str, tuple[str, str]] = {
    "heuristic": ("rule", "heuristic"),
    "naive": ("naive", "naive"),
    "naive-policies": ("rule", "naive"),
}


def _mean(values: list[float | None]) -> float | None:
    real = [v for v in values if v is not None]
    return round(sum(real) / len(real), 4) if real else None


def evaluate(questions: list[GoldQuestion], kit: ResearchKit, name: str, config: ResearchConfig) -> dict:
    planner, policy = POLICIES[name]
    rows, times = [], []
    for q in questions:
        sink = MemorySink()
        t0 = time.perf_counter()
        result, _ = run_research(q.question, kit, config, policy_spec=policy, sink=sink, out_dir=None,
                                 planner=planner)
        times.append(time.perf_counter() - t0)
        units = run_units(sink.events, q.level)
        rows.append({
            "qid": q.qid,
            "retrieved_recall": recall(units.retrieved, q.gold),
            "carded_recall": recall(units.carded, q.gold),
            "cited_recall": recall(units.cited, q.gold),
            "cited_precision": precision(units.cited, q.gold),
            "searches": result.outcome.counts["searches"],
            "reads": result.outcome.counts["reads"],
            "coverage": result.outcome.metrics["coverage"],
        })
    times_sorted = sorted(times)
    return {
        "policy": name,
        "planner": planner,
        "questions": len(questions),
        "retrieved_recall": _mean([r["retrieved_recall"] for r in rows]),
        "carded_recall": _mean([r["carded_recall"] for r in rows]),
        "cited_recall": _mean([r["cited_recall"] for r in rows]),
        "cited_precision": _mean([r["cited_precision"] for r in rows]),
        "searches_per_q": _mean([r["searches"] for r in rows]),
        "reads_per_q": _mean([r["reads"] for r in rows]),
        "coverage": _mean([r["coverage"] for r in rows]),
        "median_ms": round(statistics.median(times) * 1000, 2),
        "p90_ms": round(times_sorted[int(0.9 * (len(times_sorted) - 1))] * 1000, 2),
        "runs_per_s": round(len(times) / sum(times), 2),
        "per_question": rows,
    }


def capture_overhead(questions: list[GoldQuestion], kit: ResearchKit, config: ResearchConfig, repeats: int) -> dict:
    """Same batch, file sink vs null sink, interleaved so drift hits both alike; best of `repeats`."""
    file_times, null_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            t0 = time.perf_counter()
            for q in questions:
                run_research(q.question, kit, config, sink=NullSink(), out_dir=None)
            null_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for q in questions:
                run_research(q.question, kit, config, out_dir=Path(tmp))
            file_times.append(time.perf_counter() - t0)
    return {
        "questions": len(questions),
        "repeats": repeats,
        "null_sink_s": round(min(null_times), 4),
        "file_sink_s": round(min(file_times), 4),
        "ratio": round(min(file_times) / min(null_times), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=BUILTIN_DATA_DIR)
    parser.add_argument("--limit", type=int, default=None, help="questions per data set")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of the capture-overhead batch")
    parser.add_argument("--out", type=Path, default=Path("bench-out/runtime.json"))
    args = parser.parse_args(argv)

    config = ResearchConfig()
    t0 = time.perf_counter()
    kit = ResearchKit.load()
    load_s = time.perf_counter() - t0
    sets = {
        "hotpotqa_100": load_hotpotqa(args.data / "multihop" / "hotpotqa_100.json", kit.corpus)[: args.limit],
        "musique_100": load_musique(args.data / "multihop" / "musique_100.json", kit.corpus)[: args.limit],
    }
    results: dict = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                    "omp_threads": os.environ.get("OMP_NUM_THREADS", "unset")},
        "corpus": {"documents": len(kit.corpus), "load_and_index_s": round(load_s, 3),
                   "index_from_cache": kit.index.loaded_from_cache},
        "budget": config.budget.model_dump(),
        "datasets": {},
    }
    for name, questions in sets.items():
        results["datasets"][name] = {p: evaluate(questions, kit, p, config) for p in POLICIES}
    results["capture"] = capture_overhead(sets["hotpotqa_100"], kit, config, args.repeats)
    results["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)

    header = f"{'dataset':<14}{'policy':<16}{'retr.R':>8}{'card.R':>8}{'cite.R':>8}{'cite.P':>8}" \
             f"{'srch/q':>8}{'read/q':>8}{'cover':>7}{'med ms':>8}{'run/s':>7}"
    print(header)
    print("-" * len(header))
    fmt = lambda v: "   n/a" if v is None else f"{v:.3f}"  # noqa: E731
    for name, by_policy in results["datasets"].items():
        for policy, r in by_policy.items():
            print(f"{name:<14}{policy:<16}{fmt(r['retrieved_recall']):>8}{fmt(r['carded_recall']):>8}"
                  f"{fmt(r['cited_recall']):>8}{fmt(r['cited_precision']):>8}{r['searches_per_q']:>8.2f}"
                  f"{r['reads_per_q']:>8.2f}{fmt(r['coverage']):>7}{r['median_ms']:>8.1f}{r['runs_per_s']:>7.1f}")
    for name, by_policy in results["datasets"].items():
        h, n = by_policy["heuristic"], by_policy["naive"]
        delta = (h["retrieved_recall"] - n["retrieved_recall"]) * 100
        print(f"{name}: heuristic retrieves {delta:+.1f} points of gold vs naive, "
              f"searches/q {h['searches_per_q']:.2f} vs {n['searches_per_q']:.2f}")
    c = results["capture"]
    print(f"capture overhead: file {c['file_sink_s']:.3f}s vs null {c['null_sink_s']:.3f}s = {c['ratio']:.3f}x")
    print(f"peak RSS {results['peak_rss_mb']} MB; corpus load+index {results['corpus']['load_and_index_s']} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    slim = json.loads(json.dumps(results))
    args.out.write_text(json.dumps(slim, indent=2), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
