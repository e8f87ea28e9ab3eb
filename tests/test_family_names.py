"""A name that shares only its family name with a name the question gives is another person of
that family (a spouse, a child), not the question's own name (`bridging.relative_of`): it can be
the bridge ("She was the second wife of Tam Orrin" for "the spouse of Lil Vessa Orrin"), while
the question's own name with a title before it ("Professor Ada Kell Orrin") stays the question's."""

import pytest
from citeloop.runtime.bridging import rank_bridge_evidence, relative_of
from citeloop.runtime.planner import RulePlanner
from citeloop.runtime.text import tokenize
from llm_scripts import card


@pytest.mark.parametrize(("name", "subject", "relative"), [
    ("Tam Orrin", "Lil Vessa Orrin", True),  # the same family name, another first name
    ("Antara Mali", "Jagdish Mali", True),
    ("Professor Lil Vessa Orrin", "Lil Vessa Orrin", False),  # a title before the subject's own name
    ("Lil Orrin", "Lil Vessa Orrin", False),  # the subject's own first name
    ("Orrin", "Lil Vessa Orrin", False),  # one word
    ("Tam Kell", "Lil Vessa Orrin", False),  # another family
])
def test_a_relative_shares_only_the_family_name(name: str, subject: str, relative: bool) -> None:
    question = f"When did the spouse of {subject} record Velm Song?"
    assert relative_of(tokenize(name), [subject], set(tokenize(question))) is relative


def test_a_spouse_of_the_same_family_name_can_be_the_bridge() -> None:
    plan = RulePlanner().plan("When did the spouse of Lil Vessa Orrin record Velm Song?")
    hop = plan.sub_questions[0]
    quote = "She was the second wife of Tam Orrin, with whom she made many records in the 1920s."
    wife = card("c1", quote, "d1", hop.id).model_copy(update={"title": "Lil Vessa Orrin"})
    names = [name for name, _, _ in rank_bridge_evidence(plan, [wife], {"Lil Vessa Orrin"}, hop.search_query)]
    assert names[:1] == ["Tam Orrin"], names
