"""Failure-and-recovery signals (seed 001 section 20.3), detected from a run's events.

Training only on successful runs teaches a policy nothing about what to do when research
goes wrong, so the filter keeps a share of runs in which one of these happened:

- `irrelevant_results`: a search of some sub-question came back (ok or empty) and none of
  its results became evidence: no evidence card descends from it.
- `contradictions`: the ledger marked conflicting evidence, or a claim was found
  contradicted (a `conflict` verdict or a disagreement in the report).
- `budget_nearly_spent`: at the last stop decision, searches or reads had used at least
  `budget_share` of their global budget (or the hard budget stopped the run).
"""

from __future__ import annotations

from collections import defaultdict

from citeloop.filters.view import RunView

FAILURE_KINDS = ("irrelevant_results", "contradictions", "budget_nearly_spent")


def irrelevant_searches(view: RunView) -> list[int]:
    """Seqs of searches (ok or empty) from which no evidence card descends."""
    children: dict[int, list[int]] = defaultdict(list)
    for event in view.events:
        if event.parent_seq is not None:
            children[event.parent_seq].append(event.seq)
    types = {event.seq: event.type for event in view.events}
    found = []
    for search in view.of("search_result"):
        if search.response.status not in ("ok", "empty"):
            continue  # a failed tool call is an infrastructure problem, not irrelevant results
        stack, produced = [search.seq], False
        while stack and not produced:
            seq = stack.pop()
            for child in children.get(seq, ()):
                produced = produced or types[child] == "card_created"
                stack.append(child)
        if not produced:
            found.append(search.seq)
    return found


def has_contradictions(view: RunView) -> bool:
    if view.of("conflict_marked"):
        return True
    if any(e.record.verdict == "conflict" for e in view.of("verdict_reached")):
        return True
    return bool(view.report and view.report.disagreements)


def budget_used(view: RunView) -> float | None:
    """Largest share of the global search or read budget used at the last stop decision."""
    stops = view.of("stop_decision")
    if not stops:
        return None
    s = stops[-1].state
    if s.budget_exhausted:
        return 1.0
    return round(max(s.searches_used / s.searches_max, s.reads_used / s.reads_max), 4)


def failure_modes(view: RunView, budget_share: float = 0.8) -> list[str]:
    """The failure-and-recovery kinds this run contains, in `FAILURE_KINDS` order."""
    modes = []
    if irrelevant_searches(view):
        modes.append("irrelevant_results")
    if has_contradictions(view):
        modes.append("contradictions")
    used = budget_used(view)
    if used is not None and used >= budget_share:
        modes.append("budget_nearly_spent")
    return modes
