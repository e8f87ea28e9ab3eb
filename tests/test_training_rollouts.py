"""Pairs from a hand-made run, gold-scored outcomes, sampling, parallel engines, RL export and rewards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.filters.gold import GoldEntry, GoldFileError, GoldSet, question_key
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.pairs import export_pairs
from citeloop.training.rewards import RolloutReward
from citeloop.training.rl import export_rl
from citeloop.training.rollouts import OutcomeSettings
from citeloop.training.sampling import select_decisions
from citeloop.trajectories.runfile import read_run

QUESTION = "Who designed the Lumora Telescope?"
FILLERS = ["river delta farming", "medieval bread ovens", "jazz trumpet history", "glacier ice cores",
           "desert beetle water", "harbor crane design", "silk road caravans", "volcanic soil wine"]


@pytest.fixture(scope="module")
def hand(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ResearchKit, Path, GoldSet]:
    """A ten-document corpus where one result answers the question and a look-alike does not.

    With one read in the whole budget, reading the answering document is the only way to
    retrieve the gold evidence."""
    root = tmp_path_factory.mktemp("hand")
    docs = [
        {"id": "d-gold", "title": "Lumora Telescope",
         "text": "The Lumora Telescope was designed by the astronomer Petra Vance. "
                 "It began observing in 1998 from a mountain in Chile."},
        {"id": "d-decoy", "title": "Lumora Telescope Fan Club",
         "text": "The Lumora Telescope Fan Club meets monthly. Members share photographs of the night sky."},
    ] + [{"id": f"d-fill{i}", "title": f.title(),
          "text": f"{f.capitalize()} is a topic of study. Researchers have written about {f} for decades."}
         for i, f in enumerate(FILLERS)]
    corpus = root / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    kit = ResearchKit.load(corpus, cache_dir=root / "cache")
    config = ResearchConfig.model_validate({"read": {"reads_per_search": 1}, "budget": {"max_reads": 1}})
    _, path = run_research(QUESTION, kit, config, out_dir=root / "runs")
    gold = GoldSet({question_key(QUESTION): GoldEntry(frozenset({("d-gold", -1)}), "paragraph")})
    return path, kit, corpus, gold


def test_a_read_choice_that_clearly_wins_yields_exactly_the_expected_pairs(hand) -> None:
    path, kit, corpus, gold = hand
    read = next(e for e in read_run(path).events if e.type == "read_decision")
    assert read.choice == ["d-gold"] and read.candidates[0] == "d-gold" and len(read.candidates) == 3
    result = export_pairs([path], decision="read", alternatives_k=2, min_margin=0.05, kit=kit, gold=gold,
                          corpus=corpus, test_share=0.0)
    rows = result.rows["train"]
    assert [(r["chosen"][0]["content"], r["rejected"][0]["content"]) for r in rows] == [
        ("READ 1", "READ 2"), ("READ 1", "READ 3")]
    for row in rows:
        assert row["outcome_basis"] == "gold_recall" and row["seq"] == read.seq and row["chosen_is_recorded"]
        assert (row["chosen_gold_recall"], row["rejected_gold_recall"]) == (1.0, 0.0)
        assert row["margin"] == pytest.approx(1.0 + 0.01 * (row["rejected_searches"] - row["chosen_searches"]))
    assert result.gold_agreement() == {"pairs_with_gold": 2, "agree": 2, "tie": 0, "disagree": 0, "agreement": 1.0}


def test_without_gold_the_filters_score_decides(hand) -> None:
    path, kit, corpus, _ = hand
    result = export_pairs([path], decision="read", alternatives_k=2, min_margin=0.0, kit=kit, corpus=corpus,
                          test_share=0.0)
    assert {r["outcome_basis"] for r in result.all_rows()} <= {"filters"}
    assert all(r["chosen_gold_recall"] is None for r in result.all_rows())


def test_serial_process_and_repeat_runs_give_identical_pairs(run_paths: list[Path], kit: ResearchKit) -> None:
    serial = export_pairs(run_paths, decision="all", alternatives_k=1, per_kind=3, kit=kit, engine="serial")
    pooled = export_pairs(run_paths, decision="all", alternatives_k=1, per_kind=3, kit=kit, engine="process",
                          workers=2)
    assert serial.rows == pooled.rows and serial.rollouts == pooled.rollouts > 0
    assert sum(serial.examined.values()) <= 3 * 5  # per_kind 3, five kinds


def test_ray_engine_gives_the_same_pairs(run_paths: list[Path], kit: ResearchKit) -> None:
    pytest.importorskip("ray")
    serial = export_pairs(run_paths[:1], decision="stop", alternatives_k=1, kit=kit, engine="serial")
    on_ray = export_pairs(run_paths[:1], decision="stop", alternatives_k=1, kit=kit, engine="ray", workers=2)
    assert on_ray.rows == serial.rows and on_ray.rollouts == serial.rollouts > 0


def test_an_unknown_engine_is_a_clear_error(run_paths: list[Path], kit: ResearchKit) -> None:
    from citeloop.training.sft import ExportError
    with pytest.raises(ExportError, match="--engine 'spark' is not one of serial, process, ray"):
        export_pairs(run_paths[:1], decision="stop", kit=kit, engine="spark")


@pytest.fixture(scope="module")
def run_paths(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("mix-runs")
    small = ResearchConfig.model_validate({"budget": {"max_searches": 3}})
    paths = [run_research("Who founded the company that makes the Model S?", kit, out_dir=out)[1],
             run_research("Who founded the company that makes the Model S?", kit, small, policy_spec="explore",
                          seed=3, out_dir=out)[1],
             run_research("Which country is the Eiffel Tower in?", kit, out_dir=out)[1]]
    return paths


def test_sampling_drops_repeated_states_tags_recovery_and_caps_kinds(run_paths: list[Path]) -> None:
    once = select_decisions(run_paths[:1])
    twice = select_decisions([run_paths[0], run_paths[0]])
    assert len(twice.decisions) == len(once.decisions) and twice.duplicates == len(once.decisions)
    everything = select_decisions(run_paths)
    # the small-budget run reaches its last search: its late stop decisions are tagged budget_low
    small = [d for d in everything.decisions if d.path == str(run_paths[1]) and d.kind == "stop"]
    assert small and "budget_low" in small[-1].tags
    capped = select_decisions(run_paths, per_kind=2)
    by_kind: dict[str, list] = {}
    for d in capped.decisions:
        by_kind.setdefault(d.kind, []).append(d)
    assert all(len(v) <= 2 for v in by_kind.values()) and set(by_kind) == set(everything.available)
    for kind, chosen in by_kind.items():
        tagged = [d for d in everything.decisions if d.kind == kind and d.tags]
        assert sum(bool(d.tags) for d in chosen) == min(2, len(tagged))  # recovery states first
    assert capped.mix()["policies"] and capped.mix()["questions"] >= 1
    with pytest.raises(ValueError, match="--per-kind 0"):
        select_decisions(run_paths, per_kind=0)


def test_rl_rows_and_the_rollout_reward(hand, tmp_path: Path) -> None:
    path, kit, corpus, gold = hand
    result = export_rl([path], decision="read", test_share=0.0)
    (row,) = result.rows["train"]
    assert row["recorded_action"] == "READ 1" and row["n_candidates"] == 3 and Path(row["run_path"]).is_absolute()
    reward = RolloutReward(OutcomeSettings(gold=gold, corpus=str(corpus)), log_path=tmp_path / "rewards.jsonl")
    completions = [[{"role": "assistant", "content": c}] for c in ("READ 1", "READ 2", "the first one", "READ 9")]
    n = len(completions)
    scores = reward([row["prompt"]] * n, completions, decision=["read"] * n, n_candidates=[3] * n,
                    run_path=[row["run_path"]] * n, seq=[row["seq"]] * n, question=[row["question"]] * n)
    assert scores[0] > scores[1] and scores[0] == pytest.approx(1.0, abs=0.1)
    assert scores[2] == scores[3] == reward.penalty
    assert reward.status_counts() == {"scored": 2, "unparsable": 2}
    logged = [json.loads(line) for line in (tmp_path / "rewards.jsonl").read_text().splitlines()]
    assert [r["status"] for r in logged] == ["scored", "scored", "unparsable", "unparsable"]
    assert reward.__name__ == "rollout_reward"


def test_reward_for_an_action_the_branch_cannot_take_is_the_penalty(hand) -> None:
    path, kit, corpus, _ = hand
    row = export_rl([path], decision="read", test_share=0.0).rows["train"][0]
    reward = RolloutReward(OutcomeSettings(corpus=str(corpus)), penalty=-2.0)
    (score,) = reward([row["prompt"]], ["READ 1,2"], decision=["read"], n_candidates=[3],
                      run_path=[row["run_path"]], seq=[row["seq"]])
    assert score == -2.0 and reward.records[0]["status"] == "invalid" and "read(s) were left" in reward.records[0]["reason"]


def test_splits_never_share_a_question(run_paths: list[Path], kit: ResearchKit) -> None:
    for rows in (export_rl(run_paths, test_share=0.5).rows,
                 export_pairs(run_paths, decision="stop", alternatives_k=1, min_margin=0.0, kit=kit,
                              test_share=0.5).rows):
        train = {question_key(r["question"]) for r in rows["train"]}
        test = {question_key(r["question"]) for r in rows["test"]}
        assert not train & test and train | test


def test_gold_file_round_trip_and_errors(tmp_path: Path) -> None:
    gold = GoldSet({question_key("Q one?"): GoldEntry(frozenset({("d1", 2), ("d2", -1)}), "sentence")})
    gold.write(tmp_path / "gold.jsonl")
    again = GoldSet.read(tmp_path / "gold.jsonl")
    assert again.get("  q ONE? ") == gold.get("Q one?")
    bad = tmp_path / "bad.jsonl"
    for text, message in [('{"question": "q", "units": [["d", "x"]]}', "bad.jsonl:1: 'units' must be"),
                          ("not json", "bad.jsonl:1: not JSON"),
                          ('{"question": "q", "level": "word", "units": []}', "level 'word'"),
                          ("", "holds no questions")]:
        bad.write_text(text + "\n")
        with pytest.raises(GoldFileError, match=message):
            GoldSet.read(bad)
    with pytest.raises(GoldFileError, match="does not exist"):
        GoldSet.read(tmp_path / "missing.jsonl")


def test_cli_gold_then_rl_export(hand, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from datasets import load_from_disk

    path, _, corpus, _ = hand
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({"id": "1", "question": QUESTION, "gold": [{"doc_id": "d-gold"}]}) + "\n")
    assert main(["gold", "--dataset", str(questions), "--corpus", str(corpus), "--out", str(tmp_path / "g.jsonl"),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["questions"] == 1
    assert GoldSet.read(tmp_path / "g.jsonl").get(QUESTION).units == frozenset({("d-gold", -1)})
    out = tmp_path / "rl"
    assert main(["export", "rl", "--runs", str(path), "--out", str(out), "--test-share", "0", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    ds = load_from_disk(str(out / "dataset"))["train"]
    assert len(ds) == summary["rows"]["train"] > 0 and {"prompt", "run_path", "seq", "decision"} <= set(ds.column_names)
    assert "GRPOTrainer" in (out / "README.md").read_text()
    assert main(["export", "pairs", "--runs", str(path), "--gold", str(tmp_path / "nope.jsonl"),
                 "--out", str(tmp_path / "p")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_run_whose_corpus_is_gone_cannot_be_branched_and_says_why(hand, kit: ResearchKit, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    _, hand_kit, corpus, _ = hand
    moved = tmp_path / "corpus.jsonl"
    moved.write_bytes(corpus.read_bytes())
    config = ResearchConfig.model_validate({"read": {"reads_per_search": 1}, "budget": {"max_reads": 1}})
    _, path = run_research(QUESTION, ResearchKit.load(moved, cache_dir=tmp_path / "cache"), config,
                           out_dir=tmp_path / "runs")
    moved.unlink()
    result = export_pairs([path], decision="read", alternatives_k=2, kit=kit, test_share=0.0)
    assert not result.all_rows() and result.errors
    assert all("corpus" in e["reason"] for e in result.errors) and result.errors[0]["path"] == str(path)
    assert result.summary("x", 0.0, "y")["errors"] == result.errors
    assert main(["export", "pairs", "--runs", str(path), "--engine", "serial", "--out", str(tmp_path / "p")]) == 2
    assert "could not be branched, e.g. the run's corpus" in capsys.readouterr().err
