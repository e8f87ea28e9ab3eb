import pytest

from citeloop.runtime.verifier import (
    VERIFIERS, EvidenceText, LexicalVerifier, Verifier, VerifierConfig, resolve_verifier, weaken,
)

EIFFEL = [EvidenceText(card_id="c1", text=(
    "The Eiffel Tower was completed in 1889 in Paris. It is 330 metres tall."))]


def check(claim, evidence=EIFFEL, others=()):
    return LexicalVerifier().check("k1", claim, evidence, others)


def test_entail():
    record = check("The Eiffel Tower in Paris was completed in 1889.")
    assert (record.verdict, record.checker, record.support) == ("entail", "lexical", 1.0)
    assert record.claim_id == "k1" and record.missing_terms == []


def test_partial_when_some_terms_are_missing():
    record = check("The Eiffel Tower in Paris was completed in 1889, which made Gustave Eiffel famous worldwide.")
    assert (record.verdict, record.checker) == ("partial", "lexical")
    assert record.support == 0.5
    assert "famous" in record.missing_terms


def test_conflict_by_negation():
    record = check("The Eiffel Tower in Paris was not completed in 1889.")
    assert (record.verdict, record.checker) == ("conflict", "negation")


def test_conflict_by_negation_in_chinese():
    evidence = [EvidenceText(card_id="z1", text="埃菲尔铁塔位于巴黎。")]
    assert check("埃菲尔铁塔不位于巴黎。", evidence).verdict == "conflict"
    assert check("埃菲尔铁塔位于巴黎。", evidence).verdict == "entail"


def test_conflict_by_number():
    record = check("The Eiffel Tower in Paris was completed in 1887.")
    assert (record.verdict, record.checker) == ("conflict", "number")
    assert record.missing_numbers == ["1887"]


def test_number_absent_without_rival_caps_at_partial():
    # The evidence never mentions a cost: not mentioned is not contradicted.
    record = check("The Eiffel Tower in Paris was completed in 1889 for 7.8 million francs.")
    assert (record.verdict, record.checker) == ("partial", "number")
    assert record.missing_numbers == ["7.8 million"]
    # A year in the evidence is no rival for an amount, even with no year in the claim.
    assert check("The Eiffel Tower in Paris was completed for 7.8 million francs.").verdict == "partial"


def test_number_in_other_notation_still_entails():
    evidence = [EvidenceText(card_id="c9", text="The studio employed 三千 people in 1986.")]
    assert check("The studio employed 3,000 people in 1986.", evidence).verdict == "entail"


def test_conflict_by_reverse_check_on_number():
    others = [EvidenceText(card_id="c2", text="Records show the Eiffel Tower in Paris was completed in 1887.")]
    record = check("The Eiffel Tower in Paris was completed in 1889.", others=others)
    assert (record.verdict, record.checker, record.counter_card_ids) == ("conflict", "reverse", ["c2"])


def test_conflict_by_reverse_check_on_negation():
    others = [EvidenceText(card_id="c3", text="The Eiffel Tower in Paris was never completed.")]
    record = check("The Eiffel Tower in Paris was completed in 1889.", others=others)
    assert record.verdict == "conflict" and record.counter_card_ids == ["c3"]


def test_reverse_check_ignores_texts_that_do_not_mention_the_claim():
    others = [
        EvidenceText(card_id="c4", text="Paris has no beaches."),  # negated, but off-topic
        EvidenceText(card_id="c5", text="The Louvre opened in 1793."),
        EIFFEL[0],  # bound evidence is never its own counter
    ]
    record = check("The Eiffel Tower in Paris was completed in 1889.", others=others)
    assert (record.verdict, record.counter_card_ids) == ("entail", [])


def test_irrelevant():
    record = check("Bananas are rich in potassium.")
    assert (record.verdict, record.checker, record.support) == ("irrelevant", "lexical", 0.0)


def test_undecidable_without_evidence():
    for evidence in ([], [EvidenceText(card_id="c0", text="   ")]):
        record = check("The Eiffel Tower is in Paris.", evidence)
        assert (record.verdict, record.checker) == ("undecidable", "no_evidence")


def test_undecidable_in_gray_zone():
    # 2 of 6 terms (eiffel, tower) found: above irrelevant_below, below partial_support.
    record = check("The Eiffel Tower attracts many foreign visitors yearly.")
    assert (record.verdict, record.checker) == ("undecidable", "lexical")
    assert 0.25 <= record.support < 0.5


def test_undecidable_without_content_terms():
    assert check("Who was it?").checker == "no_content"


def test_config_thresholds_are_used_and_validated():
    loose = LexicalVerifier(VerifierConfig(entail_support=0.5))
    claim = "The Eiffel Tower in Paris was completed in 1889, which made Gustave Eiffel famous worldwide."
    assert loose.check("k", claim, EIFFEL).verdict == "entail"
    with pytest.raises(ValueError):
        VerifierConfig(partial_support=0.9)  # above entail_support
    with pytest.raises(ValueError):
        VerifierConfig(threshold=0.3)


def test_weaken_drops_unsupported_clause_and_rechecks_as_entail():
    claim = "The Eiffel Tower in Paris was completed in 1889, which made Gustave Eiffel famous worldwide."
    assert check(claim).verdict == "partial"
    weaker = weaken(claim, EIFFEL)
    assert weaker == "The Eiffel Tower in Paris was completed in 1889."
    assert check(weaker).verdict == "entail"


def test_weaken_drops_parenthetical_and_missing_number():
    claim = "The Eiffel Tower (a wrought-iron lattice) in Paris was completed for 7.8 million francs."
    assert check(claim).verdict == "partial"
    weaker = weaken(claim, EIFFEL)
    assert weaker == "The Eiffel Tower in Paris was completed."
    assert check(weaker).verdict == "entail"


def test_weaken_closes_the_gap_left_by_a_dropped_aside():
    claim = "The Eiffel Tower in Paris, designed by Gustave Eiffel, was completed in 1889."
    assert weaken(claim, EIFFEL) == "The Eiffel Tower in Paris was completed in 1889."


def test_weaken_returns_none_when_nothing_changes_or_too_little_is_left():
    assert weaken("The Eiffel Tower in Paris was completed in 1889.", EIFFEL) is None
    assert weaken("Bananas are rich in potassium.", EIFFEL) is None


def test_registry_resolves_names_and_paths():
    assert VERIFIERS == {"lexical": LexicalVerifier}
    assert isinstance(resolve_verifier("lexical"), LexicalVerifier)
    resolved = resolve_verifier("citeloop.runtime.verifier:LexicalVerifier")
    assert isinstance(resolved, Verifier) and resolved.name == "lexical"
    with pytest.raises(ValueError, match="lexical"):
        resolve_verifier("nope")
    with pytest.raises(ValueError, match="lexical"):
        resolve_verifier("citeloop.runtime.verifier:VerifierConfig")
