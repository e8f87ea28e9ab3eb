"""Gold metrics on hand-made cases: HotpotQA's sp metrics, unit matching, verifier accuracy."""

from __future__ import annotations

import pytest

from citeloop.eval.gold import gold_precision, gold_recall, sp_metrics, unit_hits
from citeloop.eval.verifier_eval import classification_scores, majority_baseline, score_pairs, Pair, VERDICT_MAPS, WICE_LABELS


def test_sp_exact_match() -> None:
    gold = {("A", 0), ("B", 2)}
    assert sp_metrics({("A", 0), ("B", 2)}, gold) == {"sp_em": 1.0, "sp_f1": 1.0, "sp_prec": 1.0, "sp_recall": 1.0}


def test_sp_partial_overlap() -> None:
    m = sp_metrics({("A", 0), ("A", 1), ("C", 0)}, {("A", 0), ("B", 2)})
    assert m["sp_em"] == 0.0
    assert m["sp_prec"] == pytest.approx(1 / 3)
    assert m["sp_recall"] == pytest.approx(1 / 2)
    assert m["sp_f1"] == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))


def test_sp_empty_prediction_scores_zero() -> None:
    # Official update_sp: prec = tp / (tp + fp) if tp + fp > 0 else 0.0, so an empty
    # prediction has precision 0 (not 1), recall 0 and F1 0.
    assert sp_metrics(set(), {("A", 0)}) == {"sp_em": 0.0, "sp_f1": 0.0, "sp_prec": 0.0, "sp_recall": 0.0}


def test_sp_both_empty_is_an_exact_match_with_zero_f1() -> None:
    assert sp_metrics(set(), set()) == {"sp_em": 1.0, "sp_f1": 0.0, "sp_prec": 0.0, "sp_recall": 0.0}


def test_sp_title_matters_not_only_the_index() -> None:
    assert sp_metrics({("B", 0)}, {("A", 0)})["sp_f1"] == 0.0


def test_unit_hits_across_levels() -> None:
    found = frozenset({("d1", 0), ("d1", 3), ("d2", 1)})
    gold = frozenset({("d1", 3), ("d2", -1), ("d3", -1), ("d1", 4)})
    assert unit_hits(found, gold) == {("d1", 3), ("d2", -1)}
    assert gold_recall(found, gold) == 0.5
    assert gold_recall(found, frozenset()) is None


def test_precision_counts_units_at_the_set_level() -> None:
    cited = frozenset({("d1", 0), ("d1", 3), ("d2", 1)})
    assert gold_precision(cited, frozenset({("d1", 3)}), "sentence") == pytest.approx(1 / 3)
    assert gold_precision(cited, frozenset({("d1", -1)}), "sentence") == pytest.approx(2 / 3)
    # paragraph/title level: distinct documents, d1 and d2, one of them gold
    assert gold_precision(cited, frozenset({("d1", -1)}), "title") == 0.5
    assert gold_precision(frozenset(), frozenset({("d1", -1)}), "title") is None


def test_classification_scores_on_a_hand_made_confusion() -> None:
    labels = ("S", "C", "N")
    # gold S: 3 (pred S,S,N); gold C: 2 (pred S,C); gold N: 1 (pred N)
    gold = ["S", "S", "S", "C", "C", "N"]
    pred = ["S", "S", "N", "S", "C", "N"]
    r = classification_scores(gold, pred, labels)
    assert r["confusion"] == {"S": {"S": 2, "C": 0, "N": 1}, "C": {"S": 1, "C": 1, "N": 0},
                              "N": {"S": 0, "C": 0, "N": 1}}
    assert r["accuracy"] == pytest.approx(4 / 6, abs=1e-4)
    # S: P 2/3 R 2/3 F1 .6667; C: P 1 R .5 F1 .6667; N: P .5 R 1 F1 .6667
    assert r["per_class"]["S"]["f1"] == pytest.approx(0.6667, abs=1e-4)
    assert r["per_class"]["C"]["precision"] == 1.0 and r["per_class"]["C"]["recall"] == 0.5
    assert r["per_class"]["N"]["precision"] == 0.5
    assert r["macro_f1"] == pytest.approx(0.6667, abs=1e-4)


def test_unpredicted_class_counts_zero_in_macro_f1() -> None:
    r = classification_scores(["S", "C"], ["S", "S"], ("S", "C", "N"))
    assert r["per_class"]["C"]["f1"] == 0.0
    assert r["per_class"]["N"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    assert r["macro_f1"] == pytest.approx((2 / 3) / 3, abs=1e-4)


def test_majority_baseline() -> None:
    b = majority_baseline(["N", "S", "N", "C"], ("S", "C", "N"))
    assert b["label"] == "N" and b["accuracy"] == 0.5
    assert b["macro_f1"] == pytest.approx((2 / 3) / 3, abs=1e-4)


def test_wice_mapping_and_gain() -> None:
    pairs = [Pair("1", "c", "d", "supported", "entail", "lexical", 0.9),
             Pair("2", "c", "d", "partially_supported", "partial", "lexical", 0.6),
             Pair("3", "c", "d", "not_supported", "irrelevant", "lexical", 0.1),
             Pair("4", "c", "d", "partially_supported", "undecidable", "lexical", 0.3)]
    r = score_pairs(pairs, VERDICT_MAPS["wice"], WICE_LABELS)
    assert r["accuracy"] == 0.75
    assert r["majority"]["label"] == "partially_supported"
    assert r["macro_f1_gain_points"] == pytest.approx(100 * (r["macro_f1"] - r["majority"]["macro_f1"]), abs=0.01)


def test_lexical_verifier_turns_an_opposite_effect_into_a_conflict() -> None:
    # The direction check began as a prototype wrapper measured here; it is now part of the
    # lexical verifier (citeloop.runtime.opposition).
    from citeloop.runtime.verifier import EvidenceText, LexicalVerifier

    claim = "Activation of PPM1D enhances p53 function in tumour cells."
    evidence = [EvidenceText(card_id="d#s0", text="Activation of PPM1D inhibits p53 function in tumour cells.")]
    record = LexicalVerifier().check("c", claim, evidence)
    assert (record.verdict, record.checker) == ("conflict", "direction")
    same = [EvidenceText(card_id="d#s0", text="Activation of PPM1D increases p53 function in tumour cells.")]
    assert LexicalVerifier().check("c", claim, same).verdict != "conflict"


def test_answer_precision_counts_right_answers_among_those_stated() -> None:
    from citeloop.eval.harness import aggregate

    def row(stated, correct):
        return {"type": "bridge", "answer_stated": stated, "answer_correct": correct, "searches": 1, "reads": 1,
                "model_calls": None, "tokens": None, "wall_s": 0.01}

    # three stated (two right), one honest not-found, one question without a gold answer
    rows = [row(True, True), row(True, True), row(True, False), row(False, False), row(True, None)]
    out = aggregate(rows)
    assert out["answer_precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert out["answer_correct"] == pytest.approx(2 / 4, abs=1e-4)
    assert "answer_precision" not in aggregate([row(True, None)])
