"""The state of one sub-question during a run: its status, the query it searches with (its
dependencies' slots filled in), the entities it is about, and what it has spent."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citeloop.runtime.countries import is_country_word
from citeloop.runtime.text import STOPWORDS, tokenize
from citeloop.trajectories.models import SubQuestion


@dataclass
class SubQuestionState:
    sq: SubQuestion
    status: str
    query: str | None
    entities: list[str]
    queries: list[str] = field(default_factory=list)
    angles: list[str] = field(default_factory=list)
    searches: int = 0
    reads: int = 0
    relevant_searches: int = 0
    tool_errors: list[str] = field(default_factory=list)
    leads: list[str] = field(default_factory=list)
    """Bridge candidates not yet followed, best first: when the hop fails with the entity it
    follows, the next one becomes its entity (a new angle within the same budget)."""
    leader: str | None = None
    """What the dependency resolved to before the hop followed its next lead: should no lead
    give the hop evidence either, the leader (the name the dependency's evidence ranked best)
    is the resolution again."""


def _named_in(entity: str, query: str) -> bool:
    """Does the search query name the entity? Compared word by word: a query is written
    without punctuation ("harris w fawell"), the entity with it ("Harris W. Fawell"), and a
    query written from the question's words has no stopwords ("location siege cassel" names
    "Siege of Cassel")."""
    words = _bare_words(entity)
    # a single letter is part of the name ("Model S"), a query without it names another thing
    content = [w for w in words if w not in STOPWORDS or len(w) == 1]
    if not content:  # a name of stopwords alone ("The Who") is compared with them
        return bool(words) and f" {' '.join(words)} " in f" {' '.join(_bare_words(query))} "
    query_content = [w for w in _bare_words(query) if w not in STOPWORDS or len(w) == 1]
    return f" {' '.join(content)} " in f" {' '.join(query_content)} "


def _bare_words(text: str) -> list[str]:
    return [_POSSESSIVE.sub("", t) for t in tokenize(text)]


_POSSESSIVE = re.compile(r"'s?$")
"""A possessive ending, left out on both sides: "grace krilanovich's first novel" names "Grace
Krilanovich", and "everybody's hobby director" still names "Everybody's Hobby"."""


def hop_entities(entities: list[str], query: str) -> list[str]:
    """The plan's entities a hop's query names, less the pieces of a longer one: "Illusions
    (1982 Film) director" is about "Illusions (1982 Film)" and "Illusions" (the name before
    its brackets), not about "Film" (which every film's page names) nor "1982"; "Jump for
    Glory director" is not about every jump."""
    named = [e for e in entities if _named_in(e, query)]
    return specific_topic([e for e in named if not any(_piece_of(e, other) for other in named)])


def specific_topic(entities: list[str]) -> list[str]:
    """A year or a nationality ("1999", "American") is on every other page: it makes a hop's
    topic only when the hop names nothing else. Also when a hop's bridge names arrive: "{sq1}
    founded 2005" was about 2005 until the publisher's name filled its slot."""
    specific = [e for e in entities if not e.isdigit() and not is_country_word(e)]
    return specific or entities


def _piece_of(entity: str, other: str) -> bool:
    """Is `entity` some words of the longer name `other`, but not `other` less its brackets?"""
    words, whole = " ".join(tokenize(entity)), " ".join(tokenize(other))
    if not words or words == whole or f" {words} " not in f" {whole} ":
        return False
    return words != " ".join(tokenize(re.sub(r"\s*\([^)]*\)", "", other)))
