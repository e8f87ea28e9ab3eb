"""What the commands tell a person: `show` prints the outcome as text, `export sft` says
which decisions it skipped and why, `rescore --help` names the scorers that exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.cli import main

GOLDEN = Path(__file__).parent / "golden" / "leland_heuristic.jsonl"


def test_show_prints_the_outcome_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(GOLDEN)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    line = out[out.index("outcome:"):]
    assert line.startswith("outcome: completed, stopped: ")
    assert "searches " in line and "{" not in line.split("check ")[0], "not a Python dict"


def test_export_sft_says_which_decisions_it_skipped_and_why(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    # The golden run with its first angle decision cut to one candidate: a policy had no choice there.
    lines = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
    angle = next(d for d in lines if d.get("type") == "angle_decision")
    angle.update(candidates=angle["candidates"][:1], angles=angle["angles"][:1], choice=0)
    (runs / GOLDEN.name).write_text("".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8")
    assert main(["export", "sft", "--runs", str(runs), "--out", str(tmp_path / "sft")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "skipped 1 decisions: angle: only one possible action" in out
    assert "decisions skipped" in out


def test_rescore_help_names_the_offline_scorer_and_the_judge(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rescore", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "lexical" in out and "judge" in out
