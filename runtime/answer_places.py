"""Where an answer stands in a sentence: whether a name follows a place word ("in Tenby", "from
Portland, Oregon") or an institution's word ("a graduate of"), and a place named at the level the
question asks ("what city": "Canton, Massachusetts"; "what state": "Oregon"; a plain "where":
the town with the region the sentence puts it in); a name written where someone was born ("New
Zealand-born"). `citeloop.runtime.answer_spans` uses these to decide which names can answer a
"where" or a "from where" and how to state them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from citeloop.runtime.answer_cues import cues
from citeloop.runtime.countries import countries_named, is_country_word
from citeloop.runtime.place_forms import COMMA_REGION
from citeloop.runtime.text import name_in_context

PLACE_WORDS = r"(?:in|at|near|from|to)"


PLACE_BEFORE = re.compile(r"\b" + PLACE_WORDS + r"\s+(?:the\s+)?(?:[a-z]+ern\s+|central\s+)?"
                          r"(?:[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*,\s+)?$")
"""What stands right before a place named after a place word (`after_place_word`)."""


LOCATIVE_BEFORE = re.compile(r"\b(?:in|at|near)\s+(?:the\s+)?$")
"""What stands right before a name the sentence locates something in ("while in New York City"):
such a name is a place, never the person a "who" question asks for."""


ORIGIN_BORN = 0.6
"""Added to a country written before "-born" when the question asks where someone is from:
it outranks the nationality word of the noun after it (+0.5 as a modifier)."""


_BORN_AFTER = re.compile(r"\s*-\s*born\b")


def born_there(sentence: str, name: str) -> bool:
    """Is the name written as where someone was born, "New Zealand-born" ("New Zealand- born")?"""
    return name_in_context(sentence, name, after=_BORN_AFTER) is not None


INSTITUTION_WORDS = r"(?:at|of|from|for)"
INSTITUTION_BEFORE = re.compile(r"\b" + INSTITUTION_WORDS + r"\s+(?:the\s+)?$")
"""What stands right before an institution that answers "where did she study": "a graduate of",
"studied at", "a correspondent for the"."""


def after_place_word(sentence: str, name: str, before: re.Pattern[str] = PLACE_BEFORE) -> bool:
    """"in Tenby", "from the Bronx", "in southeastern Jiangsu" (one word of direction or size
    between), or the region after a town: "from Portland, Oregon"; with `before`, the words an
    institution follows instead."""
    # Each use of the name is checked for a place word before it: one fixed pattern, where a
    # pattern per name would be compiled for every new name.
    at = sentence.find(name)
    while at >= 0:
        if before.search(sentence, 0, at):
            return True
        at = sentence.find(name, at + 1)
    return False


_TOWN_COMMA = re.compile(r"[A-Z][\w.]*,\s+\Z")
"""Before a region's name: the town it follows ("Portland, " of "Portland, Oregon")."""
_WORD_END = re.compile(r"\b")
_REGION_WORDS = re.compile(r",\s+([A-Z][\w.]*(?:\s+[A-Z][\w.]*)*)")


def place_level(quote: str, name: str, finds: str, place: bool = False) -> tuple[str, float]:
    """A place as the question asks it: "Portland, Oregon" answers "what state" with Oregon
    (the name after the comma; not "what county": "Dodge County, Wisconsin" names the county
    first), "what city" with all of it ("Canton, Massachusetts"), and a
    plain "where" (`place`) with the town ("Alexandria" of "Alexandria, Egypt", which
    `where_it_lies` then names with its region)."""
    c = cues()
    if finds in c.town_nouns:
        region = _region_after(quote, name)
        return (f"{name}, {region}", 0.3) if region else (name, 0.0)
    if finds == "county":
        return name, 0.0  # a county is named with its word ("Dodge County, Wisconsin": then its state)
    if finds in c.region_nouns:
        if name_in_context(quote, name, _TOWN_COMMA, _WORD_END):
            return name, 0.6  # the region after a town's name
        if name_in_context(quote, name, after=COMMA_REGION):
            return name, -0.3  # the town before its region
    elif place:
        # "Where did he die?" asks for the most specific place: "Alexandria" of "Alexandria, Egypt".
        if name_in_context(quote, name, after=COMMA_REGION):
            return name, 0.3
        if name_in_context(quote, name, _TOWN_COMMA, _WORD_END):
            return name, -0.3
    return name, 0.0


def is_country(name: str) -> bool:
    """A country or its adjective, whole ("United States", "Panamanian-American"), not a name
    that holds one ("United States of Whatever" is a song)."""
    return is_country_word(name) or all(is_country_word(p) for p in re.split(r"[-\s]+", name) if p)


def where_it_lies(quote: str, name: str, finds: str, subjects: Sequence[str] = ()) -> str:
    """A place answering a plain "where", as the sentence places it: "Glen Cove, Long Island,
    New York" for "Glen Cove" (the town, then the regions the sentence puts it in, up to a
    country). Not for "what city" or
    "what state" (`place_level` answers at the level asked), nor after a country ("Finland,
    Ireland" is a list), nor when what follows the comma is part of the name of whom the sentence
    is about ("Born in Fukuoka, Hamasaki moved ..." of Ayumi Hamasaki)."""
    c = cues()
    if finds in c.town_nouns | c.region_nouns | c.administrative_units or countries_named(name):
        return name  # "which region": the unit asked, not the regions around it
    parts = [name]
    for _ in range(REGIONS_AFTER):
        region = _region_after(quote, parts[-1])
        if not region or region in parts:
            break
        if any(f" {region.lower()} " in f" {s.lower()} " and region.lower() != s.lower() for s in subjects):
            break  # a person's surname ("Hamasaki" of "Ayumi Hamasaki"), not a place
        parts.append(region)
        if countries_named(region):
            break  # nothing lies beyond a country
    return ", ".join(parts)


REGIONS_AFTER = 2
"""How many enclosing regions a sentence's place may carry: "Glen Cove, Long Island, New York"."""


def _region_after(quote: str, name: str) -> str:
    """The capitalised words after "NAME, " ("New York" of "Glen Cove, New York."), or ""."""
    grown = name_in_context(quote, name, after=_REGION_WORDS)
    return grown[1].group(1).rstrip(".") if grown else ""
