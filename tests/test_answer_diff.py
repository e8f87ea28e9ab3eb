"""`python -m citeloop.eval.answer_diff`: the questions an answer change gained and lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from citeloop.eval.answer_diff import answer_diff, main


def _eval(rows: list[tuple[str, str | None, bool]], correct: float) -> dict:
    return {"policies": {"heuristic": {"answer_correct": correct, "searches_per_q": 2.0, "per_question": [
        {"qid": qid, "answer": answer, "answer_correct": right, "gold_answer": "Oslo"} for qid, answer, right in rows]}}}


BEFORE = _eval([("q1", "Bergen", False), ("q2", "Oslo", True), ("q3", None, False), ("q4", "Oslo", True)], 0.5)
AFTER = _eval([("q1", "Oslo", True), ("q2", "Bergen", False), ("q3", "Molde", False), ("q4", "Oslo", True)], 0.5)


def test_gained_lost_and_changed_are_told_apart_even_when_the_net_is_zero() -> None:
    result = answer_diff(BEFORE, AFTER)
    assert (result["gained"], result["lost"]) == (1, 1)
    assert [(c["qid"], c["mark"]) for c in result["changed"]] == [("q1", "+"), ("q2", "-"), ("q3", " ")]
    assert result["figures"]["answer_correct"] == [0.5, 0.5]


def test_outputs_of_different_questions_are_refused() -> None:
    with pytest.raises(ValueError, match="different questions"):
        answer_diff(BEFORE, _eval([("q9", "Oslo", True)], 1.0))


def test_bad_input_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(BEFORE), encoding="utf-8")
    bad.write_text("{not json", encoding="utf-8")
    assert main([str(good), str(bad)]) == 2
    assert main([str(good), str(good), "--policy", "naive"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error: ") for line in err)
    assert str(bad) in err[0] and "naive" in err[1]
    assert main([str(good), str(good), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["changed"] == []
