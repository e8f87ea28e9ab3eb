"""A hop's topic and an answer named by its kind: a possessive still names a hop's entity; a
year stops being a hop's topic once a bridge name fills its slot; a name that ends with the
word for what is asked ("Vescaro crime family", "Avery County") is one of those, grown from
the page title the run read.

The corpora are hand-made: the expected answers are read off the page text."""

from __future__ import annotations

from citeloop.runtime.bridging import kind_nearness
from citeloop.runtime.session import run_research
from citeloop.runtime.subq_state import hop_entities
from citeloop.trajectories.runfile import MemorySink
from test_answer import FILLER, _answer, _kit
from test_answer_earlier_hops import _research


def test_a_possessive_in_the_query_still_names_the_entity() -> None:
    assert hop_entities(["Mara Quint", "2005"], "mara quint's first novel published house") == ["Mara Quint"]
    # and a title with a possessive of its own is still named by a query that writes it so
    assert hop_entities(["Everybody's Hobby"], "everybody's hobby director") == ["Everybody's Hobby"]


def test_a_query_without_stopwords_still_names_an_entity_that_has_them() -> None:
    """The planner writes a hop's query from the question's words without stopwords: "location
    siege cassel took place" is about "Siege of Cassel" (so a sibling page read by the same
    search, which never names it, is no evidence of this hop)."""
    assert hop_entities(["Siege of Cassel"], "location siege cassel took place") == ["Siege of Cassel"]
    assert hop_entities(["Siege of Cassel"], "location siege took place") == []
    # a name of stopwords alone is compared with them
    assert hop_entities(["The Who"], "the who first album") == ["The Who"]
    # a single letter is part of the name: a query that lost it names another thing
    assert hop_entities(["Model S"], "company makes model") == []


def test_a_name_ending_with_the_asked_word_is_of_that_kind() -> None:
    quote = "Dorran County lies east of the river; the town is the seat of Avery County."
    assert kind_nearness(quote, "Avery County", "county") == 1.0
    assert kind_nearness(quote, "County", "county") < 1.0  # the word alone names nothing


def test_a_year_is_no_longer_the_answer_hops_topic_once_the_bridge_is_named() -> None:
    """"{sq1} founded 2005 based": before the publisher is found the hop is about 2005; after,
    a dance company founded in 2005 is not about the publisher and does not answer."""
    answer = _answer(
        "Mara Quint's first novel was published by an independent publishing house that was founded in 2005, "
        "and is based where?", {
            "Mara Quint": "Mara Quint is a novelist. Her first novel, \"Salt Fields\" was published by Two Kettle "
                          "Press in 2010.",
            "Two Kettle Press": "Two Kettle Press is an independent publishing house based in Dunmore, Ohio. "
                                "It was founded in 2005.",
            "Blue Step Dance": "Blue Step Dance is a dance company founded in Harlow in 2005. It is based in "
                               "a former mill."})
    assert (answer.status, answer.text) == ("answered", "Dunmore, Ohio")


def test_the_asked_kind_grows_a_name_to_the_page_title_read() -> None:
    """"what crime family": the sentence names "the Vescaro crime family of Newark"; the run
    read the page "Vescaro crime family", so that is the name, and it is the kind asked."""
    answer = _answer(
        "Pell Carver was a biographer for an American contract killer who was associated with members of what "
        "crime family?", {
            "Pell Carver": "Pell Carver was a journalist and the biographer of Rick Dorran.",
            "Rick Dorran": "Rick Dorran was an American contract killer. He was associated with members of the "
                           "Mafia, namely the Vescaro crime family of Newark, New Jersey.",
            "Vescaro crime family": "The Vescaro crime family is an organized crime family that operates in "
                                    "Elizabeth, New Jersey."})
    assert (answer.status, answer.text) == ("answered", "Vescaro crime family")


def test_a_name_in_a_titles_qualifier_can_be_the_bridge() -> None:
    """"the performer of song Tidal Glass (Mira Okon Song)": the qualifier tells the song from
    its namesakes; the performer it names is still the hop to follow."""
    result = _research("Where was the performer of song Tidal Glass (Mira Okon Song) born?", {
        "Tidal Glass (Mira Okon song)": "\"Tidal Glass\" is a song recorded by the singer Mira Okon, released "
                                        "in 2001 as a single.",
        "Mira Okon": "Mira Okon is a singer and lyricist. Born and raised in Velden, Sarn, Okon moved to the "
                     "capital at fourteen."})
    assert result.report.resolved_entities == {"sq1": "Mira Okon"}
    assert (result.report.answer.status, result.report.answer.text) == ("answered", "Velden, Sarn")


def test_the_words_after_a_places_comma_are_no_region_when_they_name_the_subject() -> None:
    from citeloop.runtime.answer_places import where_it_lies

    quote = "Born and raised in Velden, Okon moved to the capital at fourteen."
    assert where_it_lies(quote, "Velden", "", ["Mira Okon"]) == "Velden"
    assert where_it_lies("She died in Onawa, Iowa.", "Onawa", "", ["Iowa"]) == "Onawa, Iowa"


def test_a_date_hop_uses_the_article_read_while_finding_its_subject() -> None:
    """The first search reads the director's own article while finding the director; the hop
    asking his birth date finds it there (a sentence that states a date) and spends no search."""
    from citeloop.runtime.answer_hops import answer_value_kind
    from citeloop.runtime.planner import RulePlanner

    question = "Which film whose director was born first, Dune Song or The Grey Kite?"
    assert answer_value_kind(RulePlanner().plan(question)) == "date"
    assert answer_value_kind(RulePlanner().plan("Who directed Dune Song?")) == "entity"
    sink = MemorySink()
    result = run_research(question, _kit({**FILLER,
        "Dune Song": "Dune Song is a 1944 Argentine comedy film directed by Luis Verano.",
        "The Grey Kite": "The Grey Kite is a 1974 Turkish comedy film directed by Ertem Kaya.",
        "Luis Verano": "Luis Verano (28 May 1902 – 5 June 1977) was an Argentine film director. He directed Dune "
                       "Song in 1944.",
        "Ertem Kaya": "Ertem Kaya (18 February 1929 – 21 September 1989) was a Turkish film director."}),
        out_dir=None, sink=sink)[0]
    assert result.report.answer.text == "Dune Song"
    born_hop = next(s.id for s in result.plan.sub_questions if s.depends_on == ["sq1"])
    assert [e.query for e in sink.events if e.type == "query_issued" and e.subq == born_hop] == []
