"""Claim-to-sentence alignment: the few evidence sentences that together state a claim.

Owns what "the evidence covers the claim" means for the lexical verifier. Pooling the
words of a whole document lets terms scattered over an on-topic page add up to support
that no sentence gives, so the claim is aligned instead to the smallest set of evidence
sentences that covers its content terms and numbers, chosen greedily: the sentence that
states most of the claim first, then, while the cover is short of the claim, the sentence
that adds most of what is still missing, as long as it adds at least `min_gain` terms or
numbers and the set stays within `max_sentences`. A sentence that adds a single term is
not evidence for the claim, only a page about the same subject. Coverage is the share of the claim's terms the
aligned sentences hold; polarity, numbers and direction words are then read on those
sentences only (`citeloop.runtime.verifier`).

Terms are `citeloop.runtime.text` terms, read through `citeloop.runtime.polarity` so that
a prefixed word ("uninvolved") meets its remainder in the other text ("involved").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from citeloop.runtime.memo import memo
from citeloop.runtime.numbers import extract_numbers, same_quantity
from citeloop.runtime.polarity import Reading, possible_terms, read
from citeloop.runtime.sentences import split_sentences
from citeloop.runtime.text import content_terms

__all__ = ["AlignedSentence", "Alignment", "align", "evidence_sentences", "may_reach"]


@dataclass(frozen=True)
class AlignedSentence:
    card_id: str
    """The evidence card the sentence comes from."""
    text: str
    reading: Reading
    """The sentence read against the claim's terms."""
    covered: frozenset[str]
    """The claim terms the sentence states."""
    numbers: frozenset[int]
    """Which of the claim's numbers (by position) the sentence states."""
    overlap: float
    """Share of the claim's terms the sentence states on its own."""


@dataclass(frozen=True)
class Alignment:
    claim: Reading
    """The claim read against the evidence's terms."""
    terms: tuple[str, ...]
    """The claim's content terms, in order of first appearance."""
    sentences: tuple[AlignedSentence, ...]
    """The aligned sentences, in the order the cover chose them (best first)."""
    candidates: tuple[AlignedSentence, ...]
    """Every evidence sentence, in evidence order."""

    @property
    def covered(self) -> frozenset[str]:
        return frozenset().union(*(s.covered for s in self.sentences))

    @property
    def coverage(self) -> float:
        """Share of the claim's terms the aligned sentences hold together."""
        return len(self.covered) / len(self.terms) if self.terms else 0.0

    @property
    def best(self) -> AlignedSentence | None:
        return self.sentences[0] if self.sentences else None

    @property
    def missing(self) -> list[str]:
        """The claim's words (as written) that no aligned sentence states."""
        covered = self.covered
        return [self.claim.surfaces[t] for t in self.terms if t not in covered]

    @property
    def text(self) -> str:
        return "\n".join(s.text for s in self.sentences)


def evidence_sentences(evidence: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """(card id, sentence) for each sentence of each (card id, text); a text the splitter
    cannot cut stays whole."""
    return [(card_id, s) for card_id, text in evidence for s in (split_sentences(text) or [text])]


def may_reach(claim_text: str, evidence_text: str, overlap: float) -> bool:
    """Can a sentence of `evidence_text` state `overlap` of the claim's terms, as `align` of the
    claim to that text alone reads them? False only when no sentence can: each sentence's
    `possible_terms` hold every term a reading of it may have, so they bound what it covers.
    The verifier asks this before aligning a claim with a card it may contradict."""
    sentences = [s for _, s in evidence_sentences([("", evidence_text)])]
    claim_terms = read(claim_text, against={t for s in sentences for t in content_terms(s)}).surfaces.keys()
    n = len(claim_terms) or 1
    return any(len(claim_terms & possible_terms(s)) / n >= overlap for s in sentences)


def align(claim_text: str, evidence: Sequence[tuple[str, str]], max_sentences: int = 3,
          min_gain: int = 2) -> Alignment:
    """Align the claim to the fewest sentences of `evidence` ((card id, text) pairs) that
    cover its terms; see the module docstring. The alignment of the texts is shared by every
    caller that asks the same, whatever its cards are called: the ledger checks the same pairs
    of cards in every run of a question, a claim is checked against its own quote, and other
    runs hold the same quotes under other card ids."""
    shape = _aligned((claim_text, tuple(text for _, text in evidence), max_sentences, min_gain))
    return _labelled(shape, [card_id for card_id, _ in evidence])


def _labelled(shape: Alignment, card_ids: list[str]) -> Alignment:
    """`shape` (whose sentences name their text's position in the evidence) with the card ids."""
    named: dict[int, AlignedSentence] = {}

    def name(sentence: AlignedSentence) -> AlignedSentence:
        found = named.get(id(sentence))
        if found is None:
            found = named[id(sentence)] = replace(sentence, card_id=card_ids[int(sentence.card_id)])
        return found

    candidates = tuple(name(s) for s in shape.candidates)
    return Alignment(shape.claim, shape.terms, tuple(name(s) for s in shape.sentences), candidates)


@memo("alignment.align", maxsize=1 << 17)
def _aligned(key: tuple[str, tuple[str, ...], int, int]) -> Alignment:
    """The alignment of the claim to the texts, each sentence naming its text by position."""
    claim_text, texts, max_sentences, min_gain = key
    sentences = evidence_sentences([(str(i), text) for i, text in enumerate(texts)])
    claim_numbers = extract_numbers(claim_text)
    claim_stems = set(content_terms(claim_text))
    evidence_stems = {t for _, s in sentences for t in content_terms(s)}
    claim = read(claim_text, against=evidence_stems)
    terms = tuple(claim.surfaces)
    n = len(terms) or 1
    candidates = []
    for card_id, text in sentences:
        reading = read(text, against=claim_stems)
        covered = frozenset(t for t in terms if t in reading.terms)
        stated = extract_numbers(text) if claim_numbers else []
        numbers = frozenset(i for i, m in enumerate(claim_numbers) if any(same_quantity(m, x) for x in stated))
        candidates.append(AlignedSentence(card_id, text, reading, covered, numbers, len(covered) / n))

    # A sentence that states none of the claim's terms or numbers can never add to the cover.
    usable = [i for i, c in enumerate(candidates) if (c.covered or c.numbers) and not c.reading.inquiry]
    chosen: list[int] = []
    covered: set[str] = set()
    numbers: set[int] = set()
    while len(chosen) < max_sentences and (len(covered) < len(terms) or len(numbers) < len(claim_numbers)):
        gains = [(len(candidates[i].covered - covered) + len(candidates[i].numbers - numbers), -i)
                 for i in usable if i not in chosen]
        # Most new terms and numbers first; of equals, the earlier sentence, so the cover is
        # deterministic.
        gain, index = max(gains, default=(0, 0))
        if not gain or (chosen and gain < min_gain):
            break
        chosen.append(-index)
        covered |= candidates[-index].covered
        numbers |= candidates[-index].numbers
    return Alignment(claim=claim, terms=terms, sentences=tuple(candidates[i] for i in chosen), candidates=tuple(candidates))
