"""Which cited sentences can state an answer: the answer-sentence test (`states_kind`) that
chooses an answer hop's claims and decides whether a candidate answer may be stated, and the
readings it rests on (the counts a sentence states, how precisely it dates a life event).

A sentence states an answer of a kind when it holds a value of that kind and, apart from dates
and a life's bracketed dates and places, a word of the relation the hop asks
(`citeloop.runtime.answer_hops.hop_relation`). `citeloop.runtime.answer_spans` reads the
candidate spans out of such sentences."""

from __future__ import annotations

import re
from functools import cache

from citeloop.runtime.answer_cues import cues
from citeloop.runtime.answer_places import INSTITUTION_WORDS, PLACE_WORDS
from citeloop.runtime.answer_slots import typed_reader
from citeloop.runtime.countries import countries_named
from citeloop.runtime.memo import memo
from citeloop.runtime.mentions import (
    Mention,
    date_mentions,
    frequency_mentions,
    life_place,
    life_role,
    number_mentions,
)
from citeloop.runtime.question_asks import (
    asked_life,
    asks_institution,
    asks_place,
    asks_times,
    has_phrase,
)
from citeloop.runtime.text import content_terms, entity_spans, tokenize
from citeloop.trajectories.models import AnswerKind, EvidenceCard


def states_kind(kind: AnswerKind, question: str, relation: set[str], quote: str) -> bool:
    """Could this sentence state an answer of this kind? (Used to choose the answer hop's claims.)

    Apart from dates, it must use a word of the hop's relation, not only hold a value of the
    right shape: "17 years" in a sentence about something else is no answer to "which is
    larger" (and such a sentence is a favourite shape of a planted statement)."""
    return _states_kind((kind, question, frozenset(relation), quote))


def date_precision(question: str, quote: str) -> int:
    """How precisely the sentence dates what the question asks: 3 for a day, 2 a month, 1 a
    year, 0 no such date. A life's date counts only for the life event asked ("(1 November
    1680 - 26 May 1711)" dates the death to the day, "died in 1711" to the year)."""
    role = asked_life(question)
    return max((1 + (d.value[1] > 0) + (d.value[2] > 0) for d in date_mentions(quote)
                if role is None or life_role(quote, d) == role), default=0)


def most_precise_per_source(cards: list[EvidenceCard], question: str) -> list[EvidenceCard]:
    """Of each source's cards (one cluster), those that date what the question asks most
    precisely, in their order: a claim is written from one card per source, and the page's
    "(1 November 1680 - 26 May 1711)" must not lose to its "died in 1711" on relevance. Only
    for a birth or a death asked to more than the year: other sentences of a page date other
    events, however precisely ("released in December 1997" is not when the cinema opened)."""
    if asked_life(question) is None or has_phrase(question, cues().year_cues):
        return cards
    precision = [date_precision(question, card.quote) for card in cards]
    best: dict[str, int] = {}
    for card, p in zip(cards, precision):
        best[card.cluster_id] = max(best.get(card.cluster_id, 0), p)
    return [card for card, p in zip(cards, precision) if p == best[card.cluster_id]]


def counts_stated(quote: str, times: bool) -> list[tuple[Mention, bool]]:
    """The counts a sentence states, each with whether it says how often ("twice", "a two-time
    ...", read only when the question asks how many times): not a number inside a date ("6" of
    "6 July 1843", "2006" of "The 2006 Pro Bowl"), which counts nothing. The answer hop's
    claims are chosen by the same reading the answer is taken with."""
    in_dates = {i for d in date_mentions(quote) for i in range(d.start, d.start + len(tokenize(d.text)))}
    often = frequency_mentions(quote) if times else []
    in_often = {n.start for n in often}
    return [*((n, True) for n in often),
            *((n, False) for n in number_mentions(quote) if n.start not in in_dates and n.start not in in_often)]


@memo("answer_sentences.states_kind")
def _states_kind(key: tuple[AnswerKind, str, frozenset[str], str]) -> bool:
    # Kept by its arguments: a run asks it of the same cards after every search.
    kind, question, relation, quote = key
    if kind == "date":
        # A life's dates stand in brackets, with no word of the relation; a question about a
        # birth, a death or an age needs such a date, not a film's year.
        dates = date_mentions(quote)
        role = asked_life(question)
        if role is not None:
            return any(life_role(quote, d) == role for d in dates)
        return bool(dates)
    if kind == "number" and asks_times(question) and frequency_mentions(quote):
        return True  # "was the Premier of South Australia twice" says how often, whatever its words
    reader = typed_reader(question) if kind == "entity" else None
    if reader is not None:
        return bool(reader(quote))  # a century, a cause, an award or a role, not a name
    if kind == "entity" and has_phrase(question, cues().origin_cues) and countries_named(quote):
        return True  # "What nationality ...?" is stated by "a Swedish film director", not the word
    if kind == "entity" and asks_place(question):
        role = asked_life(question)
        # A life's brackets place a birth or a death without the word: "(14 June 1792,
        # Kirchheimbolanden - 20 August 1839, Bad Kissingen)".
        dates = " ".join(d.text for d in date_mentions(quote))
        if role is not None and any(life_place(quote, name) == role for name in entity_spans(quote)
                                    if name not in dates):  # "July" of "(July 19, 1882 - ...)" is no place
            return True
    if not relation & set(content_terms(quote)) and not (kind == "entity" and asks_place(question)
                                                         and relation <= _place_kind_terms()):
        return False
    if kind == "number":
        return bool(counts_stated(quote, asks_times(question)))
    if kind == "entity" and asks_institution(question):
        return re.search(r"\b" + INSTITUTION_WORDS + r"\s+(?:the\s+)?[A-Z]", quote) is not None
    if kind == "entity" and asks_place(question):
        return re.search(r"\b" + PLACE_WORDS + r"\s+(?:the\s+)?[A-Z]", quote) is not None
    return True


@cache
def _place_kind_terms() -> frozenset[str]:
    """The words of a place question that name only the kind of place or being there ("what
    state", "which region is X located in", "comes from"): a sentence placing its subject "in"
    or "from" a name states such a relation without them ("... from Portland, Oregon")."""
    c = cues()
    words = [*c.region_nouns, *c.town_nouns, *c.administrative_units, "located", "location", "situated",
             "comes", "hails"]
    return frozenset(t for w in words for t in content_terms(w))
