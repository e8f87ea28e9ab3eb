"""A place a question asks something of is a hop of its own ("the country of X's performer"):
`relations.relation_path` adds the place step, the planner gives it the kind it finds, a
country is known only by its name, and the answer hop is not met before its own search by a
date that says nothing of what it asks.

The corpora are hand-made: the expected answers are read off the page text."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from llm_scripts import card
from test_answer import FILLER, _kit

from citeloop.runtime.answer_hops import answer_sentence_tests, hop_relation
from citeloop.runtime.card_views import CardViews
from citeloop.runtime.config import load_config
from citeloop.runtime.place_forms import of_kind_by_form
from citeloop.runtime.planner import RulePlanner
from citeloop.runtime.session import run_research
from citeloop.runtime.subq_state import SubQuestionState
from citeloop.trajectories.runfile import MemorySink


@pytest.mark.parametrize(("question", "queries", "finds"), [
    ("When did the country of Vela Song's performer invade Tessel?",
     ["Vela Song performer", "{sq1} country", "{sq2} invade tessel"], ["", "country", ""]),
    ("Who was in charge of the country where the composer of Vela Song was a citizen?",
     ["Vela Song composer", "{sq1} country", "{sq2} charge citizen"], ["", "country", ""]),
    ("What is the main airport in birth place of the director of Gull Point?",
     ["Gull Point director", "{sq1} birthplace", "{sq2} main airport"], ["", "city", ""]),  # a birthplace is a town
    # the place is all that is asked: no hop of its own
    ("Where was the place of death of the director of film Gull Point?",
     ["Gull Point director", "{sq1} place death"], ["", ""]),
])
def test_a_place_asked_about_is_a_hop_of_its_own(question: str, queries: list[str], finds: list[str]) -> None:
    plan = RulePlanner().plan(question)
    assert [s.search_query for s in plan.sub_questions] == queries
    assert [s.finds for s in plan.sub_questions] == finds


@pytest.mark.parametrize(("name", "country"), [("Soviet Union", True), ("Kino", False), ("Alisa", False)])
def test_a_country_is_known_by_its_name_not_by_a_comma(name: str, country: bool) -> None:
    quote = ("Red Wave: 4 Underground Bands from the Soviet Union was a double album featuring the rock "
             "bands Aquarium, Kino, Alisa, and Strannye Igry.")
    assert of_kind_by_form(quote, name, "country") is country


def test_the_last_hop_searches_though_a_page_read_before_has_a_date() -> None:
    """The band's page dates its founding: that says nothing of an invasion, so the last hop
    still searches, and reads the page that dates the invasion (one read per search, so the
    whole-question search reads only the album's page)."""
    result, _ = run_research("When did the country of Vela Song's performer invade Tessel?", _kit({**FILLER,
        "Vela Song": "Vela Song is a studio album by the rock band Orla Band, released by Real Records.",
        "Orla Band": "Orla Band is a rock band from Norway, founded in 1982.",
        "Norwegian invasion of Tessel": "Norway invaded Tessel on 8 August 1945, a week before the armistice."}),
        load_config(None, {"read": {"reads_per_search": 1}}), out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "8 August 1945", result.report.answer


class _Views(CardViews):
    """Just enough run state for `_sources`: the answer hop's on-topic cards, before its search."""

    def __init__(self, question: str, cards: list) -> None:
        plan = RulePlanner().plan(question)
        sq = plan.sub_questions[-1]
        self.cards, self._source_counts, self.read_docs = cards, {}, {}
        self._answer_tests = answer_sentence_tests(plan)
        self._hop_words = {sid: hop_relation(plan, sid) for sid in self._answer_tests}  # as the engine: a date
        self.states = {sq.id: SubQuestionState(sq=sq, status="pending", query="Norway invade tessel", entities=["Norway"])}
        self.ledger = SimpleNamespace(cards=cards, independent_sources=lambda ids: len(set(ids)))

    def _on_topic_cards(self, sid: str) -> list:
        return self.cards


@pytest.mark.parametrize(("quote", "sources"), [
    ("Orla Band is a rock band from Norway, founded in 1982.", 0),  # a date, but of no invasion
    ("Norway invaded Tessel on 8 August 1945.", 1),
])
def test_an_answer_hop_is_met_before_its_search_only_by_a_sentence_about_what_it_asks(quote: str,
                                                                                       sources: int) -> None:
    views = _Views("When did the country of Vela Song's performer invade Tessel?", [card("c1", quote, subq="sq3")])
    assert views._sources("sq3") == sources


def test_what_county_is_answered_by_the_county_not_the_state_after_its_comma() -> None:
    """"what state" takes the name after a town's comma ("Portland, Oregon"); a county is named
    with its word, and the name after its comma is its state."""
    from llm_scripts import claim_of

    from citeloop.runtime.answer_spans import best_span
    hop = card("c1", "Portland is an unincorporated community located partially in the town of Portland in Dodge "
                     "County, Wisconsin and partially in the town of Waterloo in Jefferson County, Wisconsin.")
    found = best_span("entity", [(claim_of(hop), hop)], {"share", "border", "counti"},
                      ["Jefferson County", "Black Hawk Township"],
                      "What county shares a border with the county where Black Hawk Township is located?", set(),
                      "county")
    assert found[0].text == "Dodge County", found
