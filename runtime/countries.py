"""Countries named in a sentence, by the words articles use for them (`runtime/data/countries.yaml`):
"an American philosopher" and "a U.S. Representative" both name the United States, "a
Norwegian museum" and "in Hamar, Norway" both Norway. `citeloop.runtime.answer` compares two
options' countries with these for "Are A and B from the same country?"."""

from __future__ import annotations

import re
from functools import cache

from citeloop.runtime.datafiles import read_data_yaml
from citeloop.runtime.memo import memo


@cache
def _names() -> dict[str, tuple[str, ...]]:
    """Each country's words, longest first (the key itself unless the file says otherwise)."""
    data = read_data_yaml("countries.yaml")
    return {country: tuple(sorted({*words, *([] if country in data["not_named_by_key"] else [country])}, key=len, reverse=True))
            for country, words in data["countries"].items()}


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    # Whole words: "Indian" is not inside "Indiana"; "U.S." ends in its full stop.
    return [(country, re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w])"))
            for country, names in _names().items()]


@cache
def _all_words() -> frozenset[str]:
    return frozenset(n for names in _names().values() for n in names)


def is_country_word(text: str) -> bool:
    """Is the text, whole, a country's name or adjective ("American", "British", "Norway")?"""
    return text.strip() in _all_words()


def countries_named(text: str) -> frozenset[str]:
    """The countries the text names, by their canonical names ("United States")."""
    return _countries_named(text)


@memo("countries.named", maxsize=1 << 15)
def _countries_named(text: str) -> frozenset[str]:
    # A country's pattern is searched only where one of its words stands in the text at all:
    # most texts name one country or none, and a substring test costs far less than a search.
    names = _names()
    return frozenset(country for country, pattern in _patterns()
                     if any(n in text for n in names[country]) and pattern.search(text))


_CALLED = re.compile(r"\b(?:is|was|are|were)\s+(?:an?\s+|the\s+)?(?:[a-z-]+\s+){0,2}(?P<word>[A-Z][\w.]*(?:-[A-Z]\w*)?)")


def nationalities_stated(sentence: str) -> list[tuple[str, str]]:
    """The countries a sentence gives its subject, with the word it writes: "Dan Masterson
    (born 1934) is an American poet" -> [("United States", "American")]; not a country named
    for something else ("a co-author of the English language style guide")."""
    out = []
    for match in _CALLED.finditer(sentence):
        word = match.group("word")
        if is_country_word(word):
            out += [(country, word) for country in sorted(countries_named(word))]
    return out
