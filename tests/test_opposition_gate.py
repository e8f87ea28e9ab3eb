"""The gate before opposition (`opposition.may_oppose`) and the ledger's conflict test
(`LexicalVerifier.conflict`): both are shortcuts, so each is checked against the long way."""

from __future__ import annotations

import pytest

from citeloop.runtime.opposition import may_oppose
from citeloop.runtime.verifier import EvidenceText, LexicalVerifier, conflict_reason

PLAIN = "The Eiffel Tower stands in Paris on the Champ de Mars."


def test_two_plain_statements_cannot_oppose() -> None:
    assert not may_oppose(PLAIN, "The Eiffel Tower is a wrought-iron tower in Paris.")


def test_a_number_on_one_side_only_cannot_oppose() -> None:
    assert not may_oppose("The Eiffel Tower was finished in 1889.", PLAIN)
    assert not may_oppose(PLAIN, "The Eiffel Tower was finished in 1889.")


def test_amounts_of_other_kinds_or_places_cannot_oppose() -> None:
    # A rival number is an amount of the same kind next to the same word.
    assert not may_oppose("The Eiffel Tower was finished in 1889.", "The Eiffel Tower has 1,665 steps.")
    assert not may_oppose("The Eiffel Tower was finished in 1889.", "It was the tallest structure until 1930.")


def test_a_prefixed_word_opposes_only_where_the_other_text_has_its_remainder() -> None:
    assert may_oppose("The mayor was involved in the deal.", "The mayor was uninvolved in the deal.")
    assert not may_oppose("The mayor was involved in the deal.", "The international press covered the deal.")


@pytest.mark.parametrize("claim, evidence", [
    ("The Eiffel Tower was finished in 1889.", "The Eiffel Tower was finished in 1887."),  # amounts on both sides
    ("The drug increases fibrosis in mice.", "The drug reduces fibrosis in mice."),  # directions on both sides
    ("The Eiffel Tower does not stand in Paris.", PLAIN),  # a denial in the claim
    (PLAIN, "The Eiffel Tower does not stand in Paris."),  # a denial in the evidence
    (PLAIN, "It is in Paris. The tower was never moved from the Champ de Mars."),  # in a later sentence
])
def test_a_denial_anywhere_or_a_kind_both_hold_may_oppose(claim: str, evidence: str) -> None:
    assert may_oppose(claim, evidence)


PAIRS = [
    ("The Eiffel Tower was finished in 1889.", "The Eiffel Tower was finished in 1887."),
    ("The Eiffel Tower was finished in 1889.", "The Eiffel Tower was finished in 1889."),
    ("The Eiffel Tower does not stand in Paris.", PLAIN),
    (PLAIN, "The Eiffel Tower does not stand in Paris."),
    ("The drug increases fibrosis in mice.", "The drug reduces fibrosis in mice."),
    (PLAIN, "The Eiffel Tower is a wrought-iron tower in Paris."),
    (PLAIN, "   "),
    ("the of and", PLAIN),
    ("The mayor was involved in the deal.", "The mayor was uninvolved in the deal."),
    ("The Eiffel Tower was finished in 1889.", "The Eiffel Tower has 1,665 steps."),
    ("The Eiffel Tower was finished in 1889.", "The Eiffel Tower was completed by 1889 in Paris."),
]


@pytest.mark.parametrize("claim, evidence", PAIRS)
def test_the_ledgers_conflict_test_says_what_the_whole_check_says(claim: str, evidence: str) -> None:
    verifier = LexicalVerifier()
    text = EvidenceText(card_id="card-b", text=evidence)
    record = verifier.check("card-a", claim, [text])
    expected = record.reason if record.verdict == "conflict" else None
    assert verifier.conflict(claim, text) == expected
    assert conflict_reason(verifier, "card-a", claim, text) == expected


def test_the_pairs_hold_conflicts_and_agreements() -> None:
    # The comparison above means something only if both kinds of pair are among them.
    verifier = LexicalVerifier()
    verdicts = [verifier.check("a", c, [EvidenceText(card_id="b", text=e)]).verdict for c, e in PAIRS]
    assert "conflict" in verdicts and "entail" in verdicts
