"""Coverage and the intermediate, per-layer metrics, computed from a run's events.

Coverage (seed 001 section 11.2): of the claims the plan fixed at the start (the
sub-questions' `expected_claims` in the `plan_created` event; sub-questions added during
the loop are not part of it), the share the final report states with bound evidence: the
report keeps a claim of that sub-question with verdict `entail` or `partial` and at least
one valid citation. The plan is the reference, never the report, so extra claims in the
report cannot raise it.

Intermediate metrics (seed 11.5, METRICS.md), one per layer:
- evidence: duplicate rate of the documents read (share of distinct read documents whose
  same-source cluster, from the ledger's cards, mirror lists or canonical URL, was already
  held by an earlier-read document); distinct sources touched; primary-evidence ratio (of
  the ledger's cards with a known primacy, the share that are primary); independent
  sources per claim (mean distinct clusters among a report claim's citations).
- claims: rewrite rate and drop rate (per drafted claim); conflicts marked; disagreements.
- cost: searches, reads, model calls, tokens (None while the run has no model-call events),
  tool errors; searches per sub-question.
- gaps: dead ends (the seed 4.4 rule fired) against not-found (unanswered otherwise:
  budget spent, never reached, or blocked), from each sub-question's final status.
"""

from __future__ import annotations

import re
from typing import Any

from citeloop.filters.view import RunView
from citeloop.runtime.ledger import canonical_url

STATED_VERDICTS = frozenset({"entail", "partial"})
NOT_FOUND_STATUSES = frozenset({"exhausted", "pending", "searching", "blocked"})
MODEL_CALL_TYPES = frozenset({"model_call", "llm_call", "model_response"})
"""Event types that record a model call; the runtime writes none yet."""
_CLAIM_ID = re.compile(r"^claim-(.+)-\d+$")


def _share(part: float, total: float) -> float | None:
    return round(part / total, 4) if total else None


# --------------------------------------------------------------------------- coverage


def expected_claims(view: RunView) -> list[tuple[str, str]]:
    """(sub-question id, expected claim) pairs fixed by the plan at the start."""
    if view.plan is None:
        return []
    return [(sq.id, claim) for sq in view.plan.sub_questions for claim in sq.expected_claims]


def stated_subqs(view: RunView) -> set[str]:
    """Sub-questions the final report states with bound evidence."""
    if view.report is None:
        return set()
    stated = set()
    for section in view.report.sections:
        for claim in section.claims:
            subq = view.claim_subq.get(claim.claim_id)
            if subq is None and (m := _CLAIM_ID.match(claim.claim_id)):
                subq = m.group(1)  # the runtime's id scheme, for reports without claim events
            if subq and claim.verdict in STATED_VERDICTS and any(view.valid(c) for c in claim.citations):
                stated.add(subq)
    return stated


def coverage(view: RunView) -> float | None:
    expected = expected_claims(view)
    if not expected or view.report is None:
        return None
    stated = stated_subqs(view)
    return _share(sum(sid in stated for sid, _ in expected), len(expected))


# --------------------------------------------------------------------------- evidence layer


def doc_clusters(view: RunView) -> dict[str, str]:
    """Same-source cluster of each document read (ok), in read order."""
    from_cards: dict[str, str] = {}
    for card in view.cards.values():
        from_cards.setdefault(card.doc_id, card.cluster_id)
        for mirror in card.mirrors:
            from_cards.setdefault(mirror, card.cluster_id)
    clusters: dict[str, str] = {}
    for read in view.of("document_read"):
        if read.status != "ok" or read.doc_id in clusters:
            continue
        clusters[read.doc_id] = from_cards.get(read.doc_id) or (
            canonical_url(read.url) if read.url else f"doc:{read.doc_id}")
    return clusters


def duplicate_rate(view: RunView) -> float | None:
    seen: set[str] = set()
    duplicates = 0
    clusters = doc_clusters(view)
    for cluster in clusters.values():
        duplicates += cluster in seen
        seen.add(cluster)
    return _share(duplicates, len(clusters))


def distinct_sources(view: RunView) -> int:
    return len(set(doc_clusters(view).values()))


def primary_evidence_ratio(view: RunView) -> float | None:
    known = [e.card for e in view.of("card_created") if e.card.grade.primacy != "unknown"]
    return _share(sum(c.grade.primacy == "primary" for c in known), len(known))


def independent_sources_per_claim(view: RunView) -> float | None:
    if view.report is None:
        return None
    counts = [len({view.cards[c].cluster_id for c in claim.citations if c in view.cards})
              for section in view.report.sections for claim in section.claims]
    return _share(sum(counts), len(counts))


# --------------------------------------------------------------------------- claim layer


def rewrite_rate(view: RunView) -> float | None:
    return _share(len(view.of("claim_rewritten")), len(view.of("claim_drafted")))


def drop_rate(view: RunView) -> float | None:
    return _share(len(view.of("claim_dropped")), len(view.of("claim_drafted")))


def conflicts(view: RunView) -> int:
    return len(view.of("conflict_marked"))


def disagreements(view: RunView) -> int | None:
    return len(view.report.disagreements) if view.report is not None else None


# --------------------------------------------------------------------------- cost and gaps


def searches(view: RunView) -> int:
    return len(view.of("search_result"))


def reads(view: RunView) -> int:
    return len(view.of("document_read"))


def tool_errors(view: RunView) -> int:
    failed = [e for e in view.of("search_result") if e.response.status not in ("ok", "empty")]
    failed += [e for e in view.of("document_read") if e.status not in ("ok", "empty")]
    return len(failed)


def _model_calls(view: RunView) -> list[Any]:
    return [e for e in view.events if e.type in MODEL_CALL_TYPES]


def model_calls(view: RunView) -> int | None:
    calls = _model_calls(view)
    return len(calls) if calls else None


def _tokens_of(event: Any) -> int | None:
    usage = getattr(event, "usage", None)
    if isinstance(usage, dict):
        total = usage.get("total_tokens")
        if total is None and ("prompt_tokens" in usage or "completion_tokens" in usage):
            total = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        return total
    total = getattr(usage, "total_tokens", None) if usage is not None else getattr(event, "total_tokens", None)
    return total if isinstance(total, int) else None


def tokens(view: RunView) -> int | None:
    counted = [t for t in map(_tokens_of, _model_calls(view)) if t is not None]
    return sum(counted) if counted else None


def searches_per_subq(view: RunView) -> dict[str, int]:
    counts = {sid: 0 for sid in view.final_status}
    for event in view.of("search_result"):
        key = event.subq or "-"
        counts[key] = counts.get(key, 0) + 1
    return counts


def dead_ends(view: RunView) -> int:
    return sum(status == "dead_end" for status in view.final_status.values())


def not_found(view: RunView) -> int:
    return sum(status in NOT_FOUND_STATUSES for status in view.final_status.values())
