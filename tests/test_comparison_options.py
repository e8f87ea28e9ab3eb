"""Compared options read whole, and a shared unit of administration as the same country.

The questions and corpora are hand-made: each expected value is read off the text."""

from __future__ import annotations

import pytest
from test_answer import _answer

from citeloop.runtime.planner import RulePlanner
from citeloop.runtime.relations import both_and_options, either_or_options


@pytest.mark.parametrize(("question", "options"), [
    ("Which film came out first, Oss 117 – Double Agent or A Man On His Knees?",
     ["Oss 117 – Double Agent", "A Man On His Knees"]),
    ("Which film whose director is younger, Keep 'Em Rolling or Balipeetam?", ["Keep 'Em Rolling", "Balipeetam"]),
])
def test_a_dash_or_a_clipped_word_stays_inside_an_option(question: str, options: list[str]) -> None:
    assert either_or_options(question) == options


@pytest.mark.parametrize(("question", "options"), [
    ("Are the movies Hellraiser: Revelations and Night Of Mystery, from the same country?",
     ["Hellraiser: Revelations", "Night Of Mystery"]),
    ("Are both Selo Imeni Chekhova and Volovo, Lipetsk Oblast located in the same country?",
     ["Selo Imeni Chekhova", "Volovo, Lipetsk Oblast"]),
    ("Were Scott Derrickson and Ed Wood of the same nationality?", ["Scott Derrickson", "Ed Wood"]),
    # with "both" after them, the second option is every word up to it
    ("Are Frozen and Escape from the Dark both animated features?", ["Frozen", "Escape from the Dark"]),
    # without: the second option goes on past a lower-case word, the planner reads it otherwise
    ("Are Frozen and Escape from the Dark from the same country?", []),
    ("Who directed Angel Eyes?", []),
])
def test_are_a_and_b_names_both_options_whole(question: str, options: list[str]) -> None:
    assert both_and_options(question) == options


def test_a_comparison_plans_one_hop_per_whole_option() -> None:
    plan = RulePlanner().plan("Are the movies Hellraiser: Revelations and Night Of Mystery, from the same country?")
    assert [a.title for a in plan.axes] == ["Hellraiser: Revelations", "Night Of Mystery"]


def test_two_places_in_one_administrative_unit_are_in_the_same_country() -> None:
    """Neither page names a country, both put the mountain in the Vasco Region."""
    answer = _answer("Are Puka Tarn and Inka Wall both located in the same country?", {
        "Puka Tarn": "Puka Tarn is a mountain. It is located in the Vasco Region, Tumbi Province.",
        "Inka Wall": "Inka Wall is a mountain. It is located in the Vasco Region, Canchi Province."})
    assert (answer.status, answer.text) == ("answered", "yes")


def test_a_shared_mountain_range_says_nothing_of_the_country() -> None:
    """A range crosses borders: two mountains "in the Andes" may be in two countries."""
    answer = _answer("Are Puka Tarn and Inka Wall both located in the same country?", {
        "Puka Tarn": "Puka Tarn is a mountain in the Andes Mountains.",
        "Inka Wall": "Inka Wall is a mountain in the Andes Mountains."})
    assert answer.status != "answered"


def test_the_agent_after_by_stands_at_the_relation() -> None:
    """"directed by Lou Ralt" stands as close to its relation as "the art directors Bo Hofer"
    does to theirs; the film's director, whose page the search returned, ranks first."""
    from llm_scripts import card

    from citeloop.runtime.bridging import rank_bridge_evidence

    plan = RulePlanner().plan("Which country the director of film Our Emdal is from?")
    hop = plan.sub_questions[0]
    sets = card("c1", "The film's sets were designed by the art directors Bo Hofer and Lud Reiber.", "d1", hop.id)
    directed = card("c2", "Our Emdal is a 1926 German silent war film directed by Lou Ralt.", "d2", hop.id)
    sets = sets.model_copy(update={"title": "Our Emdal", "grade": sets.grade.model_copy(update={"relevance": 0.675})})
    directed = directed.model_copy(update={"title": "Our Emdal",
                                           "grade": directed.grade.model_copy(update={"relevance": 0.75})})
    ranked = rank_bridge_evidence(plan, [sets, directed], {"Our Emdal", "Lou Ralt"}, hop.search_query)
    assert [name for name, _, _ in ranked][:2] == ["Lou Ralt", "Bo Hofer"]


def test_a_same_country_question_claims_the_sentences_that_name_a_country() -> None:
    """Each film's most relevant sentence names no country; the claims come from those that do,
    so the countries are compared ("American" and "British": no)."""
    answer = _answer("Are the movies Gull Point and Tern Bay from the same country?", {
        "Gull Point": "Gull Point movies fans still gather every year to watch Gull Point in the same country "
                      "cinemas. Gull Point is a 1978 American science fiction film directed by Arko Sen.",
        "Tern Bay": "Tern Bay movies fans still gather every year to watch Tern Bay in the same country cinemas. "
                    "Tern Bay is a 1980 British drama film directed by Ola Berg."})
    assert (answer.kind, answer.text) == ("yes_no", "no"), answer


def test_a_title_with_lower_case_words_is_compared_whole_and_answered() -> None:
    from test_answer import FILLER, _kit

    from citeloop.runtime.session import run_research
    from citeloop.trajectories.runfile import MemorySink

    result, _ = run_research("Are Velmfrost and Escape from the Orrin Dark both animated features?", _kit({**FILLER,
        "Velmfrost": "Velmfrost is a 2013 animated feature film produced by Orbit Animation.",
        "Escape from the Orrin Dark": "Escape from the Orrin Dark is a 1976 family drama film directed by Ada Kell."}),
        out_dir=None, sink=MemorySink())
    assert [a.title for a in result.plan.axes] == ["Velmfrost", "Escape from the Orrin Dark"]
    assert (result.report.answer.status, result.report.answer.text) == ("answered", "no"), result.report.answer


def test_a_comparison_asked_in_the_last_sentence_compares_the_options_named_before() -> None:
    from test_answer import FILLER, _kit

    from citeloop.runtime.session import run_research
    from citeloop.trajectories.runfile import MemorySink

    question = "Orbit Pies and Velm Crust were founded in the 1950s within a year of each other. Which was the first to serve pies?"
    assert RulePlanner().plan(question).question_type == "comparison"
    result, _ = run_research(question, _kit({**FILLER,
        "Orbit Pies": "Orbit Pies is a restaurant chain founded in 1959 and based in Velm.",
        "Velm Crust": "Velm Crust is a restaurant chain founded in 1958 by Ada Kell."}), out_dir=None, sink=MemorySink())
    assert (result.report.answer.kind, result.report.answer.text) == ("choice", "Velm Crust"), result.report.answer
