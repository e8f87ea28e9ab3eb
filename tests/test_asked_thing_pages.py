"""A hop may judge a page another hop read when its title names the hop's entity and otherwise
only the thing the hop asks ("Pragova astronomical clock" for the clock of the city the chain
reached), and a relative "where" clause says where the bridge is, not what the answer asks
("... in the city where Karel Purkel died?" asks no death date).

The corpus is hand-made: the expected year is read off the page text."""

from __future__ import annotations

import pytest
from test_answer import FILLER, _kit

from citeloop.runtime.question_asks import asked_life
from citeloop.runtime.entity_titles import titles_asked_thing
from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink


@pytest.mark.parametrize(("question", "role"), [
    ("When was the astronomical clock built in the city where Karel Purkel died?", None),
    ("When did the director of film Hypocrite die?", "death"),
    ("Where was the father of Ann Lee born?", "birth"),
    ("What is the date of death of the man who founded the city where Ann Lee lived?", "death"),
])
def test_a_relative_where_clause_asks_no_life_date(question: str, role: str | None) -> None:
    assert asked_life(question) == role


def test_a_title_of_the_entity_and_the_asked_thing() -> None:
    query = "Pragova astronomical clock built city"
    assert titles_asked_thing("Pragova astronomical clock", {"pragova"}, query)
    assert not titles_asked_thing("Pragova Castle", {"pragova"}, query)  # "castle" is not asked
    assert not titles_asked_thing("Pragova", {"pragova"}, query)  # the entity's own page: names_title's case
    assert not titles_asked_thing("Pragovan clock", {"pragova"}, query)  # not the name as whole words


def test_the_clock_of_the_city_the_chain_reached_dates_the_answer() -> None:
    pages = {
        "Karel Purkel": "Karel Purkel (15 March 1834, Wroclawa – 5 April 1868, Pragova) was a painter in the "
                        "Ostrian Empire.",
        "Pragova astronomical clock": "The Pragova astronomical clock is a medieval clock on the Old Town Hall. "
                                      "The oldest part of the clock dates back to 1410 when it was made by "
                                      "a clockmaker.",
        "Astronomical clock": "An astronomical clock is a clock with special mechanisms and dials.",
    }
    result, _ = run_research("When was the astronomical clock built in the city where Karel Purkel died?",
                             _kit({**FILLER, **pages}), out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "1410", result.report.answer
