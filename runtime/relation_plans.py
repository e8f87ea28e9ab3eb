"""Plans for questions read as relation paths (`citeloop.runtime.relations.relation_path`):
one chain of hops per base entity, "the director of X" -> X's article, then the director's,
then what the question asks of the director. Also the plans' shared assumptions and the
sub-question a person would ask for an attribute (`runtime/data/attribute_questions.yaml`).
The rule planner (`citeloop.runtime.planner`) calls `relation_chain_plan` when a path is found.
"""

from __future__ import annotations

from functools import cache

from citeloop.runtime.config import PlannerSettings
from citeloop.runtime.datafiles import read_data_yaml
from citeloop.runtime.relations import PLACE_KINDS, RelationPath
from citeloop.trajectories.models import Axis, Plan, Premise, SubQuestion

ASSUMPTIONS = [
    "Each named entity refers to its most prominent referent in the corpus.",
    "Dates and time phrases in the question are taken as stated; no 'now' is assumed.",
    "Only the configured corpus is searched: absence there is not evidence of absence.",
]


@cache
def _attribute_questions() -> dict[str, str]:
    return dict(read_data_yaml("attribute_questions.yaml"))


def attribute_question(attribute: str, subject: str) -> str:
    """The sub-question that asks for an attribute of `subject`, as a person would ask it
    (`runtime/data/attribute_questions.yaml`): "born" -> "When and where was X born?"."""
    template = _attribute_questions().get(attribute)
    return template.format(x=subject) if template else f"What does the corpus say about {subject}: {attribute}?"


def relation_chain_plan(question: str, path: RelationPath, entities: list[str],
                        settings: PlannerSettings) -> Plan:
    """One chain of hops per base entity: its article, then one article per relation step,
    then (when the question asks something of the last entity) that entity's attribute."""
    subs: list[SubQuestion] = []
    axes: list[Axis] = []
    for b, base in enumerate(path.bases):
        aid = f"a{b + 1}"
        axes.append(Axis(id=aid, title=base if len(path.bases) > 1 else f"{base} and its {path.relation_text}"))
        previous: str | None = None
        steps = [(rel, False) for rel in path.relations] + ([(path.attribute, True)] if path.attribute else [])
        if len(steps) == 1:
            # "Who is X's mother?": the answer's own article is the second hop.
            steps.append(("article", True))
        for rel, is_attribute in steps:
            sid = f"sq{len(subs) + 1}"
            if previous is None:
                query, subject, depends = f"{base} {rel}", base, []
            else:
                words = "" if rel == "article" else f" {rel}"
                query, subject, depends = f"{{{previous}}}{words}", f"{{{previous}}}", [previous]
            asked = attribute_question(rel, subject) if is_attribute else f"Who or what is the {rel} of {subject}?"
            subs.append(SubQuestion(
                need=settings.sources_needed,
                id=sid,
                axis=aid,
                question=asked,
                search_query=query,
                stop_condition=f"one independent source about {subject} that states its {rel}",
                depends_on=depends,
                expected_claims=[f"States the {rel} of {subject}"],
                # a place step ("the country where X was a citizen") looks for a name of its kind
                # (a birthplace is a town: "born in Fredericton, New Brunswick")
                finds="" if is_attribute else rel if rel in PLACE_KINDS else "city" if rel == "birthplace" else "",
            ))
            previous = sid
    if len(axes) == 1:
        # Two axes at least: the chain itself, and the answer it leads to.
        axes.append(Axis(id="a2", title="Answer"))
        subs[-1] = subs[-1].model_copy(update={"axis": "a2"})
        if len(subs) == 1:
            axes.pop()
    return Plan(
        question=question,
        question_type="comparison" if len(path.bases) > 1 else "bridge",
        scope_in=[*path.bases, f"their {path.relation_text}", path.attribute or "the entity the relation leads to"],
        scope_out=["other people or works with similar names", "opinions", "events after the corpus cut-off"],
        axes=axes,
        sub_questions=subs,
        premises=[Premise(id=f"p{i + 1}", text=f"{base} has a {path.relation_text} recorded in the corpus",
                          subq=subs[0].id if i == 0 else next(s.id for s in subs if s.axis == f"a{i + 1}"))
                  for i, base in enumerate(path.bases)],
        assumptions=ASSUMPTIONS,
        entities=list(dict.fromkeys([*path.bases, *entities])),
    )
