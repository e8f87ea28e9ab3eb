"""A title's leading article is no sign that the question names it: "The Jetsons" can be the
bridge of a question that, like every question, has a "the" in it, while a name whose own
words the question uses is still the question's."""

from llm_scripts import card

from citeloop.runtime.bridging import rank_bridge_evidence
from citeloop.runtime.planner import RulePlanner


def test_a_title_with_a_leading_article_can_be_the_bridge() -> None:
    plan = RulePlanner().plan(
        "Jean Vandel provided the voice of Rosie on the animated sitcom that premiered on which date?")
    hop = plan.sub_questions[0]
    quote = ('She also provided the voices of Pebbles Flint, Rosie the robot maid on the animated series '
             '"The Jetsons" and Lola Glamour on "The Rosie Hour".')
    voices = card("c1", quote, "d1", hop.id).model_copy(update={"title": "Jean Vandel"})
    names = [name for name, _, _ in rank_bridge_evidence(plan, [voices], {"Jean Vandel"}, hop.search_query,
                                                         "sitcom")]
    assert "The Jetsons" in names
    assert "The Rosie Hour" not in names  # "rosie" and "hour": half its own words are the question's
