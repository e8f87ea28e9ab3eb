"""eval/loop_compare.py: paired differences, their bootstrap intervals and the issue-24 targets."""

from __future__ import annotations

import pytest

from citeloop.eval.loop_compare import compare_rows, gain_target, paired_difference, stop_target


def test_the_paired_difference_and_its_interval() -> None:
    same = paired_difference([3.0, 2.0, 5.0], [2.0, 1.0, 4.0])
    assert same["difference"] == 1.0 and same["ci95"] == [1.0, 1.0]  # every question moves by one
    mixed = paired_difference([1.0, 1.0, 0.0, 1.0] * 10, [0.0, 1.0, 0.0, 0.0] * 10)
    assert mixed["difference"] == 0.5 and mixed["ours"] == 0.75 and mixed["theirs"] == 0.25
    low, high = mixed["ci95"]
    assert 0.3 < low < 0.5 < high < 0.7
    assert paired_difference([], [])["difference"] is None
    with pytest.raises(ValueError, match="differ in length"):
        paired_difference([1.0], [1.0, 2.0])


def _row(qid: str, recall: float, searches: int, reads: int = 3, all_gold: float = 0.0) -> dict:
    return {"qid": qid, "retrieved_recall": recall, "all_gold_retrieved": all_gold, "answer_correct": None,
            "searches": searches, "reads": reads}


def test_rows_are_paired_by_question_and_missing_values_are_left_out() -> None:
    theirs = [_row("a", 1.0, 4), _row("b", 0.5, 2), _row("c", 0.0, 2)]
    ours = [_row("b", 0.5, 1), _row("a", 1.0, 2)]  # other order, one question missing
    c = compare_rows(ours, theirs)
    assert c["searches"]["n"] == 2 and c["searches"]["difference"] == -1.5  # (2-4 + 1-2) / 2
    assert c["searches_change"] == round(-1.5 / 3.0, 4)
    assert c["answer_correct"]["n"] == 0


def test_the_stop_target_needs_fewer_searches_and_recall_within_a_point() -> None:
    theirs = [_row(str(i), 1.0, 4) for i in range(40)]
    cheaper = [_row(str(i), 1.0, 2) for i in range(40)]
    assert stop_target(compare_rows(cheaper, theirs))["met"]
    lossy = [_row(str(i), 1.0 if i % 4 else 0.5, 2) for i in range(40)]  # -12.5 points of recall
    assert not stop_target(compare_rows(lossy, theirs))["met"]
    slight = [_row(str(i), 1.0, 4 if i % 5 else 3) for i in range(40)]  # only 5 % fewer searches
    assert not stop_target(compare_rows(slight, theirs))["met"]


def test_the_gain_target_needs_five_points_at_no_more_reads() -> None:
    theirs = [_row(str(i), 0.5, 2, all_gold=0.0) for i in range(40)]
    better = [_row(str(i), 0.5, 2, all_gold=1.0 if i % 5 == 0 else 0.0) for i in range(40)]  # +20 points
    result = gain_target(compare_rows(better, theirs))
    assert result["met"] and result["by"] == "all_gold_retrieved"
    costly = [_row(str(i), 0.5, 2, reads=4, all_gold=1.0 if i % 5 == 0 else 0.0) for i in range(40)]
    assert not gain_target(compare_rows(costly, theirs))["met"]
