"""An answer stated before the answer hop: the background hop of a question the plan could not
tell from two hops ("graduated from what school?"), or the sentence that found a chain's bridge
and already says what is asked of it ("a publishing house based in ..."); the entity a
background led to is no answer when the answer hop says the asked relation of it.

The corpora are hand-made: the expected answers are read off the page text."""

from __future__ import annotations

from llm_scripts import card
from test_answer import FILLER, _kit

from citeloop.runtime.bridging import rank_bridge_evidence
from citeloop.runtime.planner import RulePlanner

from citeloop.runtime.session import run_research
from citeloop.trajectories.runfile import MemorySink


def _research(question: str, pages: dict[str, str]):  # noqa: ANN202
    result, _ = run_research(question, _kit({**FILLER, **pages}), out_dir=None, sink=MemorySink())
    return result


def test_a_background_hop_that_states_the_answer_answers() -> None:
    """The plan reads about Corin Vale, then about the school its evidence names: the school's
    own article says it is a school, so the name the background gave is the answer."""
    result = _research("Corin Vale graduated from what college preparatory boys' school?", {
        "Corin Vale": "Corin Vale was a politician from Merrow. He attended the village school and graduated "
                      "from Ashby Academy.",
        "Ashby Academy": "Ashby Academy, founded in 1804, is a small college preparatory day school for boys."})
    assert [a.title.split(":")[0] for a in result.plan.axes] == ["Background", "Answer"]
    assert (result.report.answer.status, result.report.answer.text) == ("answered", "Ashby Academy")


def test_a_background_year_answers_when_the_answer_hop_finds_none() -> None:
    result = _research("How to Bake, released in which year, is a book of Merrow cuisine by the cook Lena Ardo", {
        "How to Bake": "How to Bake is a 1994 book of Merrow cuisine by the cook Lena Ardo.",
        "Lena Ardo": "Lena Ardo is a cook and writer from Merrow."})
    assert [a.title.split(":")[0] for a in result.plan.axes] == ["Background", "Answer"]
    assert result.report.answer.text == "1994", result.report.answer
    assert result.report.answer.reason.endswith("a cited sentence of sq1")  # the background's, not the answer hop's


def test_the_entity_a_background_led_to_is_no_answer_when_its_hop_states_the_relation() -> None:
    """The director is the bridge: the answer hop's sentence about him says how he died."""
    result = _research("What is the cause of death of director of film Velm Harbour?", {
        "Velm Harbour": "Velm Harbour is a 2018 British comedy film directed by Arko Sen.",
        "Arko Sen": "Arko Sen died in 2015 of Tessler disease."})
    assert [a.title.split(":")[0] for a in result.plan.axes] == ["Background", "Answer"]
    # the cause, read after "died ... of" (`answer_slots.causes_in`), not the name in it
    assert result.report.answer.text == "Tessler disease", result.report.answer



def test_the_next_hop_follows_the_name_its_own_relation_word_stands_next_to() -> None:
    """"Gull Point director": the film's first sentence names its stars, the second says who
    directed it, and both are as relevant. The hop's own relation word decides: the director
    ranks first. A hop whose words are a clause, not a relation, gets no such bonus, and the
    first-named star leads."""
    plan = RulePlanner().plan("Which film has the director born first, Tern Bay or Gull Point?")
    hop = next(sq for sq in plan.sub_questions if sq.search_query == "Gull Point director")
    stars = card("c1", "Gull Point is a 2012 comedy film starring Ivo Brant and Lena Moss.", "d1", hop.id)
    directed = card("c2", "It was written and directed by Rob Tamsin.", "d1", hop.id)
    stars, directed = (c.model_copy(update={"title": "Gull Point"}) for c in (stars, directed))
    ranked = rank_bridge_evidence(plan, [stars, directed], {"Gull Point"}, hop.search_query)
    assert ranked[0][0] == "Rob Tamsin", ranked
    assert rank_bridge_evidence(plan, [stars, directed], {"Gull Point"}, "comedy film")[0][0] == "Ivo Brant"


def test_a_hop_found_by_the_whole_question_keeps_the_sentence_that_states_its_relation() -> None:
    """The first search of "the father-in-law of X" is the question itself, whose words name no
    spouse; the sentence that says whom she married is still the spouse hop's evidence, so the
    next hop reads the husband's article and finds his father, not hers."""
    result = _research("Who is the father-in-law of Lady Mira Holt?", {
        "Lady Mira Holt": "Lady Mira Holt (1919 - 2005) was a British aristocrat, the fourth daughter of the "
                          "6th Earl of Merrow. Lady Mira Holt trained as a dancer in London. "
                          "Lady Mira Holt was the sister of Lady Ada Holt. In 1940 she married Corin Vale.",
        "Corin Vale": "Corin Vale (1913 - 2003) was a British industrialist, the son of Oskar Vale and Lena Vale."})
    assert result.report.resolved_entities.get("sq1") == "Corin Vale", result.report.resolved_entities
    assert result.report.answer.text == "Oskar Vale", result.report.answer


def test_a_regnal_number_and_the_subjects_other_names_are_no_next_hop() -> None:
    """"the son of Charles I and IV" names no "IV"; "(Otto Johan Henrik; born ...)" is the
    subject's own full name, not another person."""
    from citeloop.runtime.bridging import subject_aliases
    plan = RulePlanner().plan("Who is the paternal grandmother of Karl Vane?")
    hop = plan.sub_questions[0]
    quote = ("Otto Vane (Otto Johan Henrik; born 20 November 1912) was the eldest son of Charles I and IV, "
             "the last King of Merrow, and his wife, Zita of Parma.")
    ranked = [name for name, _, _ in rank_bridge_evidence(plan, [card("c1", quote, "d1", hop.id)], set(),
                                                           hop.search_query)]
    assert "Zita of Parma" in ranked and "Charles I" in ranked
    assert "IV" not in ranked and "Otto Johan Henrik" not in ranked
    assert subject_aliases(quote) == "Otto Johan Henrik"
    assert subject_aliases("Augustus Vane (Dresden, 13 August 1614 - 4 June 1680, Halle), was a duke.") == ""
    assert subject_aliases("The film was directed by Ivo Lind (Ivo Johan; born 1920).") == ""


def test_a_hop_that_finds_nothing_for_its_runner_up_leads_resolves_to_the_leader_again() -> None:
    """The mother's own article does not exist: the answer hop searches for her, then follows
    the runner-up names of the first hop's evidence one by one and finds nothing for them
    either. No runner-up was confirmed, so the first hop resolves to the name its evidence put
    in the mother's place, and that name (stated by a cited sentence) is the answer."""
    result = _research(
        "Name the mother of Aldo Varn, 2nd Baron Varn, who was the daughter of the nobleman Piet Orr, 3rd Earl of Kell?", {
            "Aldo Varn, 2nd Baron Varn": "Aldo Varn, 2nd Baron Varn (1572 - 1625) was the son of Bert Varn, 1st Baron "
                                         "Varn and Mira Orr, daughter of Piet Orr, 3rd Earl of Kell. In 1595 he married "
                                         "Lena Cole, daughter of Tam Cole, Earl of Kell.",
            "Piet Orr, 3rd Earl of Kell": "Piet Orr, 3rd Earl of Kell (1509 - 1572) was a nobleman and politician of Kell."})
    assert (result.report.answer.status, result.report.answer.text) == ("answered", "Mira Orr"), result.report.answer


def test_the_questions_own_name_written_without_its_accent_is_no_next_hop() -> None:
    """The question writes "Aschenbrodel", the page "Aschenbrödel": still the question's own
    name, so the composer the sentence names is the only next hop."""
    plan = RulePlanner().plan("Who was in charge of the country where the composer of Aschenbrodel was a citizen?")
    hop = plan.sub_questions[0]
    quote = "Aschenbrödel is a ballet by Jorn Vessel completed after his death."
    page = card("c1", quote, "d1", hop.id).model_copy(update={"title": "Aschenbrödel"})
    ranked = [name for name, _, _ in rank_bridge_evidence(plan, [page], set(), hop.search_query)]
    assert ranked == ["Jorn Vessel"], ranked


def test_a_page_read_while_finding_the_bridge_answers_when_its_title_is_the_thing_asked_of_it() -> None:
    """The whole-question search of the first hop read "Leader of Opposition (Dorvia)" beside the
    town's page: once the first hop resolves to Dorvia, that page's title is what the answer
    hop asks of Dorvia, so the answer hop judges it instead of searching to a dead end."""
    result = _research("Who is the current opposition leader in the country where Velmtown is located?", {
        "Velmtown": "Velmtown is a town in the east of Dorvia.",
        "Leader of Opposition (Dorvia)": "The Leader of Opposition of Dorvia heads the Shadow Cabinet. The current "
                                         "Leader of Opposition is Ada Kell, who took office in 2016."})
    assert result.report.resolved_entities == {"sq1": "Dorvia"}
    assert (result.report.answer.status, result.report.answer.text) == ("answered", "Ada Kell"), result.report.answer
