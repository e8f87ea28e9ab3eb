"""`citeloop eval` end to end: tables, eval.json, the PNG chart, and exit codes for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.eval.datasets import DEFAULT_DATA_DIR

PNG = b"\x89PNG\r\n\x1a\n"
needs_data = pytest.mark.skipif(not DEFAULT_DATA_DIR.is_dir(), reason="shared data directory not present")


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert err.startswith("error: "), err
    assert "Traceback" not in err
    return err


@needs_data
def test_eval_hotpotqa_writes_json_and_chart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ev"
    code = main(["eval", "--dataset", "hotpotqa", "--policies", "heuristic,naive,explore", "--limit", "3",
                 "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert "heuristic" in printed and "BM25 top-10" in printed
    payload = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    assert list(payload["policies"]) == ["heuristic", "naive", "explore"]
    assert payload["policies"]["naive"]["planner"] == "naive"
    assert payload["policies"]["explore"]["planner"] == "rule"
    for r in payload["policies"].values():
        assert r["questions"] == 3 and len(r["per_question"]) == 3
        for key in ("retrieved_recall", "cited_recall", "cited_precision", "sp_f1", "sp_em",
                    "citation_correctness", "coverage", "unsupported_claim_rate", "searches_per_q", "wall_ratio"):
            assert key in r, key
        assert 0 <= r["retrieved_recall"] <= 1
    assert payload["policies"]["heuristic"]["wall_ratio"] == 1.0
    assert payload["budget"]["max_reads"] == 12
    chart = out / "quality_cost.png"
    assert chart.is_file() and chart.read_bytes()[:8] == PNG


@needs_data
def test_eval_json_on_stdout_and_set_override(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "--dataset", "musique", "--policies", "heuristic", "--limit", "2", "--out", str(tmp_path),
                 "--set", "budget.max_reads=4", "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["budget"]["max_reads"] == 4
    assert payload["policies"]["heuristic"]["reads_per_q"] <= 4
    assert "sp_f1" not in payload["policies"]["heuristic"], "supporting-fact metrics are HotpotQA's only"


@needs_data
def test_eval_verify_on_wice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--dataset", "wice", "--limit", "6", "--out", str(tmp_path)]) == 0
    v = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))["verification"]
    assert v["pairs"] == 6
    assert sum(sum(row.values()) for row in v["confusion"].values()) == 6
    assert set(v["majority"]) == {"label", "accuracy", "macro_f1"}
    assert (tmp_path / "confusion.png").read_bytes()[:8] == PNG


def test_eval_user_set_against_user_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"id": "a", "title": "Alpha", "text": "Alpha is a town in Ruritania. Its bridge is old."}) + "\n"
        + json.dumps({"id": "b", "title": "Alpha bridge", "text": "The Alpha bridge was built in 1820."}) + "\n",
        encoding="utf-8")
    questions = tmp_path / "qs.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": "When was the Alpha bridge built?", "answer": "1820",
                                     "gold": [{"doc_id": "b", "sentence": 0}]}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["eval", "--dataset", str(questions), "--corpus", str(corpus), "--policies", "heuristic",
                 "--out", str(out)]) == 0
    r = json.loads((out / "eval.json").read_text(encoding="utf-8"))["policies"]["heuristic"]
    assert r["retrieved_recall"] == 1.0


def test_unknown_dataset_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["eval", "--dataset", "hotpot", "--out", str(tmp_path / "o")], capsys)
    assert "unknown dataset 'hotpot'" in err and "hotpotqa" in err
    assert not (tmp_path / "o").exists()


def test_missing_question_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fails(["eval", "--dataset", str(tmp_path / "nope.jsonl")], capsys)


@needs_data
@pytest.mark.parametrize(("extra", "needle"), [
    (["--policies", "cleverest"], "cleverest"),
    (["--policies", "llm:some-model"], "llm:some-model"),
    (["--policies", "heuristic,heuristic"], "twice"),
    (["--set", "budget.max_readz=3"], "max_readz"),
    (["--set", "nonsense"], "--set"),
    (["--task", "verify"], "not available"),
])
def test_bad_eval_options_exit_2(extra: list[str], needle: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["eval", "--dataset", "hotpotqa", "--limit", "1", "--out", str(tmp_path / "o"), *extra], capsys)
    assert needle in err
    assert not (tmp_path / "o").exists(), "nothing is written when the input is rejected"
