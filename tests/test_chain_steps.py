"""A chain step inside a question is no question word of its own: "Of what church is the Diocese
of the birthplace of X?" asks for a church (the birthplace is a step, and a town: "born in
Calder, New Tessaly"), and a name's "of" and "the" are no words it shares with the question.
A rank ("Ranked 35th") or a coordinate ("102 ° 3 ′ W") in an infobox is no count the
question's number can be.

The corpus is hand-made: the expected names are read off the page text."""

from __future__ import annotations

import pytest
from test_answer import _answer

from citeloop.runtime.answer_spans import _is_subject
from citeloop.runtime.question_asks import asks_place
from citeloop.runtime.planner import RulePlanner
from citeloop.runtime.text import tokenize

PAGES = {
    "Tessa Marlow": "Tessa Marlow (born 3 May 1950, in Calder, New Tessaly) is a retired hockey winger. "
                    "She played nine seasons for the Calder Hawks.",
    "Diocese of Calder": "The Diocese of Calder is a diocese of the Ecclesiastical Province of Tessaly of "
                         "the Dornish Church of Tessaly. Its first bishop was Ivo Brant.",
    "Calder City Hall": "The Calder City Hall is the meeting place of the city council in Calder, New Tessaly. "
                        "It was built in 1876.",
    "New Tessaly": "New Tessaly is a province on the east coast. Its capital is Calder.",
    # what the search for the whole question reads before the diocese's page
    "Tessa Marlow Trophy": "The Tessa Marlow Trophy is given to the best winger of the year. "
                           "Tessa Marlow handed it out in a church hall.",
    "Birthplace (film)": "Birthplace is a 1999 film about a church choir. It is set in Tessaly.",
}


def test_a_birthplace_step_looks_for_a_town() -> None:
    plan = RulePlanner().plan("Of what church is the Diocese of the birthplace of Tessa Marlow?")
    first, answer = plan.sub_questions
    assert first.search_query == "Tessa Marlow birthplace"
    assert first.finds == "city"
    assert answer.finds == ""


@pytest.mark.parametrize(("question", "place"), [
    ("Of what church is the Diocese of the birthplace of Tessa Marlow?", False),
    ("What kind of plane flew over Tessa Marlow's birthplace?", False),
    ("What is the place of birth of Tessa Marlow?", True),
    ("Where did the composer of Dorn Song die?", True),
    ("In what county is the birthplace of Tessa Marlow?", True),
    ("Who founded the Dornish Church?", False),
])
def test_a_place_is_asked_only_when_the_question_word_asks_for_one(question: str, place: bool) -> None:
    assert asks_place(question) is place


def test_a_name_shares_only_its_own_words_with_the_question() -> None:
    question = set(tokenize("Of what church is the Diocese of the birthplace of Tessa Marlow?"))
    name = "Ecclesiastical Province of Tessaly of the Dornish Church of Tessaly"
    assert not _is_subject(name, ["Calder"], question)  # only "church" of its own words is asked
    assert _is_subject("Diocese of Calder", ["Calder"], question)


def test_the_church_of_the_birthplace_is_answered() -> None:
    answer = _answer("Of what church is the Diocese of the birthplace of Tessa Marlow?", PAGES)
    assert answer.text is not None and "Dornish Church of Tessaly" in answer.text
    assert "New Tessaly" not in answer.text


def test_a_leading_article_makes_no_name_longer() -> None:
    # a name of several words scores over one of one word; "The Hague" is one word, "Artatama I" two
    from citeloop.runtime.answer_spans import _name_words
    assert _name_words("The Hague") == ["hague"]
    assert _name_words("Artatama I") == ["artatama", "i"]
    assert _name_words("The") == ["the"]


def test_a_rank_or_a_coordinate_counts_nothing() -> None:
    from citeloop.runtime.mentions import number_mentions
    text = "Longitude 94 ° 35 ′ W to 102 ° 3 ′ W Population Ranked 35th Total 2,913,123 (2017 est.), the 3rd largest"
    assert [m.text for m in number_mentions(text)] == ["2,913,123", "2017"]
    assert [m.text for m in number_mentions("It has 35 members and 12 seats.")] == ["35", "12"]


def test_the_population_is_the_count_not_its_rank() -> None:
    pages = {"Tessaly (state)": "State of Tessaly Capital Calder Area Ranked 15th Total 82,278 sq mi Longitude 94 ° 35 ′ W "
                                "to 102 ° 3 ′ W Population Ranked 35th Total 2,913,123 (2017 est.)"}
    answer = _answer("What is the population of Tessaly?", pages)
    assert answer.text == "2,913,123"


@pytest.mark.parametrize(("question", "queries", "finds"), [
    ("Who was the first president of Dorvik's country?", ["Dorvik country", "{sq1} first president"],
     ["country", ""]),
    ("What is the most popular hotel in Tessa Marlow's city of birth?", ["Tessa Marlow city birth", "{sq1} popular hotel"],
     ["city", "hotel"]),
    ("Who did Ash Dorn's team play in the final last year?", ["Ash Dorn team", "{sq1} play final last year"],
     ["team", ""]),
])
def test_a_possessive_of_a_kind_is_the_first_hop(question: str, queries: list[str], finds: list[str]) -> None:
    plan = RulePlanner().plan(question)
    assert plan.question_type == "bridge"
    assert [s.search_query for s in plan.sub_questions] == queries
    assert [s.finds for s in plan.sub_questions] == finds


def test_a_possessive_asked_for_itself_is_one_hop() -> None:
    plan = RulePlanner().plan("What is Dorvik's country?")
    assert len(plan.sub_questions) == 1


@pytest.mark.parametrize(("question", "noun"), [
    ("What is the most popular hotel in Calder?", "hotel"),
    ("What is the main international airport in Calder?", "airport"),
    ("What is the largest city of Tessaly?", "city"),
    ("What is the population of Tessaly?", "population"),
    ("What is a term for a diocese?", ""),
])
def test_the_noun_before_the_preposition_is_asked(question: str, noun: str) -> None:
    from citeloop.runtime.clauses import asked_noun
    assert asked_noun(question) == noun


def test_a_place_named_after_the_subject_is_another_entity() -> None:
    question = set(tokenize("What is the most popular hotel in Gisvi's city of birth?"))
    assert not _is_subject("Calder Country Club Resort", ["Calder"], question)
    assert _is_subject("Gerard III, Count of Guelders", ["Gerard III"], question)
    assert _is_subject("Calder", ["Calder"], question)


def test_an_actress_is_found_by_the_words_for_a_cast() -> None:
    # "the actress who played ...": the bridge stands next to "starring", not next to "directed by"
    from llm_scripts import card

    from citeloop.runtime.bridging import rank_bridge_candidates
    question = "Dorn Valley contained the actress who played which part on The Calder Family?"
    plan = RulePlanner().plan(question)
    first = plan.sub_questions[0]
    assert first.finds == "actress"
    quote = "Dorn Valley is a 1961 comedy released by Apex Pictures that stars Lena Moss as a baker."
    ranked = rank_bridge_candidates(plan, [card("c1", quote).model_copy(update={"title": "Dorn Valley"})],
                                    {"Dorn Valley"}, first.search_query, first.finds)
    assert ranked[0] == "Lena Moss"


def test_a_plural_relation_is_a_step_of_the_chain() -> None:
    plan = RulePlanner().plan("What is the usual average snowfall in the city where the performers of Dorn were formed?")
    assert [s.search_query for s in plan.sub_questions][:2] == ["Dorn performer", "{sq1} city"]
