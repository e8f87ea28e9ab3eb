"""Can another weighting of the gold-free run score's features order runs the way gold does?
Measured with the weights chosen on two data sets and the third held out.

`filters.answers.run_score` weighs a run's gold-free features (its weights are the ones this
script fitted on all three sets at 9204c3d; until then they were chosen by hand on 2Wiki). This script researches every question of the shared sets with several policies and
seeds (heuristic, naive, naive-policies, explore with seeds 0 and 1), computes each run's
features, and over every pair of runs of one question whose gold recall differs asks how often a
weighting orders the pair as gold recall does (ties count against it, as in `bench_runtime`'s
score agreement). Each set in turn is held out: the weights are searched on a grid to maximise
the mean agreement of the other two sets, then measured on the held-out one. The table gives
the shipped score, the held-out figure and, apart, the weights fitted on all sets (a fitted
figure, not a measurement).

    python -m citeloop.eval.score_weights [--sets hotpotqa,musique,2wiki] [--levels 0,0.1,0.2,0.3,0.4]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from citeloop.eval.bench_runtime import POLICIES
from citeloop.eval.datasets import BUILTIN_DATA_DIR, load_eval_set
from citeloop.eval.harness import PolicyRun, run_eval
from citeloop.filters import answers
from citeloop.filters.view import RunView
from citeloop.runtime.config import load_config
from citeloop.runtime.session import kit_for

SETS = ("hotpotqa", "musique", "2wiki")
EXPLORE = PolicyRun("explore", "rule", "explore")
RUNS = ((0, (*POLICIES, EXPLORE)), (1, (EXPLORE,)))
"""(seed, policies): the runs of each question whose pairs are compared (`bench_runtime`'s
three policies and the exploring one)."""
FEATURES = answers.GOLD_FREE_FEATURES
"""The gold-free features weighed (`filters.answers`)."""
SHIPPED = answers.RUN_SCORE_WEIGHTS
"""`run_score`'s weights (its score is their weighted sum over their total: tests/test_score_weights.py)."""


def run_rows(name: str, data_dir: Path = BUILTIN_DATA_DIR) -> list[dict]:
    """One row per run of every question of the set: question, gold recall, features."""
    eval_set = load_eval_set(name, data_dir)
    kit = kit_for(eval_set.corpus)
    config = load_config(None, dict(eval_set.config_overrides))
    rows: list[dict] = []
    for seed, policies in RUNS:
        features: dict[str, list[dict]] = defaultdict(list)
        results = run_eval(eval_set, kit, policies, config, seed=seed,
                           on_run=lambda policy, events: features[policy].append(
                               {k: f(RunView.build(events)) for k, f in FEATURES.items()}))["policies"]
        for policy, result in results.items():
            for row, feats in zip(result["per_question"], features[policy]):
                rows.append({"qid": row["qid"], "run": f"{policy}@{seed}", "gold": row["retrieved_recall"],
                             "features": feats})
    return rows


def pair_differences(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """(feature differences, sign of the gold difference) of every pair of runs of one question
    whose gold recall differs."""
    by_question: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row["gold"] is not None:
            by_question[row["qid"]].append(row)
    diffs, signs = [], []
    for runs in by_question.values():
        for a, b in itertools.combinations(runs, 2):
            if a["gold"] != b["gold"]:
                diffs.append([a["features"][k] - b["features"][k] for k in FEATURES])
                signs.append(1.0 if a["gold"] > b["gold"] else -1.0)
    return np.array(diffs, dtype=float).reshape(-1, len(FEATURES)), np.array(signs)


def agreement(diffs: np.ndarray, signs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per weighting (a row of `weights`), the share of pairs it orders as gold does (ties
    disagree)."""
    if not len(signs):
        return np.full(len(weights), np.nan)
    out = []
    for start in range(0, len(weights), 20_000):
        scores = diffs @ weights[start:start + 20_000].T
        out.append((np.sign(scores) == signs[:, None]).mean(axis=0))
    return np.concatenate(out)


def weight_grid(levels: list[float]) -> np.ndarray:
    grid = np.array(list(itertools.product(levels, repeat=len(FEATURES))), dtype=float)
    return grid[grid.sum(axis=1) > 0]


def leave_one_out(pairs: dict[str, tuple[np.ndarray, np.ndarray]], grid: np.ndarray) -> dict[str, dict]:
    """Per held-out set: the grid's best weighting on the other sets (mean agreement, each set
    weighing alike) and its agreement on the held-out one."""
    scores = {name: agreement(*pair, grid) for name, pair in pairs.items()}
    shipped = np.array([[SHIPPED.get(k, 0.0) for k in FEATURES]])
    out = {}
    for held in pairs:
        train = [n for n in pairs if n != held]
        best = int(np.argmax(np.mean([scores[n] for n in train], axis=0))) if train else 0
        out[held] = {"pairs": len(pairs[held][1]), "shipped": float(agreement(*pairs[held], shipped)[0]),
                     "held_out": float(scores[held][best]), "train": {n: float(scores[n][best]) for n in train},
                     "weights": {k: float(w) for k, w in zip(FEATURES, grid[best]) if w}}
    best_all = int(np.argmax(np.mean(list(scores.values()), axis=0)))
    out["fitted on all"] = {"weights": {k: float(w) for k, w in zip(FEATURES, grid[best_all]) if w},
                            "agreement": {n: float(scores[n][best_all]) for n in pairs}}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--levels", default="0,0.1,0.2,0.3,0.4", help="the weights each feature may take")
    parser.add_argument("--out", type=Path, default=Path("bench-out/score_weights.json"))
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    try:
        levels = sorted({float(x) for x in args.levels.split(",")})
    except ValueError:
        print(f"error: --levels takes numbers separated by commas, not {args.levels!r}", file=sys.stderr)
        return 2
    if len(names) < 2 or set(names) - set(SETS):
        print(f"error: --sets takes two or more of {', '.join(SETS)}", file=sys.stderr)
        return 2
    pairs = {}
    for name in names:
        print(f"researching {name} ...", file=sys.stderr)
        pairs[name] = pair_differences(run_rows(name))
    result = leave_one_out(pairs, weight_grid(levels))
    print(f"{'held out':<10} {'pairs':>6} {'shipped':>8} {'held-out':>9}  weights chosen on the other sets")
    for name in names:
        r = result[name]
        weights = ", ".join(f"{k} {w:g}" for k, w in r["weights"].items())
        print(f"{name:<10} {r['pairs']:>6} {r['shipped']:>8.3f} {r['held_out']:>9.3f}  {weights}")
    fitted = result["fitted on all"]
    print("fitted on all (not held out): " + ", ".join(f"{n} {a:.3f}" for n, a in fitted["agreement"].items())
          + "; " + ", ".join(f"{k} {w:g}" for k, w in fitted["weights"].items()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"levels": levels, "features": list(FEATURES), **result}, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
