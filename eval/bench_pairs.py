"""Preference-pair benchmark: pairs from the shared multihop questions, their yield, speed and gold direction.

    python -m citeloop.eval.bench_pairs [--data DIR] [--limit N] [--per-kind N] [--alternatives K]
                               [--workers 2] [--out bench-out/pairs.json]

1. Research every shared HotpotQA and MuSiQue question in a mix of environments (seed 20.3):
   the heuristic policy, the exploring policy with three seeds, and the heuristic and the
   exploring policy on a small budget; all on the embedded corpus.
2. Export pairs (training/pairs.py) with the rule-based continuation policy, K alternatives
   per decision (default 3; every two of a decision's outcomes are compared), margin 0.05,
   outcomes scored by gold recall (gold from the same data sets), in a process pool.
   Reported: decisions examined, pairs per decision kind, pairs per minute of rollout, the
   margin distribution, and how often `chosen` really read more gold evidence than `rejected`.
3. The same rollouts scored without gold (the gold-free run score, filters.answers.run_score;
   gold recall only recorded): how often that gold-free score picks the side that
   read more gold evidence. This is the number that says whether pairs from questions
   without gold can be trusted.
Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from citeloop.eval.datasets import DEFAULT_DATA_DIR, load_hotpotqa, load_musique
from citeloop.filters.gold import GoldEntry, GoldSet, question_key
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.pairs import PairExport, emit_pairs, export_pairs

ENVIRONMENTS = [
    # name, policy spec, seed, config overrides
    ("heuristic", "heuristic", 0, {}),
    ("explore-s1", "explore", 1, {}),
    ("explore-s2", "explore", 2, {}),
    ("explore-s3", "explore", 3, {}),
    ("heuristic-small-budget", "heuristic", 0, {"budget": {"max_searches": 4, "max_reads": 5}}),
    ("explore-small-budget", "explore", 4, {"budget": {"max_searches": 4, "max_reads": 5}}),
]


def research_runs(questions: list[str], kit: ResearchKit, out: Path) -> tuple[list[Path], dict]:
    paths, started = [], time.perf_counter()
    for name, policy, seed, overrides in ENVIRONMENTS:
        config = ResearchConfig.model_validate(overrides)
        for q in questions:
            _, path = run_research(q, kit, config, policy_spec=policy, seed=seed, out_dir=out / name)
            paths.append(path)
    return paths, {"runs": len(paths), "environments": [e[0] for e in ENVIRONMENTS],
                   "seconds": round(time.perf_counter() - started, 1)}


def describe(result: PairExport) -> dict:
    rows = result.all_rows()
    minutes = result.rollout_seconds / 60
    return {
        "decisions_available": dict(result.selection.available),
        "decisions_examined": dict(result.examined),
        "rollouts": result.rollouts,
        "rollout_seconds": round(result.rollout_seconds, 1),
        "pairs": len(rows),
        "pairs_per_kind": dict(Counter(r["decision"] for r in rows)),
        "pairs_per_minute": round(len(rows) / minutes, 1) if minutes else None,
        "rollouts_per_minute": round(result.rollouts / minutes, 1) if minutes else None,
        "margins": result.summary("", 0.0, "")["margins"],
        "gold_agreement": result.gold_agreement(),
        "left_out": dict(result.left_out),
        "errors": len(result.errors),
        "state_tags_in_pairs": dict(Counter(t for r in rows for t in r["state_tags"])),
        "mix": result.selection.mix(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--limit", type=int, default=None, help="questions per data set")
    parser.add_argument("--per-kind", type=int, default=None, help="decisions branched per kind (default: all)")
    parser.add_argument("--alternatives", type=int, default=3, help="K alternatives per decision")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=Path("bench-out/pairs.json"))
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    kit = ResearchKit.load()
    sets = [load_hotpotqa(args.data, kit.corpus), load_musique(args.data, kit.corpus)]
    sets = [s.limit(args.limit) for s in sets]
    gold = GoldSet({question_key(q.question): GoldEntry(frozenset(q.gold), s.level)
                    for s in sets for q in s.questions if q.gold})
    questions = [q.question for s in sets for q in s.questions]
    with tempfile.TemporaryDirectory(prefix="citeloop-bench-pairs-") as tmp:
        paths, research = research_runs(questions, kit, Path(tmp))
        print(f"researched {len(questions)} questions x {len(ENVIRONMENTS)} environments = {len(paths)} runs "
              f"in {research['seconds']} s", file=sys.stderr)
        common = {"decision": "all", "alternatives_k": args.alternatives, "min_margin": 0.05, "test_share": 0.1,
                  "kit": kit, "gold": gold, "per_kind": args.per_kind, "engine": "process",
                  "workers": args.workers}
        by_gold = export_pairs(paths, **common)
        print(f"gold-scored export: {len(by_gold.all_rows())} pairs in {by_gold.rollout_seconds:.0f} s",
              file=sys.stderr)
        gold_free = emit_pairs(by_gold, 0.05, 0.1, score_by_gold=False)
    results = {
        "questions": len(questions), "data_sets": [s.name for s in sets], "research": research,
        "settings": {"alternatives": args.alternatives, "min_margin": 0.05, "search_cost": 0.01,
                     "per_kind": args.per_kind, "engine": "process", "workers": args.workers,
                     "continuation_policy": "run's own (rule-based)",
                     "omp_threads": os.environ.get("OMP_NUM_THREADS"), "cpus": os.cpu_count()},
        "gold_scored": describe(by_gold),
        "gold_free_scored": describe(gold_free),
        "load_average": os.getloadavg(),
        "targets": {"pairs": 1000, "gold_agreement": 0.9, "pairs_per_minute": 100},
    }
    g, f = results["gold_scored"], results["gold_free_scored"]
    print(f"\n{'':34}{'gold-scored':>14}{'gold-free':>14}")
    for label, key in [("decisions examined", None), ("rollouts", "rollouts"), ("pairs", "pairs"),
                       ("pairs per minute", "pairs_per_minute"), ("rollouts per minute", "rollouts_per_minute")]:
        value = (lambda d: sum(d["decisions_examined"].values())) if key is None else (lambda d, k=key: d[k])
        print(f"{label:34}{value(g)!s:>14}{value(f)!s:>14}")
    for kind in ("stop", "angle", "read", "keep"):
        print(f"{'pairs: ' + kind:34}{g['pairs_per_kind'].get(kind, 0)!s:>14}{f['pairs_per_kind'].get(kind, 0)!s:>14}")
    for label, key in [("median margin", "median"), ("mean margin", "mean")]:
        print(f"{label:34}{g['margins'][key]!s:>14}{f['margins'][key]!s:>14}")
    for label, key in [("chosen read more gold", "agree"), ("same gold", "tie"), ("chosen read less gold", "disagree"),
                       ("gold agreement", "agreement")]:
        print(f"{label:34}{g['gold_agreement'][key]!s:>14}{f['gold_agreement'][key]!s:>14}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
