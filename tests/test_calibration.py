"""training/calibration.py: the stop threshold fitted on training runs, simulated from branches."""

from __future__ import annotations

import math

import pytest

from citeloop.training.calibration import NEVER, StopPoint, fit_stop_margin, simulate
from citeloop.training.outcomes import Outcome


def _o(score: float, recall: float, searches: int) -> Outcome:
    return Outcome(score=score, basis="gold_recall", verified=True, gold_recall=recall, searches=searches,
                   run_id="r", filters_score=0.0)


# Two runs, two stop decisions each (rounds 1 and 2). Run a: stopping at round 1 loses half the
# gold; at round 2 nothing. Run b: stopping is free at both. The model's margins grow by round.
POINTS = [
    StopPoint("a", 10, 1.0, "continue", stop=_o(0.40, 0.5, 1), cont=_o(0.85, 1.0, 3)),
    StopPoint("a", 20, 2.0, "continue", stop=_o(0.94, 1.0, 2), cont=_o(0.85, 1.0, 3)),
    StopPoint("b", 10, 1.2, "continue", stop=_o(0.97, 1.0, 1), cont=_o(0.85, 1.0, 3)),
    StopPoint("b", 20, 2.2, "continue", stop=_o(0.94, 1.0, 2), cont=_o(0.85, 1.0, 3)),
]


def test_the_rule_is_simulated_from_the_branches() -> None:
    never = simulate(POINTS, NEVER)  # each run as recorded: its last decision's CONTINUE branch
    assert (never["score"], never["gold_recall"], never["searches"]) == (0.85, 1.0, 3.0)
    always = simulate(POINTS, 0.0)  # the first decision stops
    assert always["score"] == pytest.approx((0.40 + 0.97) / 2) and always["gold_recall"] == 0.75
    round_two = simulate(POINTS, 1.5)
    assert round_two["score"] == 0.94 and round_two["searches"] == 2.0 and round_two["gold_recall"] == 1.0


def test_the_fitted_threshold_maximises_the_training_score_and_ties_go_to_fewer_stops() -> None:
    threshold, table = fit_stop_margin(POINTS)
    # Between 1.0 and 1.2 run a continues and run b stops at round 1: (0.94 + 0.97) / 2 beats all.
    assert threshold == pytest.approx(1.1)
    assert max(row["score"] for row in table) == simulate(POINTS, threshold)["score"] == pytest.approx(0.955)
    assert math.isinf(table[-1]["threshold"])
    flat = [StopPoint(p.path, p.seq, p.margin, p.recorded, stop=p.cont, cont=p.cont) for p in POINTS]
    assert fit_stop_margin(flat)[0] == NEVER  # stopping never helps: the teacher's rule is kept
    with pytest.raises(ValueError, match="no branched stop decisions"):
        fit_stop_margin([])


def test_a_recorded_stop_that_the_rule_continues_ends_in_its_continue_branch() -> None:
    stopped = [StopPoint("c", 10, 1.0, "stop", stop=_o(0.5, 0.5, 1), cont=_o(0.9, 1.0, 3))]
    assert simulate(stopped, NEVER)["score"] == 0.9 and simulate(stopped, 0.5)["score"] == 0.5
