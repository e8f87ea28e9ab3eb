"""A name is answered as the sentence writes it: with the hereditary style after its comma
("Sir Edward Buxton, 2nd Baronet", "Garsenda, Heiress of Bigorre"), and with the "'s" that ends
a place's name before a comma ("St. John's, Newfoundland"), where a possessive's "'s" is dropped.
Hand-made sentences about made-up people."""

from __future__ import annotations

from llm_scripts import card as llm_card
from llm_scripts import claim_of

from citeloop.runtime.answer_spans import best_span, with_style
from citeloop.runtime.text import entity_spans


def test_a_style_after_the_comma_is_part_of_the_name() -> None:
    quote = "Orm was the son of Sir Edwin Talbrook, 2nd Baronet, and the grandson of Sir Amos Talbrook, 1st Baronet."
    assert with_style(quote, "Sir Edwin Talbrook") == "Sir Edwin Talbrook, 2nd Baronet"
    assert with_style(quote, "Sir Amos Talbrook") == "Sir Amos Talbrook, 1st Baronet"
    quote = "She was a daughter of Bern-Arnaud, Count of Vessac and his wife Galsinda, Heiress of Vessac."
    assert with_style(quote, "Galsinda") == "Galsinda, Heiress of Vessac"
    assert with_style("He married Ilse, Duchess of Norrmark and Ostvik in 2013.", "Ilse") == \
        "Ilse, Duchess of Norrmark and Ostvik"
    assert with_style("Joan Tarrow, Baroness Ellingham, died young.", "Joan Tarrow") == "Joan Tarrow, Baroness Ellingham"


def test_a_comma_that_adds_no_style_adds_nothing() -> None:
    assert with_style("Born in Calder, Tessaly, he moved to Port Avel.", "Calder") == "Calder"
    # an office is no hereditary style: what follows the comma says what he did
    assert with_style("Arno Pell, President of Pell Mills, died in 1950.", "Arno Pell") == "Arno Pell"
    assert with_style("Arno Pell, the count's steward, died in 1950.", "Arno Pell") == "Arno Pell"


def test_the_father_is_answered_with_his_style() -> None:
    quote = "Orm was the son of Sir Edwin Talbrook, 2nd Baronet, and the grandson of Sir Amos Talbrook, 1st Baronet."
    card = llm_card("c1", quote, "d1", "sq2").model_copy(update={"title": "Orm Talbrook"})
    found = best_span("entity", [(claim_of(card), card)], {"father"}, ["Orm Talbrook"],
                      "Who is the father of Orm Talbrook?", parent="father")
    assert found and found[0].text == "Sir Edwin Talbrook, 2nd Baronet", [(f.text, f.score) for f in found]


def test_an_s_before_a_comma_ends_a_place_name() -> None:
    assert "St. Aldric's" in entity_spans("He was born in St. Aldric's, Vessmark, in 1946.")
    # a possessive stays the owner's name
    spans = entity_spans("The song appeared on Marla Venn's 1968 album.")
    assert "Marla Venn" in spans and "Marla Venn's" not in spans
