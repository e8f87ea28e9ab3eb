"""A question that asks for a measure ("What is the usual average snowfall in ...?") asks for a
number, and the number keeps the unit written after it ("6.8 inches"); a measure word that only
describes the noun asked ("What low budget comedy franchise ...?") asks for no number.

The corpus is hand-made: the expected values are read off the page text."""

from __future__ import annotations

import pytest
from test_answer import _answer

from citeloop.runtime.answer_hops import answer_kind
from citeloop.runtime.answer_spans import with_unit


@pytest.mark.parametrize(("question", "kind"), [
    ("What is the usual average snowfall in Calder?", "number"),
    ("What amount of cargo did the port of Calder handle in 2010?", "number"),
    ("What is the population of Tessaly?", "number"),
    ("What low budget British comedy franchise starred Lena Moss?", "entity"),
    ("What is the most popular hotel in Calder?", "entity"),
])
def test_a_measure_is_asked_as_a_number(question: str, kind: str) -> None:
    assert answer_kind(question) == kind


def test_a_number_keeps_its_unit_of_measure() -> None:
    quote = "Average annual snowfall, as measured at Calder Airport, is 6.8 inches (17.3 cm)."
    assert with_unit(quote, "6.8") == "6.8 inches"
    assert with_unit(quote, "17.3") == "17.3 cm"
    assert with_unit(quote, "17.3 cm") == "17.3 cm"  # a mention that holds its unit stays as it is
    assert with_unit("The club had 35 members in 1990.", "35") == "35"  # "members" is no unit
    assert with_unit("It is 116.8 inches long.", "6.8") == "6.8"  # not a part of another number


def test_the_snowfall_is_answered_with_its_unit() -> None:
    pages = {"Calder": "Calder is a city in Tessaly. Average annual snowfall, as measured at Calder Airport, "
                       "is 6.8 inches (17.3 cm). The city was founded in 1851."}
    answer = _answer("What is the usual average snowfall in Calder?", pages)
    assert answer.kind == "number"
    assert answer.text == "6.8 inches"
