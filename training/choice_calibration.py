"""A deferral threshold fitted on training questions: when a trained angle or follow policy
may overrule the heuristic it learned from.

A small policy model trained on best-of-K rows ranks a decision's options; where it is unsure
its first choice is often worse than the rule's (the rows that teach a change are a minority).
The rule "take the model's best option only when its whole-sequence log-probability beats
the heuristic's option by more than t, else the heuristic's" keeps the teacher where the model
is unsure and follows the model where it is confident; t = infinity is the teacher itself.

`fit_defer_margin` picks t to maximise the mean outcome score (training/outcomes.py) over the
**training** runs, each simulated from its branched decisions as `calibration.fit_stop_margin`
simulates stops: the run as recorded until its first decision where the rule overrules the
recorded choice, whose branch (that option, then the run's own policy) ends it. Only decisions
the heuristic took are points (the recorded choice is then the heuristic's option); a run with
no overruled decision keeps its recorded outcome. After the first overruled decision the
simulation lets the run's policy decide, while the deployed rule would keep deciding, so the fit
is exact for each run's first change only. Ties go to the larger threshold (fewer changes). The
evaluation questions are never looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from citeloop.runtime.policies.actions import INDEX_KINDS
from citeloop.training.calibration import NEVER, candidate_thresholds, mean
from citeloop.training.outcomes import Outcome
from citeloop.training.pairs import PairExport, event_at

TEACHER = "heuristic"
"""The policy name whose recorded decisions are calibration points."""


@dataclass(frozen=True)
class ChoicePoint:
    """One branched decision the heuristic took in a training run, with the model's view of it."""

    path: str
    seq: int
    best: int
    """The model's likeliest option (candidate index)."""
    margin: float
    """logprob(best) - logprob(the recorded option); 0 when they are the same."""
    recorded: Outcome
    overruled: Outcome | None
    """The branch taking `best` (None when `best` is the recorded option or was not branched)."""
    best_differs: bool = False
    """The model's likeliest option is not the recorded one."""


def simulate_choices(points: Sequence[ChoicePoint], threshold: float) -> dict[str, Any]:
    """Mean score, gold recall, searches and reads of the training runs under "the model's best
    option iff its margin over the heuristic's > threshold", and how many runs it changed."""
    by_run: dict[str, list[ChoicePoint]] = {}
    for p in points:
        by_run.setdefault(p.path, []).append(p)
    ends: list[Outcome] = []
    changed = 0
    for run_points in by_run.values():
        ordered = sorted(run_points, key=lambda p: p.seq)
        end = ordered[0].recorded  # every branch of the recorded choice is the run as recorded
        for p in ordered:
            if p.overruled is not None and p.margin > threshold:
                end, changed = p.overruled, changed + 1
                break
        ends.append(end)
    recalls = [o.gold_recall for o in ends if o.gold_recall is not None]
    return {"threshold": threshold, "runs": len(ends), "changed": changed,
            "score": mean([o.score for o in ends]), "gold_recall": mean(recalls),
            "searches": mean([float(o.searches) for o in ends]), "reads": mean([float(o.reads) for o in ends])}


def fit_defer_margin(points: Sequence[ChoicePoint]) -> tuple[float, list[dict[str, Any]]]:
    """The threshold with the best mean training score (ties: the larger), and every candidate's figures."""
    if not points:
        raise ValueError("no branched decisions of the heuristic to fit a deferral threshold on")
    margins = sorted({p.margin for p in points if p.overruled is not None})
    table = [simulate_choices(points, t) for t in candidate_thresholds(margins)]
    best = max(table, key=lambda row: (row["score"], row["threshold"]))
    return best["threshold"], table


def choice_points(rolled: PairExport, kind: str,
                  scores_of: Callable[[list[dict[str, str]], int], dict[int, float]]) -> list[ChoicePoint]:
    """Every branched `kind` decision of `rolled` the heuristic took, with the model's option
    scores for its rendered prompt (`scores_of(messages, n)`: candidate index -> log-probability)."""
    if kind not in INDEX_KINDS:
        raise ValueError(f"deferral is fitted for {', '.join(INDEX_KINDS)} decisions, not {kind!r}")
    points = []
    for ref in rolled.selection.decisions:
        if ref.kind != kind or (ref.path, ref.seq) in rolled.failed:
            continue
        event = event_at(rolled.selection.runs[ref.path], ref.seq)
        if event.policy.name != TEACHER:  # type: ignore[union-attr]
            continue
        chosen: int = event.choice  # type: ignore[union-attr]
        recorded = rolled.outcomes.get((ref.path, ref.seq, str(chosen)))
        if recorded is None:
            continue
        scores = scores_of(list(ref.prompt), len(event.candidates))  # type: ignore[union-attr]
        best = max(sorted(scores), key=lambda i: scores[i])  # ties: the lowest index
        margin = scores[best] - scores[chosen] if best != chosen else 0.0
        overruled = rolled.outcomes.get((ref.path, ref.seq, str(best))) if best != chosen else None
        points.append(ChoicePoint(ref.path, ref.seq, best, round(margin, 6), recorded, overruled, best != chosen))
    return points


__all__ = ["NEVER", "TEACHER", "ChoicePoint", "choice_points", "fit_defer_margin", "simulate_choices"]
