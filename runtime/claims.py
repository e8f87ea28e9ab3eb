"""Claims before sentences: the rule-based claim writer and the verdict handling loop.

Seed 001 sections 7 and 10. Each claim is drafted from the evidence allocated to its
sub-question only (evidence closure) and bound to that evidence before any prose exists.
The verifier decides the verdict in code. `partial` is weakened once and re-checked,
then dropped; `irrelevant` and `undecidable` are dropped; `conflict` is kept and shown as a
disagreement. Drops are normal and recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from citeloop.runtime.injection import suspected
from citeloop.runtime.ledger import Ledger
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.text import content_terms
from citeloop.runtime.verifier import Verifier, weaken
from citeloop.trajectories.events import ClaimDrafted, ClaimDropped, ClaimRewritten, EvidenceBound, VerdictReached
from citeloop.trajectories.models import Claim, EvidenceCard, Plan

PARENTHETICAL = re.compile(r"\s*\([^()]*\)")
CLAIMS_PER_SUBQ = 2


@dataclass
class CheckedClaim:
    claim: Claim
    verdict: str
    checker: str
    weakened: bool
    counter_card_ids: list[str]


def draft_text(card: EvidenceCard) -> str:
    """One assertion from one quote (`draft_from_quote`)."""
    return draft_from_quote(card.quote)


def draft_from_quote(quote: str) -> str:
    """One assertion from one quote. Asides in parentheses go (alternate names, spellings),
    but not one that holds a number: "Puneet Sira (born 3 December 1967)" keeps the date the
    question may ask for."""
    text = " ".join(PARENTHETICAL.sub(lambda m: m.group(0) if re.search(r"\d", m.group(0)) else "",
                                      quote).split())
    return text if len(content_terms(text)) >= 3 else quote


_QUESTION_END = re.compile(r"[?\uff1f]\s*$")


def is_question(quote: str) -> bool:
    """Does the quote end as a question? ('He sang "Where Do I Begin?"' ends with a title, not a question.)"""
    return bool(_QUESTION_END.search(quote))


def select_cards(cards: list[EvidenceCard]) -> list[EvidenceCard]:
    """The most relevant card of each independent source, best first. A question asserts
    nothing, so it is never a claim's evidence (a rhetorical question is also a favourite
    shape for an instruction planted in a page); nor is a sentence about write-ups of the
    page or their readers, or one the learned injection filter half suspects
    (`citeloop.runtime.injection.suspected`; the engine keeps such cards out before this, the check
    here covers every other caller)."""
    chosen: list[EvidenceCard] = []
    seen_clusters: set[str] = set()
    for card in sorted(cards, key=lambda c: -c.grade.relevance):
        if is_question(card.quote) or suspected(card.quote):
            continue
        if card.cluster_id not in seen_clusters:
            seen_clusters.add(card.cluster_id)
            chosen.append(card)
    return chosen[:CLAIMS_PER_SUBQ]


def write_and_verify(
    plan: Plan,
    ledger: Ledger,
    verifier: Verifier,
    rec: Recorder,
    evidence_for: Callable[[str], list[EvidenceCard]] | None = None,
) -> list[CheckedClaim]:
    """Draft, bind and verify claims per sub-question from `evidence_for(subq)` (default: all
    its cards); the engine passes only on-topic evidence, so a hop about a named entity is
    never stated from a sibling's article."""
    evidence_for = evidence_for or ledger.cards_for
    kept: list[CheckedClaim] = []
    for sq in plan.sub_questions:
        for n, card in enumerate(select_cards(evidence_for(sq.id)), start=1):
            claim = Claim(claim_id=f"claim-{sq.id}-{n}", subq=sq.id, text=draft_text(card), card_ids=[card.card_id])
            drafted = rec.emit(ClaimDrafted, subq=sq.id, claim=claim)
            rec.emit(EvidenceBound, parent=drafted.seq, subq=sq.id, claim_id=claim.claim_id, card_ids=claim.card_ids)
            result = check_claim(claim, ledger, verifier, rec, drafted.seq, attempt=1)
            if result is not None:
                kept.append(result)
    return kept


def check_claim(claim: Claim, ledger: Ledger, verifier: Verifier, rec: Recorder, parent: int, attempt: int = 1,
                weakened: bool = False) -> CheckedClaim | None:
    """Verify a drafted claim and act on the verdict: keep, weaken once and re-check, or drop."""
    bound = [ledger.evidence_text(c) for c in claim.card_ids]
    others = [ledger.evidence_text(c) for c in ledger.cards if c not in claim.card_ids]
    record = verifier.check(claim.claim_id, claim.text, bound, others)
    event = rec.emit(VerdictReached, parent=parent, subq=claim.subq, record=record, pass_=attempt)
    verdict = record.verdict
    if verdict == "entail":
        return CheckedClaim(claim, verdict, record.checker, weakened, [])
    if verdict == "conflict":
        return CheckedClaim(claim, verdict, record.checker, weakened, list(record.counter_card_ids))
    if verdict == "partial" and attempt == 1:
        weaker = weaken(claim.text, bound)
        if weaker:
            rec.emit(ClaimRewritten, parent=event.seq, subq=claim.subq, claim_id=claim.claim_id,
                     old_text=claim.text, new_text=weaker, reason=record.reason)
            return check_claim(claim.model_copy(update={"text": weaker}), ledger, verifier, rec, event.seq, 2, True)
    reason = {
        "partial": "still only partly supported after one rewrite" if attempt == 2 else "partly supported and no weaker form fits the evidence",
        "irrelevant": "the bound evidence does not bear on the claim",
        "undecidable": "the deterministic checks cannot decide and no model judge is configured"
        if getattr(verifier, "prestage", None) is None else
        "neither the deterministic checks nor the model judge's verbatim quotes decide it",
    }.get(verdict, record.reason)
    rec.emit(ClaimDropped, parent=event.seq, subq=claim.subq, claim_id=claim.claim_id, verdict=verdict, reason=reason)
    return None
