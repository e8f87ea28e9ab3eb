"""Opposition: when an evidence sentence that states a claim's terms contradicts it.

Owns the three contradiction checks the lexical verifier runs on each aligned sentence
(`citeloop.runtime.alignment`), never on the pooled document: opposite polarity on the
terms the two share (scoped negation, `citeloop.runtime.polarity`), opposite direction
words on a term they share ("increases fibrosis" / "reverses fibrosis"), and a rival
number in the claim number's place ("completed in 1889" / "completed in 1887"). A
sentence that asks rather than states ("To determine whether ...") contradicts nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeloop.runtime.alignment import AlignedSentence, evidence_sentences
from citeloop.runtime.memo import memo
from citeloop.runtime.numbers import NumberMention, extract_numbers, same_quantity
from citeloop.runtime.polarity import Reading, opposite_directions, polarity_cues, turns
from citeloop.runtime.text import content_terms, tokenize

__all__ = ["may_oppose", "opposition", "rival_numbers", "quantities"]


def quantities(text: str) -> list[NumberMention]:
    """The numbers of `text` that state an amount: a number glued to a name by a hyphen
    ("A-769662", "IL-10") is part of the name."""
    return [m for m in extract_numbers(text) if not _IDENTIFIER.search(text, 0, m.span[0])]


_IDENTIFIER = re.compile(r"[A-Za-z]-$")


def _neighbours(text: str, mention: NumberMention) -> set[str]:
    """The words right before ("<in") and after (">km") the mention: the last token of the
    text before it and the first token of the text after it."""
    start, end = mention.span
    return {f"<{w}" for w in _last_token(text, start)} | {f">{w}" for w in _first_token(text, end)}


# A token never holds a space and normalisation never joins across one, so the text on each
# side of a space tokenises on its own: the word next to a mention is found in the few words
# up to the nearest space that leaves one whole, not by tokenising the whole rest of the text.

def _last_token(text: str, start: int) -> list[str]:
    """`tokenize(text[:start])[-1:]`."""
    cut = start
    while cut > 0:
        cut = max(0, text.rfind(" ", 0, cut))
        tokens = tokenize(text[cut:start])
        if tokens:
            return tokens[-1:]
    return []


def _first_token(text: str, end: int) -> list[str]:
    """`tokenize(text[end:])[:1]`."""
    cut = end
    while cut < len(text):
        space = text.find(" ", cut + 1)
        cut = len(text) if space < 0 else space
        tokens = tokenize(text[end:cut])
        if tokens:
            return tokens[:1]
    return []


def rival_numbers(claim_text: str, sentence_text: str) -> tuple[list[str], list[str]]:
    """(claim numbers, sentence numbers) where the sentence gives another value in the
    claim number's place: same kind (unit, or both years, or both plain counts), equal to
    no claim number, and next to the same word ("in 1889" / "in 1887"). A sentence that
    states many numbers names many quantities; only the one in the same place is a rival."""
    claim = quantities(claim_text)
    stated = quantities(sentence_text)
    claim_values = {m.value for m in claim}
    missing, rivals = [], []
    for mention in claim:
        if any(same_quantity(mention, x) for x in stated):
            continue
        place = _neighbours(claim_text, mention)
        found = [x.raw for x in stated if x.value not in claim_values and _kind(x) == _kind(mention)
                 and place & _neighbours(sentence_text, x)]
        if found:
            missing.append(mention.raw)
            rivals.extend(r for r in found if r not in rivals)
    return missing, rivals


def _kind(mention: NumberMention) -> str | None:
    # Years and unitless amounts are both "unitless", but a year in the evidence is no
    # rival for "7.8 million francs": without this, an undated amount in the claim would
    # conflict with every dated sentence about the same subject.
    if mention.unit is None and re.fullmatch(r"1\d{3}|20\d{2}", mention.raw):
        return "year"
    return mention.unit


def _quote(sentence: AlignedSentence) -> str:
    return f"{sentence.card_id} ({sentence.overlap:.0%} overlap) reads \"{sentence.text[:120]}\""


@dataclass(frozen=True)
class Contrasts:
    """What `opposition` can use in a text, whatever other text it meets (`may_oppose`)."""

    scope_denial: bool
    """A negation's scope holds a word."""
    prefixed: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    """Prefixed words as (remainder, own (term, surface) pairs): each denies if the other text turns it."""
    moves: bool
    """A direction word outside a negation."""
    places: frozenset[tuple[str | None, str]]
    """(kind, neighbouring word) of each amount stated: a rival number needs both."""
    terms: frozenset[str]
    """The content terms, against which the other text's prefixed words are read."""


def may_oppose(claim_text: str, evidence_text: str) -> bool:
    """Can any sentence of `evidence_text` be found to contradict the claim by `opposition`?
    Each check needs something in the two texts whatever else they share: a denial (a
    negation's scope, or a prefixed word the other text reads as its remainder), direction
    words in both, or an amount of the same kind next to the same word in both. The reverse
    check and the ledger ask this first, and align only the texts that can."""
    claim, evidence = _contrasts(claim_text), _evidence_contrasts(evidence_text)
    return (claim.scope_denial or evidence.scope_denial or (claim.moves and evidence.moves)
            or bool(claim.places & evidence.places)
            or any(turns(base, terms, evidence.terms) for base, terms in claim.prefixed)
            or any(turns(base, terms, claim.terms) for base, terms in evidence.prefixed))


@memo("opposition.contrasts")
def _contrasts(text: str) -> Contrasts:
    scope_denial, prefixed, moves = polarity_cues(text)
    places = frozenset((_kind(m), word) for m in quantities(text) for word in _neighbours(text, m))
    return Contrasts(scope_denial, prefixed, moves, places, frozenset(content_terms(text)))


@memo("opposition.evidence_contrasts")
def _evidence_contrasts(text: str) -> Contrasts:
    """`_contrasts` of the text's sentences together, as the alignment cuts and reads them:
    each sentence read against the claim, the claim against all the sentences' terms."""
    found = [_contrasts(sentence) for _, sentence in evidence_sentences([("", text)])]
    return Contrasts(any(c.scope_denial for c in found), tuple(w for c in found for w in c.prefixed),
                     any(c.moves for c in found), frozenset().union(*(c.places for c in found)),
                     frozenset().union(*(c.terms for c in found)))


def opposition(claim: Reading, claim_text: str, sentence: AlignedSentence) -> tuple[str, str] | None:
    """(checker, reason) when `sentence`, which states part of the claim, contradicts it:
    opposite polarity on the terms they share, opposite direction words, or a rival number.
    None when it does not."""
    if sentence.reading.inquiry:
        return None
    shared = sentence.covered
    claim_negated = bool(claim.negated & shared)
    if claim_negated != bool(sentence.reading.negated & shared):
        negated, plain = ("claim", "evidence") if claim_negated else ("evidence", "claim")
        return "negation", f"The {negated} denies what the {plain} states: {_quote(sentence)}."
    if opposite_directions(claim, sentence.reading):
        return "direction", f"The claim and the evidence give opposite directions: {_quote(sentence)}."
    absent, rivals = rival_numbers(claim_text, sentence.text)
    if rivals:
        return "number", (f"The claim says {', '.join(absent)} but {sentence.card_id} says "
                          f"{', '.join(rivals)} in its place.")
    return None
