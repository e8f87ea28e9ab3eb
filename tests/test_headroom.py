"""Outcome scores with costs, the headroom report, best-of-K rows and gold files with answers,
on the two-films corpus of test_decisions (following Salt Marsh Road answers Mara Quint)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.filters.gold import GoldEntry, GoldFileError, GoldSet, question_key
from citeloop.training.best_of_k import export_best_of_k
from citeloop.training.headroom import measure_headroom
from citeloop.training.outcomes import Outcome, OutcomeSettings
from citeloop.training.sft import ExportError, decision_kinds
from citeloop.runtime.session import ResearchKit
from test_decisions import BRIDGE, TWO_FILMS, _run


@pytest.fixture(scope="module")
def two_films(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    tmp = tmp_path_factory.mktemp("headroom")
    corpus = tmp / "corpus.jsonl"  # a corpus file, so rollout workers can load it by the run's header
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "title": t, "text": x}) + "\n"
                              for i, (t, x) in enumerate(TWO_FILMS.items())), encoding="utf-8")
    kit = ResearchKit.load(corpus, cache_dir=tmp / "cache")
    _, run = _run(BRIDGE, kit, tmp / "runs")
    salt = next(d.id for d in kit.corpus.documents if d.title == "Salt Marsh Road")
    port = next(d.id for d in kit.corpus.documents if d.title == "Port Elsa")
    gold = GoldSet({question_key(BRIDGE): GoldEntry(frozenset({(salt, -1), (port, -1)}), "paragraph",
                                                    ("Mara Quint",))})
    return kit, run, gold


def test_the_outcome_score_adds_the_answer_and_charges_searches_and_reads() -> None:
    settings = OutcomeSettings(search_cost=0.03, read_cost=0.01, answer_weight=0.5)
    outcome = Outcome(score=0.0, basis="filters", verified=True, gold_recall=1.0, searches=2, run_id="r",
                      filters_score=0.2, reads=4, answer_correct=1.0)
    assert outcome.rescored(True, settings).score == pytest.approx(1.0 + 0.5 - 0.06 - 0.04)
    assert outcome.rescored(False, settings).score == 0.2, "gold-free: the filters score"
    # The default costs: one search that adds nothing (and its three reads) loses more than the margin.
    d = OutcomeSettings()
    assert d.cost(1, 3) > d.margin("stop")


def test_headroom_scores_every_follow_option_by_gold_and_answer(two_films) -> None:  # noqa: ANN001
    kit, run, gold = two_films
    result = measure_headroom([run.path], gold, "follow", kit=kit, engine="serial")
    (follow,) = result.decisions
    by_name = {}
    event = next(e for e in run.events if e.seq == follow.seq)
    for action, outcome in follow.outcomes.items():
        by_name[" + ".join(event.candidates[int(action)].names)] = outcome
    assert by_name["Salt Marsh Road"].answer_correct == 1.0 and by_name["Grey Tide"].answer_correct == 0.0
    assert by_name["Salt Marsh Road"].score > by_name["Grey Tide"].score + 0.05
    assert by_name[" + ".join(event.candidates[int(follow.best[0])].names)] is not by_name["Grey Tide"]
    kinds = result.summary()["kinds"]
    assert kinds["follow"]["decisions"] == 1
    assert result.summary()["follow_oracle"]["runs"] == 1


def test_best_of_k_rows_hold_the_best_scoring_action(two_films) -> None:  # noqa: ANN001
    kit, run, gold = two_films
    export = export_best_of_k([run.path], "follow,stop", alternatives_k=8, test_share=0.0,
                              settings=OutcomeSettings(gold=gold), kit=kit, engine="serial")
    rows = export.rows["train"]
    assert {r["decision"] for r in rows} == {"follow", "stop"}
    for row in rows:
        assert row["best_score"] >= row["recorded_score"]
        if not row["best_is_recorded"]:
            assert row["best_score"] > row["recorded_score"], "a change is taught only when it scores better"
    follow = next(r for r in rows if r["decision"] == "follow")
    event = next(e for e in run.events if e.seq == follow["seq"])
    chosen = int(follow["completion"][0]["content"].split()[1]) - 1
    assert event.candidates[chosen].names in (["Salt Marsh Road"], ["Grey Tide", "Salt Marsh Road"],
                                              ["Salt Marsh Road", "Grey Tide"])
    assert event.candidates[chosen].names != ["Grey Tide"], "the option that answers wrongly never wins"


def test_gold_files_carry_answers_and_refuse_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    GoldSet({"q": GoldEntry(frozenset({("d1", 0)}), "sentence", ("Mara Quint", "M. Quint"))}).write(path)
    assert GoldSet.read(path).get("q").answers == ("Mara Quint", "M. Quint")
    path.write_text(json.dumps({"question": "q", "units": [["d1", 0]], "answers": "Mara"}) + "\n", encoding="utf-8")
    with pytest.raises(GoldFileError, match="'answers' must be a list of strings"):
        GoldSet.read(path)


def test_decision_kinds_may_be_listed() -> None:
    assert decision_kinds("stop,follow") == ("stop", "follow")
    with pytest.raises(ExportError, match="'stop,fly'"):
        decision_kinds("stop,fly")


def test_headroom_command_json_and_its_errors(two_films, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    _, run, _ = two_films
    assert main(["headroom", str(run.path), "--gold", str(tmp_path / "missing.jsonl")]) == 2
    assert "error:" in capsys.readouterr().err
    gold = tmp_path / "gold.jsonl"
    main(["gold", "--dataset", "hotpotqa", "--out", str(gold)])
    capsys.readouterr()
    # The gold file has no entry for this question: nothing can be measured.
    assert main(["headroom", str(run.path), "--gold", str(gold), "--engine", "serial", "--json"]) == 2
    assert main(["headroom", str(run.path), "--gold", str(gold), "--margin", "-1"]) == 2


def test_a_winning_read_is_told_apart_by_what_it_did() -> None:
    from citeloop.training.headroom import DecisionHeadroom, kind_summary

    def o(score: float) -> Outcome:
        return Outcome(score=score, basis="gold_recall", verified=True, gold_recall=score, searches=2, run_id="r",
                       filters_score=0.0, reads=3)

    def read(best: str) -> DecisionHeadroom:
        outcomes = {"d1,d2": o(0.5), "d3": o(0.5), "": o(0.5), "d1,d2,d4": o(0.5), best: o(0.9)}
        return DecisionHeadroom("p", 3, "read", (), outcomes["d1,d2"], outcomes, 0.05, "d1,d2")

    rows = [read("d1,d2,d4"), read("d3"), read(""), read("d2,d1,d4")]  # the last reorders: not one more
    assert kind_summary(rows)["winning_actions"] == {"one more read": 1, "other option": 2, "no read": 1}


def test_the_all_gold_oracle_counts_each_rescued_run_once_for_its_kind() -> None:
    from citeloop.training.headroom import DecisionHeadroom, Headroom

    def o(recall: float) -> Outcome:
        return Outcome(score=recall, basis="gold_recall", verified=True, gold_recall=recall, searches=2, run_id="r",
                       filters_score=0.0, reads=3)

    def d(path: str, seq: int, kind: str, recalls: list[float]) -> DecisionHeadroom:
        outcomes = {str(i): o(r) for i, r in enumerate(recalls)}
        return DecisionHeadroom(path, seq, kind, (), outcomes["0"], outcomes, 0.05, "0")

    result = Headroom(decisions=[d("a", 1, "read", [0.5, 1.0]), d("a", 2, "read", [0.5, 1.0]),
                                 d("b", 1, "read", [0.5, 0.5]), d("c", 1, "follow", [0.5, 1.0]),
                                 d("e", 1, "read", [1.0, 1.0])],
                      recorded_recall={"a": 0.5, "b": 0.5, "c": 0.5, "e": 1.0})
    # Runs a (two rescuing reads) counts once; b has no rescuing option; c's is a follow.
    assert result.all_gold_oracle("read") == {"runs": 4, "all_gold_recorded": 0.25, "all_gold_oracle": 0.5,
                                              "gain_points": 25.0}
    assert result.follow_oracle()["gain_points"] == 25.0
