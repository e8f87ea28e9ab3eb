"""An answer hop asking when someone was born or died takes, of each page, the sentence that
dates it most precisely: a page's life brackets "(1 November 1680 - 26 May 1711)" over its
"died in 1711", though the second says "died" and so looks more relevant. A year asked, or an
event that is no birth or death, keeps the order by relevance.

The corpus is hand-made: the expected date is read off the page text."""

from __future__ import annotations

from llm_scripts import card
from test_answer import FILLER, _kit

from citeloop.runtime.answer_sentences import date_precision, most_precise_per_source
from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink

BRACKETS = "Wendel Arro, 2nd Lord of Kessa (1 November 1680 - 26 May 1711) was a Tessalian nobleman."
DIED = "Arro died in 1711, aged 30, from smallpox and was buried in the chapel at Kessa."
DEATH = "What is the date of death of Wendel Arro?"


def test_how_precisely_a_sentence_dates_the_asked_event() -> None:
    assert date_precision(DEATH, BRACKETS) == 3
    assert date_precision(DEATH, DIED) == 1
    assert date_precision("When was Wendel Arro born?", BRACKETS) == 3  # the birth bracket, to the day
    assert date_precision(DEATH, "The chapel was rebuilt in May 1750.") == 0  # no death in it
    assert date_precision("When did the chapel open?", "The chapel opened in May 1750.") == 2


def test_of_one_source_the_most_precise_card_stays() -> None:
    brackets, died = card("c1", BRACKETS, "d1"), card("c2", DIED, "d1")
    other = card("c3", "Anna Arro died in 1740 at Kessa.", "d2")
    assert most_precise_per_source([died, brackets, other], DEATH) == [brackets, other]
    # a year asked: every card stays, in its order
    assert most_precise_per_source([died, brackets], "In what year did Wendel Arro die?") == [died, brackets]
    # no birth or death asked: a page's other dates date other events
    opened = card("c4", "The chapel opened in December 1697 at Kessa.", "d1")
    assert most_precise_per_source([died, opened], "When did the chapel at Kessa open?") == [died, opened]


def test_the_answer_is_the_bracketed_date() -> None:
    pages = {
        "Wendel Arro": f"{BRACKETS} He served as Lord Constable at a coronation. {DIED}",
        "Kessa": "Kessa is a castle in Tessaly. It was built in 1402.",
    }
    result, _ = run_research(DEATH, _kit({**FILLER, **pages}), out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "26 May 1711", result.report.answer
