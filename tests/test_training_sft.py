"""`citeloop export sft`: rows from real runs, the action format, splits, dedup, the saved dataset."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.runtime.policies.actions import KINDS, ActionError, format_action, parse_action
from citeloop.runtime.policies.prompts import RunContext, recorded_action, render_prompt
from citeloop.training.sft import export_sft, run_rows, split_of
from citeloop.trajectories.events import DECISION_TYPES, AngleDecision, ReadDecision
from citeloop.trajectories.runfile import read_run

QUESTIONS = [
    "Who directed the film that was shot in or around Leland, North Carolina in 1986?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
    "Who founded the company that makes the Model S?",
]


@pytest.fixture(scope="module")
def runs_dir(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sft-runs")
    for question in QUESTIONS:
        run_research(question, kit, out_dir=out)
    run_research(QUESTIONS[0], kit, out_dir=out, policy_spec="explore", seed=3)
    return out


def _paths(runs_dir: Path) -> list[Path]:
    return sorted(runs_dir.glob("*.jsonl"))


def _one_action(e) -> bool:  # noqa: ANN001
    """Decisions where the policy could do one thing only (spelled out here, not the exporter's rule)."""
    if e.type in ("angle_decision", "follow_decision"):
        return len(e.candidates) < 2
    if e.type == "read_decision":
        return not e.candidates or e.state.reads_left == 0
    if e.type == "keep_decision":
        return not e.candidates
    return False


def test_one_row_per_policy_decision_of_a_real_run(runs_dir: Path) -> None:
    for path in _paths(runs_dir):
        run = read_run(path)
        decisions = [e for e in run.events if e.type in DECISION_TYPES and not _one_action(e)]
        result = export_sft([path], test_share=0.0)
        rows = result.rows["train"]
        assert [(r["run_id"], r["seq"]) for r in rows] == [(run.run_id, e.seq) for e in decisions]
        for row, event in zip(rows, decisions):
            assert [m["role"] for m in row["prompt"]] == ["system", "user"]
            assert row["question"] in row["prompt"][1]["content"]
            text = row["completion"][0]["content"]
            assert parse_action(row["decision"], text, row["n_candidates"]) == recorded_action(event)
            assert row["policy_name"] == event.policy.name and row["template_version"] >= 1
            assert row["template_id"] == f"citeloop.{row['decision']}"
        assert {r["decision"] for r in rows} <= set(KINDS)


def test_rendering_is_deterministic_and_fences_retrieved_text(runs_dir: Path) -> None:
    run = read_run(_paths(runs_dir)[0])
    read = next(e for e in run.events if e.type == "read_decision")
    first, template = render_prompt(read, RunContext.of(run))
    again, _ = render_prompt(read, RunContext.of(run))
    assert first == again and template.kind == "read"
    user = first[1]["content"]
    # Version 2 fences every result inside one block; version 1 fences each result on its own.
    assert user.count("<<<UNTRUSTED_EVIDENCE") == 1 == user.count("<<<END_UNTRUSTED_EVIDENCE>>>")
    fenced = user.split("<<<UNTRUSTED_EVIDENCE", 1)[1].split("<<<END_UNTRUSTED_EVIDENCE>>>")[0]
    assert all(f"[{i}]" in fenced for i in range(1, len(read.candidates) + 1))
    old = render_prompt(read, RunContext.of(run), version=1)[0][1]["content"]
    assert old.count("<<<UNTRUSTED_EVIDENCE") == len(read.candidates) == old.count("<<<END_UNTRUSTED_EVIDENCE>>>")
    assert all(doc_id not in text for doc_id in read.candidates for text in (user, old))  # no corpus-specific ids


@pytest.mark.parametrize(("kind", "action", "n", "text"), [
    ("stop", "stop", 2, "STOP"), ("stop", "continue", 2, "CONTINUE"),
    ("angle", 0, 5, "ANGLE 1"), ("angle", 4, 5, "ANGLE 5"),
    ("read", (2, 0), 4, "READ 3,1"), ("read", (), 4, "READ NONE"),
    ("keep", (1, 4), 6, "KEEP 2,5"), ("keep", (), 1, "KEEP NONE"),
])
def test_action_round_trip(kind: str, action: object, n: int, text: str) -> None:
    assert format_action(kind, action, n) == text
    assert parse_action(kind, text, n) == action
    assert parse_action(kind, f"  {text.lower()}\n", n) == action


@pytest.mark.parametrize(("kind", "text", "n"), [
    ("stop", "STOP now", 2), ("stop", "", 2), ("stop", "ANGLE 1", 2),
    ("angle", "ANGLE 0", 5), ("angle", "ANGLE 6", 5), ("angle", "ANGLE", 5), ("angle", "ANGLE 1,2", 5),
    ("read", "READ 1,1", 4), ("read", "READ 5", 4), ("read", "READ", 4), ("read", "READ 1,", 4),
    ("read", "KEEP 1", 4), ("read", "READ NONE,1", 4),
    ("keep", "KEEP 0", 3), ("keep", "I keep 1", 3), ("keep", "KEEP 1 2", 3),
    ("nonsense", "STOP", 2),
])
def test_malformed_action_text_parses_to_none(kind: str, text: str, n: int) -> None:
    assert parse_action(kind, text, n) is None


def test_format_refuses_actions_without_a_text_form() -> None:
    for kind, action, n in [("stop", "halt", 2), ("angle", 5, 5), ("read", (0, 0), 3), ("keep", [0], 3)]:
        with pytest.raises(ActionError):
            format_action(kind, action, n)


def test_decisions_with_one_possible_action_are_skipped(runs_dir: Path) -> None:
    # A read with no read left and an angle with one candidate: nothing a policy could learn.
    run = next(run for run in map(read_run, _paths(runs_dir))
               if any(isinstance(e, ReadDecision) for e in run.events) and any(isinstance(e, AngleDecision) for e in run.events))
    read = next(e for e in run.events if isinstance(e, ReadDecision))
    angle = next(e for e in run.events if isinstance(e, AngleDecision))
    no_reads = read.model_copy(update={"state": read.state.model_copy(update={"reads_left": 0}), "choice": []})
    one_angle = angle.model_copy(update={"candidates": angle.candidates[:1], "angles": angle.angles[:1], "choice": 0})
    run.events = [no_reads if e.seq == read.seq else one_angle if e.seq == angle.seq else e for e in run.events]
    skipped: Counter[str] = Counter()
    rows = run_rows(run, KINDS, skipped)
    assert {read.seq, angle.seq}.isdisjoint({r["seq"] for r in rows})
    assert skipped["read: only one possible action"] >= 1 and skipped["angle: only one possible action"] >= 1
    assert any(r["decision"] == "read" for r in run_rows(read_run(_paths(runs_dir)[0]), KINDS, Counter()))


def test_splits_are_by_question_and_never_share_one(runs_dir: Path) -> None:
    result = export_sft(_paths(runs_dir), test_share=0.5)
    train = {r["question"] for r in result.rows["train"]}
    test = {r["question"] for r in result.rows["test"]}
    assert not train & test
    assert train | test == set(QUESTIONS)
    for q in QUESTIONS:
        assert split_of(q, 0.5) == split_of(f"  {q.upper()} ", 0.5)  # normalised, deterministic
    assert all(split_of(q, 0.0) == "train" and split_of(q, 1.0) == "test" for q in QUESTIONS)


def test_identical_rows_are_kept_once(runs_dir: Path, tmp_path: Path) -> None:
    path = _paths(runs_dir)[0]
    copy = tmp_path / "copy.jsonl"
    shutil.copy(path, copy)
    once = export_sft([path])
    twice = export_sft([path, copy])
    n = sum(len(rows) for rows in once.rows.values())
    assert n > 0 and twice.duplicates == n + once.duplicates
    assert sum(len(rows) for rows in twice.rows.values()) == n


def test_unfinished_runs_are_skipped(runs_dir: Path, tmp_path: Path) -> None:
    lines = _paths(runs_dir)[0].read_text(encoding="utf-8").splitlines(keepends=True)
    torn = tmp_path / "torn.jsonl"
    torn.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    result = export_sft([torn])
    assert not any(result.rows.values()) and result.skipped_runs[0]["path"] == str(torn)


def test_cli_writes_a_dataset_trl_can_load(runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from datasets import load_from_disk

    out = tmp_path / "sft"
    assert main(["export", "sft", "--runs", str(runs_dir), "--decision", "all", "--out", str(out),
                 "--test-share", "0.5", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    data = load_from_disk(str(out / "dataset"))
    assert set(data) == {s for s, n in summary["rows"].items() if n}
    for split, ds in data.items():
        assert len(ds) == summary["rows"][split]
        row = ds[0]
        assert [set(m) for m in row["prompt"]] == [{"role", "content"}] * 2
        assert row["completion"] == [{"role": "assistant", "content": row["completion"][0]["content"]}]
        assert {"run_id", "seq", "decision", "policy_name", "policy_version", "question", "template_id",
                "template_version"} <= set(ds.column_names)
        assert (out / "parquet" / f"{split}.parquet").is_file()
    card = (out / "README.md").read_text(encoding="utf-8")
    for kind, counts in summary["counts"].items():
        assert f"| {kind} | {counts['train']} | {counts['test']} |" in card
    assert len(summary["runs"]) == 4 and all(r["run_id"] in card for r in summary["runs"])

    assert main(["export", "sft", "--runs", str(runs_dir), "--decision", "stop", "--out", str(out)]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["export", "sft", "--runs", str(runs_dir), "--decision", "stop", "--out", str(out),
                 "--overwrite", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["counts"]) == {"stop"}
    assert main(["export", "sft", "--runs", str(runs_dir), "--decision", "plan", "--out", str(tmp_path / "x")]) == 2
    assert "--decision 'plan'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
