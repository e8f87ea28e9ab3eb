"""`text.name_in_context` / `names_in_context` find a literal name with fixed patterns before
and after it, as one `re.search` / `re.finditer` of the pattern built around the escaped name
would (that pattern is the oracle here), and the callers moved to them keep their answers."""

import re

import pytest
from citeloop.runtime.answer_hops import option_question
from citeloop.runtime.countries import countries_named, is_country_word
from citeloop.runtime.mentions import date_mentions
from citeloop.runtime.place_forms import is_region_by_form, is_town_by_form
from citeloop.runtime.text import name_in_context, names_in_context

TEXTS = [
    "He was born in Portland, Oregon, and died in Salem, Oregon.",
    "Glen Cove, New York. Oregon, Portland",
    "xOregon, Oregon-born, (Oregon), Oregon",
    "St. Louis, Missouri is not St. Louis, Mo. but St. Louis",
    "",
]
NAMES = ["Oregon", "Portland", "St. Louis", "New York", "Salem", "Mo."]
BEFORE = [r"[A-Z][\w.]*,\s+", r"(?<![\w-])", r"\b([a-z]+)\s+"]
AFTER = [r",\s+[A-Z]", r",\s+([A-Z][\w.]*(?:\s+[A-Z][\w.]*)*)", r"\b", r"(?=\s*(?:[,.;:)]|$))"]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("before", [None, *BEFORE])
@pytest.mark.parametrize("after", [None, *AFTER])
def test_same_places_as_one_pattern(text, name, before, after):
    oracle = re.compile((before or "") + re.escape(name) + (after or ""))
    b = re.compile(before + r"\Z") if before is not None else None
    a = re.compile(after) if after is not None else None
    first = name_in_context(text, name, b, a)
    expected = oracle.search(text)
    assert (first is None) == (expected is None)
    every = names_in_context(text, name, b, a)
    starts = [m.start() for m in oracle.finditer(text)]
    assert len(every) == len(starts)
    if expected is not None:
        assert (first[1].end() if after is not None else None) in (expected.end(), None)
        assert (first[0].start() if before is not None else expected.start()) == expected.start()


def test_an_empty_name_is_nowhere():
    assert name_in_context("Oregon", "") is None


def test_callers_read_places_and_options():
    assert option_question("Which came first, the forming of Blur or the birth of Robert Young?",
                           "Robert Young") == "birth of Robert Young"
    assert option_question("Who is older, Ann or Bob?", "Bob").startswith("Who is older")
    assert is_region_by_form("He lives in Greenfield, Indiana.", "Indiana", "state")
    assert not is_region_by_form("Indiana, a state, is large.", "Indiana", "county")
    assert is_town_by_form("He lives in Wilmington, Delaware.", "Wilmington", "city")
    assert not is_town_by_form("He lives in Kent, Wilmington, Delaware.", "Wilmington", "city")


def test_country_words_are_whole_names():
    assert is_country_word(" American ") and is_country_word("U.S.") and is_country_word("Norway")
    assert not is_country_word("Indiana") and not is_country_word("Americans") and not is_country_word("u.s.")
    assert countries_named("a Norwegian museum in Hamar, Norway") == {"Norway"}
    assert countries_named("Indiana Jones") == frozenset()


def test_date_mentions_are_a_fresh_list_each_call():
    first = date_mentions("Born 4 May 1902, died 1977.")
    first.clear()
    assert [m.text for m in date_mentions("Born 4 May 1902, died 1977.")] == ["4 May 1902", "1977"]
