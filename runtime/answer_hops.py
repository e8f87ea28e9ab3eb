"""What a question asks and where its answer is read from: the shape of the answer
(`answer_kind`: a name, a date, a number, yes/no, or one of the options it names), the hops the
answer is read from (`answer_hops`: each compared option's, or the last original hop), the words
of the relation a hop asks (`hop_relation`), and the test for sentences that could state a hop's
part of the answer (`answer_sentence_tests`), which the engine uses to choose the answer hop's
claims before `citeloop.runtime.answer` reads the answer from them."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from citeloop.runtime.answer_cues import cues
from citeloop.runtime.answer_sentences import states_kind
from citeloop.runtime.answer_slots import slot_terms
from citeloop.runtime.bridging import relation_cue_terms, relation_terms
from citeloop.runtime.clauses import NOUN_PREPOSITIONS, asked_noun, last_sentence_opener
from citeloop.runtime.countries import countries_named, nationalities_stated
from citeloop.runtime.parentage import own_parentage
from citeloop.runtime.planner import SLOT
from citeloop.runtime.question_asks import asks_in_common, has_phrase
from citeloop.runtime.relations import EITHER_OR, either_or_options
from citeloop.runtime.text import content_terms, name_in_context, tokenize
from citeloop.trajectories.models import AnswerKind, Plan

question_options = either_or_options
"""The options a question names: "..., A or B?" or "Was A or B born first?" -> [A, B]."""


def answer_kind(question: str, plan: Plan | None = None) -> AnswerKind:
    c = cues()
    words = tokenize(question)
    if EITHER_OR.search(question.strip().rstrip("?").strip() + "?") and (not words or words[0] not in c.yes_no_openers):
        return "choice"
    compares = bool(set(words) & (c.lowest_wins | c.highest_wins)) and "or" in words
    if plan is not None and plan.question_type == "comparison" and compares and len(option_hops(plan)) >= 2:
        return "choice"  # "Was A or B born first?"
    if (words and words[0] in c.yes_no_openers or last_sentence_opener(question) in c.yes_no_openers) \
            and not has_phrase(question, c.year_cues):
        # "Do Lafzon Ki Kahani, ... released in which year?" opens with a title's word, not a yes/no
        return "yes_no"
    if plan is not None and plan.question_type == "comparison" and len(option_hops(plan)) >= 2:
        return "choice"
    opener = _opening_kind(tuple(words[:4]))
    if opener is not None:
        return opener  # "How many times was the man who was premier when ... premier?": the opener asks
    if _asks_named_thing(words):
        return "entity"  # "Which city was the band formed ... when X responded ...?": "when" is no question word
    if has_phrase(question, c.date_cues):
        return "date"
    if has_phrase(question, c.number_cues) or _asks_measure(question):
        return "number"  # "how many ...", "what is the usual average snowfall in ..."
    return "entity"


def _asks_named_thing(words: list[str]) -> bool:
    """Does the question open by asking for a person, a place or an organisation ("who ...",
    "where ...", "which city ...", "what band ...")? A date cue later in it ("... when he
    died") is then part of a clause, not what is asked."""
    if not words:
        return False
    if words[0] in ("who", "whom", "where"):
        return True
    c = cues()
    kinds = c.region_nouns | c.town_nouns | c.institution_nouns | c.organisation_nouns | c.person_nouns
    return words[0] in ("which", "what") and len(words) > 1 and words[1] in kinds


def _asks_measure(question: str) -> bool:
    """Is the noun the question word asks for a measure, standing before its preposition ("the
    usual average snowfall in", "what amount of")? Not a measure word that only describes the
    noun asked ("What low budget British comedy franchise ...")."""
    noun = asked_noun(question)
    return noun in cues().measure_nouns and \
        re.search(rf"\b{noun}\s+(?:{NOUN_PREPOSITIONS})\b", question, re.IGNORECASE) is not None


@lru_cache(maxsize=1 << 10)
def _opening_kind(words: tuple[str, ...]) -> AnswerKind | None:
    """"date" or "number" when the question opens with a cue of that kind (the longest cue that
    fits: "how long ago" asks a date, "how long" a number), else None; a clause after the
    opener ("... when he was minister") does not change what it asks."""
    opening = f"{' '.join(words[:4])} "
    c = cues()
    fits = [(len(cue), kind) for kind, cues_ in (("date", c.date_cues), ("number", c.number_cues))
            for cue in cues_ if opening.startswith(f"{cue} ")]
    return max(fits)[1] if fits else None  # type: ignore[return-value]


def option_hops(plan: Plan) -> list[tuple[str, str]]:
    """(option name, sub-question id) per compared axis: the last original hop of each axis."""
    out = []
    for axis in plan.axes:
        hops = [sq.id for sq in plan.sub_questions if sq.axis == axis.id and not sq.expansion]
        if hops:
            out.append((axis.title, hops[-1]))
    return out


def answer_hops(plan: Plan) -> list[str]:
    """The hops the answer is read from: each compared option's, or the last original hop."""
    kind = answer_kind(plan.question, plan)
    options = option_hops(plan)
    if kind in ("choice", "yes_no") and len(options) >= 2:
        return [sid for _, sid in options]
    return [answer_hop(plan)]


def answer_hop(plan: Plan) -> str:
    originals = [sq for sq in plan.sub_questions if not sq.expansion]
    return originals[-1].id


def hop_relation(plan: Plan, sid: str) -> set[str]:
    """The words of the relation a hop asks for: its query less slots and named entities,
    with the words articles use for the same relation ("director" -> "directed by")."""
    sq = next(s for s in plan.sub_questions if s.id == sid)
    entity_terms = {t for e in plan.entities for t in content_terms(e)}
    terms = {t for t in content_terms(SLOT.sub(" ", sq.search_query)) if t not in entity_terms}
    return relation_cue_terms(terms) or relation_terms(plan)


def comparison_value(question: str) -> tuple[AnswerKind, bool] | None:
    """(what is compared, whether the highest wins) for "Which came out first, A or B?"
    ("date", False); None when the question names no one direction."""
    c = cues()
    # The words of an option's name compare nothing ("Before The Bat's Flight Is Done").
    words = set(tokenize(without_options(question, question_options(question))))
    if asks_lifespan(question):
        return "date", "longer" in words  # read from the dates of a life (`answer.lifespans`)
    lowest, highest = bool(words & c.lowest_wins), bool(words & c.highest_wins)
    if lowest == highest:
        return None
    return ("date" if words & c.date_comparisons else "number"), highest


_WORD_OF = re.compile(r"\b([a-z]+)\s+of\s+\Z")
"""The words before a compared option: "the birth of " (of "... the birth of Robert Young")."""


def option_question(question: str, option: str) -> str:
    """What the question asks of one compared option: "the birth of Robert Young" when it
    says so ("Which came first, the forming of X or the birth of Robert Young?": a birth
    date for one, a founding date for the other), else the whole question."""
    said = name_in_context(question, option, before=_WORD_OF)
    return f"{said[0].group(1)} of {option}" if said else question


def answer_sentence_tests(plan: Plan) -> dict[str, Callable[[str], bool]]:
    """Sub-question id -> a test for sentences that could state its part of the answer: the
    answer hop's claims are written from those first, so the sentence that holds the date or
    the name is not crowded out by a neighbour that only names the subject."""
    kind = answer_kind(plan.question, plan)
    options = option_hops(plan)
    if len(options) >= 2 and asks_in_common(plan.question):
        # "What do A and B have in common?" is answered by the nationality both are given
        return {sid: (lambda q: bool(nationalities_stated(q))) for _, sid in options}
    if kind == "yes_no" and len(options) >= 2 and asks_same_country(plan.question):
        # "Are A and B from the same country?" is compared from the countries each option's
        # sentences name: its claims come from sentences that name one, when any do.
        return {sid: (lambda q: bool(countries_named(q))) for _, sid in options}
    if kind == "choice" and len(options) >= 2:
        compared = comparison_value(plan.question)
        if compared is None:
            return {}
        value_kind = compared[0]
        return {sid: (lambda q, asked=option_question(plan.question, name), relation=hop_relation(plan, sid):
                      states_kind(value_kind, asked, relation, q))
                for name, sid in options}
    if kind not in ("entity", "date", "number"):
        return {}
    sid = answer_hop(plan)
    relation = hop_relation(plan, sid)
    sq = next(s for s in plan.sub_questions if s.id == sid)
    if kind == "entity" and set(tokenize(SLOT.sub(" ", sq.search_query))) in ({"father"}, {"mother"}):
        # A hop that asks the entity before it for its parent ("{sq1} father") is answered where
        # the sentence's own subject is the child ("Rotrou IV, Count of Perche, son of Rotrou
        # III"), not a spouse ("Rotrou married Matilda, daughter of Theobald II").
        return {sid: lambda q: states_kind(kind, plan.question, relation, q) and own_parentage(q)}
    return {sid: lambda q: states_kind(kind, plan.question, relation, q)}


def background_hops(plan: Plan, tests: dict[str, Callable[[str], bool]]) -> tuple[dict[str, str], dict[str, set[str]]]:
    """In a background plan (a factoid the plan could not tell from two hops): background hop
    -> the answer hop after it, and answer hop -> the words around the question's slot
    (`slot_terms`, else the hop's relation words, `hop_relation`); empty for other plans or
    when the answer hop has no sentence test."""
    if plan.question_type != "factoid" or len(plan.sub_questions) < 2:
        return {}, {}
    sid = answer_hop(plan)
    if sid not in tests:
        return {}, {}
    sq = next(s for s in plan.sub_questions if s.id == sid)
    return {dep: sid for dep in sq.depends_on}, {sid: slot_terms(plan.question) or hop_relation(plan, sid)}


COUNTRY_WORDS = frozenset({"country", "nationality", "nation", "citizenship"})
"""Words of "the same country / nationality" questions (`citeloop.runtime.answer._same_country`)."""


def asks_same_country(question: str) -> bool:
    """"Are A and B from the same country?", "... of the same nationality?"."""
    words = set(tokenize(question))
    return "same" in words and bool(words & COUNTRY_WORDS)


def answer_value_kind(plan: Plan) -> AnswerKind | None:
    """The kind of value `answer_sentence_tests` look for: a date or a number is told by its
    form ("(28 May 1902 - 5 June 1977)"), a name by much looser signs."""
    kind = answer_kind(plan.question, plan)
    if kind == "choice" and len(option_hops(plan)) >= 2:
        compared = comparison_value(plan.question)
        return compared[0] if compared else None
    return kind if kind in ("entity", "date", "number") else None


def asks_lifespan(question: str) -> bool:
    """"Who lived longer, A or B?": the options are compared by the years between their birth
    and their death (the options' own names ask nothing: "Lived Longer" may be a film)."""
    return has_phrase(without_options(question, question_options(question)), cues().lifespan_cues)


def without_options(question: str, names: list[str]) -> str:
    """The question less the names of its options, whose words ask nothing."""
    for name in names:
        question = question.replace(name, " ")
    return question
