"""'What do A and B have in common?': planned as a comparison of the two, answered by the
nationality both are given (`countries.nationalities_stated`, `answer._in_common`). The
corpora are hand-made: the expected answers are read off the page text."""

from __future__ import annotations

import pytest
from citeloop.runtime.countries import nationalities_stated
from citeloop.runtime.planner import RulePlanner
from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink
from test_answer import FILLER, _kit


@pytest.mark.parametrize(("sentence", "stated"), [
    ("Dan Masterson (born February 22, 1934) is an American poet born in Buffalo.", [("United States", "American")]),
    ("Sven Palme was a Swedish historian and professor.", [("Sweden", "Swedish")]),
    # a country named for something else gives the subject none
    ("He was a co-author of the English language style guide.", []),
    ("He was born in Buffalo, New York, United States.", []),
])
def test_the_nationality_a_sentence_gives_its_subject(sentence: str, stated: list[tuple[str, str]]) -> None:
    assert nationalities_stated(sentence) == stated


def test_what_two_names_have_in_common_is_a_comparison_of_the_two() -> None:
    plan = RulePlanner().plan("What do Ada Kell and Mira Orr have in common?")
    assert plan.question_type == "comparison"
    assert [a.title for a in plan.axes] == ["Ada Kell", "Mira Orr"]


PAGES = {
    "Ada Kell": "Ada Kell (born 1931) is a Swedish poet. She wrote a guide to the English language.",
    "Mira Orr": "Mira Orr (1899 - 1985) was a Swedish writer. She lived in Norway for ten years.",
    "Tam Dole": "Tam Dole (born 1950) is a German painter.",
}


def test_what_two_names_have_in_common_is_the_nationality_both_are_given() -> None:
    result, _ = run_research("What do Ada Kell and Mira Orr have in common?", _kit({**FILLER, **PAGES}),
                             out_dir=None, sink=MemorySink())
    answer = result.report.answer
    assert (answer.status, answer.kind, answer.text) == ("answered", "entity", "Swedish"), answer
    assert len(answer.claim_ids) == 2  # one sentence of each


def test_no_shared_nationality_is_no_answer() -> None:
    result, _ = run_research("What do Ada Kell and Tam Dole have in common?", _kit({**FILLER, **PAGES}),
                             out_dir=None, sink=MemorySink())
    assert (result.report.answer.status, result.report.answer.text) == ("not_found", None), result.report.answer
