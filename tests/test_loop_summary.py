"""`python -m citeloop.eval.loop_summary`: loop reports side by side, without per-question rows."""

import json
from pathlib import Path

import pytest

from citeloop.eval.loop_summary import SummaryError, lines, main, summarise

DIFF = {"n": 100, "ours": 0.58, "theirs": 0.59, "difference": -0.01, "ci95": [-0.03, 0.0]}
REPORT = {
    "name": "follow-x", "questions": {"train": 600, "eval": 100}, "timings_s": {"train": 1819.1},
    "policies": {"heuristic": {"all_gold_retrieved": 0.59}, "trained": {"all_gold_retrieved": 0.58}},
    "trained_kinds": ["follow"],
    "trained_vs_heuristic": {"musique": {"all_gold_retrieved": DIFF, "answer_correct": DIFF, "searches_change": 0.0195,
                                         "targets": {"gain": {"met": False}}}},
    "calibration": {"follow": {"threshold": 0.84, "teacher": {"threshold": float("inf")},
                               "candidates": [{"threshold": 0.1}] * 50}},
    "oracle": {"sets": {"musique": {"kinds": {"follow": {"decisions": 106, "winning": 13, "all_gold_gain": 0.066,
                                                         "searches_at_equal_recall": 0.0665, "lose_tags": {}}}}}},
    "training": {"kind": "sft", "rows": 777, "steps": 100, "seconds_per_step": 18.0, "log_history": [1] * 100,
                 "final_metrics": {"loss": 0.24, "train_loss": 0.27}},
    "evaluation": {"musique": {"per_question": [{"qid": "q"}] * 100}},
}


def test_a_summary_keeps_what_runs_are_compared_by_and_drops_the_rows():
    s = summarise(REPORT)
    assert "evaluation" not in s and "candidates" not in s["calibration"]["follow"]
    follow = s["calibration"]["follow"]
    assert follow["threshold"] == 0.84 and follow["teacher"]["threshold"] == "inf"
    assert s["oracle_gain"] == {"musique": {"follow": {"decisions": 106, "winning": 13, "all_gold_gain": 0.066,
                                                       "searches_at_equal_recall": 0.0665}}}
    assert s["training"]["rows"] == 777 and s["training"]["final_loss"] == 0.24 and s["training"]["mean_loss"] == 0.27
    assert "log_history" not in s["training"]


def test_one_line_per_set_with_intervals_and_targets():
    (line,) = lines(summarise(REPORT))
    assert "musique" in line and "all gold -1.0 [-3.0, +0.0]" in line and "searches +1.9 %" in line
    assert line.endswith("target met: no")


def test_written_json_is_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    report = tmp_path / "report.json"
    report.write_text(json.dumps(REPORT), encoding="utf-8")  # json writes inf as Infinity, as the loop does
    out = tmp_path / "runs.json"
    assert main([str(report), "--out", str(out)]) == 0

    def refuse(constant):
        raise AssertionError(f"non-strict JSON constant {constant}")

    (summary,) = json.loads(out.read_text(encoding="utf-8"), parse_constant=refuse)
    assert summary["name"] == "follow-x"
    assert "follow-x" in capsys.readouterr().out


@pytest.mark.parametrize(("text", "words"), [('{"name": "x"}', "not a loop report (no policies, trained_vs_heuristic)"),
                                             ("{", "Expecting property name"), ("[1]", ""),
                                             ('{"name": "x", "policies": {}, "trained_vs_heuristic": [1]}', "")])
def test_a_file_that_is_not_a_loop_report_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            text: str, words: str):
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {bad}: ") and words in err[0]


def test_summarise_refuses_a_report_without_its_comparison():
    with pytest.raises(SummaryError, match="trained_vs_heuristic"):
        summarise({k: v for k, v in REPORT.items() if k != "trained_vs_heuristic"})
