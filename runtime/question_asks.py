"""What a question asks, read from its words outside the names it mentions: a phrase
(`has_phrase`), a place (`asks_place`), a birth or a death (`asked_life`), an institution
(`asks_institution`) or one parent (`asked_parent`, of a hop's query). Used by the answer finder
(`citeloop.runtime.answer_spans`, `citeloop.runtime.answer_hops`) and the engine.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citeloop.runtime.answer_cues import cues
from citeloop.runtime.clauses import asked_noun
from citeloop.runtime.relations import DEATH_WORDS, LIFE_WORDS
from citeloop.runtime.text import entity_spans, tokenize


def has_phrase(question: str, phrases: tuple[str, ...]) -> bool:
    """Does the question ask with one of these phrases, outside the names it mentions? The
    song title in "the performer of song That's When Your Heartaches Begin" asks no date, and
    the relative "where" of "the airport in the city where WILM broadcasts" asks no place."""
    low = f" {' '.join(tokenize(_RELATIVE_CLAUSE.sub(' ', _without_names(question))))} "
    return any(f" {p} " in low for p in phrases)


@lru_cache(maxsize=1 << 12)
def asks_times(question: str) -> bool:
    """Does the question ask how often ("How many times was X selected ...?")?"""
    return has_phrase(question, ("how many times",))


@lru_cache(maxsize=1 << 12)
def asks_in_common(question: str) -> bool:
    """Does the question ask what its subjects share ("What do A and B have in common?")?"""
    return has_phrase(question, ("in common",))


@lru_cache(maxsize=1 << 12)
def asks_place(question: str) -> bool:
    """Does the question ask for a place ("where", "what city", "the birthplace of X")? Not when
    its question word asks for another kind of thing and the place is a step of its chain: "Of
    what church is the Diocese of the birthplace of X?" asks for a church, "What kind of plane
    dropped the bomb on X's birthplace?" for a plane."""
    noun = asked_noun(question)
    c = cues()
    if not has_phrase(question, c.place_cues):
        # "Which region is X located in?", "In what province ...?": the question word asks for
        # a unit of a country's administration, which is a place whatever the cue list says
        return noun in c.administrative_units
    return not noun or noun == "place" or noun in c.region_nouns | c.town_nouns \
        or has_phrase(question, ("where",))


_RELATIVE_CLAUSE = re.compile(r"(?<=[a-z])\s+(?:where|when)\b(?=\s+[^\s?])")
"""A "where" or "when" right after a lower-case word opens a clause ("the city where ...", "did
he use when he released ..."): it asks no place and no date."""


@lru_cache(maxsize=1 << 12)
def _without_names(question: str) -> str:
    for span in sorted((e for e in entity_spans(question) if not e.isdigit()), key=len, reverse=True):
        question = question.replace(span, " , ")
    return question


def asked_life(question: str) -> str | None:
    """"death" when the question asks when someone died, "birth" when it asks for a birth or
    who is older, None when it asks neither; the names it mentions ask nothing ("House Of The
    Black Death" is a film), nor does a relative "where" clause, which says where the bridge is
    ("When was the clock built in the city where Karel Purkyne died?" asks no death)."""
    text = _without_names(question)
    clause = _RELATIVE_CLAUSE.search(text)
    words = set(tokenize(text[: clause.start()] if clause else text))
    if words & DEATH_WORDS:
        return "death"
    return "birth" if words & LIFE_WORDS else None


def asks_institution(question: str) -> bool:
    """"Where did she study / graduate from / work?" asks for an institution, not a place."""
    return has_phrase(question, ("where",)) and has_phrase(question, cues().institution_cues)


def asked_parent(hop_query: str) -> str | None:
    """"father" or "mother" when the hop's own query words ask for one parent and not the other."""
    words = set(tokenize(hop_query))
    father, mother = "father" in words, "mother" in words
    return "father" if father and not mother else "mother" if mother and not father else None
