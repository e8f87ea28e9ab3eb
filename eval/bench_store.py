"""Store benchmark: ingest throughput, Parquet size against JSON Lines, query times at 1M events.

    python -m citeloop.eval.bench_store [--data DIR] [--seeds 2] [--workers 2]
                               [--runs-dir DIR] [--target-events 1000000] [--out bench-out/store.json]

1. Generates runs with the runtime: every HotpotQA-100 and MuSiQue-100 question under the
   `heuristic`, `naive` (seed 003's loop) and `explore` policies, for each seed (2 seeds:
   1,200 runs), in a process pool. `--runs-dir` keeps them (and reuses them next time).
2. Ingests them into a fresh store and reports events per second (and the same with
   `--validate`, every event through pydantic; and a no-op re-ingest).
3. Compares the store's Parquet bytes with the runs' JSON Lines bytes.
4. Replicates the ingested tables under new run ids (`<run_id>~<copy>`) until the store
   holds at least `--target-events` events (the output says so), then times the queries of
   `trajectories.store_queries` (best of 3, after one warm-up run).

Targets: Parquet <= 1/5 of JSONL; ingest >= 200,000 events/s; each query < 1 s at 1M events.
Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import polars as pl

from citeloop.eval.datasets import BUILTIN_DATA_DIR
from citeloop.trajectories import store_queries
from citeloop.trajectories.store import TABLES, Store, ingest

POLICIES: dict[str, tuple[str, str]] = {"heuristic": ("rule", "heuristic"), "naive": ("naive", "naive"),
                                        "explore": ("rule", "explore")}
TARGETS = {"parquet_over_jsonl": 0.2, "ingest_events_per_s": 200_000, "query_s": 1.0}

_KIT = None


def _init_worker() -> None:
    global _KIT
    from citeloop.runtime.session import ResearchKit

    _KIT = ResearchKit.load()


def _run_one(task: tuple[str, str, int, str]) -> int:
    from citeloop.runtime.session import run_research

    question, policy, seed, out_dir = task
    planner, spec = POLICIES[policy]
    run_research(question, _KIT, policy_spec=spec, seed=seed, out_dir=Path(out_dir), planner=planner)
    return 1


def generate(data: Path, out_dir: Path, seeds: int, workers: int) -> dict:
    from citeloop.eval.gold import shared_multihop
    from citeloop.runtime.session import ResearchKit

    corpus = ResearchKit.load().corpus
    questions = [q.question for q in shared_multihop(data, corpus)]
    tasks = [(q, p, s, str(out_dir)) for s in range(seeds) for p in POLICIES for q in questions]
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if workers > 1:
        with ProcessPoolExecutor(workers, initializer=_init_worker) as pool:
            done = sum(pool.map(_run_one, tasks, chunksize=16))
    else:
        _init_worker()
        done = sum(_run_one(t) for t in tasks)
    seconds = time.perf_counter() - t0
    return {"runs": done, "questions": len(questions), "policies": list(POLICIES), "seeds": seeds,
            "workers": workers, "seconds": round(seconds, 2), "ms_per_run": round(1000 * seconds / done, 1)}


def replicate(source: Store, target: Path, min_events: int) -> tuple[Store, int]:
    """Copy every table `copies` times under run ids `<run_id>~<copy>` (blobs once)."""
    n_events = source.counts()["events"]
    copies = max(1, math.ceil(min_events / n_events))
    store = Store.create(target)
    tables = {t: source.read(t) for t in TABLES}
    for copy in range(copies):
        part = store.new_part()
        for table, df in tables.items():
            if table == "blobs":
                if copy == 0:
                    store.write_part(table, part, df)
                continue
            store.write_part(table, part, df.with_columns(run_id=pl.col("run_id") + f"~{copy}"))
    store._save_manifest()
    return store, copies


def time_query(fn, store: Store, repeats: int = 3) -> tuple[float, int]:
    fn(store)  # warm-up: file metadata, thread pool
    best, rows = math.inf, 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        rows = fn(store).height
        best = min(best, time.perf_counter() - t0)
    return best, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=BUILTIN_DATA_DIR)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs-dir", type=Path, default=None, help="keep generated runs here (reused if present)")
    parser.add_argument("--target-events", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=Path("bench-out/store.json"))
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="citeloop-bench-store-"))
    runs_dir = args.runs_dir or tmp / "runs"
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                 "polars": pl.__version__, "polars_threads": pl.thread_pool_size()}}
    try:
        existing = list(runs_dir.glob("*.jsonl")) if runs_dir.is_dir() else []
        if existing:
            results["generate"] = {"runs": len(existing), "reused": str(runs_dir)}
        else:
            results["generate"] = generate(args.data, runs_dir, args.seeds, args.workers)
        jsonl_bytes = sum(p.stat().st_size for p in runs_dir.glob("*.jsonl"))

        # ---- ingest
        report = ingest(runs_dir, tmp / "store")
        again = ingest(runs_dir, tmp / "store")
        validated = ingest(runs_dir, tmp / "store-validated", validate=True)
        store = Store.open(tmp / "store")
        results["ingest"] = {
            "runs": report.runs_added, "events": report.events, "seconds": report.seconds,
            "events_per_s": round(report.events / report.seconds),
            "mb_per_s": round(report.jsonl_bytes / 1e6 / report.seconds, 1), "stage_seconds": report.stage_seconds,
            "validated_seconds": validated.seconds,
            "validated_events_per_s": round(validated.events / validated.seconds),
            "reingest_seconds": again.seconds, "reingest_added": again.runs_added + again.runs_replaced,
        }

        # ---- size
        table_bytes = {t: sum(p.stat().st_size for p in store.parts(t)) for t in TABLES}
        parquet = sum(table_bytes.values())
        # heuristic and naive runs differ across seeds only in their run id, which flatters
        # compression; the seed-0 runs alone hold no such repeats.
        seed0 = [Path(f) for f in store.scan("runs").filter(pl.col("seed") == 0).collect()["file"].to_list()]
        ingest_files = Store.create(tmp / "store-seed0").ingest(seed0)
        seed0_store = Store.open(tmp / "store-seed0")
        results["size"] = {
            "jsonl_bytes": jsonl_bytes, "parquet_bytes": parquet, "ratio": round(parquet / jsonl_bytes, 4),
            "parquet_bytes_by_table": table_bytes, "rows": store.counts(),
            "seed0_runs": ingest_files.runs_added, "seed0_jsonl_bytes": ingest_files.jsonl_bytes,
            "seed0_parquet_bytes": seed0_store.size_bytes(),
            "seed0_ratio": round(seed0_store.size_bytes() / ingest_files.jsonl_bytes, 4),
        }

        # ---- queries over >= target events
        big, copies = replicate(store, tmp / "replicated", args.target_events)
        rows = big.counts()
        queries = {
            "decisions_by_kind_and_policy": store_queries.decisions_by_kind_and_policy,
            "searches_per_subquestion": store_queries.searches_per_subquestion,
            "verdict_distribution": store_queries.verdict_distribution,
            "events_by_type": store_queries.events_by_type,
        }
        timed = {}
        for name, fn in queries.items():
            seconds, out_rows = time_query(fn, big)
            timed[name] = {"seconds": round(seconds, 4), "result_rows": out_rows}
        results["queries"] = {
            "replicated": f"the {report.events:,} ingested events copied {copies} times under new run ids",
            "copies": copies, "rows": rows, "parquet_bytes": big.size_bytes(), "timings": timed,
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    ing, size, qs = results["ingest"], results["size"], results["queries"]
    results["targets"] = {
        "parquet_over_jsonl": {"target": TARGETS["parquet_over_jsonl"], "value": size["ratio"],
                               "met": size["ratio"] <= TARGETS["parquet_over_jsonl"]},
        "ingest_events_per_s": {"target": TARGETS["ingest_events_per_s"], "value": ing["events_per_s"],
                                "met": ing["events_per_s"] >= TARGETS["ingest_events_per_s"]},
        "query_s": {"target": TARGETS["query_s"], "value": max(t["seconds"] for t in qs["timings"].values()),
                    "met": all(t["seconds"] < TARGETS["query_s"] for t in qs["timings"].values())},
    }
    g = results["generate"]
    print(f"runs: {g['runs']:,}" + (f" generated in {g['seconds']} s ({g['ms_per_run']} ms/run, "
                                     f"{g['workers']} workers)" if "seconds" in g else f" reused from {g['reused']}"))
    width = 58
    print(f"{'measure':<{width}}{'value':>16}{'target':>12}")
    print("-" * (width + 28))
    t = results["targets"]
    line = lambda k, v, tg="": print(f"{k:<{width}}{v:>16}{tg:>12}")
    line("ingest: events/s", f"{ing['events_per_s']:,}",
         f">= {TARGETS['ingest_events_per_s']:,}" + ("" if t["ingest_events_per_s"]["met"] else " MISS"))
    line(f"  ({ing['events']:,} events, {ing['runs']:,} runs, {ing['seconds']} s, {ing['mb_per_s']} MB/s)", "")
    line("  seconds by stage: " + ", ".join(f"{k} {v:.2f}" for k, v in ing["stage_seconds"].items()), "")
    line("ingest --validate (pydantic on every event): events/s", f"{ing['validated_events_per_s']:,}")
    line("re-ingest, nothing changed: s (runs added)", f"{ing['reingest_seconds']} ({ing['reingest_added']})")
    line("JSONL bytes", f"{size['jsonl_bytes']:,}")
    line("Parquet bytes (all tables)", f"{size['parquet_bytes']:,}")
    line("Parquet / JSONL", f"{size['ratio']:.4f} (1/{1 / size['ratio']:.1f})",
         "<= 0.2" + ("" if t["parquet_over_jsonl"]["met"] else " MISS"))
    line(f"  seed-0 runs only ({size['seed0_runs']:,} runs, no repeats across seeds)",
         f"{size['seed0_ratio']:.4f} (1/{1 / size['seed0_ratio']:.1f})")
    print(f"queries over {qs['rows']['events']:,} events ({qs['replicated']}):")
    for name, r in qs["timings"].items():
        line(f"  {name}", f"{r['seconds'] * 1000:,.1f} ms", "< 1000 ms" + ("" if r["seconds"] < 1 else " MISS"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
