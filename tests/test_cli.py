"""The console script in-process: bad inputs exit 2 with one specific line; `--json` output."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citeloop.eval.cli import main

QUESTION = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, (code, captured.err)
    assert captured.err.startswith("error: "), captured.err
    assert "Traceback" not in captured.err
    return captured.err


@pytest.mark.parametrize("question", ["", "   "])
def test_empty_question_exits_2(question: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["research", question, "--out", str(tmp_path)], capsys)
    assert "empty" in err
    assert not list(tmp_path.iterdir()), "nothing may be written for a rejected question"


def test_stopword_only_question_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["research", "What is this?", "--out", str(tmp_path)], capsys)
    assert "no searchable words" in err


def test_unknown_config_key_names_key_and_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("budget:\n  max_searchez: 3\n", encoding="utf-8")
    err = _fails(["research", QUESTION, "--config", str(config), "--out", str(tmp_path / "runs")], capsys)
    assert "'max_searchez'" in err
    assert "'budget'" in err
    assert "max_searches" in err, "the message should list the valid keys"


def test_malformed_corpus_reports_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text(
        '{"id": "a", "title": "A", "text": "Alpha is a town."}\n'
        '{"id": "b", "title": "B", "text": "Beta is a town."}\n'
        '{"id": "c", "title": "C", "text": \n',
        encoding="utf-8",
    )
    err = _fails(["research", QUESTION, "--corpus", str(corpus), "--out", str(tmp_path / "runs")], capsys)
    assert re.search(r"(:3\b|line 3)", err), err


def test_unknown_policy_lists_valid_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["research", QUESTION, "--policy", "cleverest", "--out", str(tmp_path)], capsys)
    assert "cleverest" in err
    for name in ("explore", "heuristic", "naive"):
        assert name in err


@pytest.mark.parametrize("content", ["this is not a run file\n", "", '{"type": "search_result"}\n'])
def test_show_on_garbage_exits_2(content: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "garbage.jsonl"
    path.write_text(content, encoding="utf-8")
    _fails(["show", str(path)], capsys)


def test_show_on_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fails(["show", str(tmp_path / "nope.jsonl")], capsys)


def test_research_json_then_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["research", QUESTION, "--json", "--out", str(tmp_path)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {"run_id", "trajectory", "report", "outcome"} <= set(payload)
    trajectory = Path(payload["trajectory"])
    assert trajectory.is_file()
    assert trajectory.name.startswith(payload["run_id"])
    assert payload["report"]["question"] == QUESTION
    assert payload["outcome"]["status"] == "completed"

    assert main(["show", str(trajectory), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["run_id"] == payload["run_id"]
    assert summary["finished"] is True and summary["torn"] is False
    assert summary["outcome"]["counts"] == payload["outcome"]["counts"]
