"""Comparison plans: whether a question compares the things it names (`is_comparison`) and its
plan, one sub-question per compared option (`comparison_plan`): "Are A and B both American
directors?", "Which film came out first, A or B?", "A and B were founded in the 1950s. Which was
the first to serve pizza?", "What do A and B have in common?". Options are taken whole, with the
qualifier a question gives them in brackets ("Amy (2015 Film)"). Part of the rule planner
(`citeloop.runtime.planner`).
"""

from __future__ import annotations

import re

from citeloop.runtime.clauses import last_sentence_opener, query_words, question_names
from citeloop.runtime.config import PlannerSettings
from citeloop.runtime.countries import is_country_word
from citeloop.runtime.question_asks import asks_in_common
from citeloop.runtime.relation_plans import ASSUMPTIONS
from citeloop.runtime.relations import both_and_options, either_or_options
from citeloop.runtime.text import name_in_context, regex, tokenize
from citeloop.trajectories.models import Axis, Plan, SubQuestion

COMPARISON_CUES = re.compile(
    r"\b(both|same|either|older|younger|earlier|later|first|more|less|fewer|larger|smaller|"
    r"longer|shorter|higher|lower|bigger|taller|closer|farther)\b",
    re.IGNORECASE,
)
_OPENERS = frozenset({"are", "were", "is", "was", "do", "did", "does", "which", "who"})


def is_comparison(body: str, named: list[str]) -> bool:
    """Does the question (less its "?") compare the names it gives (`named`)?"""
    if len(named) < 2:
        return False
    joined = re.search(r"\b(and|or)\b", body, re.IGNORECASE) is not None
    if joined and len(named) == 2 and asks_in_common(body):
        return True  # "What do A and B have in common?"
    # "A and B were founded in the 1950s. Which was the first to serve pizza?" asks in its last sentence
    opens = body.split()[0].lower() in _OPENERS or last_sentence_opener(body) in _OPENERS
    # "Which singer is American, Mark King or Nick Hexum?" compares without a cue word.
    either_or = regex(r"\b" + re.escape(named[-2]) + r"\W+or\W+" + re.escape(named[-1])).search(body) is not None
    return joined and opens and (COMPARISON_CUES.search(body) is not None or either_or)


def comparison_plan(question: str, body: str, named: list[str], entities: list[str],
                    settings: PlannerSettings) -> Plan:
    """One sub-question per compared option, each searching the option with what is compared."""
    # Named options ("..., Love & War (Barlowgirl Album) or X?") are compared whole.
    # "Are A and B both American directors?": "American" is what is asked of them, not an option.
    compared = either_or_options(question) or both_and_options(question) or [
        n for n in with_qualifiers(body, named) if not is_country_word(n)][:4]
    entity_terms = {t for e in compared for t in tokenize(e)}
    attribute = " ".join(t for t in query_words(body).split() if t not in entity_terms)
    axes = [Axis(id=f"a{i + 1}", title=f"{name}") for i, name in enumerate(compared)]
    subs = [
        SubQuestion(
            need=settings.sources_needed,
            id=f"sq{i + 1}",
            axis=f"a{i + 1}",
            question=f"What does the corpus say about {name} regarding: {attribute or body}?",
            search_query=f"{name} {attribute}".strip(),
            stop_condition=f"one independent source about {name} states the compared attribute",
            expected_claims=[f"{name}: {attribute or 'the compared attribute'}"],
        )
        for i, name in enumerate(compared)
    ]
    return Plan(
        question=question,
        question_type="comparison",
        scope_in=[*compared, f"the attribute compared: {attribute or body}"],
        scope_out=["entities not named in the question", "opinions and rankings", "events after the corpus cut-off"],
        axes=axes,
        sub_questions=subs,
        premises=[],
        assumptions=ASSUMPTIONS,
        entities=list(dict.fromkeys([*compared, *entities])),
    )


_NAME_BEFORE_BRACKET = re.compile(r"(?<!\S)([A-Z0-9][\w'.-]*)\s*\(\Z")
_BRACKET_ENDS = re.compile(r"\)")
_QUALIFIER = re.compile(r"\s*\(([^()]+)\)")
"""A name's qualifier in brackets (" (2015 Film)")."""


def with_qualifiers(text: str, names: list[str]) -> list[str]:
    """Names with the qualifier the text gives them in brackets, kept whole: "Amy (2015 Film)"
    is one option, not "Amy", "2015" and "Film"."""
    out: list[str] = []
    inside: set[str] = set()
    for name in names:
        if name in inside:
            continue
        found = name_in_context(text, name, _NAME_BEFORE_BRACKET, _BRACKET_ENDS)
        if found is not None and found[0].group(1) not in names:
            name = found[0].group(1)  # "M3 (Band)": the splitter found the qualifier, not the name before it
        found = name_in_context(text, name, after=_QUALIFIER)
        if found is not None:
            qualifier = found[1].group(1)
            inside |= set(question_names(qualifier)) | {t for t in qualifier.split()}
            name += found[1].group(0)
        out.append(name)
    return [n for n in out if n not in inside]
