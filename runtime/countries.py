"""Countries named in a sentence, by the words articles use for them (`runtime/data/countries.yaml`):
"an American philosopher" and "a U.S. Representative" both name the United States, "a
Norwegian museum" and "in Hamar, Norway" both Norway. `citeloop.runtime.answer` compares two
options' countries with these for "Are A and B from the same country?"."""

from __future__ import annotations

import re
from functools import cache

from citeloop.runtime.datafiles import read_data_yaml


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    data = read_data_yaml("countries.yaml")
    out = []
    for country, words in data["countries"].items():
        names = sorted({*words, *([] if country in data["not_named_by_key"] else [country])}, key=len, reverse=True)
        alternatives = "|".join(re.escape(n) for n in names)
        # Whole words: "Indian" is not inside "Indiana"; "U.S." ends in its full stop.
        out.append((country, re.compile(r"(?<![\w.])(?:" + alternatives + r")(?![\w])")))
    return out


def is_country_word(text: str) -> bool:
    """Is the text, whole, a country's name or adjective ("American", "British", "Norway")?"""
    return any(pattern.fullmatch(text.strip()) for _, pattern in _patterns())


def countries_named(text: str) -> set[str]:
    """The countries the text names, by their canonical names ("United States")."""
    return {country for country, pattern in _patterns() if pattern.search(text)}
