"""Step-level preference pairs: branch a recorded run at a decision, compare the outcomes.

For each policy decision of the chosen kinds, the run is branched (runtime/branch.py) once
with its recorded action and once with each of up to K alternative actions; every branch
continues with the run's own policy, so the two sides of a pair differ only in the action
at that decision. Each outcome is scored (`outcome_score`): the mean of citation
correctness, coverage and one minus the unsupported-claim rate (filters/metrics.py; a
metric not computed counts 0, since an empty report has earned nothing), minus a cost per
search. A pair (prompt, chosen, rejected) is emitted when the score margin is at least
`min_margin` and the chosen side's report passes the verifier: at least one cited claim,
and every cited claim's verdict `entail`.

A scorer with gold evidence can be passed as `outcome` (a callable on the rolled-out run);
the gold sets live in eval/, which this layer may not import.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filters.metrics import score_run
from runtime.branch import branch_run
from runtime.replay import ReplayError, policy_spec_of
from runtime.session import ResearchKit
from runtime.policies.actions import EVENT_TYPE, KIND_OF_EVENT, format_action
from runtime.policies.prompts import RunContext, candidate_count, recorded_action, render_prompt
from training.sft import UNPOLICIED, ExportError, decision_kinds, question_key, split_of
from trajectories.events import DECISION_TYPES, BaseEvent, Event
from trajectories.header import RunHeader, content_digest
from trajectories.runfile import RunFile, read_run


@dataclass(frozen=True)
class Outcome:
    score: float
    verified: bool
    """The report has a cited claim and every cited claim's verdict is `entail`."""
    run_id: str


OutcomeScorer = Callable[[RunHeader, list[BaseEvent]], float]


def filter_score(search_cost: float = 0.01) -> OutcomeScorer:
    """Citation correctness, coverage and supported share (None counts 0), minus `search_cost` per search."""
    def score(header: RunHeader, events: list[BaseEvent]) -> float:
        s = score_run(events, header=header)
        supported = 1.0 - s.unsupported_claim_rate if s.unsupported_claim_rate is not None else 0.0
        quality = ((s.citation_correctness or 0.0) + (s.coverage or 0.0) + supported) / 3
        return round(quality - search_cost * s.searches, 6)
    return score


def report_verified(events: list[BaseEvent]) -> bool:
    report = next((e.report for e in reversed(events) if e.type == "report"), None)  # type: ignore[attr-defined]
    if report is None:
        return False
    cited = [c for section in report.sections for c in section.claims if c.citations]
    return bool(cited) and all(c.verdict == "entail" for c in cited)


def _ids(event: Event) -> list[str]:
    """Candidate ids of a read or keep decision, in candidate order."""
    if event.type == "read_decision":
        return list(event.candidates)  # type: ignore[union-attr]
    return [c.sid for c in event.candidates]  # type: ignore[union-attr]


def alternatives(event: Event, k: int) -> list[str]:
    """Up to `k` actions other than the recorded one, as `branch_run` action strings (deterministic order)."""
    if event.type == "stop_decision":
        options = ["stop" if event.choice == "continue" else "continue"]  # type: ignore[union-attr]
    elif event.type == "angle_decision":
        options = [str(i) for i in range(len(event.candidates)) if i != event.choice]  # type: ignore[union-attr]
    else:
        chosen = list(event.choice)  # type: ignore[union-attr]
        room = event.state.reads_left if event.type == "read_decision" else len(chosen) + 1  # type: ignore[union-attr]
        singles = [[i] for i in _ids(event) if [i] != chosen] if room >= 1 else []
        options = [",".join(o) for o in singles + ([[]] if chosen else [])]
    return options[:k]


def action_of(event: Event, action: str) -> Any:
    """A `branch_run` action string as the action value of runtime/policies/actions.py."""
    if event.type == "stop_decision":
        return action
    if event.type == "angle_decision":
        return int(action)
    ids = _ids(event)
    return tuple(ids.index(i) for i in action.split(",") if i)


def branch_action(event: Event) -> str:
    """The recorded choice as a `branch_run` action string."""
    if event.type == "stop_decision":
        return event.choice  # type: ignore[union-attr,return-value]
    if event.type == "angle_decision":
        return str(event.choice)  # type: ignore[union-attr]
    return ",".join(event.choice)  # type: ignore[union-attr]


@dataclass
class PairExport:
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {"train": [], "test": []})
    runs: list[dict[str, Any]] = field(default_factory=list)
    examined: Counter = field(default_factory=Counter)
    """Decisions branched, by kind."""
    rollouts: int = 0
    left_out: Counter = field(default_factory=Counter)
    """Candidate pairs not emitted, by reason."""
    errors: list[dict[str, str]] = field(default_factory=list)
    """Decisions that could not be branched, and why."""
    duplicates: int = 0

    def counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for split, rows in self.rows.items():
            for row in rows:
                out.setdefault(row["decision"], {"train": 0, "test": 0})[split] += 1
        return dict(sorted(out.items()))

    def summary(self, command: str, test_share: float, outcome_score: str) -> dict[str, Any]:
        """Counts, margins, source runs and what was left out: the dataset card's facts."""
        rows = [r for split_rows in self.rows.values() for r in split_rows]
        margins = sorted(r["margin"] for r in rows)
        edges = [0.05, 0.1, 0.2, 0.5]
        labels = ["< 0.05", "0.05-0.1", "0.1-0.2", "0.2-0.5", ">= 0.5"]
        histogram = Counter(labels[sum(m >= e for e in edges)] for m in margins)
        return {
            "command": command, "test_share": test_share, "outcome_score": outcome_score,
            "rows": {split: len(r) for split, r in self.rows.items()}, "counts": self.counts(),
            "questions": {split: len({question_key(r["question"]) for r in split_rows})
                          for split, split_rows in self.rows.items()},
            "examined": dict(sorted(self.examined.items())), "rollouts": self.rollouts,
            "margins": {"min": margins[0] if margins else None, "max": margins[-1] if margins else None,
                        "median": margins[len(margins) // 2] if margins else None,
                        "mean": round(sum(margins) / len(margins), 4) if margins else None,
                        "histogram": {label: histogram.get(label, 0) for label in labels}},
            "left_out": dict(sorted(self.left_out.items())), "duplicates": self.duplicates,
            "errors": self.errors, "runs": self.runs,
        }


class _Roller:
    """Branches one run and scores each branch once per action."""

    def __init__(self, run: RunFile, kit: ResearchKit | None, outcome: OutcomeScorer, result: PairExport) -> None:
        self.run, self.kit, self.outcome, self.result = run, kit, outcome, result
        self.cache: dict[tuple[int, str], Outcome] = {}

    def roll(self, seq: int, action: str) -> Outcome:
        key = (seq, action)
        if key not in self.cache:
            branch = branch_run(self.run, seq, action, kit=self.kit)
            self.result.rollouts += 1
            self.cache[key] = Outcome(self.outcome(branch.header, branch.events), report_verified(branch.events),
                                      branch.header.run_id)
        return self.cache[key]


def pair_row(event: Event, run: RunFile, ctx: RunContext, chosen: tuple[str, Outcome],
             rejected: tuple[str, Outcome]) -> dict[str, Any]:
    kind = KIND_OF_EVENT[event.type]
    prompt, template = render_prompt(event, ctx)
    n = candidate_count(event)
    spec = run.header.spec

    def msg(action: str) -> list[dict[str, str]]:
        return [{"role": "assistant", "content": format_action(kind, action_of(event, action), n)}]

    return {
        "prompt": prompt, "chosen": msg(chosen[0]), "rejected": msg(rejected[0]),
        "decision": kind, "n_candidates": n, "run_id": run.run_id, "seq": event.seq, "subq": event.subq,
        "question": spec.question, "policy_name": event.policy.name,  # type: ignore[union-attr]
        "policy_version": event.policy.version,  # type: ignore[union-attr]
        "continuation_policy": policy_spec_of(run.header),
        "chosen_score": chosen[1].score, "rejected_score": rejected[1].score,
        "margin": round(chosen[1].score - rejected[1].score, 6),
        "chosen_is_recorded": chosen[0] == branch_action(event),
        "chosen_run_id": chosen[1].run_id, "rejected_run_id": rejected[1].run_id,
        "corpus": spec.corpus_source, "seed": spec.seed,
        "template_id": template.id, "template_version": template.version,
    }


def export_pairs(paths: Iterable[Path], decision: str = "all", alternatives_k: int = 2, min_margin: float = 0.05,
                 test_share: float = 0.1, kit: ResearchKit | None = None,
                 outcome: OutcomeScorer | None = None) -> PairExport:
    """Preference pairs from branching the runs at `paths` (see module docstring)."""
    if alternatives_k < 1:
        raise ExportError(f"--alternatives {alternatives_k}: give at least 1")
    if min_margin < 0:
        raise ExportError(f"--min-margin {min_margin} is negative")
    if not 0.0 <= test_share <= 1.0:
        raise ExportError(f"--test-share {test_share} is not between 0 and 1")
    wanted = {EVENT_TYPE[k] for k in decision_kinds(decision)}
    outcome = outcome or filter_score()
    result = PairExport()
    seen: set[str] = set()
    for path in paths:
        run = read_run(path)
        if not run.finished:
            result.errors.append({"path": str(path), "seq": "-", "reason": f"unfinished run ({run.problem})"})
            continue
        ctx, roller, emitted = RunContext.of(run), _Roller(run, kit, outcome, result), 0
        split = split_of(run.header.spec.question, test_share)
        for event in run.events:
            if event.type not in DECISION_TYPES or event.type not in wanted:
                continue
            if event.policy.name in UNPOLICIED:  # type: ignore[attr-defined]
                continue
            try:
                recorded_action(event)  # a choice outside the candidates cannot be rendered
                base_action = branch_action(event)
                base = roller.roll(event.seq, base_action)
                others = [(a, roller.roll(event.seq, a)) for a in alternatives(event, alternatives_k)]
            except (ReplayError, ValueError) as exc:
                result.errors.append({"path": str(path), "seq": str(event.seq), "reason": str(exc)})
                continue
            result.examined[KIND_OF_EVENT[event.type]] += 1
            for alt in others:
                recorded = (base_action, base)
                chosen, rejected = (recorded, alt) if base.score >= alt[1].score else (alt, recorded)
                if chosen[1].score == rejected[1].score:
                    result.left_out["both outcomes score the same"] += 1
                    continue
                if chosen[1].score - rejected[1].score < min_margin:
                    result.left_out["margin below --min-margin"] += 1
                    continue
                if not chosen[1].verified:
                    result.left_out["chosen side fails the verifier"] += 1
                    continue
                row = pair_row(event, run, ctx, chosen, rejected)
                key = content_digest([row["prompt"], row["chosen"], row["rejected"]])
                if key in seen:
                    result.duplicates += 1
                    continue
                seen.add(key)
                result.rows[split].append(row)
                emitted += 1
        spec = run.header.spec
        result.runs.append({"run_id": run.run_id, "path": str(path), "question": spec.question,
                            "corpus": spec.corpus_source, "policy": policy_spec_of(run.header),
                            "seed": spec.seed, "pairs": emitted})
    return result
