"""`citeloop loop` end to end at toy scale: research, pairs, a real DPO run on a tiny model,
serving by the transformers server, evaluation on held-out questions, the report."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

pytest.importorskip("trl")

from citeloop.eval.cli import main  # noqa: E402
from citeloop.eval.loop import LoopError, run_loop, split_sets  # noqa: E402
from citeloop.eval.loop_config import load_loop_config  # noqa: E402
from citeloop.filters.gold import question_key  # noqa: E402
from citeloop.trajectories.runfile import read_run  # noqa: E402

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "loop" / "tiny.yaml"


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITELOOP_TORCH_THREADS", "1")


def test_the_split_keeps_evaluation_questions_out_of_training() -> None:
    config = load_loop_config(CONFIG)
    train_sets, eval_sets = split_sets(config)
    train = {question_key(q.question) for s in train_sets for q in s.questions}
    held = {question_key(q.question) for s in eval_sets for q in s.questions}
    assert train and held and not train & held


def test_training_on_two_sets_and_evaluating_on_the_third_and_a_shared_question_is_refused(tmp_path: Path) -> None:
    config = load_loop_config(CONFIG).model_copy(update={"datasets": ["hotpotqa", "musique"],
                                                         "eval_datasets": ["2wiki"], "limit": 5})
    train_sets, eval_sets = split_sets(config)
    assert [s.name for s in train_sets] == ["hotpotqa", "musique"] and [s.name for s in eval_sets] == ["2wiki"]
    # A question file that repeats a training question: the loop refuses to evaluate on it.
    from citeloop.eval.datasets import BUILTIN_DATA_DIR, load_eval_set

    seen = load_eval_set("hotpotqa", BUILTIN_DATA_DIR).questions[0]
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({"id": "x1", "question": seen.question}) + "\n"
                         + json.dumps({"id": "x2", "question": "Who painted a picture nobody trained on?"}) + "\n",
                         encoding="utf-8")
    shared = config.model_copy(update={"eval_datasets": [str(questions)]})
    with pytest.raises(LoopError, match="1 question\\(s\\) are in both the training and the evaluation split"):
        split_sets(shared)


def test_the_tiny_loop_trains_serves_and_reports(tmp_path: Path, tiny_model: Path) -> None:
    config = load_loop_config(CONFIG).model_copy(update={"out": tmp_path / "loop", "base_model": tiny_model})
    lines: list[str] = []
    report = run_loop(config, log=lines.append)
    assert set(report["policies"]) == {"heuristic", "naive", "trained"}
    trained = report["policies"]["trained"]
    assert trained["questions"] == 3 and trained["llm_decisions"] > 0 and trained["model_calls"] > 0
    assert 0.0 <= trained["fallback_rate"] <= 1.0 and trained["latency_median_s"] > 0
    assert report["questions"]["train"] > 0 and report["pairs"]["rows"]["train"] + report["pairs"]["rows"]["test"] > 0
    assert report["training"]["steps"] >= 1
    out = tmp_path / "loop"
    for name in ("report.json", "report.md", "report.png", "pairs/README.md", "model/summary.json",
                 "model/config.json"):
        assert (out / name).is_file(), name
    assert "| trained |" in (out / "report.md").read_text()
    assert {"split", "research", "pairs", "train", "serve", "eval"} <= set(report["timings_s"])
    assert any("evaluation questions" in line for line in lines)
    # A run stopped after training (no report yet) evaluated again: its runs are counted anew.
    (out / "report.json").unlink()
    again = run_loop(config, log=lines.append, reuse_model=True)
    assert again["questions"] == report["questions"] and again["questions"]["runs"] > 0


def test_sft_then_dpo_stages_and_the_paired_comparison(tmp_path: Path, tiny_model: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    configs = CONFIG.parents[1] / "train"
    config = load_loop_config(CONFIG).model_copy(update={
        "out": tmp_path / "loop", "base_model": tiny_model,
        "train": [configs / "sft-tiny.yaml", configs / "dpo-tiny.yaml"], "train_overrides": {"max_steps": 2},
        "eval": load_loop_config(CONFIG).eval.model_copy(update={"oracle": True, "calibrate_stop": True})})
    lines: list[str] = []
    report = run_loop(config, log=lines.append)
    out = tmp_path / "loop"
    # Stage 1 (SFT on best-of-K rows) wrote its model, stage 2 (DPO on pairs) started from it.
    assert (out / "stage-1-sft" / "config.json").is_file() and (out / "best-of-k" / "README.md").is_file()
    assert [s["kind"] for s in report["training_stages"]] == ["sft", "dpo"]
    # The loop's train_overrides (what --train-set adds to) reached both stages.
    assert [(s["steps"], s["config"]["max_steps"]) for s in report["training_stages"]] == [(2, 2), (2, 2)]
    # The report records the config the loop ran (after every override), not the file's.
    assert report["config"]["train_overrides"] == {"max_steps": 2} and report["config"]["out"] == str(out)
    assert any("train stage 2/2: dpo from " + str(out / "stage-1-sft") in line for line in lines)
    assert report["pairs"]["best_of_k"]["rows"]["train"] > 0
    compared = report["trained_vs_heuristic"]["hotpotqa"]
    for metric in ("retrieved_recall", "searches", "all_gold_retrieved"):
        d = compared[metric]
        assert d["n"] == 3 and d["ci95"][0] <= d["difference"] <= d["ci95"][1]
    assert set(compared["targets"]) == {"stop"} and isinstance(compared["targets"]["stop"]["met"], bool)
    heuristic = report["evaluation"]["hotpotqa"]["policies"]["heuristic"]
    oracle = report["oracle"]
    assert oracle["kinds"] == ["stop"] and oracle["point"]["retrieved_recall"] == heuristic["retrieved_recall"]
    assert oracle["point"]["searches_per_q"] <= heuristic["searches_per_q"]
    assert "Trained minus heuristic" in (out / "report.md").read_text()
    # The stop threshold was fitted on the training runs and the trained policy used it.
    calibration = report["stop_calibration"]
    assert calibration["decisions"] > 0 and calibration["fitted"]["score"] >= calibration["teacher"]["score"]
    assert calibration["fitted"]["score"] == max(c["score"] for c in calibration["candidates"])
    trained_runs = sorted((out / "eval-runs" / "hotpotqa" / "trained").glob("*.jsonl"))
    reasons = [e.reason for path in trained_runs for e in read_run(path).events if e.type == "stop_decision"]
    assert reasons and all(" by margin " in r for r in reasons if r.startswith("llm:"))
    assert "training runs (the decisions the model trained on: in-sample)" in (out / "report.md").read_text()
    assert any(line.startswith("[loop] stop threshold ") for line in lines)
    from citeloop.eval.loop_cli import print_report

    print_report(report)
    shown = capsys.readouterr().out
    assert "trained - heuristic" in shown and "stop: " in shown


def test_a_grpo_stage_is_refused(tmp_path: Path, tiny_model: Path) -> None:
    configs = CONFIG.parents[1] / "train"
    grpo = load_loop_config(CONFIG).model_copy(update={"out": tmp_path / "g", "base_model": tiny_model,
                                                       "train": [configs / "grpo-tiny.yaml"]})
    with pytest.raises(LoopError, match="grpo config; the loop trains sft"):
        run_loop(grpo, log=lambda _: None)


def test_training_sets_on_two_corpora_branch_each_run_over_its_own(tmp_path: Path, tiny_model: Path) -> None:
    # HotpotQA on the embedded corpus, 2Wiki on its own: every training run is branched over
    # the corpus it was researched on (a 2Wiki run over the embedded index cannot replay its reads).
    base = load_loop_config(CONFIG)
    config = base.model_copy(update={
        "out": tmp_path / "mixed", "base_model": tiny_model, "datasets": ["hotpotqa", "2wiki"],
        "eval_datasets": ["musique"], "limit": 4, "train_overrides": {"max_steps": 1},
        "eval": base.eval.model_copy(update={"limit": 1, "calibrate_stop": True})})
    report = run_loop(config, log=lambda _: None)
    export = json.loads((tmp_path / "mixed" / "pairs" / "export.json").read_text())
    corpora = export["mix"]["corpora"]
    assert len(corpora) == 2 and "embedded" in corpora
    assert any(source.endswith("2wiki_corpus.json") for source in corpora)
    assert export["errors"] == [] and export["rollouts"] > 0
    assert report["stop_calibration"]["decisions"] > 0


def test_bad_loop_configs_fail_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\npairs: {decisions: stop}\n")
    with pytest.raises(LoopError, match="pairs.decisions"):
        load_loop_config(bad)
    assert main(["loop", "--config", str(bad)]) == 2
    assert "pairs.decisions" in capsys.readouterr().err
    assert main(["loop", "--config", str(tmp_path / "missing.yaml")]) == 2


def test_an_angle_policy_with_its_deferral_threshold_fitted_on_the_training_runs(tmp_path: Path,
                                                                                 tiny_model: Path) -> None:
    base = load_loop_config(CONFIG)
    config = base.model_copy(update={
        "out": tmp_path / "loop", "base_model": tiny_model,
        "train": CONFIG.parents[1] / "train" / "sft-tiny.yaml",
        "pairs": base.pairs.model_copy(update={"decision": "angle", "alternatives": 4}),
        "eval": base.eval.model_copy(update={"trained_kinds": ["angle"], "calibrate_choice": True})})
    lines: list[str] = []
    report = run_loop(config, log=lines.append)
    fitted = report["calibration"]["angle"]
    assert report["stop_calibration"] is None and fitted["decisions"] > 0
    assert fitted["fitted"]["score"] == max(c["score"] for c in fitted["candidates"]) >= fitted["teacher"]["score"]
    assert any(line.startswith("[loop] angle deferral threshold ") for line in lines)
    assert "Angle deferral threshold fitted on" in (tmp_path / "loop" / "report.md").read_text()
    # The trained runs applied it: every model-scored angle decision kept the heuristic's option
    # or overruled it by more than the threshold.
    trained = sorted((tmp_path / "loop" / "eval-runs" / "hotpotqa" / "trained").glob("*.jsonl"))
    reasons = [e.reason for path in trained for e in read_run(path).events
               if e.type == "angle_decision" and "model_call" in e.reason]
    assert reasons and all(" kept (" in r or " over the heuristic's " in r for r in reasons)


@pytest.mark.parametrize("kinds,flag,message", [
    ("[stop]", "calibrate_choice", "calibrate_choice needs angle, follow or read"),
    ("[angle]", "calibrate_stop", "calibrate_stop needs stop"),
])
def test_a_calibration_with_no_kind_to_calibrate_is_refused(tmp_path: Path, kinds: str, flag: str,
                                                            message: str) -> None:
    text = CONFIG.read_text(encoding="utf-8").replace("trained_kinds: [stop]", f"trained_kinds: {kinds}, {flag}: true")
    path = tmp_path / "loop.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LoopError, match=message):
        load_loop_config(path)


def test_calibration_questions_fit_thresholds_and_never_train(tmp_path: Path, tiny_model: Path) -> None:
    import hashlib

    def held(question: str) -> bool:  # the documented rule: a salted hash of the normalised question
        digest = hashlib.sha256(("calibration:" + question_key(question)).encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < 0.5

    base = load_loop_config(CONFIG)
    config = base.model_copy(update={
        "out": tmp_path / "cal", "base_model": tiny_model, "calibration_share": 0.5,
        "train_overrides": {"max_steps": 1},
        "eval": base.eval.model_copy(update={"limit": 1, "calibrate_stop": True})})
    lines: list[str] = []
    report = run_loop(config, log=lines.append)
    import polars as pl

    trained_on = set(pl.read_parquet(tmp_path / "cal" / "pairs" / "parquet" / "train.parquet")["question"])
    train_sets, _ = split_sets(config)
    questions = {q.question for s in train_sets for q in s.questions}
    assert trained_on and not any(held(q) for q in trained_on)
    assert any(held(q) for q in questions)
    assert report["stop_calibration"]["decisions"] > 0
    assert any("are of calibration questions" in line for line in lines)
    assert "calibration runs (the 50 % of training questions held out" in (tmp_path / "cal" / "report.md").read_text()
    with pytest.raises(ValueError, match="calibration_share holds training questions out"):
        type(base).model_validate({**base.model_dump(), "calibration_share": 0.3})
