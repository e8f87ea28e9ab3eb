"""The LLM claim writer: claims before sentences (seed 001 sections 7.2 and 10.1).

Per sub-question, the model sees only the evidence cards allocated to it (evidence
closure) and replies with claims, each bound to card ids from that set. Code then enforces
the hard rules the prompt only mentions (seed 21.1):

- every bound card id is one of the allocated cards;
- one sentence, one assertion (no `;`, no second sentence);
- every number in the claim appears in its bound evidence (normalised, `runtime.numbers`);
- every link or domain in the claim appears in its bound evidence;
- the claim carries no instruction cue (an injected reply is not a claim).

A claim that breaks a rule is discarded before it is drafted. When the reply is unusable
(failed call, not JSON, wrong shape) or no claim survives, the rule writer drafts that
sub-question's claims instead. Either way a `part_fallback` event says what happened and
why. Surviving claims are verified exactly like rule claims (`check_claim`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from citeloop.runtime.claims import (
    CLAIMS_PER_SUBQ,
    CheckedClaim,
    check_claim,
    draft_text,
    select_cards,
)
from citeloop.runtime.injection import detect_injection
from citeloop.runtime.ledger import Ledger
from citeloop.runtime.llm.client import ChatClient, Constraint
from citeloop.runtime.llm.json_reply import json_object
from citeloop.runtime.llm.prompts import DataItem, PromptLibrary
from citeloop.runtime.llm.record import record_reply
from citeloop.runtime.numbers import numbers_match
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.sentences import split_sentences
from citeloop.runtime.verifier import Verifier
from citeloop.trajectories.events import ClaimDrafted, EvidenceBound, PartFallback
from citeloop.trajectories.models import Claim, EvidenceCard, Plan

WRITE_PROMPT = "write_claims"
MAX_CLAIM_WORDS = 45
_LINK = re.compile(r"(?:https?://\S+|www\.\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|info|biz|xyz|ru|cn)\b)",
                   re.IGNORECASE)
def claims_schema(card_ids: list[str]) -> dict[str, Any]:
    """The reply's JSON schema; card ids are an enum of this section's cards, so a server with
    structured outputs cannot even name a card outside the evidence closure."""
    return {
        "type": "object",
        "properties": {"claims": {"type": "array", "maxItems": CLAIMS_PER_SUBQ + 2, "items": {
            "type": "object",
            "properties": {"text": {"type": "string", "maxLength": 400},
                           "cards": {"type": "array", "minItems": 1, "items": {"enum": list(card_ids)}}},
            "required": ["text", "cards"]}}},
        "required": ["claims"],
    }


def allocate(cards: list[EvidenceCard]) -> list[EvidenceCard]:
    """The section's evidence: the cards the rule writer would cite (the best card of each
    independent source, `CLAIMS_PER_SUBQ` at most), and nothing else.

    Evidence closure (seed 10.1) kept narrow on purpose: a page's lower-ranked sentences,
    where a planted instruction or claim usually sits, never reach the model, so the model
    pipeline is exposed to no more page text than the rule writer cites. The injection
    benchmark measured the wider allocation (two more cards by relevance) letting an
    obedient writer cite planted sentences the rule writer never would.
    """
    return select_cards(cards)


def claim_problem(text: str, card_ids: list[str], allocated: dict[str, EvidenceCard]) -> str | None:
    """Which hard rule the proposed claim breaks, or None."""
    if not text.strip():
        return "empty claim text"
    if not card_ids:
        return "bound to no evidence card"
    outside = [c for c in card_ids if c not in allocated]
    if outside:
        return f"cites card(s) {outside} outside this section's evidence"
    finding = detect_injection(text)
    if finding is not None:
        return f"carries an instruction ({finding.reason})"
    if len(split_sentences(text)) > 1 or ";" in text or len(text.split()) > MAX_CLAIM_WORDS:
        return "more than one sentence or assertion"
    evidence = "\n".join(allocated[c].quote for c in card_ids)
    missing = numbers_match(text, evidence)
    if missing:
        return f"number(s) {missing} appear in none of its bound cards"
    evidence_folded = evidence.casefold()
    links = [m.group() for m in _LINK.finditer(text) if m.group().casefold().rstrip(".,") not in evidence_folded]
    if links:
        return f"link(s) {links} appear in none of its bound cards"
    return None


def _proposals(data: dict[str, Any]) -> tuple[list[tuple[str, list[str]]] | None, str]:
    claims = data.get("claims")
    if not isinstance(claims, list):
        return None, "reply has no `claims` list"
    out: list[tuple[str, list[str]]] = []
    for i, item in enumerate(claims):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not isinstance(item.get("cards"), list) \
                or not all(isinstance(c, str) for c in item["cards"]):
            return None, f"claim {i + 1} is not {{\"text\": str, \"cards\": [str]}}"
        text = " ".join(item["text"].split())
        if all(text != seen for seen, _ in out):  # small models repeat themselves; one copy is the claim
            out.append((text, list(dict.fromkeys(item["cards"]))))
    return out, ""


class LLMClaimWriter:
    name = "llm"
    version = "2"
    """2: the model is shown only the cards the rule writer would cite (1 added two more)."""
    prompt_ids = (WRITE_PROMPT,)

    def __init__(self, client: ChatClient, library: PromptLibrary | None = None) -> None:
        self.client = client
        self.library = library or PromptLibrary()
        self.ref_args: dict[str, Any] = {}
        """What the run header records about the client (set by `citeloop.runtime.llm.parts.build_parts`)."""

    def write_and_verify(self, plan: Plan, ledger: Ledger, verifier: Verifier, rec: Recorder,
                         evidence_for: Callable[[str], list[EvidenceCard]]) -> list[CheckedClaim]:
        kept: list[CheckedClaim] = []
        for sq in plan.sub_questions:
            cards = allocate(evidence_for(sq.id))
            if not cards:
                continue
            for claim in self._draft(plan.question, sq.id, sq.question, cards, rec):
                drafted = rec.emit(ClaimDrafted, subq=sq.id, claim=claim)
                rec.emit(EvidenceBound, parent=drafted.seq, subq=sq.id, claim_id=claim.claim_id,
                         card_ids=claim.card_ids)
                result = check_claim(claim, ledger, verifier, rec, drafted.seq)
                if result is not None:
                    kept.append(result)
        return kept

    def _draft(self, question: str, sid: str, subquestion: str, cards: list[EvidenceCard],
               rec: Recorder) -> list[Claim]:
        prompt = self.library.get(WRITE_PROMPT).render(
            question=question, subquestion=subquestion,
            evidence=[DataItem(text=c.quote, source=c.card_id, date=c.published) for c in cards])
        constraint = Constraint.json_schema(claims_schema([c.card_id for c in cards]))
        reply = self.client.chat(prompt, constraint)
        call = record_reply(rec, prompt, reply, self.client.sampling, constraint, subq=sid)
        data, problem = json_object(reply)
        proposals, shape_problem = _proposals(data) if data is not None else (None, problem)
        if proposals is None:
            return self._fallback(sid, cards, rec, f"unusable reply: {shape_problem}", [call.seq])
        allocated = {c.card_id: c for c in cards}
        claims: list[Claim] = []
        rejected: list[str] = []
        for text, card_ids in proposals:
            problem = claim_problem(text, card_ids, allocated)
            rec.check("writer_rules", problem is not None)
            if problem is not None:
                rejected.append(f"{text[:60]!r}: {problem}")
            elif len(claims) < CLAIMS_PER_SUBQ:
                claims.append(Claim(claim_id=f"claim-{sid}-{len(claims) + 1}", subq=sid, text=text, card_ids=card_ids))
        if proposals and not claims:
            return self._fallback(sid, cards, rec, "every proposed claim broke a rule: " + "; ".join(rejected),
                                  [call.seq])
        if rejected:
            rec.emit(PartFallback, parent=call.seq, subq=sid, part="writer", fallback="claims discarded",
                     reason="; ".join(rejected), model_call_seqs=[call.seq])
        return claims

    @staticmethod
    def _fallback(sid: str, cards: list[EvidenceCard], rec: Recorder, reason: str, seqs: list[int]) -> list[Claim]:
        rec.emit(PartFallback, parent=seqs[-1] if seqs else None, subq=sid, part="writer", fallback="rule writer",
                 reason=reason, model_call_seqs=seqs)
        return [Claim(claim_id=f"claim-{sid}-{n}", subq=sid, text=draft_text(card), card_ids=[card.card_id])
                for n, card in enumerate(select_cards(cards), start=1)]
