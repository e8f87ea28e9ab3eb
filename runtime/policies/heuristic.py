"""The seed's rules as policies: three-signal stop, angle rotation, relevance-gated reading,
and the bridge rule for which entity the next hop follows."""

from __future__ import annotations

from citeloop.runtime.config import ReadSettings
from citeloop.runtime.policies.base import AngleCandidate, Choice
from citeloop.trajectories.events import (
    AngleState,
    FollowCandidate,
    FollowState,
    KeepCandidate,
    PolicyRef,
    ReadState,
    StopSignals,
)

# A first hop casts wide first (the whole question) so its hits can serve sibling sub-questions
# as leads, then searches its own words before mixing in the question's other names (which may
# belong to a later hop: "country nugegoda located British Empire"); a later hop already knows
# its entity and goes narrow first.
BROAD_FIRST = ("question", "base", "context", "entity", "relation", "gap_followup")
NARROW_FIRST = ("base", "entity", "relation", "context", "question", "gap_followup")
ANGLE_ORDER = NARROW_FIRST


class HeuristicStop:
    """Seed 4.3: stop when minimum rounds, flat marginal gain and coverage all hold; and stop as
    soon as every hop the answer is read from has its evidence, whatever else is still open
    (a background hop or an expansion adds nothing to an answer already in hand). The engine
    asks only while something can still be searched."""

    ref = PolicyRef(name="heuristic", version="2")

    def decide_stop(self, s: StopSignals) -> Choice:
        if s.answer_ready:
            return Choice("stop", f"the answer's hops have their evidence; {len(s.open_subqs)} other "
                                  "sub-question(s) would add nothing to it")
        if not s.min_rounds_met:
            return Choice("continue", f"round {s.round} < minimum {s.min_rounds}")
        if s.coverage_met and s.gain_flat:
            return Choice("stop", f"coverage {s.coverage:.2f} met and marginal gain flat {s.recent_gains[-2:]}")
        if not s.coverage_met:
            return Choice("continue", f"coverage {s.coverage:.2f} below target {s.coverage_target:.2f}")
        return Choice("continue", f"coverage met but gain still rising {s.recent_gains[-2:]}")


class HeuristicAngle:
    """Seed 4.2: change the angle, not the wording; never repeat a query. A first hop asks the
    whole question first, unless two hops or more wait on it (v3)."""

    ref = PolicyRef(name="heuristic", version="3")

    def choose_angle(self, state: AngleState, candidates: list[AngleCandidate]) -> Choice:
        tried = set(state.tried_queries)
        # The whole question leads a search well when it is about this hop and the next one;
        # when two or more hops wait on this one, most of its words are theirs.
        for angle in NARROW_FIRST if state.dependent or state.hops_after >= 2 else BROAD_FIRST:
            for i, c in enumerate(candidates):
                if c.angle == angle and c.query not in tried:
                    return Choice(i, f"first untried angle in order: {angle}")
        return Choice(0, "every angle tried; falling back to the first candidate")


class HeuristicRead:
    """Read the hits that cover the query's key terms, and the search's first hit whatever its
    snippet says (its words may be spelt otherwise: "Aschenbrödel" for "Aschenbrodel", or stand
    outside the snippet); keep the most relevant sentences."""

    ref = PolicyRef(name="heuristic", version="2")

    def __init__(self, settings: ReadSettings | None = None) -> None:
        self.settings = settings or ReadSettings()

    def choose_reads(self, state: ReadState, relevance: dict[str, float], limit: int) -> Choice:
        read = set(state.already_read)
        fresh = [h for h in state.hits if h.doc_id not in read]
        # A hit titled with the sub-question's own entity is its article: read it first.
        fresh.sort(key=lambda h: h.doc_id not in state.named)
        top = min(state.hits, key=lambda h: h.rank).doc_id if state.hits else None
        good = [h.doc_id for h in fresh if relevance.get(h.doc_id, 0.0) >= self.settings.min_hit_relevance
                or h.doc_id in state.named or h.doc_id == top]
        chosen = good[: min(limit, self.settings.reads_per_search)]
        if chosen:
            return Choice(chosen, f"{len(chosen)} unread hits with relevance >= {self.settings.min_hit_relevance} "
                                  "or ranked first")
        return Choice([], "no unread hit is relevant enough to spend a read on")

    def choose_keep(self, candidates: list[KeepCandidate], limit: int) -> Choice:
        eligible = [c for c in candidates if c.relevance >= self.settings.min_card_relevance]
        ranked = sorted(eligible, key=lambda c: -c.relevance)  # stable: earlier sentences win ties
        chosen = [c.sid for c in ranked[: min(limit, self.settings.cards_per_doc)]]
        if chosen:
            return Choice(chosen, f"top {len(chosen)} sentences with relevance >= {self.settings.min_card_relevance}")
        return Choice([], "no sentence is relevant enough to become evidence")


class HeuristicFollow:
    """Today's bridge rule: search the best-ranked names together and let the search rank the
    one whose article matches the next hop's words; the rest stay leads if the hop fails."""

    ref = PolicyRef(name="heuristic", version="1")

    def choose_follow(self, state: FollowState, candidates: list[FollowCandidate]) -> Choice:
        together = next((i for i, c in enumerate(candidates) if len(c.names) > 1), 0)
        return Choice(together, f"the {len(candidates[together].names)} best-ranked names searched together")
