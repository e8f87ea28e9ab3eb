"""`citeloop eval --engine process|ray --workers N`: the same evaluation whichever engine runs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeloop.eval.cli import main
from citeloop.eval.datasets import load_eval_set
from citeloop.eval.harness import parse_policies, run_eval
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.session import ResearchKit

WALL_CLOCK = {"wall_s", "wall_ratio", "chart", "index_from_cache"}


def _timeless(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in WALL_CLOCK}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


@pytest.fixture(scope="module")
def serial(kit: ResearchKit) -> dict:
    eval_set = load_eval_set("hotpotqa").limit(3)
    events: list[tuple[str, int]] = []
    out = run_eval(eval_set, kit, parse_policies("heuristic,explore"), ResearchConfig(), seed=2,
                   on_run=lambda name, run_events: events.append((name, len(run_events))))
    assert [name for name, _ in events] == ["heuristic"] * 3 + ["explore"] * 3 and all(n > 10 for _, n in events)
    return out


@pytest.mark.parametrize("engine", ["process", "ray"])
def test_every_engine_gives_the_same_evaluation(serial: dict, kit: ResearchKit, engine: str,
                                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if engine == "ray":
        pytest.importorskip("ray")
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    eval_set = load_eval_set("hotpotqa").limit(3)
    steps: list[int] = []
    out = run_eval(eval_set, kit, parse_policies("heuristic,explore"), ResearchConfig(), seed=2,
                   on_step=lambda: steps.append(1), runs_out=tmp_path / "runs", engine=engine, workers=2)
    assert len(steps) == 6
    rows = [r for p in out["policies"].values() for r in p["per_question"]]
    assert all(Path(r.pop("run_file")).is_file() for r in rows)
    assert _timeless(out) | {"runs_out": None} == _timeless(serial) | {"runs_out": None}
    assert out["policies"]["heuristic"]["per_question"][0]["run_id"].startswith("run-")


def test_the_cli_takes_engine_and_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval", "--dataset", "hotpotqa", "--limit", "2", "--policies", "heuristic", "--json"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*args, "--out", str(tmp_path / "b"), "--engine", "process", "--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert _timeless(one["policies"]) == _timeless(two["policies"])
    assert one["policies"]["heuristic"]["questions"] == 2
