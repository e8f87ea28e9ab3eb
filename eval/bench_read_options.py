"""Read options benchmark: which changes to the heuristic's reads win, and which lose.

    python -m citeloop.eval.bench_read_options [--sets hotpotqa,musique] [--limit N] [--workers 2]
                                               [--out bench-out/read-options.json]

The heuristic researches every question of each set; every read decision of its runs is then
branched (training/rollouts.py) with one action of each family below and scored by the outcome
score of training/outcomes.py (gold recall + 0.5 x answer correct - 0.03 x searches - 0.01 x
reads). Per family: the decisions that offer it, those where its best action beats the
heuristic's reads by more than 0.05 (wins) and those where its best is worse by more than 0.05
(losses), and the decisions where it reads every gold page the recorded branch missed.

- `one more`: the heuristic's reads plus one more unread hit (what a read policy under a
  deferral margin chooses among, runtime/policies/actions.py `read_one_more`);
- `single new` / `single chosen`: one hit alone, one the heuristic did not / did choose;
- `none`: read nothing; `swap last`: the heuristic's reads with the last replaced by another hit.

This is why the read policy is asked about one more read: the family that wins without losing.
Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

from citeloop.eval.bench_headroom import research
from citeloop.eval.bench_runtime import SETS, kit_for
from citeloop.eval.datasets import BUILTIN_DATA_DIR, load_eval_set, sets_or_error
from citeloop.eval.loop import gold_of
from citeloop.runtime.policies.actions import read_one_more
from citeloop.runtime.session import ResearchKit
from citeloop.training.outcomes import OutcomeSettings
from citeloop.training.rollouts import RollJob, roll_jobs
from citeloop.trajectories.events import Event
from citeloop.trajectories.runfile import read_run

FAMILIES = ("one more", "single new", "single chosen", "none", "swap last")
MARGIN = 0.05


def families(event: Event) -> dict[str, list[str]]:
    """The `branch_run` action strings of each family at one read decision."""
    chosen, candidates = list(event.choice), list(event.candidates)  # type: ignore[attr-defined]
    unchosen = [c for c in candidates if c not in chosen]
    return {
        "one more": [",".join(o) for o in read_one_more(chosen, candidates, event.state.reads_left)[1:]],  # type: ignore[attr-defined]
        "single new": [c for c in unchosen if [c] != chosen],
        "single chosen": [c for c in chosen if [c] != chosen],
        "none": [""] if chosen else [],
        "swap last": [",".join([*chosen[:-1], c]) for c in unchosen] if chosen else [],
    }


def measure(name: str, base: ResearchKit, workers: int, limit: int | None) -> dict:
    eval_set = load_eval_set(name, BUILTIN_DATA_DIR)
    if limit:
        eval_set = eval_set.limit(limit)
    kit = kit_for(eval_set, base)
    settings = replace(OutcomeSettings(), gold=gold_of([eval_set]),
                       corpus=None if kit.corpus.source == "embedded" else kit.corpus.source)
    with tempfile.TemporaryDirectory(prefix=f"citeloop-read-options-{name}-") as tmp:
        paths = research(eval_set, kit, Path(tmp))
        jobs, offered = [], {}
        for path in paths:
            decisions, offered[str(path)] = [], {}
            for event in read_run(path).events:
                if event.type != "read_decision":
                    continue
                options = families(event)  # type: ignore[arg-type]
                recorded = ",".join(event.choice)  # type: ignore[attr-defined]
                actions = tuple(dict.fromkeys([recorded, *(a for acts in options.values() for a in acts)]))
                decisions.append((event.seq, actions))
                offered[str(path)][event.seq] = (recorded, options)
            if decisions:
                jobs.append(RollJob(str(path), tuple(decisions)))
        results = roll_jobs(jobs, settings, engine="process", workers=workers, kit=kit)
    counts: dict[str, Counter] = {f: Counter() for f in FAMILIES}
    branched = 0
    for result in results:
        for seq, (recorded, options) in offered[result.path].items():
            if seq in result.errors:
                continue
            branched += 1
            base_outcome = result.outcomes[(seq, recorded)]
            for family, actions in options.items():
                if not actions:
                    continue
                outcomes = [result.outcomes[(seq, a)] for a in actions]
                best = max(o.score for o in outcomes)
                c = counts[family]
                c["offered"] += 1
                c["wins"] += best > base_outcome.score + MARGIN
                c["losses"] += best < base_outcome.score - MARGIN
                c["all_gold"] += (base_outcome.gold_recall is not None and base_outcome.gold_recall < 1.0
                                  and any(o.gold_recall == 1.0 for o in outcomes))
    return {"questions": len(eval_set.questions), "read_decisions": branched,
            "families": {f: dict(counts[f]) for f in FAMILIES}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="hotpotqa,musique")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("bench-out/read-options.json"))
    args = parser.parse_args(argv)
    names = sets_or_error(args.sets, SETS)
    if names is None:
        return 2
    base = ResearchKit.load()
    report = {name: measure(name, base, args.workers, args.limit) for name in names}
    print(f"| set | family | offered | wins | losses | all gold rescued |  (of the heuristic's read decisions; margin {MARGIN})")
    print("|---|---|---:|---:|---:|---:|")
    for name, r in report.items():
        for family, c in r["families"].items():
            print(f"| {name} ({r['read_decisions']}) | {family} | {c.get('offered', 0)} | {c.get('wins', 0)} | "
                  f"{c.get('losses', 0)} | {c.get('all_gold', 0)} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
