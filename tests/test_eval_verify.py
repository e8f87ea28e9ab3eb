"""`citeloop eval --task verify` on SciFact- and WiCE-format claim files, and the pieces it
reports beside the verifier: the fixed split, the overlap and majority baselines, and the
bootstrap interval. Hand-made files, so these run on a fresh clone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.eval.datasets import DatasetError, claim_file_format, load_eval_set
from citeloop.eval.verify_baselines import bootstrap_difference, claim_split, fit_overlap_baseline, macro_f1

ABSTRACTS = [
    {"doc_id": 11, "title": "Losartan and fibrosis", "abstract": [
        "Cardiac fibrosis is common in hypertension.",
        "Losartan treatment reduced cardiac fibrosis in hypertensive mice."]},
    {"doc_id": 12, "title": "Statins", "abstract": [
        "We studied statin users in Sweden.",
        "Statin therapy lowered cholesterol in elderly patients."]},
    {"doc_id": 13, "title": "Coffee", "abstract": [
        "Coffee drinkers slept less.", "Caffeine intake was recorded daily."]},
]
SCIFACT_CLAIMS = [
    {"id": 1, "claim": "Losartan treatment reduces cardiac fibrosis in hypertensive mice.",
     "evidence": {"11": [{"sentences": [1], "label": "SUPPORT"}]}, "cited_doc_ids": [11]},
    {"id": 2, "claim": "Losartan treatment increases cardiac fibrosis in hypertensive mice.",
     "evidence": {"11": [{"sentences": [1], "label": "CONTRADICT"}]}, "cited_doc_ids": [11]},
    {"id": 3, "claim": "Statin therapy lowers cholesterol in elderly patients.",
     "evidence": {"12": [{"sentences": [1], "label": "SUPPORT"}]}, "cited_doc_ids": [12, 13]},
    {"id": 4, "claim": "Green tea prevents migraine in adolescents.", "evidence": {}, "cited_doc_ids": [13]},
]
WICE_ROWS = [
    {"label": "supported", "supporting_sentences": [[1]], "meta": {"id": "w1"},
     "claim": "The bridge opened in 1932.", "evidence": ["(meta data) TITLE: Bridge", "The bridge opened in 1932."]},
    {"label": "partially_supported", "supporting_sentences": [[1]], "meta": {"id": "w2"},
     "claim": "The museum opened in 1950 and houses ten thousand paintings by local artists.",
     "evidence": ["(meta data) TITLE: Museum", "The museum opened in 1950."]},
    {"label": "not_supported", "supporting_sentences": [], "meta": {"id": "w3"},
     "claim": "The mayor resigned after a corruption scandal.",
     "evidence": ["(meta data) TITLE: Town", "The town has a river."]},
]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture()
def scifact_file(tmp_path: Path) -> Path:
    _jsonl(tmp_path / "corpus.jsonl", ABSTRACTS)
    return _jsonl(tmp_path / "my_claims.jsonl", SCIFACT_CLAIMS)


def test_claim_files_are_recognised_by_their_fields(scifact_file: Path, tmp_path: Path) -> None:
    wice = _jsonl(tmp_path / "wice_like.jsonl", WICE_ROWS)
    questions = _jsonl(tmp_path / "questions.jsonl", [{"id": "q", "question": "Who?"}])
    assert (claim_file_format(scifact_file), claim_file_format(wice), claim_file_format(questions)) == \
        ("scifact", "wice", None)
    loaded = load_eval_set(str(scifact_file))
    assert (loaded.name, loaded.claim_format, loaded.tasks[0]) == ("my_claims", "scifact", "verify")
    assert loaded.questions[2].doc_labels == {"scifact-12": "SUPPORT", "scifact-13": "NOT_ENOUGH_INFO"}


def test_scifact_file_without_its_corpus_says_what_to_pass(tmp_path: Path) -> None:
    lonely = _jsonl(tmp_path / "claims.jsonl", SCIFACT_CLAIMS)
    with pytest.raises(DatasetError, match="--corpus"):
        load_eval_set(str(lonely))


def test_eval_verify_on_a_scifact_file_keeps_per_claim_verdicts_and_baselines(
        scifact_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["eval", "--task", "verify", "--dataset", str(scifact_file), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "overlap baseline" in printed and "majority" in printed and "95% CI" in printed
    v = json.loads((out / "eval.json").read_text(encoding="utf-8"))["verification"]
    assert (v["format"], v["claims"], v["pairs"]) == ("scifact", 4, 5)
    by_pair = {(r["claim_id"], r["doc_id"]): r for r in v["per_claim"]}
    assert by_pair[("1", "scifact-11")]["verdict"] == "entail"
    assert by_pair[("2", "scifact-11")]["verdict"] == "conflict"  # opposite direction words
    assert by_pair[("2", "scifact-11")]["predicted"] == "CONTRADICT"
    assert by_pair[("4", "scifact-13")]["predicted"] == "NOT_ENOUGH_INFO"
    assert all(r["split"] in ("tune", "validation") for r in v["per_claim"])
    assert set(v["baselines"]) == {"overlap", "majority"}
    for diff in v["vs_baselines"].values():
        low, high = diff["ci95_points"]
        assert low <= diff["macro_f1_points"] <= high


def test_eval_verify_on_a_wice_file_scores_one_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wice = _jsonl(tmp_path / "wice_like.jsonl", WICE_ROWS)
    out = tmp_path / "out"
    assert main(["eval", "--dataset", str(wice), "--split", "tune", "--out", str(out), "--json"]) == 0
    v = json.loads(capsys.readouterr().out)["verification"]
    tuning = [r["meta"]["id"] for r in WICE_ROWS if claim_split("wice", r["meta"]["id"]) == "tune"]
    assert v["split"] == "tune" and sorted(r["claim_id"] for r in v["per_claim"]) == sorted(tuning)
    assert v["format"] == "wice" and set(v["confusion"]) == {"supported", "partially_supported", "not_supported"}


def test_bad_split_exits_2(scifact_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--dataset", str(scifact_file), "--split", "test", "--out", str(tmp_path / "o")]) == 2
    assert "--split" in capsys.readouterr().err


# --------------------------------------------------------------------------- split, baselines, interval


def test_split_is_a_fixed_hash_of_format_and_claim_id() -> None:
    parts = [claim_split("scifact", str(i)) for i in range(2000)]
    assert parts == [claim_split("scifact", str(i)) for i in range(2000)]
    assert 0.66 < parts.count("tune") / len(parts) < 0.74
    assert parts != [claim_split("wice", str(i)) for i in range(2000)]


def test_overlap_baseline_puts_its_cut_offs_between_the_labels() -> None:
    gold = ["not_supported", "not_supported", "partially_supported", "partially_supported", "supported", "supported"]
    overlaps = [0.1, 0.2, 0.5, 0.6, 0.9, 1.0]
    fitted = fit_overlap_baseline("wice", gold, overlaps, ("supported", "partially_supported", "not_supported"))
    assert 0.2 < fitted.lower <= 0.5 and 0.6 < fitted.upper <= 0.9
    assert [fitted.predict(o) for o in overlaps] == gold


def test_bootstrap_interval_of_the_difference() -> None:
    labels = ("A", "B")
    gold = ["A", "B"] * 30
    ids = [str(i // 2) for i in range(60)]  # two pairs per claim
    same = bootstrap_difference(ids, gold, gold, gold, labels, resamples=200)
    assert same["macro_f1_points"] == 0 and same["ci95_points"] == [0, 0] and same["claims"] == 30
    better = bootstrap_difference(ids, gold, gold, ["A"] * 60, labels, resamples=200)
    assert better["macro_f1_points"] == pytest.approx(100 * (1 - macro_f1(gold, ["A"] * 60, labels)), abs=0.01)
    assert better["ci95_points"][0] > 0
