"""`without_name` and `_is_modifier` match names with `str.find` instead of a pattern compiled
per name; each must agree with the regular expression it replaces, written out here."""

import re

import pytest

from citeloop.runtime.answer_spans import _is_modifier
from citeloop.runtime.bridging import without_name

SENTENCES = [
    "Gull Point is a 1971 American film directed by Rob Margolies.",
    "The American-born actor moved to Paris in 1990.",
    "An american film, an AMERICAN film and an American\tfilm.",
    "She studied at Oxford.  Oxford University Press published it.",
    "The O.F.M. friar, Haymo of Faversham, taught in Paris.",
    "Alû is a vengeful spirit; alû_x is not a word, Alûs are.",
    "İstanbul and ſome KELVIN K signs: Kelvin and ſtrange.",
    "Nolan Nolan nolan NOLAN-Smith",
    "",
]
NAMES = ["American", "american", "Oxford", "O.F.M", "Alû", "Nolan", "İstanbul", "K", "s", "Paris", "film", "x"]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_is_modifier_agrees_with_its_pattern(sentence: str) -> None:
    for name in NAMES:
        expected = re.search(r"\b" + re.escape(name) + r"\s+[a-z]", sentence) is not None
        assert _is_modifier(sentence, name) is expected, name


@pytest.mark.parametrize("sentence", SENTENCES)
def test_without_name_agrees_with_a_case_insensitive_pattern(sentence: str) -> None:
    for name in NAMES:
        expected = re.compile(re.escape(name), re.IGNORECASE).sub(" ", sentence)
        assert without_name(sentence, name) == expected, name


def test_hand_made_cases() -> None:
    assert _is_modifier("an American film", "American")
    assert _is_modifier("a Latin-American film", "American")  # a word boundary after "-"
    assert not _is_modifier("a LatinAmerican film", "American")  # none inside a word
    assert not _is_modifier("an American Film", "American")
    assert not _is_modifier("the film American", "American")
    assert without_name("Who directed Gull Point, the gull point film?", "Gull Point") == "Who directed  , the   film?"
    # Outside ASCII, lower() may change a text's length ("İ" -> "i̇"), so positions found in
    # the lower-cased text would cut the original in the wrong place: the pattern decides.
    assert without_name("İzmir and Paris", "paris") == "İzmir and  "
