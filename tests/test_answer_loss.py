"""eval/answer_loss.py: the stage at which a run lost the gold answer, on hand-made strings and
on the runs of a small evaluation written with --runs-out; bad input is one error line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.answer_loss import loss_stage
from citeloop.eval.answer_loss import main as loss_main
from citeloop.eval.cli import main


@pytest.mark.parametrize(("read", "cards", "claims", "stage"), [
    ([], [], [], "not read"),
    (["Founded in Columbus, Ohio."], [], [], "read, not carded"),
    (["x"], ["It is based in Columbus, Ohio."], ["It was founded in 2005."], "carded, not claimed"),
    (["x"], ["x"], ["Two Dollar Radio is based in COLUMBUS, OHIO."], "claimed, wrong span"),  # normalised
    (["Columbusville is a town."], [], [], "not read"),  # whole words only
])
def test_the_first_stage_without_the_answer_is_where_it_was_lost(read, cards, claims, stage) -> None:  # noqa: ANN001
    assert loss_stage(read, cards, claims, ["Columbus, Ohio"]) == stage


def test_an_evaluation_with_its_runs_is_diagnosed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"id": "a", "title": "Harbour Lights", "text": "Harbour Lights is a 1963 British drama film "
                    "directed by John Gilling. It stars Jean Marais and Dora Doll."}) + "\n"
        + json.dumps({"id": "b", "title": "Beta Tower", "text": "Beta Tower is a tower in Ruritania."}) + "\n",
        encoding="utf-8")
    questions = tmp_path / "qs.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in [
        {"id": "q1", "question": "Who directed Harbour Lights?", "answer": "John Gilling"},
        {"id": "q2", "question": "Who designed the Beta Tower?", "answer": "Mara Quint"},  # in no page
        # One claim per source: the page's second sentence is carded, never claimed.
        {"id": "q3", "question": "Who directed Harbour Lights?", "answer": "Dora Doll"},
    ]), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["eval", "--dataset", str(questions), "--corpus", str(corpus), "--policies", "heuristic",
                 "--out", str(out), "--runs-out", str(tmp_path / "runs")]) == 0
    assert loss_main([str(out / "eval.json"), "--out", str(tmp_path / "loss.json")]) == 0
    result = json.loads((tmp_path / "loss.json").read_text(encoding="utf-8"))
    assert (result["questions"], result["right"]) == (3, 1)
    assert {r["qid"]: r["stage"] for r in result["lost"]} == {"q2": "not read", "q3": "carded, not claimed"}
    assert "carded, not claimed" in capsys.readouterr().out


def test_an_eval_without_run_files_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "eval.json"
    path.write_text(json.dumps({"policies": {"heuristic": {"per_question": [{"qid": "q1", "gold_answer": "x"}]}}}),
                    encoding="utf-8")
    assert loss_main([str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "--runs-out" in err[0]
    assert loss_main([str(tmp_path / "missing.json")]) == 2
    assert loss_main([str(path), "--policy", "naive"]) == 2
    capsys.readouterr()
    for bad in ('{"policies": 3}', "[1, 2]", '{"policies": {"heuristic": {"per_question": [7]}}}', "not json"):
        path.write_text(bad, encoding="utf-8")
        assert loss_main([str(path)]) == 2, bad
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:"), (bad, err)
