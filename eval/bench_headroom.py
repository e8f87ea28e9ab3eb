"""Headroom benchmark: where the heuristic's decisions lose, on the three shared sets.

    python -m citeloop.eval.bench_headroom [--sets hotpotqa,musique,2wiki] [--limit N]
                                          [--per-kind 60] [--workers 2] [--out bench-out/headroom.json]

For each set (HotpotQA-100 and MuSiQue-100 over the embedded corpus, 2Wiki-500 over its own
with its read budget), the heuristic researches every question; then training/headroom.py
branches every alternative of every stop and follow decision (the run-level oracles need
them all) and of up to `--per-kind` angle, read and keep decisions, scoring each branch by
gold recall + 0.5 x answer correct - 0.03 x searches - 0.01 x reads. Reported per kind:
decisions, share with a winning alternative (margin 0.05), oracle gain; the stop oracle's
share of searches saved at equal recall; the follow oracle's all-gold-read gain; the stop
pairs the same rollouts give (share won by STOP and by CONTINUE) and pairs per minute of
rollout. Prints a table and writes JSON.
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

from citeloop.eval.bench_runtime import kit_for
from citeloop.eval.datasets import BUILTIN_DATA_DIR, EvalSet, load_eval_set, sets_or_error
from citeloop.eval.loop import gold_of
from citeloop.runtime.config import load_config
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.headroom import Headroom, measure_headroom
from citeloop.training.outcomes import OutcomeSettings
from citeloop.training.pairs import emit_pairs

TARGETS = {"stop_searches_saved": 0.35, "follow_all_gold_points_musique": 10.0, "stop_pair_side_share": 0.25,
           "pairs_per_minute": 100}


def research(eval_set: EvalSet, kit: ResearchKit, out: Path) -> list[Path]:
    config = load_config(None, dict(eval_set.config_overrides))
    return [run_research(q.question, kit, config, out_dir=out)[1] for q in eval_set.questions]


def stop_pairs(result: Headroom) -> dict:
    """The stop pairs of these rollouts (margin 0.05, verified chosen side) and who won them."""
    assert result.rolled is not None and result.settings is not None
    pairs = emit_pairs(result.rolled, 0.05, 0.0, True, result.settings)
    rows = [r for r in pairs.all_rows() if r["decision"] == "stop"]
    won = Counter(r["chosen"][0]["content"] for r in rows)
    minutes = result.rollout_seconds / 60
    return {"stop_pairs": len(rows), "won_by": dict(won),
            "stop_share": round(won.get("STOP", 0) / len(rows), 4) if rows else None,
            "continue_share": round(won.get("CONTINUE", 0) / len(rows), 4) if rows else None,
            "pairs": len(pairs.all_rows()),
            "pairs_per_minute": round(len(pairs.all_rows()) / minutes, 1) if minutes else None}


def measure(name: str, kit: ResearchKit, per_kind: int, workers: int, limit: int | None) -> dict:
    eval_set = load_eval_set(name, BUILTIN_DATA_DIR)
    if limit:
        eval_set = eval_set.limit(limit)
    kit = kit_for(eval_set, kit)
    gold = gold_of([eval_set])
    with tempfile.TemporaryDirectory(prefix=f"citeloop-headroom-{name}-") as tmp:
        started = time.perf_counter()
        paths = research(eval_set, kit, Path(tmp))
        research_s = time.perf_counter() - started
        corpus = None if kit.corpus.source == "embedded" else kit.corpus.source
        common = {"kit": kit, "corpus": corpus, "settings": OutcomeSettings(), "engine": "process", "workers": workers}
        whole = measure_headroom(paths, gold, "stop,follow", None, **common)
        sampled = measure_headroom(paths, gold, "angle,read,keep", per_kind, **common)
    kinds = {**whole.by_kind(), **sampled.by_kind()}
    seconds = whole.rollout_seconds + sampled.rollout_seconds
    return {"questions": len(eval_set.questions), "runs": len(paths), "research_seconds": round(research_s, 1),
            "kinds": kinds, "stop_oracle": whole.stop_oracle(), "follow_oracle": whole.follow_oracle(),
            "pairs": stop_pairs(whole), "rollouts": whole.rollouts + sampled.rollouts,
            "rollout_seconds": round(seconds, 1),
            "rollouts_per_minute": round(60 * (whole.rollouts + sampled.rollouts) / seconds, 1) if seconds else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="hotpotqa,musique,2wiki")
    parser.add_argument("--limit", type=int, default=None, help="questions per set (default: all)")
    parser.add_argument("--per-kind", type=int, default=60, help="angle, read and keep decisions branched per set")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=Path("bench-out/headroom.json"))
    args = parser.parse_args(argv)
    names = sets_or_error(args.sets)
    if names is None:
        return 2
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    kit = ResearchKit.load()
    results = {name: measure(name, kit, args.per_kind, args.workers, args.limit) for name in names}
    print(f"\n{'set':10}{'kind':8}{'decisions':>10}{'winning':>9}{'oracle gain':>12}{'searches saved':>15}"
          f"{'all-gold gain':>14}")
    for name, r in results.items():
        for kind, k in r["kinds"].items():
            print(f"{name:10}{kind:8}{k['decisions']:>10}{100 * (k['winning_share'] or 0):>8.1f}%"
                  f"{k['oracle_gain'] or 0:>12.3f}{100 * (k['searches_at_equal_recall'] or 0):>14.1f}%"
                  f"{100 * (k['all_gold_gain'] or 0):>13.1f}%")
    print(f"\n{'set':10}{'stop oracle: searches saved':>30}{'follow oracle: all gold':>26}{'stop pairs STOP/CONT':>22}"
          f"{'pairs/min':>11}")
    for name, r in results.items():
        s, f, p = r["stop_oracle"], r["follow_oracle"], r["pairs"]
        sides = f"{p['won_by'].get('STOP', 0)}/{p['won_by'].get('CONTINUE', 0)}"
        print(f"{name:10}{100 * (s['share_saved'] or 0):>29.1f}%"
              f"{100 * (f['all_gold_recorded'] or 0):>13.1f}% -> {100 * (f['all_gold_oracle'] or 0):.1f}%"
              f"{sides:>22}{p['pairs_per_minute']!s:>11}")
    payload = {"results": results, "targets": TARGETS, "workers": args.workers, "per_kind": args.per_kind,
               "load_average": os.getloadavg(), "cpus": os.cpu_count()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
