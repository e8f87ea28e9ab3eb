"""A background plan's answer sits in its first search: the sentence that states it is claimed
(`CardViews._background_claim_cards`, with the words around the question's slot:
`answer_hops.slot_terms`), and a relative who shares the subject's family name is no subject
(`bridging.another_person`). The same held sentences in a chain: an entity's own article speaks
of it by a shorter name (`CardViews._opens_with`).

The corpora are hand-made: the expected answers are read off the page text."""

from __future__ import annotations

import pytest
from llm_scripts import card, claim_of
from test_answer import FILLER, _kit

from citeloop.runtime.answer_slots import slot_terms
from citeloop.runtime.answer_spans import best_span
from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink

PAGES = {
    "Tavo Renn": "Tavo Renn (1950 - 2010) was an Indian fashion and film photographer. In his career he took "
                 "images of singers like Mila Dorn, Oska Bel and Pira Lund. He was the father of Merrow actress "
                 "Inka Renn.",
    "Mila Dorn": "Mila Dorn is a Merrow actress and singer. She is the daughter of the poet and lyricist Odo Dorn.",
}
QUESTION = ("Indian film photographer Tavo Renn, known for taking images of singers including Mila Dorn, "
            "is father to which Merrow actress?")


def test_the_background_sentence_that_states_the_answer_is_claimed_and_answers() -> None:
    result, _ = run_research(QUESTION, _kit({**FILLER, **PAGES}), out_dir=None, sink=MemorySink())
    assert [a.title.split(":")[0] for a in result.plan.axes] == ["Background", "Answer"]
    claimed = [c.text for s in result.report.sections for c in s.claims]
    assert "He was the father of Merrow actress Inka Renn." in claimed
    # Inka Renn shares the subject's family name, not the subject's first name: she is the answer.
    assert (result.report.answer.status, result.report.answer.text) == ("answered", "Inka Renn")


@pytest.mark.parametrize(("question", "terms"), [
    ("Tavo Renn, known for portraits, is father to which Merrow actress?", {"father", "merrow", "actress"}),
    ("The winner appears on the cover of a game developed by what company?", {"game", "develop", "compani"}),
    ("Which film came out first, Tern Bay or Gull Point?", set()),  # the slot opens the question
    ("Who was Lena Ardo married to?", set()),
])
def test_the_words_around_a_slot_inside_the_question(question: str, terms: set[str]) -> None:
    assert slot_terms(question) == terms


@pytest.mark.parametrize(("quote", "expected"), [
    ("He was the father of Merrow actress Inka Renn.", ["Inka Renn"]),  # another first name: a relative
    ("He was known as Tavo Renn to his friends and as Renn in print.", []),  # the subject's own names
])
def test_a_relative_who_shares_the_family_name_is_no_subject(quote: str, expected: list[str]) -> None:
    hop = card("c1", quote)
    found = best_span("entity", [(claim_of(hop), hop)], {"father", "actress"}, ["Tavo Renn"],
                      "Tavo Renn, a photographer, is father to which Merrow actress?")
    assert [f.text for f in found if "Renn" in f.text] == expected


def test_the_article_of_the_bridge_speaks_of_it_by_a_shorter_name() -> None:
    """The father's article opens with his full name under a title that spells it another way,
    then calls him "Ardo": its sentence about his father is about him (`CardViews._opens_with`)."""
    result, _ = run_research("Who is the paternal grandfather of Rolf Ardo, 1st Earl of Merrow?", _kit({**FILLER,
        "Rolf Ardo, 1st Earl of Merrow": "Rolf Ardo, 1st Earl of Merrow (1390 - 1422) was an English nobleman. The "
                                         "only son of Wil de Ardo, he succeeded to his lands in 1411.",
        "Wil Ardo, 1st Baron Tessel": "Wil de Ardo, 1st Baron Tessel (c. 1343 - 1411) was an English peer. Ardo was "
                                      "the fourth son of Tomas de Ardo, 11th Earl of Gull, and Kara Venn."}),
        out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "Tomas de Ardo, 11th Earl of Gull", result.report.answer
