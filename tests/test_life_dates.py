"""The dates of a life: which date of a sentence is a birth and which a death (brackets, marks,
nested brackets, dates printed with no dash between them), what a question asks of each
compared option, the places a life's brackets give, and comparisons of people by those dates on hand-made corpora: a film's
year is never read as its director's birth, and a title holding "Death" asks no death."""

from __future__ import annotations

import pytest
from citeloop.runtime.answer_hops import option_question
from citeloop.runtime.answer_sentences import counts_stated, states_kind
from citeloop.runtime.answer_spans import (
    date_mentions,
    life_place,
    life_role,
)
from citeloop.runtime.mentions import frequency_mentions
from citeloop.runtime.question_asks import asked_life
from citeloop.runtime.relations import either_or_options, relation_path
from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink
from test_answer import FILLER, _kit


@pytest.mark.parametrize(("sentence", "roles"), [
    ("Jon Marr( March 10, 1925 – August 21, 1988) was a director.",
     [("March 10, 1925", "birth"), ("August 21, 1988", "death")]),
    ("Ada Lind( born 1 June 1955), also known as AJ, is a director.", [("1 June 1955", "birth")]),
    ("After Marr's death in 2010, his obituary praised him.", [("2010", "death")]),
    ("He was born in 1900 and died in 1950.", [("1900", "birth"), ("1950", "death")]),
    ("Tomas Ray (d. 1953) was a producer.", [("1953", "death")]),
    ("Tomas Ray (1882–1953) was a producer.", [("1882", "birth"), ("1953", "death")]),
    ("His first film, The Housemaid (1960), was a success.", [("1960", None)]),
    # brackets inside the brackets of a life
    ("Jean Chardon( April 27, 1672( some say April 27, 1671) in Bordeaux – April 11, 1743 in Quebec) was a priest.",
     [("April 27, 1672", "birth"), ("April 27, 1671", None), ("April 11, 1743", "death")]),
    # the two dates printed with no dash between them
    ("Eric Rohm (21 March 192011 January 2010) was a critic.", [("21 March 1920", "birth"), ("11 January 2010", "death")]),
    ("Pat Pillai( 15 July 188527 July 1970) was a minister.", [("15 July 1885", "birth"), ("27 July 1970", "death")]),
    ("Lia Moss (March 25, 1942August 3, 2001) was a singer.",
     [("March 25, 1942", "birth"), ("August 3, 2001", "death")]),
    # the first date after a "died" further back, with no other date between
    ("He died of complications after eye surgery in 1750 at the age of 65.", [("1750", "death")]),
    ("He died in Rome in 1750, two years after the premiere in 1748.", [("1750", "death"), ("1748", None)]),
])
def test_each_date_of_a_life_is_a_birth_or_a_death(sentence: str, roles: list[tuple[str, str | None]]) -> None:
    assert [(d.text, life_role(sentence, d)) for d in date_mentions(sentence)] == roles


def test_a_year_followed_by_a_number_is_no_glued_date() -> None:
    assert [d.text for d in date_mentions("In 1999 12 people lived there; in 2011 May 3, 2012 came.")] == [
        "1999", "2011", "May 3, 2012"]


@pytest.mark.parametrize(("question", "asked"), [
    ("Which film has the director born later, Tell Me or House Of The Black Death?", "birth"),
    ("Which film whose director is younger, Tell Me or Quiet Hill?", "birth"),
    ("Who died first, Arko Sen or Tomas Ray?", "death"),
    ("When was Velm Harbour released?", None),
])
def test_a_question_asks_a_birth_or_a_death_outside_the_names_it_mentions(question: str, asked: str | None) -> None:
    assert asked_life(question) == asked


@pytest.mark.parametrize(("quote", "states"), [
    ("Tomas Ray, born 2 June 1930 in Ajmer, is a producer.", False),  # a birth tells nothing of a death
    ("Tomas Ray (2 June 1930 - 5 May 1990) is a producer.", True),
    ("Tomas Ray died on 5 May 1990 in Ajmer.", True),
])
def test_a_death_is_stated_only_by_a_date_of_death(quote: str, states: bool) -> None:
    assert states_kind("date", "Who died first, Arko Sen or Tomas Ray?", set(), quote) is states


def test_each_option_is_asked_what_the_question_says_of_it() -> None:
    question = "Which came first, the forming of The Dandy Warhols or the birth of Robert Young?"
    assert asked_life(option_question(question, "The Dandy Warhols")) is None
    assert asked_life(option_question(question, "Robert Young")) == "birth"
    assert option_question("Who died first, Arko Sen or Tomas Ray?", "Arko Sen") == \
        "Who died first, Arko Sen or Tomas Ray?"


def test_options_are_found_whatever_script_their_capital_is_in() -> None:
    path = relation_path("Which film whose director is younger, Tall Man Riding or Şalvar Davası?")
    assert path is not None
    assert (path.bases, path.relations, path.attribute) == (["Tall Man Riding", "Şalvar Davası"], ["director"], "born")
    assert either_or_options("Was Łukasz Fabiański or Ömer Toprak born first?") == ["Łukasz Fabiański", "Ömer Toprak"]


@pytest.mark.parametrize(("attribute_words", "searched"), [
    ("born later", "born"), ("is older than the other", "born"), ("died first", "died")])
def test_a_compared_chain_searches_a_life_by_the_words_articles_use(attribute_words: str, searched: str) -> None:
    path = relation_path(f"Which film has the director {attribute_words}, Quiet Hill or Red Lane?")
    assert path is not None and path.attribute == searched


PAGES = {**FILLER,
         "Hall Of The Black Death": "Hall Of The Black Death is a 1965 horror film directed by Jon Marr.",
         "Jon Marr": "Jon Marr( March 10, 1925 – August 21, 1988) was an American film director and editor.",
         "Quiet Hill": "Quiet Hill is a 2018 drama film directed by Ada Lind.",
         "Ada Lind": "Ada Lind( born 1 June 1955) is a British film director and animator."}


def test_directors_are_compared_by_birth_even_when_a_title_says_death() -> None:
    """With "Death" read as asked, Jon Marr's death (1988) would beat Ada Lind's birth (1955)."""
    result, _ = run_research("Which film has the director born later, Quiet Hill or Hall Of The Black Death?",
                             _kit(PAGES), out_dir=None, sink=MemorySink())
    answer = result.report.answer
    assert (answer.status, answer.text) == ("answered", "Quiet Hill"), answer
    assert "March 10, 1925" in answer.reason and "1 June 1955" in answer.reason


def test_a_films_year_is_not_read_as_its_directors_birth() -> None:
    """Ada Lind's page gives no date of birth: the answer stays open, though both films have years."""
    pages = {**PAGES, "Ada Lind": "Ada Lind is a British film director and animator."}
    result, _ = run_research("Which film has the director born later, Quiet Hill or Hall Of The Black Death?",
                             _kit(pages), out_dir=None, sink=MemorySink())
    assert result.report.answer.status == "not_found", result.report.answer
    assert result.report.answer.text is None


@pytest.mark.parametrize(("sentence", "sides"), [
    ("Mara Vell (Gotha, 9 July 1566 – Eisenach, 23 October 1638) was a duchess.",
     {"Gotha": "birth", "Eisenach": "death"}),
    ("Tom Rell ( May 8, 1889 in Seattle – May 14, 1967 in Los Angeles) was a painter.",
     {"Seattle": "birth", "Los Angeles": "death", "Tom Rell": None}),
    # a birth name stands before the semicolon, not a birthplace
    ("Fridrikh Ermler (born Vladimir Breslav; 13 May 1898 in Rezekne – 12 July 1967 in Leningrad) was a director.",
     {"Vladimir Breslav": None, "Rezekne": "birth", "Leningrad": "death"}),
    ("The Housemaid (Seoul, 1960) is a film.", {"Seoul": None}),  # no life: no dash
    # each part of the brackets says whose side it is
    ("Hal Kant (born 25 March 1908 in Dorsel, Vendria; died 20 April 1980 in Castel, Ostria) was a director.",
     {"Dorsel": "birth", "Castel": "death"}),
    # right after "born" stands a birth name
    ("Ravi Rao (born Kovel Ravi Rao on 23 May 1942) is a director.", {"Kovel Ravi Rao": None}),
])
def test_a_lifes_brackets_place_its_birth_and_death(sentence: str, sides: dict[str, str | None]) -> None:
    assert {name: life_place(sentence, name) for name in sides} == sides


@pytest.mark.parametrize(("question", "expected"), [
    ("Where did Mara Vell die?", "Eisenach"),
    ("Where was Mara Vell born?", "Gotha"),
])
def test_a_place_of_birth_or_death_is_read_from_its_side_of_the_dash(question: str, expected: str) -> None:
    """No "in" before either town: the brackets alone say which is which."""
    kit = _kit({**FILLER, "Mara Vell": "Mara Vell (Gotha, 9 July 1566 – Eisenach, 23 October 1638) was a duchess."})
    answer = run_research(question, kit, out_dir=None, sink=MemorySink())[0].report.answer
    assert (answer.status, answer.text) == ("answered", expected), answer


@pytest.mark.parametrize(("quote", "states"), [
    # the place stands on the birth side of the life's brackets, with no word "born"
    ("Wilm Varo (14 June 1792, Kirchwald – 20 August 1839, Bad Sola) was a duke.", True),
    # the brackets hold only dates: the month is no place
    ("Jon Marr (July 19, 1882 – July 12, 1957) was an American actor.", False),
])
def test_a_lifes_brackets_state_a_birthplace_without_the_word(quote: str, states: bool) -> None:
    question = "What is the place of birth of Ada Varo's father?"
    assert states_kind("entity", question, {"place", "birth"}, quote) is states


@pytest.mark.parametrize(("sentence", "dates"), [
    # an era makes a short year a year; BC years count down
    ("Drusus Caesar (14 BC – 14 September AD 23) was the son of Tiberius.",
     [("14 BC", (-14.0, 0.0, 0.0)), ("14 September AD 23", (23.0, 9.0, 14.0))]),
    ("Drusus died suddenly 14 September 23, seemingly from natural causes.", [("14 September 23", (23.0, 9.0, 14.0))]),
    ("In 13 BC he was made consul.", [("13 BC", (-13.0, 0.0, 0.0))]),
    # without an era or a day and month, a short number is no year
    ("He had 23 soldiers and 12 horses.", []),
])
def test_ancient_dates_are_read_with_their_era(sentence: str, dates: list[tuple[str, tuple[float, ...]]]) -> None:
    assert [(d.text, d.value) for d in date_mentions(sentence)] == dates
    if len(dates) == 2:
        assert [life_role(sentence, d) for d in date_mentions(sentence)] == ["birth", "death"]


def test_a_bc_birth_is_older_and_its_year_is_answered_with_its_era() -> None:
    kit = _kit({**FILLER,
                "Orla Fenn": "Orla Fenn (63 BC - 14 September AD 23) was a Roman general.",
                "Bram Tolley": "Bram Tolley (12 June AD 5 - AD 69) was a Roman senator."})
    result, _ = run_research("Who was born first, Orla Fenn or Bram Tolley?", kit, out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "Orla Fenn", result.report.answer
    result, _ = run_research("In what year was Orla Fenn born?", kit, out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "63 BC", result.report.answer


def test_the_place_a_life_bracket_ties_to_the_birth_answers_where_born() -> None:
    from citeloop.runtime.answer_spans import best_span
    from llm_scripts import card, claim_of
    quote = ("Count Ladis Pejar of Virovar (Sopra, 5 April 1824 - Nasa, 7 April 1901) was an aristocrat, influential "
             "in the Kingdom of Tessaly-Vorn within the Ostrian Empire.")
    hop = card("c1", quote, "d1", "sq2")
    found = best_span("entity", [(claim_of(hop), hop)], {"born", "birth"}, ["Ladis Pejar"],
                      "Where was the father of Teo Pejar born?")
    assert found and found[0].text == "Sopra", [(f.text, f.score) for f in found]


def test_a_person_by_the_form_of_the_name_is_no_place() -> None:
    """"Queen consort to King Tam II of Velm": "to" stands before the name, but a word of
    address and a regnal number make it a person's, and where she was born is not said."""
    result, _ = run_research("Where was the mother of Aldo Varn born?", _kit({**FILLER,
        "Aldo Varn": "Aldo Varn (1200 – 1250) was a knight, the son of Piet Varn and Mira Orr.",
        "Mira Orr": "Mira Orr (1180 – 1230) was Queen consort to King Tam II of Velm."}), out_dir=None, sink=MemorySink())
    assert (result.report.answer.status, result.report.answer.text) == ("not_found", None), result.report.answer


@pytest.mark.parametrize(("sentence", "counts"), [
    ("He was a two-time Pro Bowl selection.", [("two-time", 2.0)]),
    ("He served as premier twice, in 1990 and 1998.", [("twice", 2.0)]),
    ("She won the race three times.", [("three times", 3.0)]),
    ("He was a 3-time champion.", [("3-time", 3.0)]),
    ("At times he sang in 3 bands.", []),
])
def test_how_often_a_sentence_says_something_happened(sentence: str, counts: list[tuple[str, float]]) -> None:
    assert [(m.text, m.value[0]) for m in frequency_mentions(sentence)] == counts


def test_how_many_times_is_answered_by_a_count_of_times_not_another_number() -> None:
    result, _ = run_research("How many times was Ada Kell elected mayor of Velm?", _kit({**FILLER,
        "Ada Kell": "Ada Kell is a politician from Velm who was a member of 3 committees. She was elected mayor "
                    "of Velm twice, serving 8 years."}), out_dir=None, sink=MemorySink())
    assert (result.report.answer.kind, result.report.answer.text) == ("number", "twice"), result.report.answer


@pytest.mark.parametrize(("sentence", "counts"), [
    ("The 2006 Pro Bowl was the league's all-star game for the 2005 season.", []),
    ("The 1990 census counted 4,512 people.", ["4,512"]),
    ("He was a two-time Pro Bowl selection in 1999 and 2001.", ["two-time"]),
])
def test_a_year_inside_a_date_is_no_count(sentence: str, counts: list[str]) -> None:
    assert [m.text for m, _ in counts_stated(sentence, times=True)] == counts


def test_how_many_times_takes_a_count_of_times_from_the_background_over_another_number() -> None:
    result, _ = run_research(
        "How many times was Ada Kell selected for the all-star game of the Velm Football League?", _kit({**FILLER,
            "Ada Kell": "Ada Kell is a former Velm Football League player. She was a two-time Velm Bowl selection.",
            "2006 Velm Bowl": "The 2006 Velm Bowl was the Velm Football League's all-star game. The all-stars of "
                              "the north won by the score of 23 to 17 over the all-stars selected in the south."}),
        out_dir=None, sink=MemorySink())
    assert (result.report.answer.kind, result.report.answer.text) == ("number", "two-time"), result.report.answer


def test_a_date_asked_of_a_name_the_question_gives_in_a_clause_is_read_from_its_page() -> None:
    result, _ = run_research(
        "Velm Square is named after the late President of Velm, Ada Kell Orrin, who died on which date?", _kit({**FILLER,
            "Velm Square": "Velm Square is a square in Velm. It is named after the late President of Velm, Ada Kell "
                           "Orrin, and holds the Orrin Memorial Hall.",
            "Orrin Memorial Hall": "The Orrin Memorial Hall is a monument erected in memory of Ada Kell Orrin, "
                                   "opened in 1980.",
            "Ada Kell Orrin": "Ada Kell Orrin (3 March 1901 – 5 April 1975) was a Velmish stateswoman and the "
                              "President of Velm."}),
        out_dir=None, sink=MemorySink())
    assert (result.report.answer.kind, result.report.answer.text) == ("date", "5 April 1975"), result.report.answer
