"""`alignment.may_reach`, the verifier's second gate before aligning a claim with a card it
may contradict: it may only say no where no sentence of the card can reach the overlap, which
the alignment itself decides here."""

from __future__ import annotations

import itertools

import pytest

from citeloop.runtime.alignment import align, may_reach
from citeloop.runtime.corpus import load_embedded_corpus
from citeloop.runtime.polarity import possible_terms


def _pairs() -> list[tuple[str, str]]:
    docs = list(load_embedded_corpus())[:40]
    pairs = []
    for doc in docs:
        sentences = doc.sentence_list()[:4]
        pairs += list(itertools.permutations(sentences, 2))  # same page: some share most terms
        pairs.append((sentences[0], " ".join(sentences)))   # a card of several sentences
    for a, b in zip(docs, docs[1:]):
        pairs.append((a.sentence_list()[0], b.sentence_list()[0]))  # other pages: little shared
    return pairs


@pytest.mark.parametrize("overlap", [0.5, 0.7])
def test_the_gate_says_no_only_where_no_sentence_reaches_the_overlap(overlap: float) -> None:
    said = {True: 0, False: 0}
    for claim, evidence in _pairs():
        reach = may_reach(claim, evidence, overlap)
        said[reach] += 1
        best = max((s.overlap for s in align(claim, [("card", evidence)]).candidates), default=0.0)
        if not reach:
            assert best < overlap, (claim, evidence)
    assert said[True] > 10 and said[False] > 10  # both answers were tested


def test_a_claim_and_its_own_sentence_reach_any_overlap() -> None:
    sentence = "Blue Velvet is a 1986 American mystery film written and directed by David Lynch."
    assert may_reach(sentence, sentence, 1.0)


def test_a_prefixed_word_counts_with_its_remainder() -> None:
    # "uninvolved" may be read as "involved" against the claim: the gate must let it through.
    assert "involv" in possible_terms("The mayor was uninvolved in the deal.")
    assert may_reach("The mayor was involved.", "The mayor was uninvolved.", 1.0)


def test_unrelated_text_cannot_reach() -> None:
    assert not may_reach("The Eiffel Tower stands in Paris.", "Bananas grow in tropical climates.", 0.5)
