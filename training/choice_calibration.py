"""A deferral threshold fitted on training questions: when a trained angle, follow or read policy
may overrule the heuristic it learned from.

A small policy model trained on best-of-K rows ranks a decision's options; where it is unsure
its first choice is often worse than the rule's (the rows that teach a change are a minority).
The rule "take the model's likeliest option only when its whole-sequence log-probability beats
the heuristic's option by more than t, else the heuristic's" keeps the teacher where the model
is unsure and follows the model where it is sure; t = infinity is the teacher itself.

`fit_defer_margin` picks t to maximise the mean outcome score (training/outcomes.py) over the
branched decisions of the **training** runs, each decision scored by the branch the rule takes
there: the heuristic's option (recomputed from the recorded state, so explorers' decisions count
too) or the model's, and after it the run's own policy. That is a one-step estimate: it does not
follow the rule into the later decisions of a run. Ties go to the larger threshold (fewer
changes). The evaluation questions are never looked at.

For read (`read_points`) the options are the heuristic's reads and those plus one more hit each
(`read_one_more`); the heuristic's reads depend on hit relevance the event does not record, so
only decisions the heuristic itself took count (explorers' reads are left out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from citeloop.runtime.policies.actions import INDEX_KINDS, format_action, read_one_more
from citeloop.runtime.policies.base import AngleCandidate
from citeloop.runtime.policies.heuristic import HeuristicAngle, HeuristicFollow, HeuristicRead
from citeloop.training.calibration import NEVER, fit_threshold, mean
from citeloop.training.outcomes import Outcome
from citeloop.training.pairs import PairExport, event_at
from citeloop.trajectories.events import Event


@dataclass(frozen=True)
class ChoicePoint:
    """One branched decision of a training run, with the model's view of it and both outcomes."""

    path: str
    seq: int
    teacher: int
    """The heuristic's option at the recorded state (candidate index; for read, 0: its reads)."""
    best: int
    """The model's likeliest option (for read, an index into `read_one_more`'s options)."""
    margin: float
    """logprob(best) - logprob(teacher); 0 when they are the same."""
    kept: Outcome
    """The branch taking the heuristic's option."""
    overruled: Outcome | None
    """The branch taking `best` (None when `best` is the heuristic's option)."""


def teacher_choice(event: Event) -> int:
    """The heuristic's option at a recorded angle or follow decision (a function of its state)."""
    if event.type == "angle_decision":
        candidates = [AngleCandidate(angle, query) for angle, query in zip(event.angles, event.candidates)]  # type: ignore[attr-defined]
        return int(HeuristicAngle().choose_angle(event.state, candidates).value)  # type: ignore[attr-defined,call-overload]
    if event.type == "follow_decision":
        return int(HeuristicFollow().choose_follow(event.state, list(event.candidates)).value)  # type: ignore[attr-defined,call-overload]
    raise ValueError(f"no heuristic option for a {event.type} event")


def simulate_choices(points: Sequence[ChoicePoint], threshold: float) -> dict[str, Any]:
    """Mean score, gold recall, searches and reads over the decisions under "the model's best
    option iff its margin over the heuristic's > threshold", and how many it changed."""
    overrule = [p.overruled is not None and p.margin > threshold for p in points]
    taken = [p.overruled if change else p.kept for p, change in zip(points, overrule)]
    recalls = [o.gold_recall for o in taken if o.gold_recall is not None]  # type: ignore[union-attr]
    return {"threshold": threshold, "decisions": len(points), "changed": sum(overrule),
            "score": mean([o.score for o in taken]), "gold_recall": mean(recalls),
            "searches": mean([float(o.searches) for o in taken]), "reads": mean([float(o.reads) for o in taken])}


def fit_defer_margin(points: Sequence[ChoicePoint]) -> tuple[float, list[dict[str, Any]]]:
    """The threshold with the best mean training score (ties: the larger), and every candidate's figures."""
    if not points:
        raise ValueError("no branched decisions to fit a deferral threshold on")
    return fit_threshold([p.margin for p in points if p.overruled is not None], lambda t: simulate_choices(points, t))


def choice_points(rolled: PairExport, kind: str,
                  scores_of: Callable[[list[dict[str, str]], int], dict[int, float]]) -> list[ChoicePoint]:
    """Every branched `kind` decision of `rolled` whose heuristic option and model option were both
    branched, with the model's option scores for its rendered prompt (`scores_of(messages, n)`:
    candidate index -> log-probability)."""
    if kind not in INDEX_KINDS:
        raise ValueError(f"deferral is fitted for {', '.join(INDEX_KINDS)} decisions, not {kind!r}")
    points = []
    for ref in rolled.selection.decisions:
        if ref.kind != kind or (ref.path, ref.seq) in rolled.failed:
            continue
        event = event_at(rolled.selection.runs[ref.path], ref.seq)
        teacher = teacher_choice(event)
        kept = rolled.outcomes.get((ref.path, ref.seq, str(teacher)))
        if kept is None:
            continue
        scores = scores_of(list(ref.prompt), len(event.candidates))  # type: ignore[attr-defined]
        best = max(sorted(scores), key=lambda i: scores[i])  # ties: the lowest index
        if best == teacher:
            points.append(ChoicePoint(ref.path, ref.seq, teacher, best, 0.0, kept, None))
            continue
        overruled = rolled.outcomes.get((ref.path, ref.seq, str(best)))
        if overruled is not None:
            points.append(ChoicePoint(ref.path, ref.seq, teacher, best, round(scores[best] - scores[teacher], 6),
                                      kept, overruled))
    return points


def read_points(rolled: PairExport,
                scores_of: Callable[[list[dict[str, str]], list[str]], dict[str, float]]) -> list[ChoicePoint]:
    """Every branched read decision the heuristic took in `rolled` whose reads and whose model
    option were both branched, with the model's scores of the `read_one_more` options for its
    rendered prompt (`scores_of(messages, option texts)`: text -> log-probability). A decision
    with no room for one more read is a point the model cannot change."""
    points = []
    for ref in rolled.selection.decisions:
        if ref.kind != "read" or (ref.path, ref.seq) in rolled.failed:
            continue
        event = event_at(rolled.selection.runs[ref.path], ref.seq)
        if event.policy.name != HeuristicRead.ref.name:  # type: ignore[attr-defined]
            continue
        chosen, candidates = list(event.choice), list(event.candidates)  # type: ignore[attr-defined]
        kept = rolled.outcomes.get((ref.path, ref.seq, ",".join(chosen)))
        if kept is None:
            continue
        options = read_one_more(chosen, candidates, event.state.reads_left)  # type: ignore[attr-defined]
        if len(options) == 1:
            points.append(ChoicePoint(ref.path, ref.seq, 0, 0, 0.0, kept, None))
            continue
        texts = [format_action("read", tuple(candidates.index(d) for d in o), len(candidates)) for o in options]
        scores = scores_of(list(ref.prompt), texts)
        best = max(range(len(texts)), key=lambda i: scores[texts[i]])  # ties: the lowest, the heuristic's reads
        if best == 0:
            points.append(ChoicePoint(ref.path, ref.seq, 0, 0, 0.0, kept, None))
            continue
        overruled = rolled.outcomes.get((ref.path, ref.seq, ",".join(options[best])))
        if overruled is not None:
            points.append(ChoicePoint(ref.path, ref.seq, 0, best, round(scores[texts[best]] - scores[texts[0]], 6),
                                      kept, overruled))
    return points


__all__ = ["NEVER", "ChoicePoint", "choice_points", "fit_defer_margin", "read_points", "simulate_choices",
           "teacher_choice"]
