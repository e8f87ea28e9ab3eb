"""An answer is stated only from a sentence that states the relation asked: a name next to
words of another relation is shown as a candidate, not given as the answer."""

from __future__ import annotations

import pytest
from citeloop.runtime.answer_hops import answer_kind
from citeloop.runtime.answer_sentences import states_kind
from test_answer import _answer


def test_a_name_beside_another_relation_is_a_candidate_not_the_answer() -> None:
    pages = {"Varnia": "Varnia was one of the founding members of the Tallow League (1949). "
                       "Varnia has many rivers."}
    answer = _answer("What is the capital of Varnia?", pages)
    assert answer.status == "not_found"
    assert answer.text is None
    assert "Tallow League" in answer.candidates
    assert "capital" in answer.reason


def test_the_sentence_that_states_the_relation_answers() -> None:
    pages = {"Varnia": "Varnia was one of the founding members of the Tallow League (1949). "
                       "Ostrel is the capital of Varnia."}
    answer = _answer("What is the capital of Varnia?", pages)
    assert answer.status == "answered"
    assert answer.text == "Ostrel"


def test_a_place_question_is_stated_by_a_place_word_without_its_kind_noun() -> None:
    question = "Tom Quill is a singer-songwriter from what state?"
    sentence = "Tom Quill (born October 4, 1973) is a singer-songwriter and guitarist from Portland, Oregon."
    assert states_kind("entity", question, {"state"}, sentence)
    # the kind noun may be left out, not the relation: a birth must still be said
    assert not states_kind("entity", "In what state was Tom Quill born?", {"born", "birth", "state"},
                           "Tom Quill plays guitar with a band from Portland, Oregon.")
    answer = _answer(question, {"Tom Quill": sentence})
    assert answer.status == "answered"
    assert answer.text == "Oregon"


def test_where_someone_is_from_is_the_country_written_before_born() -> None:
    pages = {"Tam Orrin": "Tam Orrin (born 1963) is a New Zealand-born American director and writer of film."}
    assert _answer("Which country is Tam Orrin from?", pages).text == "New Zealand"
    # a nationality is the one the sentence gives the noun, not the birth country
    assert _answer("What nationality is Tam Orrin?", pages).text == "American"


def test_a_participle_hyphened_to_a_name_ends_the_name() -> None:
    from citeloop.runtime.text import entity_spans

    spans = entity_spans("The London-based Acme Records signed Park Jin-pyo, born in Weston-super-Mare.")
    assert "London" in spans and "Acme Records" in spans
    assert "Park Jin-pyo" in spans and "Weston-super-Mare" in spans
    # any participle: "-held", "-speaking", not only the ones a name is most often given with
    spans = entity_spans("Duke Orm failed to capture French-held Kassel from the English-speaking Tom Vale.")
    assert "Kassel" in spans and "Tom Vale" in spans
    assert not any("-" in span for span in spans)
    assert "Stratford-upon-Avon" in entity_spans("He was born in Stratford-upon-Avon.")


def test_a_who_question_is_not_answered_by_the_place_something_happened_in() -> None:
    pages = {"Quill Road": "Quill Road is a 1972 Mexican comedy film directed by Tom Vale and starring Rosa Lind.",
             "Tom Vale": "Tom Vale (1904-1978) was a Mexican film director. On 1932, while in New York City, "
                         "Tom Vale married Puerto Rican childhood friend María del Pilar Cordero, who adopted "
                         "the stage name of Mapy Vale."}
    answer = _answer("Who is the spouse of the director of film Quill Road?", pages)
    assert answer.status == "answered"
    assert "New York City" not in [answer.text, *answer.candidates]


def test_a_date_answers_only_from_a_sentence_that_says_what_happened() -> None:
    question = "When was the Tallow League dissolved?"
    unrelated = {"Tallow League": "The Tallow League was a trade alliance of river towns. "
                                  "Its flag was redesigned in 1850 by the guilds."}
    answer = _answer(question, unrelated)
    assert answer.status == "not_found" and "1850" in answer.candidates
    stated = {"Tallow League": "The Tallow League was a trade alliance of river towns. "
                               "Its flag was redesigned in 1850. The league was dissolved in 1899."}
    assert _answer(question, stated).text == "1899"


@pytest.mark.parametrize(("question", "kind"), [
    ("Which city was the band which was formed in 1981 in Los Angeles when its singer answered an advertisement?",
     "entity"),
    ("Who was president when the territory became a state?", "entity"),
    ("Where did the poet live when he wrote his first book?", "entity"),
    ("When did the poet write his first book?", "date"),
    ("What year was the band formed when its singer answered an advertisement?", "date"),
])
def test_a_date_cue_inside_a_clause_does_not_change_what_is_asked(question: str, kind: str) -> None:
    assert answer_kind(question) == kind


@pytest.mark.parametrize(("sentence", "award"), [
    ("He won the Grammy Award for Best R&B Album in 2012.", "Grammy Award for Best R&B Album"),
    ("She received an Academy Award for Best Actress in a Supporting Role.",
     "Academy Award for Best Actress in a Supporting Role"),
    ("He won the Grammy Award for Best R&B Album.", "Grammy Award for Best R&B Album"),
    ("He won a Filmfare Award for his work.", "Filmfare Award"),
])
def test_an_award_is_named_with_its_category(sentence: str, award: str) -> None:
    from citeloop.runtime.answer_slots import awards_in

    assert awards_in(sentence)[0][0] == award


def test_options_named_before_the_question_are_compared() -> None:
    pages = {"Tom Vale": "Tom Vale (born 4 May 1961) is a Mexican film director.",
             "Ana Ruiz": "Ana Ruiz (born 9 June 1948) is a Puerto Rican dancer."}
    answer = _answer("Between Tom Vale and Ana Ruiz, who was born first?", pages)
    assert answer.kind == "choice"
    assert answer.text == "Ana Ruiz"


@pytest.mark.parametrize(("question", "expected"), [
    ("Between Iain Banks and Irwin Shaw, which writer had a more diverse career?",
     "Which writer had a more diverse career, Iain Banks or Irwin Shaw?"),
    ("Who is between Tom and Ana?", "Who is between Tom and Ana?"),
    ("Between 1990 and 2000 the city grew.", "Between 1990 and 2000 the city grew."),
])
def test_options_last(question: str, expected: str) -> None:
    from citeloop.runtime.clauses import options_last

    assert options_last(question) == expected


def test_a_question_word_asking_an_administrative_unit_asks_a_place() -> None:
    """"Which region ...?" asks for a place as "which county" does (the unit is not in the list
    of place cues): the sentence placing the town "in" its county answers it, with the county
    alone rather than the regions around it."""
    from citeloop.runtime.question_asks import asks_place

    assert asks_place("Which region is Dornley located in?")
    assert asks_place("In what province is the town of Dornley?")
    assert not asks_place("Which album did Dornley record?")
    pages = {"Dornley": "Dornley is a town in Harwick County, Ostland, 18 miles south of Velmar."}
    answer = _answer("Which region is Dornley located in?", pages)
    assert (answer.status, answer.text) == ("answered", "Harwick County")


def test_a_sentence_saying_how_often_states_a_how_many_times_answer() -> None:
    """The sentence chosen for the answer hop's claim and the sentence the answer is taken from
    are judged alike: "was the Premier of Ostland twice" states how many times, though it has no
    word of the hop's relation ("politician"), and a count in a sentence about something else
    does not."""
    question = "How many times was the politician who was premier of Ostland when Tam Orrin was Minister, premier?"
    relation = {"time", "politician"}
    assert states_kind("number", question, relation, "Sir Ivo Brant (1843 - 1915) was the Premier of Ostland twice.")
    assert not states_kind("number", question, relation, "The Ostland Bridge has four lanes.")
