"""Coverage, the intermediate metrics, failure modes, diagnosis and the scorer registry.

Hand-built trajectories pin each definition; real runs (the `kit` fixture) check that a
run scores the same from its file and from its in-memory events, and that coverage and
drop rate agree with what the engine recorded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloop.filters.diagnosis import DiagnosisConfig, diagnose
from citeloop.filters.errors import UnknownNameError
from citeloop.filters.metrics import SCORERS, RunScore, ScoreConfig, aggregate, resolve_scorer, score_run
from citeloop.filters.synthetic import TrajectoryBuilder
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import MemorySink, read_run

QUESTIONS = [
    "Who directed the film that was shot in or around Leland, North Carolina in 1986?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
    "If Gallu is a demon Lilu is what?",
]


def _score(b: TrajectoryBuilder, **kwargs) -> RunScore:
    return score_run(b.events, header=b.header, **kwargs)


# --------------------------------------------------------------------------- coverage


def _coverage_run() -> TrajectoryBuilder:
    b = TrajectoryBuilder()
    b.plan({"sq1": ["States the film"], "sq2": ["States the director"], "sq3": ["States the year"]})
    c1 = b.card("sq1", "Maximum Overdrive was shot in Leland, North Carolina.")
    b.claim("sq1", "Maximum Overdrive was shot in Leland, North Carolina.", [c1])
    return b


def test_coverage_is_the_share_of_planned_claims_stated_with_evidence() -> None:
    b = _coverage_run()
    b.report()
    s = _score(b)
    assert (s.expected_claims, s.covered_claims, s.plan_coverage) == (3, 1, pytest.approx(1 / 3, abs=1e-4))
    assert s.coverage == pytest.approx(1 / 6, abs=1e-4), "no stated answer: at most half the question"


def test_extra_claims_in_the_report_do_not_raise_coverage() -> None:
    b = _coverage_run()
    c2 = b.card("sq1", "Leland is a town in Brunswick County, North Carolina.")
    b.claim("sq1", "Leland is a town in Brunswick County, North Carolina.", [c2])  # more of a covered sub-question
    c9 = b.card("sq9", "Stephen King wrote the screenplay of Maximum Overdrive.")
    b.claim("sq9", "Stephen King wrote the screenplay of Maximum Overdrive.", [c9])  # not in the plan
    c3 = b.card("sq3", "Maximum Overdrive was released in 1986.")
    unbound = b.claim("sq3", "Maximum Overdrive was released in 1986.", [c3])
    b.report({"Film": ["claim-sq1-1", "claim-sq1-2", "claim-sq9-1",
                       b.report_claim(unbound, citations=["card-gone"])]})  # stated without bound evidence
    s = _score(b)
    assert s.plan_coverage == pytest.approx(1 / 3, abs=1e-4)
    assert s.sentences > 0 and s.cited_sentences == 4


def test_a_conflicting_claim_does_not_cover_its_sub_question() -> None:
    b = _coverage_run()
    c2 = b.card("sq2", "Maximum Overdrive was not directed by Stephen King.")
    b.claim("sq2", "Maximum Overdrive was directed by Stephen King.", [c2], verdict="conflict")
    b.report(disagreements=["claim-sq2-1"])
    s = _score(b)
    assert s.plan_coverage == pytest.approx(1 / 3, abs=1e-4)
    assert s.disagreements == 1 and "contradictions" in s.failure_modes


def test_coverage_is_none_without_plan_or_report() -> None:
    b = TrajectoryBuilder()
    b.plan({"sq1": ["States the film"]})
    assert _score(b).coverage is None, "no report yet: not computed"
    assert _score(TrajectoryBuilder()).coverage is None


# --------------------------------------------------------------------------- intermediate metrics


def _process_run() -> TrajectoryBuilder:
    b = TrajectoryBuilder()
    b.plan({"sq1": ["a"], "sq2": ["b"], "sq3": ["c"], "sq4": ["d"]})
    b.status("sq1", "pending", "searching")
    s1 = b.search("sq1", ["d1", "d2", "d3"])
    r1 = b.read("sq1", "d1", parent=s1)
    ca = b.card("sq1", "Alpha was founded in 1901 by Bertha Benz.", doc_id="d1", parent=r1,
                evidence_type="primary_document", cluster="cl-x")
    r2 = b.read("sq1", "d2", parent=s1)
    cb = b.card("sq1", "Alpha was founded in 1901.", doc_id="d2", parent=r2, cluster="cl-x")  # mirror of d1
    r3 = b.read("sq1", "d3", parent=s1)
    cc = b.card("sq1", "Alpha employs 300 people.", doc_id="d3", parent=r3, evidence_type="unknown")
    b.conflict(cb, ca)
    b.search("sq1", ["d9"])  # nothing kept from this one: irrelevant results
    b.status("sq1", "searching", "satisfied")
    b.status("sq2", "pending", "dead_end")
    b.status("sq3", "pending", "exhausted")  # sq4 stays pending: not found either
    b.claim("sq1", "Alpha was founded in 1901 by Bertha Benz.", [ca, cb])
    b.claim("sq1", "Alpha employs 300 people.", [cc, ca], rewritten_from="Alpha employs 300 happy people.")
    b.drop("sq1", "Alpha is loved.", [cc])
    b.drop("sq1", "Alpha was founded by Carl Benz.", [ca], verdict="partial")
    b.stop(searches_used=9, searches_max=10, reads_used=3, reads_max=12)
    b.report()
    b.finish()
    return b


def test_intermediate_metrics_from_events() -> None:
    s = _score(_process_run())
    assert (s.searches, s.reads, s.tool_errors) == (2, 3, 0)
    assert s.searches_per_subq == {"sq1": 2, "sq2": 0, "sq3": 0, "sq4": 0}
    assert s.duplicate_rate == pytest.approx(1 / 3, abs=1e-4), "d2 is in d1's same-source cluster"
    assert s.distinct_sources == 2
    assert s.primary_evidence_ratio == 0.5, "one primary, one secondary; unknown primacy is left out"
    assert s.independent_sources_per_claim == 1.5, "claim 1 cites one cluster twice, claim 2 two clusters"
    assert (s.rewrite_rate, s.drop_rate) == (0.25, 0.5)
    assert s.conflicts == 1
    assert (s.dead_ends, s.not_found) == (1, 2)
    assert s.model_calls is None and s.tokens is None, "no model-call events: not computed, not 0"


def test_failure_modes_are_detected_from_events() -> None:
    s = _score(_process_run())
    assert s.failure_modes == ["irrelevant_results", "contradictions", "budget_nearly_spent"]
    assert _score(_process_run(), config=ScoreConfig(budget_share=0.95)).failure_modes == [
        "irrelevant_results", "contradictions"]
    clean = TrajectoryBuilder()
    clean.plan({"sq1": ["a"]})
    s1 = clean.search("sq1", ["d1"])
    clean.card("sq1", "Alpha was founded in 1901.", parent=clean.read("sq1", "d1", parent=s1))
    clean.stop(searches_used=1, searches_max=10)
    assert _score(clean).failure_modes == []


def test_model_calls_and_tokens_are_counted_once_such_events_exist() -> None:
    class ModelCall:
        type = "model_call"
        run_id, parent_seq, subq = "run-synthetic", None, None

        def __init__(self, seq: int, usage: dict) -> None:
            self.seq, self.usage = seq, usage

    b = _process_run()
    events = [*b.events, ModelCall(len(b.events), {"prompt_tokens": 10, "completion_tokens": 5}),
              ModelCall(len(b.events) + 1, {"total_tokens": 7})]
    s = score_run(events, header=b.header)
    assert (s.model_calls, s.tokens) == (2, 22)


# --------------------------------------------------------------------------- diagnosis


def _m(correct, coverage, unsupported, **rest):
    return {"citation_correctness": correct, "coverage": coverage, "unsupported_claim_rate": unsupported, **rest}


@pytest.mark.parametrize(("metrics", "code"), [
    (_m(0.95, 0.3, 0.20), "stop_too_strict"),  # table 11.4 row 1
    (_m(0.95, 0.3, 0.05), "incomplete_but_confident"),  # row 2
    (_m(0.90, 0.9, 0.40), "no_evidence_closure"),  # row 3
    (_m(0.40, 0.2, 0.05), "retrieval_irrelevant"),  # row 4
    (_m(None, 0.0, None), "retrieval_irrelevant"),  # an empty report
    (_m(0.40, 0.8, 0.05), "misaligned_citations"),  # row 5
    (_m(0.95, 0.9, 0.0, duplicate_rate=0.5), "duplicate_evidence"),  # 11.7
    (_m(0.95, 0.9, 0.0, primary_evidence_ratio=0.1), "no_primary_evidence"),
    (_m(0.95, 0.9, 0.0, rewrite_rate=0.5), "rewrite_high"),  # 11.5
    (_m(0.95, 0.9, 0.0, drop_rate=0.6), "drop_high"),
])
def test_each_row_of_the_diagnosis_table_names_its_layer(metrics: dict, code: str) -> None:
    findings = diagnose(metrics)
    assert findings and findings[0].code == code
    assert "fix:" in str(findings[0]) and findings[0].layer


def test_healthy_metrics_have_no_diagnosis_and_thresholds_come_from_config() -> None:
    healthy = _m(0.95, 0.9, 0.0, duplicate_rate=0.0, primary_evidence_ratio=0.5)
    assert diagnose(healthy) == []
    assert [f.code for f in diagnose(healthy, DiagnosisConfig(coverage_low=0.95))] == ["incomplete_but_confident"]
    assert diagnose(_m(None, None, None)) == [], "nothing computed, nothing diagnosed"


# --------------------------------------------------------------------------- registry and aggregate


def test_scorers_are_plain_callables_resolved_by_name_or_path() -> None:
    assert resolve_scorer("coverage") is SCORERS["coverage"]
    assert resolve_scorer("citeloop.filters.intermediate:searches") is SCORERS["searches"]
    with pytest.raises(UnknownNameError, match="citation_correctness"):
        resolve_scorer("citation_corectness")
    b = _process_run()
    s = _score(b, scorers=["citeloop.filters.intermediate:reads", lambda view: len(view.events)])
    assert s.extra["citeloop.filters.intermediate:reads"] == 3
    assert s.extra["<lambda>"] == len(b.events)


def test_aggregate_is_a_none_aware_mean() -> None:
    empty = TrajectoryBuilder(run_id="run-empty")
    empty.plan({"sq1": ["a"]})
    empty.report({"Answer": []})
    full = _process_run()
    scores = [_score(empty), _score(full)]
    agg = aggregate(scores)
    assert agg["runs"] == 2
    correctness = agg["metrics"]["citation_correctness"]
    assert correctness == {"mean": scores[1].citation_correctness, "n": 1}, "None is skipped, not averaged as 0"
    assert agg["metrics"]["coverage"]["mean"] == pytest.approx((0.0 + scores[1].coverage) / 2, abs=1e-4)
    assert agg["metrics"]["model_calls"] == {"mean": None, "n": 0}


# --------------------------------------------------------------------------- real runs


def test_real_runs_score_the_same_from_file_and_from_memory(kit: ResearchKit, tmp_path: Path) -> None:
    for question in QUESTIONS:
        result, path = run_research(question, kit, out_dir=tmp_path)
        sink = MemorySink()
        run_research(question, kit, out_dir=None, sink=sink)
        from_file = score_run(read_run(path))
        from_memory = score_run(sink.events, header=sink.header)
        assert from_file == from_memory
        outcome = result.outcome
        assert from_file.coverage == outcome.metrics["coverage"], "coverage agrees with the engine's own count"
        assert from_file.drop_rate == outcome.metrics["drop_rate"]
        assert from_file.searches == outcome.counts["searches"] and from_file.reads == outcome.counts["reads"]
        assert from_file.finished and from_file.question == question
        assert from_file.citation_correctness is not None and from_file.coverage is not None


def test_mutating_a_real_report_moves_its_scores(kit: ResearchKit) -> None:
    sink = MemorySink()
    run_research(QUESTIONS[0], kit, out_dir=None, sink=sink)
    before = score_run(sink.events, header=sink.header)
    report_event = next(e for e in sink.events if e.type == "report_written")
    report = report_event.report
    first = report.sections[0]
    fabricated = first.claims[0].model_copy(update={
        "claim_id": "claim-x", "text": "The film won three Academy Awards in 1987.", "citations": []})
    wrong = first.claims[0].model_copy(update={"claim_id": "claim-y", "text": "The film was shot on the Moon by NASA."})
    mutated = report.model_copy(update={"sections": [first.model_copy(update={"claims": [*first.claims, fabricated, wrong]}),
                                                     *report.sections[1:]]})
    events = [e if e is not report_event else e.model_copy(update={"report": mutated}) for e in sink.events]
    after = score_run(events, header=sink.header)
    assert after.unsupported_claim_rate > before.unsupported_claim_rate
    assert after.citation_correctness < before.citation_correctness
    assert after.citation_recall_alce < before.citation_recall_alce
    assert after.coverage == before.coverage, "coverage is fixed by the plan, not by what the report adds"


def test_answer_in_report_when_a_gold_answer_is_known(kit: ResearchKit) -> None:
    sink = MemorySink()
    run_research(QUESTIONS[0], kit, out_dir=None, sink=sink)
    assert score_run(sink.events, header=sink.header, gold_answers="Stephen King").answer_in_report is True
    assert score_run(sink.events, header=sink.header, gold_answers=["Orson Welles"]).answer_in_report is False
    assert score_run(sink.events, header=sink.header).answer_in_report is None
