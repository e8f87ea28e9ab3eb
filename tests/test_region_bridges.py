"""A chain through a region: "the state where X is" ends its clause at "is" (the words after it
ask the outer question), the state is found by the form places are written in ("Marlow,
Tessaly": the part after the comma), and the next hop searches that state alone when no
runner-up is of the asked kind; a town is the first part of "Marlow, Tessaly", and an answer of
the asked kind by its name ("Marlow Regional Airport") is no subject for holding the bridge's name.
A clause written without its pronoun ("the country Tessaly is
from") is a hop all the same, and a possessive names the kind its background hop finds.

The corpora are hand-made: the expected names are read off the page text."""

from __future__ import annotations

import pytest
from llm_scripts import card as llm_card
from test_answer import FILLER, _kit

from citeloop.runtime.answer_spans import best_span
from citeloop.runtime.bridging import kind_nearness, rank_bridge_candidates
from citeloop.runtime.clauses import split_clause_end
from citeloop.runtime.place_forms import is_region_by_form, is_town_by_form, of_kind_by_form
from citeloop.runtime.planner import RulePlanner
from citeloop.runtime.session import run_research
from citeloop.trajectories.models import ReportClaim
from citeloop.trajectories.runfile import MemorySink


@pytest.mark.parametrize(("clause", "split"), [
    ("where Brenholt High is stop selling beer", ("where Brenholt High is", "stop selling beer")),
    ("where the Dorn Mounds is located become part of the union",
     ("where the Dorn Mounds is located", "become part of the union")),
    ("where the village of Calder is located, become a member of the league",
     ("where the village of Calder is located", "become a member of the league")),
    # the clause runs to the end, or what follows belongs to it
    ("where the Bubye River is found", ("where the Bubye River is found", "")),
    ("that Jimena is a part", ("that Jimena is a part", "")),
    ("where Liang Ji is during the protests", ("where Liang Ji is during the protests", "")),
    # the pronoun is the clause's subject: no subject of its own stands before "was"
    ("who was premier of Tessaly", ("who was premier of Tessaly", "")),
    ("that was founded in 2005, and is based where", ("that was founded in 2005, and is based where", "")),
])
def test_a_clause_ends_at_its_own_verb_is(clause: str, split: tuple[str, str]) -> None:
    assert split_clause_end(clause) == split


@pytest.mark.parametrize(("head", "clause", "split"), [
    # the head inverts its auxiliary, so its own verb comes after the clause's last name
    ("When was the country", "that produced Iron Lotus taken by the Danes",
     ("that produced Iron Lotus", "taken by the Danes")),
    ("When was the company", "that published The Dorn Ledger founded",
     ("that published The Dorn Ledger", "founded")),
    ("What did the individual", 'who prepared "the Calder Charter" use as a basis for his beliefs',
     ('who prepared "the Calder Charter"', "use as a basis for his beliefs")),
    ("When did the city", "where the next Tessaly Games will be held fall",
     ("where the next Tessaly Games will be held", "fall")),
    # what follows the name belongs to the clause: a preposition, or a past verb of its own
    ("When was the country", "that produced Iron Lotus in 2000", ("that produced Iron Lotus in 2000", "")),
    ("Which city was the band", "when singer Ash Dorn responded to an advertisement",
     ("when singer Ash Dorn responded to an advertisement", "")),
    # a head with its own verb asks nothing after the clause
    ("Who directed the film", "that starred Ash Dorn won awards", ("that starred Ash Dorn won awards", "")),
])
def test_a_clause_ends_where_an_inverted_head_puts_its_verb(head: str, clause: str, split: tuple[str, str]) -> None:
    assert split_clause_end(clause, head) == split


def test_the_outer_verb_after_the_clause_is_asked_by_the_answer_hop() -> None:
    plan = RulePlanner().plan("When was the country that produced Iron Lotus taken by the Danes?")
    first, answer = plan.sub_questions
    assert first.finds == "country"
    assert "danes" not in first.search_query and "taken" not in first.search_query
    assert answer.search_query.startswith("{sq1}") and "danes" in answer.search_query


def test_the_words_after_the_clause_are_asked_by_the_answer_hop() -> None:
    plan = RulePlanner().plan("What time does the state where Brenholt High is stop selling beer?")
    first, answer = plan.sub_questions
    assert first.question == "Which state where Brenholt High is?"
    assert first.finds == "state"
    assert "beer" not in first.search_query
    assert answer.search_query.startswith("{sq1}") and "stop selling beer" in answer.search_query


def test_a_region_is_known_by_the_form_places_are_written_in() -> None:
    quote = "Brenholt High School is a secondary school located in the city of Marlow, Tessaly."
    assert is_region_by_form(quote, "Tessaly", "state")
    assert kind_nearness(quote, "Tessaly", "state") == 1.0
    assert not is_region_by_form(quote, "Marlow", "state")
    assert not is_region_by_form(quote, "Tessaly", "city")  # a town is asked: the comma's part is no answer
    # a comma inside a longer name's phrase is no place form
    assert not is_region_by_form("Known as Dunmore Academy, Central High School is a school.", "Central High School",
                                 "state")
    # a country is known by its name, not by its adjective
    assert is_region_by_form("Damerjog is a village in Djibouti.", "Djibouti", "country")
    assert not is_region_by_form("Orla Fenn is an American painter.", "American", "country")


def test_the_next_hop_searches_the_state_alone() -> None:
    """The school's page names its city, its state and its corporation; only the state is of
    the kind the hop asks for, so the next hop's query names it alone (the runner-ups would
    pull in other schools' pages)."""
    sink = MemorySink()
    pages = {
        "Brenholt High School": "Brenholt High School is a secondary school located in the city of Marlow, Tessaly. "
                                "It is run by the Brenholt Community School Corporation.",
        "Central High School (Dunmore)": "Central High School is a public high school in Dunmore.",
        "Alcohol laws of Tessaly": "In Tessaly, stores stop selling beer at 3 a.m. on weekdays.",
    }
    run_research("What time does the state where Brenholt High is stop selling beer?", _kit({**FILLER, **pages}),
                 out_dir=None, sink=sink)
    queries = [e.query for e in sink.events if e.type == "query_issued" and e.subq == "sq2"]
    assert queries and queries[0].startswith("Tessaly time"), queries
    assert "Brenholt" not in queries[0] and "Marlow" not in queries[0]


@pytest.mark.parametrize(("question", "first_hop"), [
    ("What currency predated the Lira in the country Signwell is from?", "Which country that Signwell is from?"),
    ("What county shares a border with the county in which Calder, Tessaly is located?",
     "Which county where Calder, Tessaly is located?"),
    ("Who ran for governor in the state the Battle of Dorn Creek was fought?",
     "Which state that the Battle of Dorn Creek was fought?"),
    ("When did the country containing Calderhaven leave the Ostrian Empire?",
     "Which country where Calderhaven is located?"),
])
def test_a_clause_without_its_pronoun_is_a_hop(question: str, first_hop: str) -> None:
    plan = RulePlanner().plan(question)
    assert plan.sub_questions[0].question == first_hop
    assert plan.sub_questions[1].search_query.startswith("{sq1}")
    assert plan.question == question  # the question itself is kept as asked


def test_a_name_and_its_verb_after_a_word_that_is_no_kind_stay_as_written() -> None:
    plan = RulePlanner().plan("Dorn is a town in Tessaly, the late President of Tessaly was Ivo Brant, who died when?")
    assert all("that President" not in sq.question for sq in plan.sub_questions)


def test_a_possessive_names_the_kind_the_background_finds() -> None:
    plan = RulePlanner().plan("Who was the first president of Damerjog's country?")
    assert plan.sub_questions[0].finds == "country"


def test_a_country_is_no_state_and_a_county_is_named_with_the_asked_word() -> None:
    quote = "The Dorn Church is a historic building in Calder, Tessaly, United States."
    assert of_kind_by_form(quote, "Tessaly", "state")
    assert not of_kind_by_form(quote, "United States", "state")  # it ends with "States" but is a country
    assert of_kind_by_form(quote, "United States", "country")
    # the part after a county's comma is its state
    assert not is_region_by_form("Portland is in Dodge County, Wisconsin.", "Wisconsin", "county")
    assert of_kind_by_form("Portland is in Dodge County, Wisconsin.", "Dodge County", "county")
    plan = RulePlanner().plan("What county shares a border with the county in which Calder, Tessaly is located?")
    first = plan.sub_questions[0]
    card = llm_card("c1", "Calder is an unincorporated community in Merrow County, Tessaly, United States.", "d1", first.id)
    ranked = rank_bridge_candidates(plan, [card.model_copy(update={"title": "Calder, Tessaly"})], {"Calder, Tessaly"},
                                    first.search_query, first.finds)
    # "county" is a word of the question, but it names the kind asked for, not the question's own place
    assert ranked[0] == "Merrow County", ranked


def test_a_town_is_the_first_part_of_a_place_and_no_country_is_one() -> None:
    quote = "WQRS is a talk radio station broadcasting in Marlow, Tessaly, United States."
    assert is_town_by_form(quote, "Marlow", "city")
    assert not is_town_by_form(quote, "Tessaly", "city")  # after a comma: the region
    assert not is_town_by_form(quote, "United States", "city")
    assert not is_town_by_form(quote, "Marlow", "state")  # a state is asked


def test_the_answer_of_the_asked_kind_holds_the_bridges_name() -> None:
    """The relative "where" asks no place: the airport is the subject of its sentence, named
    after the town the chain led to, and of the kind asked; the codes beside it are not."""
    pages = {
        "WQRS (AM)": "WQRS is a talk radio station broadcasting in Marlow, Tessaly, United States.",
        "Marlow Regional Airport": "Marlow Regional Airport (IATA: MRW, ICAO: KMRW) is a public airport located just "
                                   "north of Marlow, Tessaly.",
        # other stations licensed to broadcast: the first search reads them, not the airport
        "WQRT (FM)": "WQRT is a radio station licensed to broadcast in the city of Dunmore.",
        "WQRU (AM)": "WQRU is a radio station licensed to broadcast news in the city of Calder.",
    }
    result, _ = run_research("What is the name of the airport in the city where WQRS is licensed to broadcast?",
                             _kit({**FILLER, **pages}), out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "Marlow Regional Airport", result.report.answer


def test_the_answer_comes_from_the_bridges_own_article_before_a_passing_mention() -> None:
    """Two sentences each name a president beside the country the chain led to; the one in the
    country's own article answers who led it, not the one on a diplomat's page, though that
    one comes first and stands as near the relation word."""
    passing = llm_card("c1", "Lena Dorr was sent to Djibouti by Barack Obama, the leader.", "d1", "sq2")
    own = llm_card("c2", "In 2011 Ismail Omar, the leader of Djibouti, was elected.", "d2", "sq2")
    sentences = [(_claim(c.card_id, c.quote), c.model_copy(update={"title": title}))
                 for c, title in ((passing, "Lena Dorr"), (own, "Djibouti"))]
    found = best_span("entity", sentences, {"leader"}, ["Djibouti"], "Who was the leader of the country Damerby is in?")
    assert found[0].text == "Ismail Omar", found


def _claim(card_id: str, text: str) -> ReportClaim:
    return ReportClaim(claim_id=f"claim-{card_id}", text=text, citations=[card_id], verdict="entail",
                       confidence="weak", independent_sources=1)


def test_a_us_state_is_a_state_by_its_name_wherever_it_stands() -> None:
    quote = "The wind farm is located in Sac and Buena Vista counties in north-west Iowa, and has 107 turbines."
    assert is_region_by_form(quote, "Iowa", "state")
    assert not is_region_by_form(quote, "Buena Vista", "state")
    assert not is_region_by_form(quote, "Iowa", "county")  # a state's name says nothing of a county


def test_no_person_is_of_the_asked_kind_by_the_form_of_a_name() -> None:
    quote = ("Ilsa Varn is a Tessalian actress known for her role on a drama that earned her a nomination for "
             "Outstanding Supporting Actress.")
    assert not of_kind_by_form(quote, "Outstanding Supporting Actress", "actress")  # an award, not an actress
    assert of_kind_by_form("It plays in the Calder Arena.", "Calder Arena", "arena")  # a place is named by its kind
    # the answer is the actress the sentence is about, not the award that ends with the word
    card = llm_card("c1", quote, "d1", "sq2").model_copy(update={"title": "Ilsa Varn"})
    found = best_span("entity", [(ReportClaim(claim_id="k1", text=quote, citations=["c1"], verdict="entail",
                                              confidence="weak", independent_sources=1), card)],
                      {"actress", "star"}, ["Barrier Line"], "Barrier Line starred which Tessalian actress?",
                      finds="actress")
    assert found and found[0].text == "Ilsa Varn", [(f.text, f.score) for f in found]


def test_a_noun_after_a_or_an_describes_the_bridge_not_a_question_name() -> None:
    from citeloop.runtime.bridging import indefinite_nouns

    question = "Tern Hall is a residential hall in a university located in what Tessalian city?"
    assert indefinite_nouns(question) == {"residential", "hall", "university"}
    assert indefinite_nouns("Ola Brenn is on a network founded by who?") == {"network"}
    assert indefinite_nouns("Who founded the network Ola Brenn is on?") == set()
    plan = RulePlanner().plan(question)
    first = plan.sub_questions[0]
    card = llm_card("c1", "Tern Hall is a residential hall in Tessalian National University, opened in 1974.", "d1",
                    first.id).model_copy(update={"title": "Tern Hall"})
    ranked = rank_bridge_candidates(plan, [card], {"Tern Hall"}, first.search_query, first.finds)
    # "Tessalian" and "university" are words of the question, but they describe the university
    # looked for: the name is the bridge, not a name the question gives
    assert ranked and ranked[0] == "Tessalian National University", ranked


def test_a_person_hop_does_not_follow_a_place() -> None:
    """"The author of Tern": "first performed in Calder, Tessaly" names places, not the author."""
    plan = RulePlanner().plan("What country was the author of Tern a citizen of?")
    first = plan.sub_questions[0]
    cards = [llm_card("c1", "Tern is a play by the Vessian playwright Ivo Brenn.", "d1", first.id),
             llm_card("c2", "It is a verse tragedy, written in 1865 and first performed in Calder, Tessaly on "
                      "24 March 1867.", "d1", first.id)]
    cards = [c.model_copy(update={"title": "Tern (play)", "grade": c.grade.model_copy(update={"relevance": r})})
             for c, r in zip(cards, (0.5, 0.85))]
    ranked = rank_bridge_candidates(plan, cards, {"Tern (play)"}, first.search_query, first.finds)
    assert ranked and ranked[0] == "Ivo Brenn", ranked


def test_a_card_names_an_entity_only_in_whole_words() -> None:
    from citeloop.runtime.entity_titles import names_entity

    branding = llm_card("c1", "Ada Klee is an author and a cofounder of a personal branding startup.", "d1")
    assert not names_entity(branding, ["tern"]) and not names_entity(branding, ["brand"])
    assert names_entity(llm_card("c2", "Tern's first act is set in a fjord.", "d1"), ["tern"])

