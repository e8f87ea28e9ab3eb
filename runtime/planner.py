"""Question decomposition: the `Planner` protocol, the rule-based planner and the plan gate.

The rule planner (seed 001 sections 3 and 25.4) turns a question into scope, 2-5 axes and
sub-questions, each with a search query, a stop condition, dependencies and the claims the
report is expected to state. A bridge question becomes a chain of hops: the innermost
relative clause is searched first and later hops wait for its answer entity (the `{sqN}`
slot in their query). A comparison becomes one sub-question per compared entity
(`citeloop.runtime.comparison_plans`).
`validate_plan` (`citeloop.runtime.plan_gate`, re-exported here) is the gate that runs before
any search (seed 3.6); a plan that fails it is an error with reasons, never a silent fallback.
"""

from __future__ import annotations

import re
from typing import Protocol

from citeloop.runtime.clauses import (
    ASKED,
    RELATIVE,
    after_bridge,
    asked_noun,
    kind_nouns,
    options_last,
    query_words,
    question_names,
    split_clause_end,
    with_relative_pronoun,
)
from citeloop.runtime.comparison_plans import comparison_plan, is_comparison
from citeloop.runtime.config import PlannerSettings
from citeloop.runtime.plan_gate import SLOT, PlanValidationError, validate_plan  # noqa: F401 - part of this API
from citeloop.runtime.relation_plans import (  # noqa: F401 - ASSUMPTIONS, attribute_question: part of this API
    ASSUMPTIONS,
    attribute_question,
    relation_chain_plan,
)
from citeloop.runtime.relations import relation_path
from citeloop.runtime.text import (
    STOPWORDS,
    content_terms,
    entity_spans,
    regex,
    tokenize,
)
from citeloop.trajectories.models import Axis, Plan, Premise, SubQuestion


class QuestionError(ValueError):
    """The question cannot be researched as given (empty, no searchable words)."""


class Planner(Protocol):
    name: str
    version: str

    def plan(self, question: str) -> Plan: ...


def check_question(question: str) -> str:
    cleaned = " ".join(question.split())
    if not cleaned:
        raise QuestionError("the question is empty; ask something, e.g. 'Who directed Maximum Overdrive?'")
    if len(cleaned) > 1000:
        raise QuestionError(f"the question is {len(cleaned)} characters long; keep it under 1000")
    if not content_terms(cleaned):
        raise QuestionError(f"the question {cleaned!r} has no searchable words (only stopwords or punctuation)")
    return cleaned


_JOINT = re.compile(r"\b(?:both|respective)\b", re.IGNORECASE)


def _ends_with_name(text: str) -> bool:
    """Does the text end with a capitalised word, other than its first ("premier of South
    Australia", not "When")?"""
    words = text.split()
    return len(words) > 1 and words[-1][:1].isupper()


def _named_antecedent(head: str, clauses: list[str]) -> str | None:
    """The name a question's one clause describes when the question word stands in that
    clause and the head ends with the name ("... was Chiang Kai-shek, [who died on which
    date]"): a name of two words at least, with no article before it ("a University which
    has a campus in which city" describes some university, to be found first)."""
    # the question word stands after the clause's pronoun ("between A and B, which writer ..."
    # opens with the question word itself: there is no clause)
    if len(clauses) != 1 or not ASKED.search(clauses[0].split(" ", 1)[-1]) or ASKED.search(head):
        return None
    names = question_names(head)
    end = head.rstrip(" ,")
    if not names or not end.endswith(names[-1]) or len(names[-1].split()) < 2:
        return None
    before = end[: -len(names[-1])].split()[-1:]
    return None if before and before[0].lower() in ("a", "an", "the") else names[-1]


def _joint_subjects(body: str, entities: list[str]) -> bool:
    """Does the question ask one thing of two named subjects together ("Both Never Cry Wolf and
    Big Hero 6 films were released by what label?", "What role did A and B perform in their
    respective bands?")? Then their own articles state it: no hop leads on to another entity."""
    return len(entities) >= 2 and _JOINT.search(body) is not None


_POSSESSED = regex(rf"(?P<name>(?:[A-Z][\w.'-]*\s+)*?[A-Z][\w.-]*)'s\s+(?P<phrase>(?:birth\s+|home\s+)?"
                   rf"(?P<kind>{kind_nouns()})(?:\s+of\s+(?:birth|death|origin))?)\b")
"""A name's possessive of a kind of place or organisation: "Damerjog's country", "Gisvi's city
of birth", "Peter Bonetti's team"."""


class RulePlanner:
    name = "rule"
    version = "1"

    def __init__(self, settings: PlannerSettings | None = None) -> None:
        self.settings = settings or PlannerSettings()

    def plan(self, question: str) -> Plan:
        question = options_last(check_question(question))  # "Between A and B, which ...?"
        body = question.rstrip("?").strip()
        entities = [e for e in entity_spans(body) if e.lower() not in STOPWORDS]
        named = question_names(body)
        path = relation_path(question)
        if path is not None:
            plan = relation_chain_plan(question, path, entities, self.settings)
        elif is_comparison(body, named):
            plan = comparison_plan(question, body, named, entities, self.settings)
        else:
            plan = self._bridge(question, with_relative_pronoun(body), entities)
        single = len(plan.sub_questions) == 1
        validate_plan(plan, min_subqs=1 if single else 2, min_axes=1 if single else 2)
        return plan

    def _bridge(self, question: str, body: str, entities: list[str]) -> Plan:
        parts = [p for p in RELATIVE.split(body)]
        # RELATIVE.split keeps the pronouns at odd positions: head, pron, clause, pron, clause...
        head = parts[0].strip()
        clauses: list[str] = []
        for i in range(1, len(parts) - 1, 2):
            clause = f"{parts[i]} {parts[i + 1]}".strip()
            # "... when he died" modifies the clause before it; it is not a hop of its own
            # ("that Signmark is from" names someone: it is one).
            # "... premier of South Australia when X was Minister": a "when" after a name dates
            # the clause before it; a name is not defined by a time.
            dates_clause = parts[i].lower() == "when" and _ends_with_name(parts[i - 1])
            if dates_clause or len(content_terms(parts[i + 1])) < 2 and not question_names(parts[i + 1]):
                if clauses:
                    clauses[-1] = f"{clauses[-1]} {clause}"
                else:
                    head = f"{head} {clause}"
                continue
            clauses.append(clause)
        clauses = clauses[: self.settings.max_hops - 1]
        named = _named_antecedent(head, clauses)
        if named is not None:
            return self._named_subject(question, named, clauses[0], entities)
        if clauses:
            clauses[-1], outer = split_clause_end(clauses[-1], head)
            return self._clause_chain(question, head, clauses, entities, outer)
        entity_terms = {t for e in entities for t in content_terms(e)}
        # The noun the question word asks for ("which actress") names the answer, not a relation.
        asked = set(content_terms(asked_noun(body)))
        relation = [t for t in content_terms(body) if t not in entity_terms and t not in asked]
        if entities and (len(relation) <= self.settings.single_hop_terms or _joint_subjects(body, entities)):
            return self._anchor_then_answer(question, body, entities)
        return self._possessive_chain(question, body, entities) or self._anchor_then_bridge(question, body, entities)

    def _named_subject(self, question: str, name: str, clause: str, entities: list[str]) -> Plan:
        """A question whose clause asks of a name it gives ("..., the late President was Chiang
        Kai-shek, who died on which date?"): one sub-question about that name, as asked there."""
        sub = SubQuestion(
            need=self.settings.answer_sources_needed,
            id="sq1",
            axis="a1",
            question=question,
            search_query=f"{name} {query_words(clause.split(' ', 1)[-1])}".strip(),
            stop_condition=f"one independent source about {name} whose quote states the answer",
            expected_claims=["States the answer to the question"],
            finds=asked_noun(clause),
        )
        return self._factoid(question, list(dict.fromkeys([name, *entities])), name,
                             [Axis(id="a1", title="Answer")], [sub])

    def _possessive_chain(self, question: str, body: str, entities: list[str]) -> Plan | None:
        """A question that asks something of what a name's possessive leads to ("Who was the
        first president of Damerjog's country?", "the most popular hotel in Gisvi's city of
        birth"): a chain of two hops, the possessed place or organisation first ("Damerjog
        country", finding a country), then what is asked of it ("{sq1} first president").
        None when no possessive of such a kind stands there, or nothing is asked of it."""
        found = _POSSESSED.search(body)
        if found is None:
            return None
        name, kind = found.group("name"), found.group("kind")
        rest = query_words(f"{body[:found.start()]} {body[found.end():]}")
        if not rest:
            return None  # "What is Damerjog's country?" asks for the country itself
        return self._clause_chain_of(question, entities, [
            (f"that is {name}'s {found.group('phrase')}", kind, f"{name} {query_words(found.group('phrase'))}"),
            (question, "", rest),
        ])

    def _clause_chain(self, question: str, head: str, clauses: list[str], entities: list[str],
                      outer: str = "") -> Plan:
        """The hop that holds the question word is answered last. Usually that is the head:
        "Who directed the film [that was shot in Leland]?" finds the film first (innermost
        clause first), then asks about it. When the question word stands in the last clause
        ("Drew Fuller starred in a series [that aired on what station]?") the head names the
        entity to start from and the chain runs forwards: the series first, then its station.
        (Only when the head names someone and the clause no one: in "the state where Henry
        Worrall died has how many districts" the question word follows the clause's end.)
        Each hop is (its text, the noun it finds, its query words). `outer` is what the
        question asks of the head after its last clause ends ("stop selling booze"): words of
        the head's hop."""
        texts = [head, *clauses]
        hops: list[tuple[str, str, str]] = []
        last = clauses[-1].split(" ", 1)[-1]
        asked = ASKED.search(last)
        if not ASKED.search(head) and asked and question_names(head) and not question_names(last[: asked.start()]):
            for depth, text in enumerate(texts):
                noun = query_words(text if depth == 0 else texts[depth - 1]).split()[-1:]
                hops.append((text, " ".join(noun), query_words(text)))
        else:
            for depth in range(len(texts) - 1, -1, -1):
                text = texts[depth]
                noun = " ".join(query_words(texts[depth - 1]).split()[-1:]) if depth > 0 else ""
                # A clause drops its pronoun; the innermost one is searched with the noun it describes.
                words = query_words(text.split(" ", 1)[1]) if depth > 0 and " " in text else query_words(text)
                if depth == 0 and outer:
                    text, words = f"{text} ... {outer}", f"{words} {query_words(outer)}"
                hops.append((text, noun, f"{noun} {words}".strip() if depth == len(texts) - 1 else words))
        return self._clause_chain_of(question, entities, hops)

    def _clause_chain_of(self, question: str, entities: list[str], hops: list[tuple[str, str, str]]) -> Plan:
        """The bridge plan of `hops`, each (its text, the noun it finds, its query words), the
        last one the answer's; each later hop's query starts with the slot of the one before."""
        subs: list[SubQuestion] = []
        axes: list[Axis] = []
        for i, (text, noun, words) in enumerate(hops):
            sid, aid = f"sq{i + 1}", f"a{i + 1}"
            is_answer = i == len(hops) - 1
            if i == 0:
                query, depends = words, []
            else:
                query, depends = f"{{sq{i}}} {words}".strip(), [f"sq{i}"]
            target = "the answer to the question" if is_answer else f"the {noun or 'entity'} {text}"
            finds = asked_noun(text) if is_answer else noun
            axes.append(Axis(id=aid, title="Answer" if is_answer else f"Hop {i + 1}: the {noun or 'entity'} {text}"))
            subs.append(
                SubQuestion(
                    need=self.settings.answer_sources_needed if is_answer else self.settings.sources_needed,
                    id=sid,
                    axis=aid,
                    question=f"Which {noun or 'entity'} {text}?" if not is_answer else question,
                    search_query=query,
                    stop_condition=f"one independent source whose quote states {target}",
                    depends_on=depends,
                    weight=1.0,
                    expected_claims=[f"States {target}" + (f" (given {{sq{i}}})" if depends else "")],
                    finds=finds,
                )
            )
        premises = [
            Premise(id=f"p{i + 1}", text=f"There is a {noun or 'subject'} that {text.split(' ', 1)[-1]}", subq=f"sq{i + 1}")
            for i, (text, noun, _) in enumerate(hops[:-1])
        ]
        return Plan(
            question=question,
            question_type="bridge",
            scope_in=[*entities, "the chain of facts linking them to the answer"],
            scope_out=["other entities with similar names", "opinions and evaluations", "events after the corpus cut-off"],
            axes=axes[:5],
            sub_questions=subs,
            premises=premises,
            assumptions=ASSUMPTIONS,
            entities=entities,
        )

    @staticmethod
    def _anchor(body: str, entities: list[str]) -> tuple[str, str, str]:
        """(what the question names, the words asked of it, its query words)."""
        words = query_words(body)
        entity_terms = {t for e in entities for t in tokenize(e)}
        relation = " ".join(t for t in words.split() if t not in entity_terms) or words
        return (" ".join(entities) if entities else words), relation, words

    @staticmethod
    def _factoid(question: str, entities: list[str], anchor: str, axes: list[Axis],
                 subs: list[SubQuestion]) -> Plan:
        return Plan(
            question=question,
            question_type="factoid",
            scope_in=[*(entities or [anchor]), "the fact the question asks for"],
            scope_out=["other entities with similar names", "opinions and evaluations", "events after the corpus cut-off"],
            axes=axes,
            sub_questions=subs,
            premises=[],
            assumptions=ASSUMPTIONS,
            entities=entities,
        )

    def _anchor_then_answer(self, question: str, body: str, entities: list[str]) -> Plan:
        """A single-hop question ("Who directed Angel Eyes?"): one sub-question, whose
        evidence about the named entity states the answer."""
        anchor, relation, words = self._anchor(body, entities)
        sub = SubQuestion(
            need=self.settings.answer_sources_needed,
            id="sq1",
            axis="a1",
            question=question,
            search_query=f"{anchor} {relation}".strip() if entities else words,
            stop_condition=f"one independent source about {anchor} whose quote states the answer",
            expected_claims=["States the answer to the question"],
            finds=asked_noun(question),
        )
        return self._factoid(question, entities, anchor, [Axis(id="a1", title="Answer")], [sub])

    def _anchor_then_bridge(self, question: str, body: str, entities: list[str]) -> Plan:
        """A question that asks more of its entity than one relation ("the pop band founded by
        one of the stars of X"): read about the entity, then about the name its evidence leads to."""
        anchor, relation, words = self._anchor(body, entities)
        # The answer hop asks what follows the bridge ("an Australian soap opera [created by
        # who]"), not the words that describe the entity it starts from.
        asked_of_bridge = query_words(after_bridge(body))
        # "the first president of Damerjog's country": the background finds a country
        possessed = regex(rf"[A-Z][\w.-]*'s\s+({kind_nouns()})\b").search(body)
        subs = [
            SubQuestion(
                need=self.settings.sources_needed,
                id="sq1",
                axis="a1",
                question=f"What does the corpus say about {anchor} that bears on: {body}?",
                search_query=f"{anchor} {relation}".strip() if entities else words,
                stop_condition=f"one independent source about {anchor} that mentions {relation}",
                expected_claims=[f"Describes {anchor} as it bears on the question"],
                finds=possessed.group(1) if possessed else "",
            ),
            SubQuestion(
                need=self.settings.answer_sources_needed,
                id="sq2",
                axis="a2",
                question=question,
                search_query=f"{{sq1}} {asked_of_bridge or relation}".strip(),
                stop_condition="one independent source whose quote states the answer",
                depends_on=["sq1"],
                expected_claims=["States the answer to the question (given {sq1})"],
                finds=asked_noun(question),
            ),
        ]
        axes = [Axis(id="a1", title=f"Background: {anchor}"), Axis(id="a2", title="Answer")]
        return self._factoid(question, entities, anchor, axes, subs)


class NaivePlanner:
    """Seed 003's loop has no plan: one sub-question, the question itself, searched as asked."""

    name = "naive"
    version = "1"

    def __init__(self, settings: PlannerSettings | None = None) -> None:
        self.settings = settings or PlannerSettings()

    def plan(self, question: str) -> Plan:
        question = check_question(question)
        plan = Plan(
            question=question,
            question_type="factoid",
            scope_in=[question],
            scope_out=[],
            axes=[Axis(id="a1", title="Answer")],
            sub_questions=[
                SubQuestion(
                    id="sq1",
                    axis="a1",
                    question=question,
                    search_query=question,
                    stop_condition="no word of the question is left uncovered by the facts",
                    # Seed 003 stops on its own rules (no gaps, few new facts, 4 rounds) or at
                    # 50 facts; a need of 50 sources leaves those rules in charge.
                    need=50,
                    expected_claims=["States the answer to the question"],
                )
            ],
            assumptions=ASSUMPTIONS,
        )
        validate_plan(plan, min_subqs=1, min_axes=1)
        return plan


PLANNERS: dict[str, type] = {"rule": RulePlanner, "naive": NaivePlanner}


def resolve_planner(name: str, settings: PlannerSettings | None = None) -> Planner:
    if name not in PLANNERS:
        raise PlanValidationError([f"unknown planner {name!r}; valid: {', '.join(sorted(PLANNERS))}"])
    return PLANNERS[name](settings)
