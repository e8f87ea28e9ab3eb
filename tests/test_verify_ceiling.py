"""The verifier ceiling: a perfect judge put where the trained judge would be asked."""

from __future__ import annotations

import pytest
from citeloop.eval.verifier_eval import Pair
from citeloop.eval.verify_ceiling import (
    GATE_PRIOR,
    best_third,
    ceiling,
    error_gate,
    fit_error_gate,
    main,
    needed_zone_accuracy,
    with_gold_where,
)
from citeloop.runtime.verifier import VerifierConfig

LABELS = ("supported", "partially_supported", "not_supported")


def test_a_perfect_judge_replaces_only_the_asked_pairs() -> None:
    gold = ["a", "b", "c"]
    assert with_gold_where(gold, ["x", "y", "z"], [True, False, True]) == ["a", "y", "c"]


def test_the_best_third_corrects_errors_of_the_rarest_label_first() -> None:
    gold = ["s", "s", "s", "s", "n", "s"]
    predicted = ["n", "n", "s", "s", "s", "s"]  # errors at 0, 1 (gold s, common) and 4 (gold n, rare)
    # a budget of 6 // 3 = 2: the rare label's error, then the first of the common label's
    assert best_third(gold, predicted) == [True, False, False, False, True, False]


def test_the_accuracy_needed_in_the_zone() -> None:
    labels = ("supported", "not_supported")
    gold = ["supported", "not_supported"] * 10
    all_wrong = ["not_supported", "supported"] * 10
    zone_all = [True] * 20
    # a judge must be right on the whole zone to undo verdicts that are all wrong
    assert needed_zone_accuracy(gold, all_wrong, zone_all, labels, target=0.99) == pytest.approx(1.0)
    # verdicts already right need no judge: the zone's own accuracy is returned
    assert needed_zone_accuracy(gold, gold, zone_all, labels, target=0.5) == pytest.approx(1.0)
    # a judge asked nowhere can do nothing
    assert needed_zone_accuracy(gold, all_wrong, [False] * 20, labels, target=0.5) is None
    # wrong verdicts outside the zone cap what a perfect judge in it can reach
    half_zone = [True] * 10 + [False] * 10
    assert needed_zone_accuracy(gold, all_wrong, half_zone, labels, target=0.9) is None


def test_ceiling_counts_the_gray_zone_on_hand_made_pairs() -> None:
    config = VerifierConfig(model_gray_zone=(0.2, 0.45))
    pairs = [
        Pair("c1", "claim", "d1", "supported", "partial", "lexical", 0.3),          # in the zone, wrong
        Pair("c2", "claim", "d2", "not_supported", "irrelevant", "lexical", 0.1),   # below the zone, right
        Pair("c3", "claim", "d3", "supported", "conflict", "negation", 0.3),        # a conflict is decided
        Pair("c4", "claim", "d4", "partially_supported", "partial", "lexical", 0.4),  # in the zone, right
    ]
    r = ceiling(pairs, "wice", config)
    assert r["pairs"] == 4
    assert r["gray_zone_share"] == pytest.approx(0.5)
    assert r["lexical_errors"] == 2
    assert r["errors_in_gray_zone"] == 1
    assert r["lexical_accuracy_in_zone"] == pytest.approx(0.5)
    assert r["perfect_judge_in_gray_zone"] > r["lexical"]


def test_the_error_gate_asks_where_the_tuning_pairs_went_wrong() -> None:
    """Fitted on tuning pairs: a cell (verdict, check, support, overlap) whose verdicts were all
    wrong is asked before one whose verdicts were right, its rate shrunk towards the overall
    share; a cell never seen counts at the overall share."""
    mapping = {"entail": "supported", "partial": "partially_supported", "irrelevant": "not_supported"}
    wrong = [Pair(f"w{i}", "c", "d", "not_supported", "partial", "lexical", 0.35) for i in range(3)]
    right = [Pair(f"r{i}", "c", "d", "supported", "entail", "lexical", 0.95) for i in range(3)]
    gate = fit_error_gate(wrong + right, mapping)
    assert gate["overall"] == pytest.approx(0.5)
    cells = sorted(gate["cells"].values())
    # 3 errors of 3 with 5 pseudo-pairs at 0.5: (3 + 2.5) / 8; 0 of 3: 2.5 / 8
    assert cells == pytest.approx([2.5 / (3 + GATE_PRIOR), 5.5 / (3 + GATE_PRIOR)])
    fresh = [Pair("a", "c", "d", "supported", "entail", "lexical", 0.95),       # a right-going cell
             Pair("b", "c", "d", "supported", "irrelevant", "lexical", 0.05),   # never seen: overall
             Pair("e", "c", "d", "supported", "partial", "lexical", 0.35)]      # the wrong-going cell
    assert error_gate(fresh, gate, share=1 / 3) == [False, False, True]
    assert error_gate(fresh, gate, share=2 / 3) == [False, True, True]
    config = VerifierConfig(model_gray_zone=(0.2, 0.45))
    r = ceiling(fresh, "wice", config, gate)
    assert r["error_gate_share"] == pytest.approx(1 / 3, abs=0.01) and r["errors_in_error_gate"] == 1


def test_an_unknown_set_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sets", "fever"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
