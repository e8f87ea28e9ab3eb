"""A decision threshold fitted on training questions: when a trained stop policy says STOP.

A policy model's log-probabilities of STOP and CONTINUE rank states, but taking the likelier
one is the wrong rule when the two mistakes cost differently: a wrong STOP loses the gold
evidence the rest of the run would have read, a wrong CONTINUE costs one search and its reads.
A model fitted to best-of-K rows where STOP is the majority answer says STOP almost everywhere
(measured: the SmolLM2 stop policy of `configs/loop/smollm2-stop-shift.yaml` stopped every run
at its first decision). Its margin, logprob(STOP) - logprob(CONTINUE), still grows with what
the state shows (later rounds score higher), so a threshold on it can keep the stops that are
safe.

`fit_stop_margin` picks the threshold t of the rule "STOP iff margin > t" that maximises the
mean outcome score (training/outcomes.py: gold recall + 0.5 x answer correct - search and read
costs) over the **training** runs, each simulated exactly from its branched decisions: the run
as recorded until its first decision whose margin exceeds t, whose STOP branch then ends it
(a decision the run recorded as STOP that the rule continues ends in its CONTINUE branch). Ties
go to the larger threshold (fewer stops). The evaluation questions are never looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from citeloop.training.outcomes import Outcome
from citeloop.training.pairs import PairExport, event_at

NEVER = float("inf")
"""The threshold that never stops early (the teacher's behaviour on the shared sets)."""


@dataclass(frozen=True)
class StopPoint:
    """One branched stop decision of a training run: the model's margin and both outcomes."""

    path: str
    seq: int
    margin: float
    recorded: str
    """The action the run took here ('continue' or 'stop')."""
    stop: Outcome
    cont: Outcome


def mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def fit_threshold(margins: Sequence[float], simulate_at: Callable[[float], dict[str, Any]]
                  ) -> tuple[float, list[dict[str, Any]]]:
    """The candidate threshold whose simulation (`simulate_at(t)`, a row with `score`) scores best
    (ties: the larger), and every candidate's row. Candidates: below every margin, between each
    two neighbouring (distinct) margins, and `NEVER`."""
    ordered = sorted(set(margins))
    candidates = ([ordered[0] - 1.0] + [(a + b) / 2 for a, b in zip(ordered, ordered[1:])] if ordered else []) + [NEVER]
    table = [simulate_at(t) for t in candidates]
    best = max(table, key=lambda row: (row["score"], row["threshold"]))
    return best["threshold"], table


def simulate(points: Sequence[StopPoint], threshold: float) -> dict[str, Any]:
    """Mean score, gold recall and searches of the training runs under "STOP iff margin > threshold"."""
    by_run: dict[str, list[StopPoint]] = {}
    for p in points:
        by_run.setdefault(p.path, []).append(p)
    ends: list[Outcome] = []
    for run_points in by_run.values():
        ordered = sorted(run_points, key=lambda p: p.seq)
        end = ordered[-1].cont  # never stopped early: the run as recorded, past its last decision
        for p in ordered:
            if p.margin > threshold:
                end = p.stop
                break
            if p.recorded == "stop":  # the run stopped here; the rule goes on: its CONTINUE branch
                end = p.cont
                break
        ends.append(end)
    recalls = [o.gold_recall for o in ends if o.gold_recall is not None]
    return {"threshold": threshold, "runs": len(ends), "score": mean([o.score for o in ends]),
            "gold_recall": mean(recalls), "searches": mean([float(o.searches) for o in ends])}


def fit_stop_margin(points: Sequence[StopPoint]) -> tuple[float, list[dict[str, Any]]]:
    """The threshold with the best mean training score (ties: the larger), and every candidate's figures.

    Candidates: below every margin (always STOP at the first decision), between each two
    neighbouring margins, and `NEVER`."""
    if not points:
        raise ValueError("no branched stop decisions to fit a threshold on")
    return fit_threshold([p.margin for p in points], lambda t: simulate(points, t))


def stop_points(rolled: PairExport, margin_of: Callable[[list[dict[str, str]]], float]) -> list[StopPoint]:
    """Every branched stop decision of `rolled` with the model's margin for its rendered prompt."""
    points = []
    for ref in rolled.selection.decisions:
        if ref.kind != "stop" or (ref.path, ref.seq) in rolled.failed:
            continue
        event = event_at(rolled.selection.runs[ref.path], ref.seq)
        outcomes = {a: rolled.outcomes[(ref.path, ref.seq, a)] for a in ("stop", "continue")
                    if (ref.path, ref.seq, a) in rolled.outcomes}
        if len(outcomes) < 2:
            continue
        points.append(StopPoint(ref.path, ref.seq, margin_of(list(ref.prompt)), event.choice,  # type: ignore[union-attr]
                                outcomes["stop"], outcomes["continue"]))
    return points
