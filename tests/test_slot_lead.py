"""A name that follows the words the question puts right before its last "which" or "what" is
the one the question asks for: "a second campus in which California city?" is answered by the
name after "a second campus in", not by the main campus's town that stands nearer other
relation words; a question that ends with its slot ("depictions of what?") is answered by what
follows the same words in the sentence. Hand-made sentences."""

from __future__ import annotations

from llm_scripts import card as llm_card
from llm_scripts import claim_of

from citeloop.runtime.answer_slots import slot_lead
from citeloop.runtime.answer_spans import best_span

QUESTION = "Ola Brenn coaches at a college which also has a second campus in which Tessalian city?"


def test_the_words_before_the_last_which() -> None:
    assert slot_lead(QUESTION) == ("second", "campus", "in")
    assert slot_lead("The film was directed by which man?") == ("was", "directed", "by")
    assert slot_lead("What city is Ola Brenn from?") == ()  # no words before the slot
    assert slot_lead("It is in the which?") == ()  # no content word among them


def test_the_name_after_the_lead_answers() -> None:
    quote = ("The main campus is located in Marlow Hills, Dorrin, a suburb of Calder, and the college has a "
             "second campus in Port Avel.")
    card = llm_card("c1", quote, "d1", "sq2").model_copy(update={"title": "Brenn College"})
    found = best_span("entity", [(claim_of(card), card)], {"campus", "second", "citi"}, ["Ola Brenn", "Brenn College"],
                      QUESTION)
    assert found and found[0].text == "Port Avel", [(f.text, f.score) for f in found]


def test_a_question_that_ends_with_its_slot_is_answered_by_what_follows_the_lead() -> None:
    """"... known for his precisionist depictions of what?": the words after the same lead in the
    sentence answer it, a name or not, up to the clause's end."""
    hop = llm_card("c1", "Ola Brenn (1921 - 2013) was a Tessalian painter known for his precisionist depictions of "
                         "urban landscapes that are full of wit.")
    found = best_span("entity", [(claim_of(hop), hop)], {"painter", "known"}, ["Gull Institute"],
                      "Speakers at the Gull Institute include a painter known for his precisionist depictions of what?")
    assert found[0].text == "urban landscapes", found


def test_the_words_after_the_lead_stop_at_a_clause() -> None:
    from citeloop.runtime.answer_slots import after_lead
    lead = ("depictions", "of", "the")
    assert after_lead("He is known for depictions of the sea, and of ships.", lead) == "sea"
    assert after_lead("He painted depictions of the old harbour which burned in 1900.", lead) == "old harbour"
    assert after_lead("He painted portraits of kings.", lead) == ""  # the lead is not in the sentence
