"""Answer scores: exact match and F1 against gold with aliases, yes/no from the answer object,
question-relative coverage and the gold-free run score, on real runs of the embedded corpus."""

from __future__ import annotations

import pytest
from test_answer import FILLER
from test_answer import _kit as _answer_kit

from citeloop.filters.answers import answer_match, chained_pages, normalise_answer
from citeloop.filters.metrics import score_run
from citeloop.filters.view import RunView
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import MemorySink


def test_normalisation_drops_case_punctuation_and_articles() -> None:
    assert normalise_answer("The Walt Disney Pictures.") == "walt disney pictures"


@pytest.mark.parametrize(("prediction", "gold", "em", "f1", "correct"), [
    ("Luis Mandoki", ["Luis Mandoki"], 1.0, 1.0, True),
    ("Mandoki", ["Luis Mandoki"], 0.0, 2 * 1.0 * 0.5 / 1.5, False),
    ("Walt Disney", ["Walt Disney Pictures", "Disney"], 0.0, 2 * 1.0 * (2 / 3) / (1 + 2 / 3), True),  # holds "Disney"
    ("yes", ["no"], 0.0, 0.0, False),
    ("no", ["no"], 1.0, 1.0, True),
    (None, ["Paris"], 0.0, 0.0, False),
])
def test_answer_match_takes_the_best_alias(prediction: str | None, gold: list[str], em: float, f1: float,
                                           correct: bool) -> None:
    match = answer_match(prediction, gold)
    assert (match.em, match.f1, match.correct) == (em, pytest.approx(f1), correct)


@pytest.mark.parametrize(("prediction", "gold", "correct", "em"), [
    ("John Lennon of the Beatles", ["John Lennon"], True, 0.0),   # the gold, whole, inside the answer
    ("the Walt Disney Pictures.", ["Walt Disney Pictures"], True, 1.0),
    ("Sandra Oh", ["Sandra Miju Oh"], False, 0.0),                # the answer inside the gold is not enough
    ("Johnson", ["John"], False, 0.0),                            # whole words only
    ("Lennon, John", ["John Lennon"], False, 0.0),
    ("no doubt", ["no"], False, 0.0),                             # yes/no must be the answer itself
    ("yes", ["yes"], True, 1.0),
    ("1924", ["Israel", "1924"], True, 1.0),                      # any alias
])
def test_answer_correct_is_the_gold_contained_in_the_answer(prediction: str, gold: list[str], correct: bool,
                                                            em: float) -> None:
    match = answer_match(prediction, gold)
    assert (match.correct, match.em) == (correct, em)


def test_no_gold_is_not_computed() -> None:
    assert answer_match("anything", []) is None


def _score(kit: ResearchKit, question: str, gold: list[str], events: list | None = None):  # noqa: ANN202
    sink = MemorySink()
    run_research(question, kit, out_dir=None, sink=sink)
    if events is not None:
        events.extend(sink.events)
    return score_run(sink.events, header=sink.header, gold_answers=gold)


def test_a_stated_right_answer_covers_the_question(kit: ResearchKit) -> None:
    events: list = []
    s = _score(kit, "Who directed Angel Eyes?", ["Luis Mandoki"], events)
    assert (s.answer, s.answer_stated, s.answer_correct, s.answer_f1) == ("Luis Mandoki", True, True, 1.0)
    assert s.coverage == pytest.approx(0.5 + 0.5 * s.plan_coverage)
    # The gold-free score, from the events: pages with evidence, chained pages, correctness,
    # sub-questions satisfied, the answer's confidence.
    cards = {e.card.card_id: e.card.doc_id for e in events if e.type == "card_created"}
    report = next(e.report for e in events if e.type == "report_written")
    titles = {e.doc_id: e.title.lower() for e in events if e.type == "document_read"}
    quotes = [(e.card.doc_id, e.card.quote.lower()) for e in events if e.type == "card_created"]
    chained = {d for d, t in titles.items() if any(o != d and t in q for o, q in quotes)}
    last = {e.subq: e.new for e in events if e.type == "subq_status_changed"}
    subqs = next(e.plan for e in events if e.type == "plan_created").sub_questions
    satisfied = sum(v == "satisfied" for v in last.values()) / len(subqs)
    confidence = {"strong": 1.0, "moderate": 0.5, "weak": 0.25}[report.answer.confidence]
    want = (0.1 * min(1, len(set(cards.values())) / 10) + 0.3 * min(1, len(chained) / 2)
            + 0.2 * s.citation_correctness + 0.1 * satisfied + 0.4 * confidence) / 1.1
    assert s.run_score == pytest.approx(want, abs=1e-4) and confidence > 0


def test_a_run_that_follows_the_name_its_evidence_gives_scores_a_chain() -> None:
    """"Velm Harbour ... directed by Arko Sen", then Arko Sen's own page: one chained page (the
    chain term is half full); the film's page, read first from the question, is not chained."""
    kit = _answer_kit({**FILLER,
                       "Velm Harbour": "Velm Harbour is a 1972 drama film directed by Arko Sen.",
                       "Arko Sen": "Arko Sen (4 May 1961 - 2 June 2020) is a screenwriter."})
    sink = MemorySink()
    run_research("When was the director of film Velm Harbour born?", kit, out_dir=None, sink=sink)
    view = RunView.build(sink.events, header=sink.header)
    read = {e.doc_id: e.title for e in sink.events if e.type == "document_read"}
    assert {read[d] for d in chained_pages(view)} == {"Arko Sen"}
    assert "Velm Harbour" in read.values()


def test_a_wrong_gold_answer_scores_zero_but_the_run_still_states_one(kit: ResearchKit) -> None:
    s = _score(kit, "Who directed Angel Eyes?", ["Someone Else"])
    assert (s.answer_stated, s.answer_correct, s.answer_f1) == (True, False, 0.0)


def test_yes_no_is_judged_from_the_answer_object(kit: ResearchKit) -> None:
    question = "Are Christopher Nolan and Sathish Kalathil both film directors?"
    right, wrong = _score(kit, question, ["yes"]), _score(kit, question, ["no"])
    assert right.answer == "yes" and right.answer_correct is True
    assert wrong.answer_correct is False and wrong.answer_in_report is False
