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


# --------------------------------------------------------------------------- alignment and opposition


def evidence(*texts):
    return [EvidenceText(card_id=f"c{i}", text=t) for i, t in enumerate(texts)]


def test_scattered_words_do_not_entail():
    # Pooled over the whole page, six of the seven claim terms are there; no sentence, and
    # no small set of sentences, says apples grow on trees near rivers.
    page = evidence("Red paint dries fast.", "Apples are fruit.", "Some people grow tall.",
                    "Trees are plants.", "Rivers flow to the sea.")
    record = check("Red apples grow on tall trees near rivers.", page)
    assert record.verdict in ("undecidable", "irrelevant")
    assert record.support < 0.5
    assert "rivers" in record.missing_terms


def test_claim_is_aligned_to_the_sentences_that_cover_it():
    verifier = LexicalVerifier()
    page = evidence("The bridge opened to traffic in 1932.", "Tourists like it.",
                    "By 1950 the bridge carried forty thousand cars every day.")
    alignment = verifier.align("The bridge opened in 1932 and carried forty thousand cars every day.", page)
    assert [s.card_id for s in alignment.sentences] == ["c2", "c0"]
    assert alignment.coverage == 1.0
    assert check("The bridge opened in 1932 and carried forty thousand cars every day.", page).verdict == "entail"


def test_a_sentence_adding_one_term_does_not_join_the_alignment():
    verifier = LexicalVerifier()
    page = evidence("The Eiffel Tower in Paris was completed in 1889.", "It is famous.")
    alignment = verifier.align("The Eiffel Tower in Paris was completed in 1889 and is famous worldwide.", page)
    assert [s.card_id for s in alignment.sentences] == ["c0"]
    assert alignment.missing == ["famous", "worldwide"]


def test_a_sentence_that_adds_the_claims_year_joins_the_alignment():
    verifier = LexicalVerifier()
    page = evidence("The couple married in New York.", "The wedding was in December 2012.")
    alignment = verifier.align("The couple married in New York in December 2012.", page)
    assert [s.card_id for s in alignment.sentences] == ["c0", "c1"]
    assert check("The couple married in New York in December 2012.", page).missing_numbers == []


def test_not_in_the_aligned_sentence_conflicts():
    page = evidence("Visitors often queue for hours.", "The Eiffel Tower in Paris was not completed in 1889.")
    record = check("The Eiffel Tower in Paris was completed in 1889.", page)
    assert (record.verdict, record.checker) == ("conflict", "negation")
    assert "c1" in record.reason


def test_not_in_an_unrelated_sentence_does_not_conflict():
    page = evidence("The Eiffel Tower in Paris was completed in 1889.", "The Louvre is not a tower.")
    assert check("The Eiffel Tower in Paris was completed in 1889.", page).verdict == "entail"


def test_a_no_outside_the_negation_scope_does_not_conflict():
    # The "no" denies the elevator, a word the claim does not use.
    page = evidence("The Eiffel Tower in Paris, which has no elevator, was completed in 1889.")
    assert check("The Eiffel Tower in Paris was completed in 1889.", page).verdict == "entail"


def test_negated_claim_against_negated_evidence_agrees():
    page = evidence("Folic acid supplements did not slow kidney disease progression in the trial.")
    record = check("Folic acid supplements do not slow kidney disease progression.", page)
    assert record.verdict == "entail"


def test_prefixed_negation_conflicts_with_its_base_word():
    claim = "Citrullinated histones are involved in the inflammatory cycle of arthritis."
    denial = "Citrullinated histones are uninvolved in the inflammatory cycle of arthritis."
    assert (check(claim, evidence(denial)).verdict, check(claim, evidence(denial)).checker) == ("conflict", "negation")
    assert check(denial, evidence(claim)).verdict == "conflict"
    assert check(denial, evidence(denial)).verdict == "entail"  # the same word on both sides agrees


def test_opposite_direction_words_conflict():
    claim = "Losartan treatment increases cardiac fibrosis in hypertensive mice."
    record = check(claim, evidence("Losartan treatment reverses cardiac fibrosis in hypertensive mice."))
    assert (record.verdict, record.checker) == ("conflict", "direction")
    assert check(claim, evidence("Losartan treatment increased cardiac fibrosis in hypertensive mice.")).verdict == "entail"


def test_direction_words_about_other_terms_do_not_conflict():
    # "induced" governs IL-10 production, "inhibits" the T cell response: no opposition.
    record = check("IL-10 production by monocytes inhibits CD4 T cell responses.",
                   evidence("Monocytes induced IL-10 production, which inhibited CD4 T cell responses."))
    assert record.verdict == "entail"


def test_a_sentence_that_asks_contradicts_nothing():
    claim = "Losartan treatment increases cardiac fibrosis in hypertensive mice."
    page = evidence("OBJECTIVE To determine whether losartan treatment reduces cardiac fibrosis in hypertensive mice.",
                    "Losartan treatment increased cardiac fibrosis in hypertensive mice.")
    record = check(claim, page)
    assert record.verdict == "entail"
    assert "c1" in record.reason


def test_number_swap_conflicts_only_in_the_same_place():
    claim = "The survey found that 30 percent of adults smoke."
    swapped = check(claim, evidence("The survey found that 45 percent of adults smoke."))
    assert (swapped.verdict, swapped.checker) == ("conflict", "number")
    # A confidence interval is another quantity, not a rival for the 30 percent.
    assert check(claim, evidence("The survey found that 30 percent of adults smoke (95% CI 28-32).")).verdict == "entail"


def test_number_in_a_name_is_no_quantity():
    record = check("C2 works with A-769662 to activate AMPK in cells.",
                   evidence("C2 works with A-769662 to activate AMPK in 1 of the cells."))
    assert record.verdict == "entail"


def test_reverse_check_reads_direction_words_too():
    others = [EvidenceText(card_id="c7", text="Later trials found that losartan treatment reduced cardiac "
                                               "fibrosis in hypertensive mice.")]
    record = check("Losartan treatment increased cardiac fibrosis in hypertensive mice.",
                   evidence("Losartan treatment increased cardiac fibrosis in hypertensive mice."), others)
    assert (record.verdict, record.checker, record.counter_card_ids) == ("conflict", "reverse", ["c7"])
