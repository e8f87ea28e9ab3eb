"""`citeloop eval` and `citeloop gold` end to end: tables, eval.json, the PNG chart, kept run
files, and exit codes for bad input. The multihop sets ship with citeloop, so these run on a
fresh clone; WiCE is not shipped and its test skips without ../shared/data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import citeloop.eval.datasets as datasets
from citeloop.eval.cli import main
from citeloop.eval.datasets import SHARED_DATA_DIR
from citeloop.trajectories.runfile import deterministic_lines, read_run

PNG = b"\x89PNG\r\n\x1a\n"
needs_wice = pytest.mark.skipif(not (SHARED_DATA_DIR / "wice" / "claim_dev.jsonl").is_file(),
                                reason="WiCE is not shipped with citeloop and ../shared/data/wice is absent")


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert err.startswith("error: "), err
    assert "Traceback" not in err
    return err


def test_eval_hotpotqa_writes_json_and_chart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ev"
    code = main(["eval", "--dataset", "hotpotqa", "--policies", "heuristic,naive,explore", "--limit", "3",
                 "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert "heuristic" in printed and "BM25 top-10" in printed and "ans. P" in printed
    payload = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    assert list(payload["policies"]) == ["heuristic", "naive", "explore"]
    assert payload["policies"]["naive"]["planner"] == "naive"
    assert payload["policies"]["explore"]["planner"] == "rule"
    for r in payload["policies"].values():
        assert r["questions"] == 3 and len(r["per_question"]) == 3
        for key in ("retrieved_recall", "cited_recall", "cited_precision", "sp_f1", "sp_em",
                    "citation_correctness", "coverage", "unsupported_claim_rate", "searches_per_q", "wall_ratio"):
            assert key in r, key
        stated = [q for q in r["per_question"] if q["answer_stated"] and q["answer_correct"] is not None]
        right = sum(bool(q["answer_correct"]) for q in stated)
        assert r.get("answer_precision") == (pytest.approx(right / len(stated), abs=1e-4) if stated else None)
        assert 0 <= r["retrieved_recall"] <= 1
    assert payload["policies"]["heuristic"]["wall_ratio"] == 1.0
    assert payload["budget"]["max_reads"] == 12
    chart = out / "quality_cost.png"
    assert chart.is_file() and chart.read_bytes()[:8] == PNG


def test_eval_json_on_stdout_and_set_override(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "--dataset", "musique", "--policies", "heuristic", "--limit", "2", "--out", str(tmp_path),
                 "--set", "budget.max_reads=4", "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["budget"]["max_reads"] == 4
    assert payload["policies"]["heuristic"]["reads_per_q"] <= 4
    assert "sp_f1" not in payload["policies"]["heuristic"], "supporting-fact metrics are HotpotQA's only"


@needs_wice
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


@pytest.mark.parametrize(("extra", "needle"), [
    (["--policies", "cleverest"], "cleverest"),
    (["--policies", "llm:some-model"], "llm:some-model"),
    (["--policies", "heuristic,heuristic"], "twice"),
    (["--set", "budget.max_readz=3"], "max_readz"),
    (["--set", "nonsense"], "--set"),
    (["--task", "verify"], "not available"),
    (["--data", "/nonexistent/citeloop-data"], "/nonexistent/citeloop-data"),
])
def test_bad_eval_options_exit_2(extra: list[str], needle: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["eval", "--dataset", "hotpotqa", "--limit", "1", "--out", str(tmp_path / "o"), *extra], capsys)
    assert needle in err
    assert not (tmp_path / "o").exists(), "nothing is written when the input is rejected"


# --------------------------------------------------------------------------- --runs-out, gold, missing sets


def test_runs_out_keeps_one_loadable_run_file_per_question_per_policy(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out, runs = tmp_path / "ev", tmp_path / "runs"
    assert main(["eval", "--dataset", "hotpotqa", "--limit", "2", "--out", str(out), "--runs-out", str(runs)]) == 0
    assert "kept 4 run files" in capsys.readouterr().out
    # The first two rows of eval/data/multihop/hotpotqa_100.json.
    questions = {"5a77ec115542992a6e59dff7": "If Gallu is a demon Lilu is what?",
                 "5ae40c465542996836b02c25": "Are Christopher Nolan and Sathish Kalathil both film directors?"}
    payload = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    assert payload["runs_out"] == str(runs)
    assert sorted(p.relative_to(runs).as_posix() for p in runs.rglob("*") if p.is_file()) == sorted(
        f"{policy}/{qid}.jsonl" for policy in ("heuristic", "naive") for qid in questions)
    for policy in ("heuristic", "naive"):
        for row in payload["policies"][policy]["per_question"]:
            path = runs / policy / f"{row['qid']}.jsonl"
            assert row["run_file"] == str(path)
            run = read_run(path)
            assert not run.torn and run.finished
            assert run.run_id == row["run_id"]
            assert run.header.spec.question == questions[row["qid"]]
    # Same question, same policy, same seed: a second evaluation replaces the file with the
    # same deterministic events (timings aside).
    kept = runs / "naive" / "5a77ec115542992a6e59dff7.jsonl"
    first = deterministic_lines(kept)
    assert main(["eval", "--dataset", "hotpotqa", "--limit", "1", "--policies", "naive", "--out", str(out),
                 "--runs-out", str(runs)]) == 0
    assert deterministic_lines(kept) == first


def test_runs_out_names_unsafe_policies_and_ids_safely() -> None:
    from citeloop.eval.harness import run_file_name

    assert run_file_name("heuristic", "2hop__150763_14904").as_posix() == "heuristic/2hop__150763_14904.jsonl"
    odd = run_file_name("llm:stop=http://127.0.0.1:8000/v1", "../q 1")
    assert len(odd.parts) == 2 and ".." not in odd.parts[1] and "/" not in odd.parts[0]
    assert odd != run_file_name("llm:stop=http://127.0.0.1:8001/v1", "../q 1")
    assert run_file_name("a:b", "q") != run_file_name("a_b", "q")


def test_runs_out_that_is_a_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    existing = tmp_path / "runs.txt"
    existing.write_text("not a folder", encoding="utf-8")
    err = _fails(["eval", "--dataset", "hotpotqa", "--limit", "1", "--out", str(tmp_path / "o"),
                  "--runs-out", str(existing)], capsys)
    assert str(existing) in err and "--runs-out" in err
    assert not (tmp_path / "o").exists(), "nothing is written when --runs-out is rejected"


def test_eval_help_says_what_runs_out_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--runs-out" in text and "POLICY/QUESTION_ID" in text


def test_gold_works_out_of_the_box(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "gold" / "hotpotqa.jsonl"
    assert main(["gold", "--dataset", "hotpotqa", "--out", str(target), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info == {"dataset": "hotpotqa", "questions": 100, "level": "sentence", "out": str(target)}
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 100 and rows[0]["question"] == "if gallu is a demon lilu is what?"


@pytest.mark.parametrize("command", ["eval", "gold"])
def test_a_set_that_is_not_shipped_exits_2_naming_data(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(datasets, "SHARED_DATA_DIR", tmp_path / "no-shared-data")
    err = _fails([command, "--dataset", "scifact", "--out", str(tmp_path / "o")], capsys)
    assert "not shipped with citeloop" in err and "--data" in err and "allenai/scifact" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
