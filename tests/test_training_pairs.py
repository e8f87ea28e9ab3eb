"""`citeloop export pairs`: branch a run at a decision, keep verified wins by a margin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import citeloop.training.outcomes as outcomes_mod
from citeloop.eval.cli import main
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.pairs import alternatives, export_pairs
from citeloop.trajectories.events import StopDecision
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.runfile import read_run

QUESTION = "Who founded the company that makes the Model S?"


@pytest.fixture(scope="module")
def run_path(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    _, path = run_research(QUESTION, kit, out_dir=tmp_path_factory.mktemp("pair-runs"))
    return path


def _early_continue(path: Path) -> StopDecision:
    """The run's first policy stop decision: `continue` at round 1, before the minimum rounds."""
    stop = next(e for e in read_run(path).events if e.type == "stop_decision" and e.policy.name == "heuristic")
    assert stop.choice == "continue" and not stop.state.min_rounds_met
    return stop


def test_stopping_too_early_loses_clearly_and_yields_the_pair(run_path: Path, kit: ResearchKit) -> None:
    stop = _early_continue(run_path)
    result = export_pairs([run_path], decision="stop", alternatives_k=3, min_margin=0.05, kit=kit, test_share=0.0)
    rows = [r for r in result.rows["train"] if r["seq"] == stop.seq]
    assert len(rows) == 1
    row = rows[0]
    assert row["chosen"] == [{"role": "assistant", "content": "CONTINUE"}]
    assert row["rejected"] == [{"role": "assistant", "content": "STOP"}]
    assert row["margin"] == pytest.approx(row["chosen_score"] - row["rejected_score"]) and row["margin"] >= 0.05
    assert row["chosen_is_recorded"] and row["decision"] == "stop" and row["run_id"] == read_run(run_path).run_id
    assert row["continuation_policy"] == "heuristic" and row["chosen_run_id"] != row["rejected_run_id"]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert result.rollouts == 2 * result.examined["stop"]


def test_margin_below_m_yields_nothing(run_path: Path, kit: ResearchKit) -> None:
    result = export_pairs([run_path], decision="stop", alternatives_k=1, min_margin=0.9, kit=kit)
    assert not any(result.rows.values())
    assert result.left_out["margin below --min-margin"] >= 1


def test_a_chosen_side_failing_the_verifier_yields_nothing(run_path: Path, kit: ResearchKit,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outcomes_mod, "report_verified", lambda events: False)
    result = export_pairs([run_path], decision="stop", alternatives_k=1, min_margin=0.05, kit=kit)
    assert not any(result.rows.values())
    assert result.left_out["chosen side fails the verifier"] >= 1


def test_the_outcome_score_decides_the_direction(run_path: Path, kit: ResearchKit) -> None:
    """A hand-made outcome score that rewards stopping at the branch point flips the pair."""
    stop = _early_continue(run_path)

    def prefers_stopping(header: RunHeader, events: list) -> float:
        origin = header.spec.branch
        return 1.0 if origin is not None and origin.branch_seq == stop.seq and origin.forced_choice == "stop" else 0.0

    result = export_pairs([run_path], decision="stop", alternatives_k=1, min_margin=0.5, kit=kit, test_share=0.0,
                          outcome=prefers_stopping)
    row = next(r for r in result.rows["train"] if r["seq"] == stop.seq)
    assert row["chosen"][0]["content"] == "STOP" and not row["chosen_is_recorded"]
    assert (row["chosen_score"], row["rejected_score"], row["margin"]) == (1.0, 0.0, 1.0)


def test_alternatives_exclude_the_recorded_action_and_respect_k(run_path: Path) -> None:
    run = read_run(run_path)
    for event in run.events:
        if event.type == "angle_decision":
            alts = alternatives(event, 2)
            assert len(alts) == min(2, len(event.candidates) - 1) and str(event.choice) not in alts
        elif event.type in ("read_decision", "keep_decision"):
            alts = alternatives(event, 10)
            assert ",".join(event.choice) not in alts and len(set(alts)) == len(alts)
            assert alternatives(event, 10) == alts  # deterministic


def test_cli_writes_a_dpo_dataset(run_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from datasets import load_from_disk

    out = tmp_path / "pairs"
    assert main(["export", "pairs", "--runs", str(run_path), "--decision", "stop", "--alternatives", "1",
                 "--min-margin", "0.05", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    data = load_from_disk(str(out / "dataset"))
    ds = next(iter(data.values()))
    row = ds[0]
    assert [set(m) for m in row["prompt"]] == [{"role", "content"}] * 2
    assert [m["role"] for m in row["chosen"]] == [m["role"] for m in row["rejected"]] == ["assistant"]
    assert {"chosen_score", "rejected_score", "margin", "seq", "run_id", "policy_name"} <= set(ds.column_names)
    assert summary["margins"]["min"] >= 0.05 and "Margin distribution" in (out / "README.md").read_text()
    assert main(["export", "pairs", "--runs", str(run_path), "--decision", "stop", "--min-margin", "0.99",
                 "--out", str(tmp_path / "none")]) == 2
    assert "no pair reached margin" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()
