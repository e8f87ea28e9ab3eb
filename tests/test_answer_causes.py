"""A question that asks of what someone died is answered by the words after a cause phrase of a
cited sentence, not by a name (`answer_slots.asks_cause`, `causes_in`); a burial is stated by
"interred" too. Hand-made sentences."""

from __future__ import annotations

import pytest
from test_answer import FILLER, _kit

from citeloop.runtime.answer_slots import asks_cause, causes_in
from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink


@pytest.mark.parametrize(("question", "asks"), [
    ("What is the cause of death of Tavo Renn's father?", True),
    ("Why did Ola Berg's wife die?", True),
    ("Why did Ola Berg leave the band?", False),
    ("When did Ola Berg die?", False),
])
def test_a_cause_of_death_is_asked(question: str, asks: bool) -> None:
    assert asks_cause(question) is asks


@pytest.mark.parametrize(("sentence", "causes"), [
    ("Renn suffered from a form of multiple sclerosis and died on 6 March 1925 following complications of it.",
     ["a form of multiple sclerosis"]),
    ("He died on 2 August 2015 from Parkinson's disease.", ["Parkinson's disease"]),
    ("She was diagnosed with extrapulmonary tuberculosis in 1917.", ["extrapulmonary tuberculosis"]),
    ("He died in Ravensburg, aged 81.", []),  # where, not of what
    ("Her father died in 1925 when she was five years old.", []),
])
def test_a_cause_is_read_after_a_cause_phrase(sentence: str, causes: list[str]) -> None:
    assert [c for c, _ in causes_in(sentence)] == causes


def test_the_cause_of_a_fathers_death_is_answered_by_the_disease() -> None:
    result, _ = run_research("What is the cause of death of Ida Renn's father?", _kit({**FILLER,
        "Ida Renn": "Ida Renn (1920 - 2001) was a Merrow painter. She was the daughter of Tavo Renn and Kara Venn. "
                    "Her father died in 1925 when she was five years old.",
        "Tavo Renn": "Tavo Renn (1880 - 1925) was a Merrow wood engraver. Renn suffered from a form of multiple "
                     "sclerosis and died on 6 March 1925 following complications of it."}),
        out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "a form of multiple sclerosis", result.report.answer


def test_a_burial_place_is_stated_by_interred() -> None:
    """"interred" and "entombed" state a burial as "buried" does (`relations.ATTRIBUTE_CUES`)."""
    result, _ = run_research("Where was the place of burial of Ida Renn's father?", _kit({**FILLER,
        "Ida Renn": "Ida Renn (1920 - 2001) was a Merrow painter. She was the daughter of Tavo Renn and Kara Venn.",
        "Tavo Renn": "Tavo Renn (1880 - 1925) was a Merrow wood engraver who worked in Gull Point and Tessel. "
                     "He is interred at Velm Cemetery."}),
        out_dir=None, sink=MemorySink())
    assert result.report.answer.text == "Velm Cemetery", result.report.answer
