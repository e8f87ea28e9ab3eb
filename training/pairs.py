"""Step-level preference pairs: branch a recorded run at a decision, compare the outcomes.

Decisions are chosen by training/sampling.py (tagged, deduplicated, balanced). Each is
branched once with its recorded action and once with each of up to K alternative actions;
every branch continues with the run's own policy, so the two sides of a pair differ only in
the action at that decision (training/rollouts.py, serially, in a process pool or on Ray).
Every two of a decision's K+1 outcomes are compared (the recorded action need not be one
side). A pair (prompt, chosen, rejected) is emitted when the outcome-score margin is at least
`min_margin` and the chosen side's report passes the verifier: at least one cited claim,
and every cited claim's verdict `entail`. Rows keep provenance: run, branch point, kind,
both outcome scores (and their gold recall, where gold exists), margin, policy versions.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from citeloop.filters.gold import GoldSet, question_key
from citeloop.runtime.policies.actions import EVENT_TYPE, INDEX_KINDS, format_action, read_one_more
from citeloop.runtime.policies.prompts import TEMPLATES, candidate_count
from citeloop.runtime.replay import policy_spec_of
from citeloop.runtime.session import ResearchKit
from citeloop.training.rollouts import (
    CustomScorer,
    Outcome,
    OutcomeSettings,
    RollJob,
    RollResult,
    roll_jobs,
)
from citeloop.training.sampling import DecisionRef, Selection, select_decisions
from citeloop.training.sft import ExportError, counts_by_kind, split_of
from citeloop.trajectories.events import Event
from citeloop.trajectories.header import content_digest
from citeloop.trajectories.runfile import RunFile


INDEX_DECISIONS = tuple(EVENT_TYPE[kind] for kind in INDEX_KINDS)
"""Decisions whose action is one candidate index (`branch_run` takes the index)."""


def _ids(event: Event) -> list[str]:
    """Candidate ids of a read or keep decision, in candidate order."""
    if event.type == "read_decision":
        return list(event.candidates)  # type: ignore[union-attr]
    return [c.sid for c in event.candidates]  # type: ignore[union-attr]


READ_OPTIONS = ("all", "one_more")
"""Which alternatives a read decision is branched with: `all` (each single hit, reading nothing,
then the reads plus one more hit each) or `one_more` (only the last: what a read policy under a
deferral margin chooses among, so its training rows and its threshold see the same options)."""


def alternatives(event: Event, k: int, read_options: str = "all") -> list[str]:
    """Up to `k` actions other than the recorded one, as `branch_run` action strings (deterministic order)."""
    if event.type == "stop_decision":
        options = ["stop" if event.choice == "continue" else "continue"]  # type: ignore[union-attr]
    elif event.type in INDEX_DECISIONS:
        options = [str(i) for i in range(len(event.candidates)) if i != event.choice]  # type: ignore[union-attr]
    else:
        chosen = list(event.choice)  # type: ignore[union-attr]
        room = event.state.reads_left if event.type == "read_decision" else len(chosen) + 1  # type: ignore[union-attr]
        singles = [[i] for i in _ids(event) if [i] != chosen] if room >= 1 else []
        # A read decision also offers its reads plus one more hit each (what a deferral margin
        # chooses among, `read_one_more`), after the singles and reading nothing.
        more = read_one_more(chosen, _ids(event), room)[1:] if event.type == "read_decision" else []
        if read_options == "one_more" and event.type == "read_decision":
            singles, chosen = [], []
        options = list(dict.fromkeys(",".join(o) for o in singles + ([[]] if chosen else []) + more))
    return options[:k]


def action_of(event: Event, action: str) -> Any:
    """A `branch_run` action string as the action value of runtime/policies/actions.py."""
    if event.type == "stop_decision":
        return action
    if event.type in INDEX_DECISIONS:
        return int(action)
    ids = _ids(event)
    return tuple(ids.index(i) for i in action.split(",") if i)


def action_string(event: Event, action: Any) -> str:
    """An action value of runtime/policies/actions.py as a `branch_run` action string (inverse of `action_of`)."""
    if event.type == "stop_decision" or event.type in INDEX_DECISIONS:
        return str(action)
    ids = _ids(event)
    return ",".join(ids[i] for i in action)


def branch_action(event: Event) -> str:
    """The recorded choice as a `branch_run` action string."""
    if event.type == "stop_decision":
        return event.choice  # type: ignore[union-attr,return-value]
    if event.type in INDEX_DECISIONS:
        return str(event.choice)  # type: ignore[union-attr]
    return ",".join(event.choice)  # type: ignore[union-attr]


@dataclass
class PairExport:
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {"train": [], "test": []})
    runs: list[dict[str, Any]] = field(default_factory=list)
    selection: Selection = field(default_factory=Selection)
    examined: Counter = field(default_factory=Counter)
    """Decisions branched, by kind."""
    rollouts: int = 0
    rollout_seconds: float = 0.0
    left_out: Counter = field(default_factory=Counter)
    """Candidate pairs not emitted, by reason."""
    errors: list[dict[str, str]] = field(default_factory=list)
    """Decisions that could not be branched, and why."""
    duplicates: int = 0
    engine: str = "serial"
    workers: int = 1
    outcomes: dict[tuple[str, int, str], Outcome] = field(default_factory=dict)
    """(run path, decision seq, action) -> the scored branch."""
    failed: dict[tuple[str, int], str] = field(default_factory=dict)
    """(run path, decision seq) -> why it could not be branched."""
    actions: dict[tuple[str, int], tuple[str, list[str]]] = field(default_factory=dict)
    """(run path, decision seq) -> (recorded action, alternatives branched)."""

    def counts(self) -> dict[str, dict[str, int]]:
        return counts_by_kind(self.rows)

    def all_rows(self) -> list[dict[str, Any]]:
        return [r for split_rows in self.rows.values() for r in split_rows]

    def gold_agreement(self) -> dict[str, Any]:
        """How often `chosen` really read more gold evidence than `rejected`, where gold exists."""
        both = [r for r in self.all_rows() if r["chosen_gold_recall"] is not None]
        agree = sum(r["chosen_gold_recall"] > r["rejected_gold_recall"] for r in both)
        tie = sum(r["chosen_gold_recall"] == r["rejected_gold_recall"] for r in both)
        return {"pairs_with_gold": len(both), "agree": agree, "tie": tie, "disagree": len(both) - agree - tie,
                "agreement": round(agree / len(both), 4) if both else None}

    def summary(self, command: str, test_share: float, outcome_score: str) -> dict[str, Any]:
        """Counts, margins, source runs and what was left out: the dataset card's facts."""
        rows = self.all_rows()
        margins = sorted(r["margin"] for r in rows)
        edges = [0.05, 0.1, 0.2, 0.5]
        labels = ["< 0.05", "0.05-0.1", "0.1-0.2", "0.2-0.5", ">= 0.5"]
        histogram = Counter(labels[sum(m >= e for e in edges)] for m in margins)
        minutes = self.rollout_seconds / 60
        return {
            "command": command, "test_share": test_share, "outcome_score": outcome_score,
            "rows": {split: len(r) for split, r in self.rows.items()}, "counts": self.counts(),
            "questions": {split: len({question_key(r["question"]) for r in split_rows})
                          for split, split_rows in self.rows.items()},
            "available": dict(sorted(self.selection.available.items())),
            "examined": dict(sorted(self.examined.items())), "rollouts": self.rollouts,
            "engine": self.engine, "workers": self.workers,
            "rollout_seconds": round(self.rollout_seconds, 2),
            "pairs_per_minute": round(len(rows) / minutes, 1) if minutes else None,
            "margins": {"min": margins[0] if margins else None, "max": margins[-1] if margins else None,
                        "median": margins[len(margins) // 2] if margins else None,
                        "mean": round(sum(margins) / len(margins), 4) if margins else None,
                        "histogram": {label: histogram.get(label, 0) for label in labels}},
            "outcome_basis": dict(Counter(r["outcome_basis"] for r in rows)),
            "gold_agreement": self.gold_agreement(),
            "state_tags": {"selected": self.selection.tag_counts(),
                           "in_pairs": dict(Counter(t for r in rows for t in r["state_tags"]))},
            "mix": self.selection.mix(),
            "left_out": dict(sorted(self.left_out.items())), "duplicates": self.duplicates,
            "duplicate_states": self.selection.duplicates,
            "skipped_decisions": dict(sorted(self.selection.skipped.items())),
            "skipped_runs": self.selection.skipped_runs,
            "errors": self.errors, "runs": self.runs,
        }


def pair_row(event: Event, ref: DecisionRef, run: RunFile, chosen: tuple[str, Outcome],
             rejected: tuple[str, Outcome]) -> dict[str, Any]:
    n = candidate_count(event)
    spec = run.header.spec

    def msg(action: str) -> list[dict[str, str]]:
        return [{"role": "assistant", "content": format_action(ref.kind, action_of(event, action), n)}]

    return {
        "prompt": list(ref.prompt), "chosen": msg(chosen[0]), "rejected": msg(rejected[0]),
        "decision": ref.kind, "n_candidates": n, "run_id": run.run_id, "seq": event.seq, "subq": event.subq,
        "question": spec.question, "policy_name": event.policy.name,  # type: ignore[union-attr]
        "policy_version": event.policy.version,  # type: ignore[union-attr]
        "continuation_policy": policy_spec_of(run.header),
        "chosen_score": chosen[1].score, "rejected_score": rejected[1].score,
        "margin": round(chosen[1].score - rejected[1].score, 6),
        "outcome_basis": chosen[1].basis,
        "chosen_gold_recall": chosen[1].gold_recall, "rejected_gold_recall": rejected[1].gold_recall,
        "chosen_searches": chosen[1].searches, "rejected_searches": rejected[1].searches,
        "chosen_is_recorded": chosen[0] == branch_action(event),
        "chosen_run_id": chosen[1].run_id, "rejected_run_id": rejected[1].run_id,
        "state_tags": list(ref.tags),
        "corpus": spec.corpus_source, "seed": spec.seed,
        "template_id": TEMPLATES[ref.kind].id, "template_version": TEMPLATES[ref.kind].version,
    }


def _jobs(selection: Selection, k: int,
          read_options: str = "all") -> tuple[list[RollJob], dict[tuple[str, int], tuple[str, list[str]]]]:
    """One roll job per run; and per decision, its recorded action and alternatives."""
    by_path: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    actions: dict[tuple[str, int], tuple[str, list[str]]] = {}
    for ref in selection.decisions:
        event = event_at(selection.runs[ref.path], ref.seq)
        base, others = branch_action(event), alternatives(event, k, read_options)
        actions[(ref.path, ref.seq)] = (base, others)
        by_path.setdefault(ref.path, []).append((ref.seq, (base, *others)))
    return [RollJob(path, tuple(ds)) for path, ds in by_path.items()], actions


def event_at(run: RunFile, seq: int) -> Event:
    return run.events[seq] if seq < len(run.events) and run.events[seq].seq == seq else next(
        e for e in run.events if e.seq == seq)


def roll_decisions(paths: Iterable[Path], decision: str, alternatives_k: int, settings: OutcomeSettings,
                   kit: ResearchKit | None = None, per_kind: int | None = None, engine: str = "serial",
                   workers: int | None = None, seed: int = 0,
                   on_run: Callable[[RollResult], Any] | None = None, read_options: str = "all") -> PairExport:
    """Select the decisions of the runs at `paths`, branch each with its recorded action and up
    to `alternatives_k` others (`read_options`: see READ_OPTIONS), and score every branch: the
    rollouts pairs, best-of-K rows and the headroom report are all made from."""
    if alternatives_k < 1:
        raise ExportError(f"--alternatives {alternatives_k}: give at least 1")
    if read_options not in READ_OPTIONS:
        raise ExportError(f"read options {read_options!r}: give one of {', '.join(READ_OPTIONS)}")
    selection = select_decisions(paths, decision, per_kind, seed)
    jobs, actions = _jobs(selection, alternatives_k, read_options)
    result = PairExport(selection=selection, engine=engine, workers=workers or 1)
    started = time.perf_counter()
    try:
        rolled = roll_jobs(jobs, settings, engine=engine, workers=workers, kit=kit, on_done=on_run)
    except ValueError as exc:
        raise ExportError(str(exc)) from exc
    result.rollout_seconds = time.perf_counter() - started
    result.outcomes = {(r.path, seq, a): o for r in rolled for (seq, a), o in r.outcomes.items()}
    result.failed = {(r.path, seq): why for r in rolled for seq, why in r.errors.items()}
    result.actions = actions
    result.rollouts = sum(r.rollouts for r in rolled)
    return result


def export_pairs(paths: Iterable[Path], decision: str = "all", alternatives_k: int = 2, min_margin: float = 0.05,
                 test_share: float = 0.1, kit: ResearchKit | None = None, search_cost: float = 0.03,
                 gold: GoldSet | None = None, corpus: str | Path | None = None, per_kind: int | None = None,
                 engine: str = "serial", workers: int | None = None, seed: int = 0,
                 outcome: CustomScorer | None = None, score_by_gold: bool = True,
                 on_run: Callable[[RollResult], Any] | None = None, read_cost: float = 0.01) -> PairExport:
    """Preference pairs from branching the runs at `paths` (see module docstring)."""
    if min_margin < 0:
        raise ExportError(f"--min-margin {min_margin} is negative")
    if not 0.0 <= test_share <= 1.0:
        raise ExportError(f"--test-share {test_share} is not between 0 and 1")
    settings = OutcomeSettings(search_cost=search_cost, read_cost=read_cost, gold=gold,
                               corpus=str(corpus) if corpus is not None else None, custom=outcome,
                               score_by_gold=score_by_gold)
    result = roll_decisions(paths, decision, alternatives_k, settings, kit=kit, per_kind=per_kind, engine=engine,
                            workers=workers, seed=seed, on_run=on_run)
    return emit_pairs(result, min_margin, test_share, score_by_gold, settings)


def emit_pairs(rolled: PairExport, min_margin: float, test_share: float, score_by_gold: bool = True,
               settings: OutcomeSettings | None = None) -> PairExport:
    """The pairs of `rolled`'s outcomes: every two outcomes of a decision, compared (see module docstring).

    Rescoring (`score_by_gold`) reuses the rollouts, so gold-scored and gold-free pair sets of
    the same decisions cost one set of rollouts."""
    result = PairExport(selection=rolled.selection, rollouts=rolled.rollouts, rollout_seconds=rolled.rollout_seconds,
                        engine=rolled.engine, workers=rolled.workers, outcomes=rolled.outcomes,
                        failed=rolled.failed, actions=rolled.actions)
    emitted: Counter = Counter()
    seen: set[str] = set()
    for ref in result.selection.decisions:
        if (ref.path, ref.seq) in result.failed:
            result.errors.append({"path": ref.path, "seq": str(ref.seq), "reason": result.failed[(ref.path, ref.seq)]})
            continue
        run, (base_action, others) = result.selection.runs[ref.path], result.actions[(ref.path, ref.seq)]
        event = event_at(run, ref.seq)
        result.examined[ref.kind] += 1
        group = [(a, result.outcomes[(ref.path, ref.seq, a)].rescored(score_by_gold, settings or OutcomeSettings()))
                 for a in (base_action, *others)]
        for first, second in combinations(group, 2):
            chosen, rejected = (first, second) if first[1].score >= second[1].score else (second, first)
            if chosen[1].score == rejected[1].score:
                result.left_out["both outcomes score the same"] += 1
            elif chosen[1].score - rejected[1].score < min_margin:
                result.left_out["margin below --min-margin"] += 1
            elif not chosen[1].verified:
                result.left_out["chosen side fails the verifier"] += 1
            else:
                row = pair_row(event, ref, run, chosen, rejected)
                key = content_digest([row["prompt"], row["chosen"], row["rejected"]])
                if key in seen:
                    result.duplicates += 1
                    continue
                seen.add(key)
                result.rows[split_of(ref.question, test_share)].append(row)
                emitted[ref.path] += 1
    for path, run in result.selection.runs.items():
        spec = run.header.spec
        result.runs.append({"run_id": run.run_id, "path": path, "question": spec.question,
                            "corpus": spec.corpus_source, "policy": policy_spec_of(run.header),
                            "seed": spec.seed, "pairs": emitted[path]})
    return result
