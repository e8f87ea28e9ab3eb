"""In a background plan (a factoid the planner could not split), the entity the background led
to is the answer itself when its name is of the asked kind ("Marlow City" for "what city ..."),
so it is not among the names the answer must not be; in a chain it stays a subject."""

from __future__ import annotations

from citeloop.runtime.answer import _subject_names
from citeloop.runtime.planner import RulePlanner


def test_a_background_bridge_of_the_asked_kind_is_no_subject() -> None:
    plan = RulePlanner().plan("Besides Gorton, Tessaly, what city are the offices of the Garnet Foundation "
                              "located where Bo Lurie serves as chief of staff to Ann Garnet?")
    assert plan.question_type == "factoid" and plan.sub_questions[-1].finds == "city"
    answer = plan.sub_questions[-1]
    assert "Marlow City" not in _subject_names(plan, answer.id, {"sq1": "Marlow City"})
    assert "Garnet Trust" in _subject_names(plan, answer.id, {"sq1": "Garnet Trust"})  # not a city by its name


def test_a_chains_bridge_stays_a_subject() -> None:
    plan = RulePlanner().plan("What is the name of the airport in the city where WQRS is licensed to broadcast?")
    assert plan.question_type != "factoid"
    answer = plan.sub_questions[-1]
    assert "Marlow City" in _subject_names(plan, answer.id, {answer.depends_on[0]: "Marlow City"})
