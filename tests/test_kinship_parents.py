"""Parents read from a biography's sentence: "the eldest son and successor of A and B" names
the subject's parents; "X married Y, daughter of C" names Y's, not X's; and the father's whole
name may hold the title the question gives the child ("Odo I, Count of Marlow" for "Odo III,
Count of Marlow's paternal grandfather") without being taken for the child. A hop asking a
parent claims the sentence that names its subject's own parents (`answer_hops.own_parentage`).

The sentences are hand-made; the expected names are read off them."""

from __future__ import annotations

import pytest
from llm_scripts import card, claim_of

from citeloop.runtime.answer_spans import best_span
from citeloop.runtime.parentage import parent_slot, parents_named


def test_a_son_and_successor_names_his_parents_not_his_mothers() -> None:
    quote = ("Jordan I (after 1046 - 1091), count of Aversa, was the eldest son and successor of Prince Richard I "
             "of Dorn and Fressenda, a daughter of Tancred of Hauteville.")
    assert parents_named(quote) == ("Prince Richard I of Dorn", "Fressenda")
    assert parent_slot(quote, "Tancred of Hauteville") is None


def test_the_parents_of_a_spouse_are_not_the_subjects() -> None:
    quote = "In 1160, Rotrou married Matilda of Brenholt, daughter of Theobald II, Count of Calder, and Matilda of Dorn."
    assert parents_named(quote) is None
    assert parent_slot(quote, "Theobald II, Count of Calder") is None
    # a kinship stated before the marriage is still the subject's own
    before = "Rotrou, son of Geoffrey of Marlow, married Matilda of Brenholt, daughter of Theobald II."
    assert parent_slot(before, "Geoffrey of Marlow") == "parent"


def test_the_fathers_whole_name_may_hold_the_childs_title() -> None:
    quote = ("Odo II of Marlow (1154 - 1218), Count of Marlow and Brenholt, was the eldest surviving son of Odo I, "
             "Count of Marlow, and Agnes de Brenholt, and a grandson of King Louis VI of Tessaly.")
    hop = card("c1", quote, "d1", "sq2").model_copy(update={"title": "Odo II, Count of Marlow"})
    claim = claim_of(hop)
    subjects = ["Odo II, Count of Marlow", "Odo III, Count Of Marlow", "Odo III", "Count Of Marlow"]
    found = best_span("entity", [(claim, hop)], {"father", "son"}, subjects,
                      "Who is Odo III, Count Of Marlow's paternal grandfather?", parent="father")
    assert found[0].text == "Odo I, Count of Marlow", found


def test_a_comma_and_parts_the_parents_when_the_fathers_style_holds_an_and() -> None:
    quote = "He was the son of Gozo, Count of Bidmark and Vessau, and Oda of Merran."
    assert parents_named(quote) == ("Gozo", "Oda of Merran")  # not the style's "Vessau" for the mother
    found = best_span("entity", [(claim_of(card("c1", quote, "d1", "sq2")), card("c1", quote, "d1", "sq2"))],
                      {"mother", "son"}, ["Gotlo I"], "Who is Gotlo I's paternal grandmother?", parent="mother")
    assert found[0].text == "Oda of Merran", found
    # with no style of the father's, the first "and" still parts them
    assert parents_named("She was the daughter of Ivo Brenn and Ada Calder, and a niece of Ulf.") == \
        ("Ivo Brenn", "Ada Calder")


def test_the_mother_after_his_consort_or_his_second_wife() -> None:
    assert parents_named("Frode was the son of King Orm V of Tessaly and his consort Ada of Vessau.") == \
        ("King Orm V of Tessaly", "Ada of Vessau")
    assert parents_named("Frode was the son of Orm Brenn and his second wife, Ada Klee.") == ("Orm Brenn", "Ada Klee")


def test_one_parent_named_after_what_she_was() -> None:
    quote = "The son of actress Ilsa Varn, Amro appeared as an actor in his mother's productions."
    assert parent_slot(quote, "Ilsa Varn") == "parent"
    hop = card("c1", quote, "d1", "sq2")
    found = best_span("entity", [(claim_of(hop), hop)], {"mother", "son"}, ["Amro"],
                      "Who is the mother of the composer of film Tern 2?", parent="mother")
    assert found[0].text == "Ilsa Varn", found


@pytest.mark.parametrize(("quote", "own"), [
    ("Rotrou IV (1135-1191), Count of Perche, son of Rotrou III, Count of Perche, and Hawise.", True),
    ("In 1160, Rotrou married Matilda of Blois-Champagne, daughter of Theobald II.", False),  # the spouse's parents
    ("Rodney was the son of Admiral George Rodney by his first wife Lady Jane Compton.", True),
    ("He was the first husband of Sibyl Hathaway.", False),
    ("Her father, Gyorgy Vend, was a geographer.", True),
    ("His wife's father was a geographer.", False),
])
def test_a_sentence_names_its_own_subjects_parents(quote: str, own: bool) -> None:
    from citeloop.runtime.parentage import own_parentage
    assert own_parentage(quote) is own


def test_a_grandfather_is_read_from_the_fathers_parentage_not_his_wifes() -> None:
    """The father's article says whom he married ("daughter of Oska Lund") more relevantly than
    whose son he was: the hop asking the father's father claims the parentage sentence."""
    from test_answer import _answer
    answer = _answer("Who is Rolf Venn's paternal grandfather?", {
        "Rolf Venn": "Rolf Venn (1880 - 1940) was a Merrow cricketer and banker. Venn was born in Tessel, a son of "
                     "Ivo Venn, member of parliament.",
        "Ivo Venn": "Ivo Venn (1840 - 1910) was a Merrow member of parliament. Venn married the Hon. Ada Lund, "
                    "daughter of Oska Lund, 1st Baron Lund, father of three, in 1872. Venn was the son of Sir Edo Venn, "
                    "2nd Baronet."})
    assert answer.text == "Sir Edo Venn, 2nd Baronet", answer
