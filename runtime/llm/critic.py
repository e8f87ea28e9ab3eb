"""The critic, in its own context (seed 001 sections 15.2-15.3, 21.3).

It sees the kept claims and the evidence cards they are bound to, never the report's
prose, and is asked one locating question: which claim has the weakest evidence? Its
answer vetoes that claim only when code can confirm the complaint (seed 002: judgements
are decided in code):

- `unsupported`: vetoed when the claim's own verdict is short of `entail` (a claim its
  cards state in full is not overturned by an opinion);
- `contradicted`: vetoed when the quoted sentence appears verbatim in the cards, is about
  the claim (term overlap at least `partial_support`) and differs from it in polarity or in
  a number.

A veto drops the claim (`drop`, reason `critic veto: ...`). An unusable reply, or one that
names no claim shown to it, vetoes nothing and is recorded as a `part_fallback`.
"""

from __future__ import annotations

from typing import Any

from citeloop.runtime.claims import CheckedClaim
from citeloop.runtime.injection import strip_invisible
from citeloop.runtime.ledger import Ledger
from citeloop.runtime.llm.client import ChatClient, Constraint
from citeloop.runtime.llm.json_reply import json_object
from citeloop.runtime.llm.prompts import DataItem, PromptLibrary
from citeloop.runtime.llm.record import record_reply
from citeloop.runtime.numbers import numbers_match
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.text import content_terms, term_overlap
from citeloop.runtime.verifier import VerifierConfig, is_negated
from citeloop.trajectories.events import ClaimDropped, PartFallback

CRITIC_PROMPT = "critic_weakest"
PROBLEMS = ("unsupported", "contradicted", "none", "undecidable")


def reply_schema(claim_ids: list[str]) -> dict:
    """The reply's JSON schema: the claim id is one of the claims shown, the quote one sentence long."""
    return {
        "type": "object",
        "properties": {"claim_id": {"enum": list(claim_ids)}, "problem": {"enum": list(PROBLEMS)},
                       "quote": {"type": "string", "maxLength": 400}},
        "required": ["claim_id", "problem"],
    }


def _squash(text: str) -> str:
    return " ".join(strip_invisible(text).split())


class LLMCritic:
    name = "llm"
    version = "1"
    prompt_ids = (CRITIC_PROMPT,)

    def __init__(self, client: ChatClient, config: VerifierConfig | None = None,
                 library: PromptLibrary | None = None) -> None:
        self.client = client
        self.config = config or VerifierConfig()
        self.library = library or PromptLibrary()
        self.ref_args: dict[str, Any] = {}
        """What the run header records about the client (set by `citeloop.runtime.llm.parts.build_parts`)."""

    def review(self, kept: list[CheckedClaim], ledger: Ledger, rec: Recorder) -> list[CheckedClaim]:
        """The claims that survive the critic: `kept` minus at most one confirmed veto."""
        shown = [c for c in kept if c.verdict in ("entail", "partial")]
        if not shown:
            return kept
        card_ids = list(dict.fromkeys(cid for c in shown for cid in c.claim.card_ids))
        cards = [ledger.cards[cid] for cid in card_ids]
        prompt = self.library.get(CRITIC_PROMPT).render(
            claims="\n".join(f"{c.claim.claim_id}: {c.claim.text} [{', '.join(c.claim.card_ids)}]" for c in shown),
            evidence=[DataItem(text=card.quote, source=card.card_id, date=card.published) for card in cards])
        constraint = Constraint.json_schema(reply_schema([c.claim.claim_id for c in shown]))
        reply = self.client.chat(prompt, constraint)
        call = record_reply(rec, prompt, reply, self.client.sampling, constraint)
        data, problem = json_object(reply)
        by_id = {c.claim.claim_id: c for c in shown}
        if data is None:
            return self._no_veto(kept, rec, call.seq, f"unusable reply: {problem}")
        named, complaint, quote = data.get("claim_id"), data.get("problem"), data.get("quote") or ""
        if complaint not in PROBLEMS or not isinstance(quote, str):
            return self._no_veto(kept, rec, call.seq, f"reply problem {complaint!r} is not one of {list(PROBLEMS)}")
        if complaint in ("none", "undecidable"):
            rec.check("critic", False)
            return kept
        if named not in by_id:
            return self._no_veto(kept, rec, call.seq, f"reply names {str(named)[:60]!r}, which is no claim it was shown")
        target = by_id[named]
        why = self._confirmed(target, complaint, quote, [card.quote for card in cards])
        rec.check("critic", why is not None)
        if why is None:
            return kept
        rec.emit(ClaimDropped, parent=call.seq, subq=target.claim.subq, claim_id=target.claim.claim_id,
                 verdict=target.verdict, reason=f"critic veto: {why}")  # type: ignore[arg-type]
        return [c for c in kept if c.claim.claim_id != target.claim.claim_id]

    def _confirmed(self, target: CheckedClaim, complaint: str, quote: str, quotes: list[str]) -> str | None:
        """Why code upholds the complaint, or None when it does not."""
        if complaint == "unsupported":
            if target.verdict == "entail":
                return None
            return f"named the weakest-supported claim, and its verdict is only {target.verdict}"
        line = _squash(quote)
        if len(line) < 20 or not any(line in _squash(q) for q in quotes):
            return None
        claim = target.claim.text
        if term_overlap(content_terms(claim), content_terms(line)) < self.config.partial_support:
            return None
        if is_negated(claim) != is_negated(line):
            return f"the evidence sentence {line[:100]!r} states the opposite"
        missing = numbers_match(claim, line)
        if missing:
            return f"the evidence sentence {line[:100]!r} gives other numbers than {missing}"
        return None

    @staticmethod
    def _no_veto(kept: list[CheckedClaim], rec: Recorder, seq: int, reason: str) -> list[CheckedClaim]:
        rec.check("critic", False)
        rec.emit(PartFallback, parent=seq, part="critic", fallback="no veto", reason=reason, model_call_seqs=[seq])
        return kept
