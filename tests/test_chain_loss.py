"""The chain diagnosis (eval/chain_loss.py): which hop of a MuSiQue-style gold chain a run kept.

The run is real, over a hand-made corpus (tests/test_hop_leads.py's); the gold chain is written
by hand from its pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from citeloop.eval.chain_loss import _listed, chain_loss, main
from citeloop.runtime.session import run_research
from test_answer import FILLER, _kit
from test_hop_leads import PAGES, QUESTION

GOLD = {
    "id": "2hop__1_2",
    "question": QUESTION,
    "answer": "Norwegian skilling",
    "paragraphs": [{"idx": 0, "title": "Tolvar", "paragraph_text": PAGES["Tolvar"]},
                   {"idx": 1, "title": "Norwegian skilling", "paragraph_text": PAGES["Norwegian skilling"]}],
    "question_decomposition": [{"question": "Where is Tolvar from?", "answer": "Norway", "paragraph_support_idx": 0},
                               {"question": "What currency predated the Zorin in #1?", "answer": "Norwegian skilling",
                                "paragraph_support_idx": 1}],
}


@pytest.fixture(scope="module")
def eval_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("chain")
    _, run_file = run_research(QUESTION, _kit({**FILLER, **PAGES}), out_dir=out)
    rows = [{"qid": GOLD["id"], "answer": "Norwegian skilling", "gold_answer": GOLD["answer"],
             "answer_correct": True, "run_file": str(run_file)}]
    path = out / "eval.json"
    path.write_text(json.dumps({"policies": {"heuristic": {"per_question": rows}}}), encoding="utf-8")
    return path


def test_a_run_that_followed_its_chain_is_counted_hop_by_hop(eval_file: Path) -> None:
    result = chain_loss(json.loads(eval_file.read_text()), [GOLD], "heuristic")
    (row,) = result["questions"]
    assert row["type"] == "2hop" and row["followed"] and row["last_read"] and row["right"]
    assert (row["planned_depth"], row["gold_depth"]) == (2, 2)
    assert result["types"]["2hop"] == result["types"]["all"] == {
        "questions": 1, "right": 1, "followed": 1, "right_followed": 1, "last_read_wrong": 0, "planned_depth": 1}
    # a first hop whose gold answer the run never named is not followed
    other = {**GOLD, "question_decomposition": [{**GOLD["question_decomposition"][0], "answer": "Ostland"},
                                                GOLD["question_decomposition"][1]]}
    assert not chain_loss(json.loads(eval_file.read_text()), [other], "heuristic")["questions"][0]["followed"]


def test_bad_inputs_are_one_error_line(eval_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "musique.json"
    data.write_text(json.dumps([{**GOLD, "id": "another"}]), encoding="utf-8")
    assert main([str(eval_file), "--data", str(data)]) == 2  # the eval's question is not in the file
    data.write_text(json.dumps([{**GOLD, "question_decomposition": "not a list"}]), encoding="utf-8")
    assert main([str(eval_file), "--data", str(data)]) == 2
    assert main([str(tmp_path / "missing.json"), "--data", str(data)]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3 and all(line.startswith("error:") for line in errors)
    data.write_text(json.dumps([GOLD]), encoding="utf-8")
    assert main([str(eval_file), "--data", str(data), "--out", str(tmp_path / "chain.json")]) == 0
    assert json.loads((tmp_path / "chain.json").read_text())["types"]["all"]["followed"] == 1


def test_fields_written_as_python_literals_read_as_lists(eval_file: Path) -> None:
    """Some copies of MuSiQue keep the lists as Python literals, with pandas' bare `nan`: read
    as None, and a word that holds "nan" in a text stays as written."""
    paragraphs = [{**p, "note": float("nan")} for p in GOLD["paragraphs"]]
    paragraphs[0]["paragraph_text"] += " Its financial centre is Tolvik."
    decoded = _listed(repr(paragraphs), "paragraphs")
    assert decoded[0]["note"] is None
    assert decoded[0]["paragraph_text"] == paragraphs[0]["paragraph_text"]
    written = {**GOLD, "paragraphs": repr(paragraphs), "question_decomposition": repr(GOLD["question_decomposition"])}
    row = chain_loss(json.loads(eval_file.read_text()), [written], "heuristic")["questions"][0]
    assert row["followed"] and row["last_read"]
    with pytest.raises(ValueError, match="not a list"):
        _listed("__import__('os')", "paragraphs")
