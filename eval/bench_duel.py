"""Run cost of this tree against an earlier one, measured side by side: two worker processes,
one per tree, research the same questions in turn, question by question, so whatever else the
machine does hits both alike.

    python -m citeloop.eval.bench_duel --baseline PYTHONPATH [--sets hotpotqa,musique,2wiki]
                                       [--limit N] [--warm 30] [--out bench-out/duel.json]

`--baseline` is a folder holding a `citeloop/` directory whose `runtime`, `trajectories`,
`filters`, `training` and `eval` link to an export of the earlier commit (`git worktree add
/tmp/wt-base COMMIT`), as for `bench_scale --compare`. Each worker loads the set's corpus and
index, builds its per-document analysis (`runtime.doc_features`), researches `--warm`
questions from past the `--limit` ones (so what a process warms once is warm in both), then
runs each measured question once when the driver asks, alternating which tree goes first.
A run's cost is its CPU seconds (`time.process_time`: the machine's other work moves it far
less than the clock; these machines are 2 noisy cores). At the end each worker times every
search its runs made through the bare index (`BM25Index.search`, query tokenisation included,
no cached text analysis; best of 3 passes, the trees taking turns), and a run's `x floor` is its
CPU time over its searches'.
A run is "the same" when its events, less run ids and the wall clock, are the baseline's: a
speed change must keep them.

The worker side is this file run as a script (`--worker`) under each tree's `PYTHONPATH`, and
uses only what both trees have (`run_research`, `kit_for`, `load_eval_set`, `load_config`,
`MemorySink`, `memo.disabled`). Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

SETS = ("hotpotqa", "musique", "2wiki")
RESAMPLES = 2000
FLOOR_ROUNDS = 3
"""Passes over a tree's searches through the bare index; a search's floor is its best."""


# --------------------------------------------------------------------------- worker


def worker() -> None:
    """Answer the driver's requests, one JSON line each, until `quit`."""
    from citeloop.eval.datasets import load_eval_set
    from citeloop.runtime.config import load_config
    from citeloop.runtime.memo import disabled
    from citeloop.runtime.session import kit_for, run_research
    from citeloop.trajectories.runfile import MemorySink

    loaded: dict[str, tuple] = {}
    searches: dict[str, list[tuple[str, int]]] = {}

    def run(name: str, question: str) -> dict:
        kit, config = loaded[name]
        sink = MemorySink()
        t0 = time.process_time()
        run_research(question, kit, config, sink=sink, out_dir=None)
        cpu = time.process_time() - t0
        digest = hashlib.sha256()
        for e in sink.events:
            if e.type != "run_meta":
                digest.update(e.model_dump_json(exclude={"run_id"}).encode("utf-8") + b"\n")
        queries = [(e.query, e.k) for e in sink.events if e.type == "query_issued"]
        searches.setdefault(name, []).extend(queries)
        return {"cpu_s": cpu, "digest": digest.hexdigest(), "queries": queries}

    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        if op == "load":
            name = request["set"]
            eval_set = load_eval_set(name)
            kit = kit_for(eval_set.corpus)
            kit.features.precompute()
            loaded[name] = (kit, load_config(None, dict(eval_set.config_overrides)))
            for question in request["warm"]:
                run(name, question)
            searches[name] = []
            reply: dict = {"ok": True}
        elif op == "run":
            reply = run(request["set"], request["question"])
        elif op == "floors":
            name = request["set"]
            index = loaded[name][0].index
            unique = list(dict.fromkeys(map(tuple, searches.get(name, []))))
            took = []
            with disabled():
                for query, k in unique:
                    t0 = time.process_time()
                    index.search(query, k)
                    took.append([query, k, time.process_time() - t0])
            reply = {"floors": took}
        else:
            return
        print(json.dumps(reply), flush=True)


# --------------------------------------------------------------------------- driver


class Worker:
    """One tree's worker process."""

    def __init__(self, pythonpath: str | None) -> None:
        env = dict(os.environ)
        if pythonpath is not None:
            env["PYTHONPATH"] = pythonpath
        # -P: the script's own folder (this package's eval/, whose datasets.py would hide
        # Hugging Face's) is not put on the path.
        self.proc = subprocess.Popen([sys.executable, "-P", str(Path(__file__).resolve()), "--worker"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, **request) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"a worker stopped (exit {self.proc.wait()}) while asked {request['op']!r}")
        return json.loads(line)

    def close(self) -> None:
        try:
            self.ask(op="quit")
        except (RuntimeError, BrokenPipeError, ValueError):
            pass
        self.proc.wait(timeout=30)


def bootstrap_ratio(base: list[float], new: list[float], seed: int = 0) -> tuple[float, float]:
    """95 % interval of sum(new) / sum(base), resampling questions."""
    rng = random.Random(seed)
    n, ratios = len(base), []
    for _ in range(RESAMPLES):
        picks = [rng.randrange(n) for _ in range(n)]
        ratios.append(sum(new[i] for i in picks) / max(1e-12, sum(base[i] for i in picks)))
    ratios.sort()
    return ratios[int(0.025 * RESAMPLES)], ratios[int(0.975 * RESAMPLES) - 1]


def duel(name: str, questions: list[str], warm: list[str], workers: dict[str, Worker]) -> dict:
    for w in workers.values():
        w.ask(op="load", set=name, warm=warm)
    cpu: dict[str, list[float]] = {k: [] for k in workers}
    queries: dict[str, list[list]] = {k: [] for k in workers}
    same = 0
    for i, question in enumerate(questions):
        order = list(workers) if i % 2 == 0 else list(reversed(workers))
        replies = {k: workers[k].ask(op="run", set=name, question=question) for k in order}
        for k, reply in replies.items():
            cpu[k].append(reply["cpu_s"])
            queries[k].append(reply["queries"])
        same += replies["baseline"]["digest"] == replies["this tree"]["digest"]
    out: dict = {"runs": len(questions), "same_runs": same}
    best: dict[str, dict[tuple[str, int], float]] = {k: {} for k in workers}
    for round_no in range(FLOOR_ROUNDS):  # the trees take turns here too
        for k in (list(workers) if round_no % 2 == 0 else list(reversed(workers))):
            for q, n, s in workers[k].ask(op="floors", set=name)["floors"]:
                best[k][(q, n)] = min(s, best[k].get((q, n), float("inf")))
    for k in workers:
        floors = best[k]
        ratios = [c / f for c, qs in zip(cpu[k], queries[k]) if (f := sum(floors[(q, n)] for q, n in qs)) > 0]
        out[k] = {"cpu_ms_per_run": round(1000 * statistics.fmean(cpu[k]), 3),
                  "median_cpu_ms": round(1000 * statistics.median(cpu[k]), 3),
                  "x_floor_median": round(statistics.median(ratios), 2) if ratios else None}
    lo, hi = bootstrap_ratio(cpu["baseline"], cpu["this tree"])
    out["ratio"] = round(sum(cpu["this tree"]) / sum(cpu["baseline"]), 3)
    out["ratio_ci95"] = [round(lo, 3), round(hi, 3)]
    return out


def print_table(results: dict) -> None:
    print(f"{'set':9s} {'runs':>5s} {'same':>5s} {'base ms':>8s} {'this ms':>8s} {'this/base':>9s} "
          f"{'95% CI':>13s} {'base x floor':>12s} {'this x floor':>12s}")
    for name, r in results["sets"].items():
        b, t = r["baseline"], r["this tree"]
        print(f"{name:9s} {r['runs']:5d} {r['same_runs']:5d} {b['cpu_ms_per_run']:8.2f} {t['cpu_ms_per_run']:8.2f} "
              f"{r['ratio']:9.3f} {r['ratio_ci95'][0]:6.3f}-{r['ratio_ci95'][1]:<6.3f} "
              f"{b['x_floor_median']!s:>12s} {t['x_floor_median']!s:>12s}")
    print("(CPU ms per run, mean over the runs; this/base: the ratio of their sums, with a bootstrap 95 % interval "
          "over questions; x floor: the median run's CPU time over its searches' through the bare index)")


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--worker"]:
        worker()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="PYTHONPATH of the earlier tree")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--limit", type=int, default=100, help="measured questions per set")
    parser.add_argument("--warm", type=int, default=30, help="questions past --limit researched first")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    names = [s for s in args.sets.split(",") if s]
    if not names or any(s not in SETS for s in names):
        parser.error(f"--sets takes {', '.join(SETS)}")
    if not (args.baseline / "citeloop").is_dir():
        print(f"error: --baseline {args.baseline}: no citeloop/ folder there", file=sys.stderr)
        return 2
    if args.limit < 1 or args.warm < 0:
        parser.error("--limit must be at least 1 and --warm at least 0")

    from citeloop.eval.datasets import load_eval_set

    workers = {"baseline": Worker(str(args.baseline)), "this tree": Worker(None)}
    results: dict = {"baseline": str(args.baseline), "limit": args.limit, "warm": args.warm, "sets": {}}
    try:
        for name in names:
            questions = [q.question for q in load_eval_set(name).questions]
            results["sets"][name] = duel(name, questions[: args.limit],
                                         questions[args.limit: args.limit + args.warm], workers)
            print(f"{name}: done", file=sys.stderr, flush=True)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        for w in workers.values():
            w.close()
    print_table(results)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
