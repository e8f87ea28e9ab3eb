"""bench_prefix_cache on the tiny model: both scorings choose alike and the cache runs fewer tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from citeloop.eval.bench_prefix_cache import main  # noqa: E402


def test_the_bench_compares_scoring_with_and_without_the_cache(tiny_model: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "prefix-cache.json"
    assert main(["--model", str(tiny_model), "--sets", "hotpotqa", "--limit", "2", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["decisions"] >= 1 and result["options_per_decision"] >= 2
    assert result["same_choice"] == result["decisions"]
    assert result["largest_score_difference"] < 1e-3
    assert 0 < result["tokens_run"]["on"] < result["tokens_run"]["off"]
    assert "speed-up" in capsys.readouterr().out


def test_the_bench_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--model", str(tmp_path), "--sets", "hotpotqa", "--out", str(tmp_path / "x.json")]) == 2
    assert main(["--model", str(tmp_path), "--sets", "nosuch"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].startswith("error: ") and "no config.json" in lines[0]
    assert lines[1].startswith("error: unknown set 'nosuch'")
    assert not (tmp_path / "x.json").exists()
