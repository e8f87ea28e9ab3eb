"""A question that asks of what someone died is answered by the words after a cause phrase of a
cited sentence, not by a name (`answer_slots.asks_cause`, `causes_in`); a burial is stated by
"interred" too; "which award?" is answered by a name that holds an award word (`asks_award`,
`awards_in`), "which century?" by a century (`asks_century`, `centuries_in`), and "what is the
abbreviation?" by a word in capitals that is no country's (`asks_abbreviation`,
`abbreviations_in`). Hand-made sentences."""

from __future__ import annotations

import pytest
from test_answer import _answer

from citeloop.runtime.answer_slots import abbreviations_in, asks_abbreviation, asks_cause, causes_in


@pytest.mark.parametrize(("question", "asks"), [
    ("What is the cause of death of Tavo Renn's father?", True),
    ("Why did Ola Berg's wife die?", True),
    ("Why did Ola Berg leave the band?", False),
    ("When did Ola Berg die?", False),
])
def test_a_cause_of_death_is_asked(question: str, asks: bool) -> None:
    assert asks_cause(question) is asks


@pytest.mark.parametrize(("sentence", "causes"), [
    ("Renn suffered from a form of multiple sclerosis and died on 6 March 1925 following complications of it.",
     ["a form of multiple sclerosis"]),
    ("He died on 2 August 2015 from Parkinson's disease.", ["Parkinson's disease"]),
    ("She was diagnosed with extrapulmonary tuberculosis in 1917.", ["extrapulmonary tuberculosis"]),
    ("He died in Ravensburg, aged 81.", []),  # where, not of what
    ("Her father died in 1925 when she was five years old.", []),
])
def test_a_cause_is_read_after_a_cause_phrase(sentence: str, causes: list[str]) -> None:
    assert [c for c, _ in causes_in(sentence)] == causes


def test_the_cause_of_a_fathers_death_is_answered_by_the_disease() -> None:
    answer = _answer("What is the cause of death of Ida Renn's father?", {
        "Ida Renn": "Ida Renn (1920 - 2001) was a Merrow painter. She was the daughter of Tavo Renn and Kara Venn. "
                    "Her father died in 1925 when she was five years old.",
        "Tavo Renn": "Tavo Renn (1880 - 1925) was a Merrow wood engraver. Renn suffered from a form of multiple "
                     "sclerosis and died on 6 March 1925 following complications of it."})
    assert answer.text == "a form of multiple sclerosis", answer


def test_a_burial_place_is_stated_by_interred() -> None:
    """"interred" and "entombed" state a burial as "buried" does (`relations.ATTRIBUTE_CUES`)."""
    answer = _answer("Where was the place of burial of Ida Renn's father?", {
        "Ida Renn": "Ida Renn (1920 - 2001) was a Merrow painter. She was the daughter of Tavo Renn and Kara Venn.",
        "Tavo Renn": "Tavo Renn (1880 - 1925) was a Merrow wood engraver who worked in Gull Point and Tessel. "
                     "He is interred at Velm Cemetery."})
    assert answer.text == "Velm Cemetery", answer


@pytest.mark.parametrize(("question", "asks"), [
    ("What is the award that the performer of song Gull Point received?", True),
    ("Which award the director of film Gull Point earned?", True),
    ("What prize did Ola Berg win?", True),
    ("What year did Ola Berg win the award?", False),  # a year is asked
    ("Who directed Award Night?", False),  # a title's word asks nothing
])
def test_an_award_is_asked(question: str, asks: bool) -> None:
    from citeloop.runtime.answer_slots import asks_award
    assert asks_award(question) is asks


def test_which_award_is_answered_by_an_awards_name_not_a_person() -> None:
    answer = _answer("Which award did the director of film Gull Point earn?", {
        "Gull Point": "Gull Point is a 2004 Merrow drama film directed by Ola Berg.",
        "Ola Berg": "Ola Berg (born 1960) is a Merrow film director. His debut, starring Ida Renn and Tavo Venn, "
                    "earned him two Tessel Awards for best debut director."})
    assert answer.text == "Tessel Awards", answer


@pytest.mark.parametrize(("sentence", "centuries"), [
    ("The breed was developed in the Chesapeake Bay area during the 19th century.", ["19th century"]),
    ("It originated in Texas in the mid-19th century.", ["19th century"]),  # the century, not its part
    ("It was first bred in 1850.", []),
])
def test_a_century_is_read_as_a_century(sentence: str, centuries: list[str]) -> None:
    from citeloop.runtime.answer_slots import centuries_in
    assert [c for c, _ in centuries_in(sentence)] == centuries


def test_which_century_is_answered_by_the_century() -> None:
    answer = _answer("The Gull Hound and the Tessel Setter are both dog breeds developed during which century?", {
        "Gull Hound": "The Gull Hound is a breed of working dog that originated in Merrow in the mid-19th century.",
        "Tessel Setter": "The Tessel Setter is a dog breed developed in the Tessel valley during the 19th century."})
    assert answer.text == "19th century", answer


@pytest.mark.parametrize(("question", "asks"), [
    ("What is the abbreviation to the magazine that called Dorn an impostor?", True),
    ("What is the acronym for the statewide investigation agency of Tessaly?", True),
    ("What is the name of the magazine that called Dorn an impostor?", False),
])
def test_an_abbreviation_is_asked(question: str, asks: bool) -> None:
    assert asks_abbreviation(question) is asks


@pytest.mark.parametrize(("sentence", "found"), [
    ("Dorn Format is commonly abbreviated to DXF, and issues use DXF as a prefix.", [("DXF", 1.0)]),
    ("The Tessaly Bureau of Investigation (TBI) keeps its own laboratory.", [("TBI", 1.0)]),
    ("The TBI is the primary state-level criminal investigative department.", [("TBI", 0.5)]),
    ("Dorn Format was the UK's first Linux-specific magazine.", []),  # a country's short name
])
def test_an_abbreviation_is_a_word_in_capitals(sentence: str, found: list) -> None:
    assert abbreviations_in(sentence) == found


def test_the_abbreviation_of_the_magazine_is_answered() -> None:
    answer = _answer("What is the abbreviation to the magazine that called Dorn Window Manager an impostor?", {
        "Dorn Window Manager": "Dorn Window Manager is a window manager. In 2000, Tessel Format called Dorn Window "
                               "Manager an impostor.",
        "Tessel Format": "Tessel Format was the UK's first Linux-specific magazine. Tessel Format is commonly "
                         "abbreviated to TXF, and issues use TXF as a prefix."})
    assert answer.text == "TXF", answer
