"""A name that shares only its family name or only its first name with a name the question gives
is another person (a spouse, a child, a namesake), not the question's own name
(`bridging.another_person`): it can be the bridge ("She was the second wife of Tam Orrin" for
"the spouse of Lil Vessa Orrin"), while the question's own name with a title before it
("Professor Lil Vessa Orrin") stays the question's."""

import pytest
from citeloop.runtime.bridging import another_person, rank_bridge_evidence
from citeloop.runtime.planner import RulePlanner
from citeloop.runtime.text import tokenize
from llm_scripts import card


@pytest.mark.parametrize(("name", "subject", "relative"), [
    ("Tam Orrin", "Lil Vessa Orrin", True),  # the same family name, another first name
    ("Antara Mali", "Jagdish Mali", True),
    ("Professor Lil Vessa Orrin", "Lil Vessa Orrin", False),  # a title before the subject's own name
    ("Lil Dorne", "Lil Vessa Orrin", True),  # the same first name, another family name
    ("Lil Orrin", "Lil Vessa Orrin", False),  # the subject's own first and family names
    ("Orrin", "Lil Vessa Orrin", False),  # one word
    ("Tam Kell", "Lil Vessa Orrin", False),  # another family
])
def test_another_person_shares_only_one_name(name: str, subject: str, relative: bool) -> None:
    question = f"When did the spouse of {subject} record Velm Song?"
    assert another_person(tokenize(name), [subject], set(tokenize(question))) is relative


def test_a_spouse_of_the_same_family_name_can_be_the_bridge() -> None:
    plan = RulePlanner().plan("When did the spouse of Lil Vessa Orrin record Velm Song?")
    hop = plan.sub_questions[0]
    quote = "She was the second wife of Tam Orrin, with whom she made many records in the 1920s."
    wife = card("c1", quote, "d1", hop.id).model_copy(update={"title": "Lil Vessa Orrin"})
    names = [name for name, _, _ in rank_bridge_evidence(plan, [wife], {"Lil Vessa Orrin"}, hop.search_query)]
    assert names[:1] == ["Tam Orrin"], names
