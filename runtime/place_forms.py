"""Places known by the form they are written in, for a hop or an answer that asks for a kind
of place: "Greenfield, Indiana" names a town and then its state, "Avery County" is a county
by its name, "Djibouti" a country by its name, and a country is no state, county or town.
`rank_bridge_evidence` and the answer's span ranking (`citeloop.runtime.answer_spans`) give a
name of the asked kind by its form the full kind bonus.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from citeloop.runtime.answer_cues import cues
from citeloop.runtime.countries import countries_named
from citeloop.runtime.datafiles import read_data_yaml
from citeloop.runtime.text import content_terms, name_in_context, names_in_context

_TOWN_COMMA = re.compile(r"\b[A-Z][\w.'-]*,\s+\Z")
"""Before a region's name: the town it follows ("Greenfield, " of "Greenfield, Indiana")."""
_PART_ENDS = re.compile(r"(?=\s*(?:[,.;:)]|$))")
_NAME_STARTS = re.compile(r"(?<![\w-])\Z")
COMMA_REGION = re.compile(r",\s+[A-Z]")
"""After a town's name: a comma, then its region's capitalised name ("Wilmington, Delaware")."""


def of_kind_by_form(quote: str, name: str, finds: str) -> bool:
    """Is the name of the asked kind by its own form, whatever words stand near it: it ends
    with the kind's word ("Avery County"), or is a region or a town written as one
    (`is_region_by_form`, `is_town_by_form`). A country's name is of no other kind of place
    ("United States" ends with "States" but is no state), and no person is named by what they
    do ("Outstanding Supporting Actress" is an award)."""
    asked = finds.lower()
    if asked in _place_nouns() and _is_country_name(name):
        return asked in ("country", "nation")
    kind, own = content_terms(finds), content_terms(name)
    if kind and asked not in cues().person_nouns and len(own) > len(kind) and own[-len(kind):] == kind:
        return True
    return is_region_by_form(quote, name, finds) or is_town_by_form(quote, name, finds)


@lru_cache(maxsize=1 << 14)
def _is_country_name(name: str) -> bool:
    """Is the name, whole, a country's own name ("Djibouti", "United States"; not "American")?"""
    return name in countries_named(name)


@cache
def _us_states() -> frozenset[str]:
    return frozenset(read_data_yaml("us_states.yaml")["us_states"])


def _place_nouns() -> frozenset[str]:
    return cues().region_nouns | cues().town_nouns


def is_region_by_form(quote: str, name: str, finds: str) -> bool:
    """Is `name` the region a hop asking for a state, province or country looks for, by the
    form places are written in? The part after a place's comma that ends the phrase
    ("Greenfield, Indiana.": the state; not "Academy, Central High School is"), for a
    country only a country's name ("Djibouti"), for a state a US state's name
    (`runtime/data/us_states.yaml`: "in north-west Iowa"). A county is named with its word
    ("Avery County"), and the part after its comma is its state: no county is known by this form."""
    asked = finds.lower()
    if asked not in cues().region_nouns or not name[:1].isupper():
        return False
    if _is_country_name(name):
        return asked in ("country", "nation")
    if asked in ("country", "nation", "county"):
        return False  # countries are known by name ("Aquarium, Kino," lists bands); a county by its word
    if asked == "state" and name in _us_states():
        return True
    return name_in_context(quote, name, _TOWN_COMMA, _PART_ENDS) is not None


def is_town_by_form(quote: str, name: str, finds: str) -> bool:
    """Is `name` the town a hop asking for a city or town looks for, by the form places are
    written in: the first part of "Wilmington, Delaware" (not a part after a comma, and not a
    country's name)?"""
    if finds.lower() not in cues().town_nouns or not name[:1].isupper() or _is_country_name(name):
        return False
    # `before` matches nothing but where the name starts ("(?<![\w-])"): its end is that place.
    return any(not quote[: before.end()].rstrip().endswith(",")
               for before, _ in names_in_context(quote, name, _NAME_STARTS, COMMA_REGION))
