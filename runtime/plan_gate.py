"""The plan gate: the rules every plan (rule-based, naive or model-written) must meet before a
single search is spent (`validate_plan`), the `{sqN}` slot a dependent hop's query
carries (`citeloop.runtime.planner` re-exports both), and how many hops wait on a hop
(`hops_after`)."""

from __future__ import annotations

import re

from citeloop.runtime.text import content_terms
from citeloop.trajectories.models import Plan

SLOT = re.compile(r"\{(sq\d+)\}")


class PlanValidationError(ValueError):
    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__("plan failed validation: " + "; ".join(reasons))


def validate_plan(plan: Plan, max_subqs: int = 12, min_subqs: int = 2, min_axes: int = 2) -> None:
    """The plan gate: every rule a plan must meet before a single search is spent.

    `min_subqs` and `min_axes` are lowered only for the naive baseline, which has no
    decomposition by design.
    """
    reasons: list[str] = []
    subs = plan.sub_questions
    ids = [s.id for s in subs]
    if not min_subqs <= len(subs) <= max_subqs:
        reasons.append(f"{len(subs)} sub-questions; a plan needs between {min_subqs} and {max_subqs}")
    if len(set(ids)) != len(ids):
        reasons.append(f"duplicate sub-question ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    axis_ids = {a.id for a in plan.axes}
    if not min_axes <= len(plan.axes) <= 5:
        reasons.append(f"{len(plan.axes)} axes; a plan needs between {min_axes} and 5")
    for axis in plan.axes:
        if not any(s.axis == axis.id for s in subs):
            reasons.append(f"axis {axis.id} ({axis.title!r}) has no sub-question")
    for s in subs:
        if s.axis not in axis_ids:
            reasons.append(f"{s.id} belongs to unknown axis {s.axis!r}")
        if len(s.stop_condition.strip()) < 4:
            reasons.append(f"{s.id} has no stop condition, so it could be searched forever")
        if not content_terms(SLOT.sub(" ", s.search_query)) and not SLOT.search(s.search_query):
            reasons.append(f"{s.id} search query {s.search_query!r} has nothing searchable")
        if not s.expected_claims:
            reasons.append(f"{s.id} has no expected claims, so coverage cannot be measured")
        for dep in s.depends_on:
            if dep not in ids:
                reasons.append(f"{s.id} depends on unknown sub-question {dep!r}")
        for slot in SLOT.findall(s.search_query):
            if slot not in s.depends_on:
                reasons.append(f"{s.id} query uses slot {{{slot}}} but does not depend on {slot}")
    if not any(not s.depends_on for s in subs):
        reasons.append("every sub-question waits on another, so nothing can start")
    if _has_cycle({s.id: s.depends_on for s in subs}):
        reasons.append("sub-question dependencies form a cycle")
    for p in plan.premises:
        if p.subq not in ids:
            reasons.append(f"premise {p.id} is verified by unknown sub-question {p.subq!r}")
    if reasons:
        raise PlanValidationError(reasons)


def _has_cycle(graph: dict[str, list[str]]) -> bool:
    state: dict[str, int] = {}

    def visit(node: str) -> bool:
        if state.get(node) == 1:
            return True
        if state.get(node) == 2:
            return False
        state[node] = 1
        if any(visit(dep) for dep in graph.get(node, []) if dep in graph):
            return True
        state[node] = 2
        return False

    return any(visit(n) for n in sorted(graph))


def hops_after(plan: Plan, sid: str) -> int:
    """The longest chain of sub-questions that depend, one on the next, on `sid` (0 when none
    does). A gated plan has no cycle, so the walk ends."""
    waiting = [s.id for s in plan.sub_questions if sid in s.depends_on]
    return max((1 + hops_after(plan, w) for w in waiting), default=0)
