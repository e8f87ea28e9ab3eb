"""The naive deep-research loop of seed 003, as policies: the baseline citeloop must beat.

Search the question, read the top results, keep whatever mentions the question's words,
follow up with the question plus its uncovered words, stop when no words are uncovered,
when a round adds fewer than three facts, or after four iterations. No ledger rules.
"""

from __future__ import annotations

from citeloop.runtime.policies.base import AngleCandidate, Choice
from citeloop.trajectories.events import FollowCandidate, FollowState, AngleState, KeepCandidate, PolicyRef, ReadState, StopSignals

MAX_ITERATIONS = 4
MIN_NEW_FACTS = 3
READS_PER_SEARCH = 3
FACTS_PER_DOC = 3


class NaiveStop:
    ref = PolicyRef(name="naive", version="1")

    def decide_stop(self, s: StopSignals) -> Choice:
        if s.round >= MAX_ITERATIONS:
            return Choice("stop", f"max iterations ({MAX_ITERATIONS}) reached")
        if not s.uncovered_terms:
            return Choice("stop", "no knowledge gaps found")
        if s.recent_new_cards and s.recent_new_cards[-1] < MIN_NEW_FACTS:
            return Choice("stop", f"diminishing returns ({s.recent_new_cards[-1]} new facts)")
        return Choice("continue", "gaps remain")


class NaiveAngle:
    ref = PolicyRef(name="naive", version="1")

    def choose_angle(self, state: AngleState, candidates: list[AngleCandidate]) -> Choice:
        wanted = "question" if not state.tried_queries else "gap_followup"
        for i, c in enumerate(candidates):
            if c.angle == wanted:
                return Choice(i, f"fixed follow-up: {wanted}")
        return Choice(0, "no question candidate; using the first")


class NaiveRead:
    ref = PolicyRef(name="naive", version="1")

    def choose_reads(self, state: ReadState, relevance: dict[str, float], limit: int) -> Choice:
        read = set(state.already_read)
        chosen = [h.doc_id for h in state.hits if h.doc_id not in read][: min(limit, READS_PER_SEARCH)]
        return Choice(chosen, f"top {len(chosen)} unread results")

    def choose_keep(self, candidates: list[KeepCandidate], limit: int) -> Choice:
        chosen = [c.sid for c in candidates if c.relevance > 0][:FACTS_PER_DOC]
        return Choice(chosen, f"first {len(chosen)} sentences mentioning the question")


class NaiveFollow:
    """Seed 003 has no hops; where citeloop's plan has them, the first option is taken."""

    ref = PolicyRef(name="naive", version="1")

    def choose_follow(self, state: FollowState, candidates: list[FollowCandidate]) -> Choice:
        return Choice(0, "the first option")
