""""Who lived longer, A or B?" is answered from the years between each one's birth and death,
as one sentence of their page dates both, not from whichever number or date stands nearest
(the day of a birth compared with the day of another birth once answered it by chance).

The corpus is hand-made: the expected answer is worked out by hand from the page text."""

from __future__ import annotations

import pytest
from test_answer import FILLER, _kit

from citeloop.runtime.answer_hops import comparison_value
from citeloop.runtime.mentions import life_span
from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink


@pytest.mark.parametrize(("sentence", "years"), [
    ("Arko Sen (6 May 1813 - 25 December 1882) was a Tessalian sculptor.", 69 + 7 / 12 + 19 / 365),
    ("Ada Klee (November 22, 1917 - December 6, 1995) was a historian.", 78 + 1 / 12 - 16 / 365),
    ("Ivo Brenn (1901 - 1950) was a painter.", 49),
    # the last of the death side's dates: "or 1884" is a second guess at the birth
    ("Ola Varn (January 25, 1881 or 1884 - January 12, 1960) was a bishop.", 79 - 13 / 365),
    ("Ivo Brenn (born 1901) is a painter.", None),  # no death: no span
])
def test_the_years_one_sentence_gives_a_life(sentence: str, years: float | None) -> None:
    span = life_span(sentence)
    assert (span is None) if years is None else span == pytest.approx(years)


def test_living_longer_is_compared_by_the_dates_of_a_life() -> None:
    assert comparison_value("Who lived longer, Arko Sen or Ada Klee?") == ("date", True)
    assert comparison_value("Who lived shorter, Arko Sen or Ada Klee?") == ("date", False)


def test_the_longer_life_answers() -> None:
    pages = {
        # the nearest numbers, the days of birth (22 against 6), would point to Arko
        "Arko Sen": "Arko Sen (22 May 1813 - 25 December 1890) was a Tessalian sculptor.",
        "Ada Klee": "Ada Klee (November 6, 1917 - December 6, 1995) was a Tessalian historian.",
    }
    result, _ = run_research("Who lived longer, Arko Sen or Ada Klee?", _kit({**FILLER, **pages}),
                             out_dir=None, sink=MemorySink())
    answer = result.report.answer
    assert answer.text == "Ada Klee", answer  # 78.1 years against 77.6
    assert "lifespans" in answer.reason
