"""Headroom: where a decision, taken differently, would have researched better.

`measure_headroom` branches every alternative of the sampled decisions of some runs (the
rollout engines of training/rollouts.py: serial, process, Ray), scores every branch with
the outcome score (gold recall, answer correctness where gold has it, minus search and
read costs; training/outcomes.py) and reports per decision kind:

- `decisions`: decisions branched; `winning_share`: the share where some alternative beats
  the recorded action by more than the kind's margin;
- `oracle_gain`: the mean outcome-score gain of the best action over the recorded one;
- `recall_at_equal_cost`: the mean gain in gold recall of the best alternative that spends
  no more searches than the recorded action; `searches_at_equal_recall`: the share of
  searches the cheapest alternative with at least the recorded recall saves;
- `all_gold_gain`: the share of decisions where the recorded branch misses some gold page
  and an alternative reads them all;
- `lose_tags`: the state tags (training/sampling.py) of the decisions the rules lose.

and per run, the oracles a user decides by: the stop oracle (stop at the earliest stop
decision that keeps the run's gold recall: searches saved) and the follow oracle (the best
follow option: runs whose every gold page is read). This is how a user decides which
policy to train: a kind with no winning alternatives has nothing to teach.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from citeloop.filters.gold import GoldSet
from citeloop.runtime.session import ResearchKit
from citeloop.training.outcomes import Outcome, OutcomeSettings
from citeloop.training.pairs import PairExport, roll_decisions
from citeloop.training.sft import ExportError
from citeloop.trajectories.runfile import read_run

ALL_ALTERNATIVES = 64
"""Alternatives branched per decision: every one a decision offers, in practice."""


@dataclass
class DecisionHeadroom:
    """One branched decision: its recorded outcome and the best alternative's."""

    path: str
    seq: int
    kind: str
    tags: tuple[str, ...]
    recorded: Outcome
    outcomes: dict[str, Outcome]
    """Action string -> outcome, the recorded action included."""
    margin: float
    recorded_action: str = ""
    """The recorded action as a `branch_run` action string."""

    @property
    def best(self) -> tuple[str, Outcome]:
        return max(self.outcomes.items(), key=lambda item: item[1].score)

    @property
    def wins(self) -> bool:
        return self.best[1].score > self.recorded.score + self.margin


@dataclass
class Headroom:
    decisions: list[DecisionHeadroom] = field(default_factory=list)
    runs: int = 0
    """Runs with a branched decision."""
    rollouts: int = 0
    rollout_seconds: float = 0.0
    errors: list[dict[str, str]] = field(default_factory=list)
    searches: dict[str, int] = field(default_factory=dict)
    """Run path -> searches the recorded run made."""
    recorded_recall: dict[str, float | None] = field(default_factory=dict)
    """Run path -> gold recall of the recorded run."""
    rolled: PairExport | None = None
    """The rollouts themselves (pairs and best-of-K rows can be made from them)."""
    settings: OutcomeSettings | None = None

    def by_kind(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for kind in sorted({d.kind for d in self.decisions}):
            rows = [d for d in self.decisions if d.kind == kind]
            out[kind] = kind_summary(rows)
        return out

    def stop_oracle(self) -> dict[str, Any]:
        """Stop at the earliest stop decision whose `stop` branch keeps the run's gold recall."""
        saved, total = 0, sum(self.searches.values())
        stopped = 0
        for path, searches in self.searches.items():
            base = self.recorded_recall.get(path)
            stops = sorted((d for d in self.decisions if d.path == path and d.kind == "stop"), key=lambda d: d.seq)
            for d in stops:
                stop = d.outcomes.get("stop")
                if stop is None or base is None or stop.gold_recall is None or stop.gold_recall < base:
                    continue
                saved += max(0, searches - stop.searches)
                stopped += 1
                break
        return {"runs": len(self.searches), "runs_stopped_early": stopped, "searches": total,
                "searches_saved": saved, "share_saved": round(saved / total, 4) if total else None}

    def follow_oracle(self) -> dict[str, Any]:
        """Runs whose every gold page is read: as recorded, and with the best follow option."""
        return self.all_gold_oracle("follow")

    def all_gold_oracle(self, kind: str) -> dict[str, Any]:
        """Runs whose every gold page is read: as recorded, and with the best option of one
        branched `kind` decision (a run counts once)."""
        recorded = sum(1 for r in self.recorded_recall.values() if r == 1.0)
        rescued = set()
        for d in self.decisions:
            if d.kind == kind and self.recorded_recall.get(d.path) != 1.0 \
                    and any(o.gold_recall == 1.0 for o in d.outcomes.values()):
                rescued.add(d.path)
        runs = len(self.recorded_recall)
        return {"runs": runs, "all_gold_recorded": round(recorded / runs, 4) if runs else None,
                "all_gold_oracle": round((recorded + len(rescued)) / runs, 4) if runs else None,
                "gain_points": round(100 * len(rescued) / runs, 2) if runs else None}

    def summary(self) -> dict[str, Any]:
        minutes = self.rollout_seconds / 60
        return {"runs": self.runs, "decisions": len(self.decisions), "rollouts": self.rollouts,
                "rollout_seconds": round(self.rollout_seconds, 2),
                "rollouts_per_minute": round(self.rollouts / minutes, 1) if minutes else None,
                "kinds": self.by_kind(), "stop_oracle": self.stop_oracle(), "follow_oracle": self.follow_oracle(),
                "errors": self.errors[:20], "error_count": len(self.errors)}


def kind_summary(rows: list[DecisionHeadroom]) -> dict[str, Any]:
    n = len(rows)
    wins = [d for d in rows if d.wins]
    gains = [d.best[1].score - d.recorded.score for d in rows]
    recall_gain, saved_share, all_gold = [], [], 0
    for d in rows:
        base = d.recorded
        if base.gold_recall is None:
            continue
        cheap = [o.gold_recall for o in d.outcomes.values() if o.searches <= base.searches and o.gold_recall is not None]
        recall_gain.append(max(cheap, default=base.gold_recall) - base.gold_recall)
        enough = [o.searches for o in d.outcomes.values() if o.gold_recall is not None and o.gold_recall >= base.gold_recall]
        if base.searches:
            saved_share.append((base.searches - min(enough, default=base.searches)) / base.searches)
        if base.gold_recall < 1.0 and any(o.gold_recall == 1.0 for o in d.outcomes.values()):
            all_gold += 1
    tags = Counter(t for d in wins for t in (d.tags or ("untagged",)))
    mean = lambda xs: round(sum(xs) / len(xs), 4) if xs else None  # noqa: E731
    return {"decisions": n, "winning": len(wins), "winning_share": round(len(wins) / n, 4) if n else None,
            "oracle_gain": mean(gains), "recall_at_equal_cost": mean(recall_gain),
            "searches_at_equal_recall": mean(saved_share), "all_gold_gain": round(all_gold / n, 4) if n else None,
            "winning_actions": dict(Counter(_action_kind(d) for d in wins)), "lose_tags": dict(tags.most_common())}


def _action_kind(d: DecisionHeadroom) -> str:
    """What the winning alternative did, coarsely: `stop`/`continue`, `no read`, `one more read`
    (a read's recorded hits plus one), or `other option`."""
    action = d.best[0]
    if d.kind == "stop":
        return action
    if action == "":
        return "no read"
    if d.kind == "read" and action.split(",")[:-1] == [i for i in d.recorded_action.split(",") if i]:
        return "one more read"
    return "other option"


def measure_headroom(paths: Iterable[Path], gold: GoldSet, decision: str = "all", per_kind: int | None = None,
                     kit: ResearchKit | None = None, corpus: str | Path | None = None,
                     settings: OutcomeSettings | None = None, engine: str = "serial", workers: int | None = None,
                     seed: int = 0, on_run: Callable[[Any], Any] | None = None,
                     read_options: str = "all") -> Headroom:
    """Branch every alternative of the sampled decisions of the runs at `paths` (see module docstring)."""
    if gold is None or not len(gold):
        raise ExportError("headroom needs gold evidence (--gold FILE from `citeloop gold`): the outcome of a "
                          "branch is measured against it")
    paths = list(paths)
    settings = settings or OutcomeSettings()
    settings = replace(settings, gold=gold, corpus=str(corpus) if corpus is not None else settings.corpus)
    searches: dict[str, int] = {}
    recorded: dict[str, float | None] = {}
    for path in map(str, paths):
        # Every run counts in the run-level oracles, those without a decision of the kind too.
        run = read_run(path)
        if run.finished:
            searches[path] = sum(1 for e in run.events if e.type == "query_issued")
            recorded[path] = gold.recall(run.header.spec.question, run.events)
    if not any(r is not None for r in recorded.values()):
        raise ExportError(f"none of the {len(recorded)} finished runs' questions has gold evidence in "
                          f"{gold.source or 'the gold file'}: write it for their data set with `citeloop gold`")
    started = time.perf_counter()
    rolled: PairExport = roll_decisions(paths, decision, ALL_ALTERNATIVES, settings, kit=kit, per_kind=per_kind,
                                        engine=engine, workers=workers, seed=seed, on_run=on_run,
                                        read_options=read_options)
    result = Headroom(rollouts=rolled.rollouts, rollout_seconds=time.perf_counter() - started,
                      runs=len(rolled.selection.runs), rolled=rolled, settings=settings, searches=searches,
                      recorded_recall=recorded)
    for ref in rolled.selection.decisions:
        key = (ref.path, ref.seq)
        if key in rolled.failed:
            result.errors.append({"path": ref.path, "seq": str(ref.seq), "reason": rolled.failed[key]})
            continue
        recorded_action, others = rolled.actions[key]
        outcomes = {a: rolled.outcomes[(ref.path, ref.seq, a)] for a in (recorded_action, *others)}
        result.decisions.append(DecisionHeadroom(ref.path, ref.seq, ref.kind, ref.tags, outcomes[recorded_action],
                                                 outcomes, settings.margin(ref.kind), recorded_action))
    return result
