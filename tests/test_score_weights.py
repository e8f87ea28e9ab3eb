"""The run-score weight search: pairs, agreement, leave-one-set-out choice, and the shipped
weights equal to `run_score`'s."""

import numpy as np
import pytest

from citeloop.eval import score_weights as sw
from citeloop.eval.score_weights import FEATURES, SHIPPED, agreement, leave_one_out, pair_differences, weight_grid
from citeloop.filters import answers
from citeloop.filters.view import RunView
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import MemorySink

N = len(FEATURES)


def _row(qid: str, gold: float, first: float, second: float = 0.0) -> dict:
    values = [first, second] + [0.0] * (N - 2)
    return {"qid": qid, "gold": gold, "features": dict(zip(FEATURES, values))}


def test_pairs_are_runs_of_one_question_whose_gold_differs() -> None:
    rows = [_row("q1", 1.0, 0.9), _row("q1", 0.5, 0.2), _row("q1", 0.5, 0.4), _row("q2", 0.0, 0.1),
            _row("q2", None, 0.3)]  # type: ignore[arg-type]
    diffs, signs = pair_differences(rows)
    # q1: (1.0 vs 0.5) twice; (0.5 vs 0.5) is no pair; q2 has one run with gold.
    assert diffs.shape == (2, N) and list(signs) == [1.0, 1.0]
    assert diffs[:, 0] == pytest.approx([0.7, 0.5])


def test_agreement_counts_ties_against() -> None:
    diffs = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    signs = np.array([1.0, 1.0, 1.0])
    got = agreement(diffs, signs, np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    assert list(got) == pytest.approx([1 / 3, 1 / 3, 2 / 3])


def test_each_set_is_measured_with_weights_chosen_on_the_others() -> None:
    # Sets a, b and d are ordered by the first feature, c by the second: held out, c gets the
    # first feature's weighting (the others' choice) and loses; a gets it from b and d and wins.
    def pairs(feature: int) -> tuple[np.ndarray, np.ndarray]:
        diffs = np.zeros((4, N))
        diffs[:, feature] = [1.0, 1.0, 1.0, 1.0]
        diffs[:, 1 - feature] = [-1.0, -1.0, -1.0, -1.0]
        return diffs, np.ones(4)

    result = leave_one_out({"a": pairs(0), "b": pairs(0), "c": pairs(1), "d": pairs(0)}, weight_grid([0.0, 1.0]))
    assert result["a"]["held_out"] == 1.0 and result["c"]["held_out"] == 0.0
    assert result["c"]["weights"].get(list(FEATURES)[0]) == 1.0


def test_shipped_weights_are_run_scores(kit: ResearchKit) -> None:
    sink = MemorySink()
    run_research("Who directed Angel Eyes?", kit, out_dir=None, sink=sink)
    view = RunView.build(sink.events, header=sink.header)
    weighted = sum(w * FEATURES[k](view) for k, w in SHIPPED.items()) / sum(SHIPPED.values())
    assert answers.run_score(view) == pytest.approx(weighted, abs=1e-4)
    assert set(SHIPPED) <= set(FEATURES)


def test_bad_arguments_are_one_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert sw.main(["--levels", "a,b"]) == 2
    assert sw.main(["--sets", "hotpotqa"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 2
