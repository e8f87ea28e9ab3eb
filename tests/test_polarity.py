"""Scoped negation, prefixed negation, inquiry and direction words (citeloop.runtime.polarity)."""

import pytest

from citeloop.runtime.polarity import cues, is_negated, opposite_directions, read


def test_negation_covers_what_follows_it_in_its_clause():
    reading = read("The tower, which has no elevator, was completed in 1889.")
    assert reading.negated == {"elev"}
    assert {"tower", "complet"} <= reading.terms


def test_scope_stops_at_a_breaker_word():
    reading = read("The drug did not lower blood pressure but reduced mortality.")
    assert {"lower", "blood", "pressur"} <= reading.negated
    assert "mortal" not in reading.negated


def test_a_term_stated_once_outside_a_negation_is_not_negated():
    # "X users versus those who never took X": X is still stated.
    reading = read("Aspirin users had fewer strokes than patients who never took aspirin.")
    assert "aspirin" not in reading.negated
    assert "took" in reading.negated


def test_condition_words_do_not_deny_the_clause():
    assert not read("Mice lacking Sirt1 gain weight.").negated
    assert read("The biomaterial lacks inductive properties.").negated >= {"induct", "properti"}


def test_prefixed_word_is_its_base_negated_only_against_a_text_with_the_base():
    against_base = read("The protein is uninvolved in the cycle.", against={"involv"})
    assert "involv" in against_base.negated and "uninvolv" not in against_base.terms
    alone = read("The protein is uninvolved in the cycle.", against={"uninvolv", "involv"})
    assert "uninvolv" in alone.terms  # both texts use the prefixed word: they agree


@pytest.mark.parametrize("text", ["not only this", "不同的方法", "whether or not it rains"])
def test_phrases_that_hold_a_negation_word_without_negating(text):
    assert not is_negated(text)


@pytest.mark.parametrize("text", ["It was not built.", "It wasn't built.", "埃菲尔铁塔不位于巴黎。", "There is no tower."])
def test_negation_cues(text):
    assert is_negated(text)


def test_inquiry_sentences_are_marked():
    assert read("OBJECTIVE To determine whether statins reduce mortality.").inquiry
    assert read("We examined whether statins reduce mortality.").inquiry
    assert not read("Statins reduced mortality in the trial.").inquiry
    assert not read("The objective was met.").inquiry  # headings count only in capitals


def test_direction_words_govern_the_terms_after_them():
    claim = read("Exercise increases bone density.")
    assert [(d.word, d.sign, set(d.targets)) for d in claim.directions] == [("increas", 1, {"bone", "densiti"})]
    assert opposite_directions(claim, read("Exercise lowers bone density."))
    assert not opposite_directions(claim, read("Exercise raises bone density."))
    assert not opposite_directions(claim, read("Exercise lowers blood sugar."))  # another target


def test_direction_words_under_a_negation_are_left_out():
    assert read("Exercise did not increase bone density.").directions == ()


def test_cue_lists_are_data():
    c = cues()
    assert ("not",) in c.negation and ("no",) in c.negation  # "no" must not load as YAML false
    assert "reverses" in c.down and "increases" in c.up
    assert not c.up & c.down
