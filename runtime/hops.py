"""Hop resolution, a stage of the research engine: when a sub-question is satisfied, a dead
end or exhausted, and what follows from that.

`HopResolution` is mixed into `ResearchEngine` and works on its run state. A satisfied hop
confirms the bridge entity its evidence names and unblocks the hops waiting on it (their
query gets the best few bridge candidates); a hop that meets the dead-end rule is closed
(after one last look at the article of the entity its dependency resolved to) and may add
one expansion sub-question about a related entity its reading surfaced.
"""

from __future__ import annotations

from citeloop.runtime.bridging import (
    rank_bridge_candidates,
    rank_bridge_evidence,
)
from citeloop.runtime.entity_titles import names_title
from citeloop.runtime.parentage import parents_named
from citeloop.runtime.place_forms import of_kind_by_form
from citeloop.runtime.planner import SLOT
from citeloop.runtime.question_asks import asked_parent
from citeloop.runtime.subq_state import SubQuestionState, specific_topic
from citeloop.runtime.text import fold_accents, tokenize
from citeloop.trajectories.events import (
    DeadEnd,
    FollowCandidate,
    FollowDecision,
    FollowState,
    SubQuestionAdded,
)
from citeloop.trajectories.models import EvidenceCard, SubQuestion

BRIDGE_LEADS = 3
"""Bridge candidates put into the next hop's query and followed as names."""
FOLLOW_OPTIONS = 6
"""Names a follow decision offers one by one (the leaders together are one more option)."""


def leading_names(ranked: list[tuple[str, float, EvidenceCard]], finds: str) -> list[str]:
    """The names the next hop searches together: the best `BRIDGE_LEADS`, or the leader alone
    when it alone is of the kind the hop looks for ("Greenfield, Indiana" for "the state
    where ..."): runner-ups of another kind would only dilute its query."""
    leaders = ranked[:BRIDGE_LEADS]
    of_kind = [of_kind_by_form(card.quote, name, finds) for name, _, card in leaders] if finds else []
    if of_kind and of_kind[0] and not any(of_kind[1:]):
        return [leaders[0][0]]
    return [name for name, _, _ in leaders]


class HopResolution:
    """Sub-question status, bridges and expansion (mixed into `ResearchEngine`)."""

    def _bridge_candidates(self, sid: str, on_topic: bool = True) -> list[str]:
        cards = self._on_topic_cards(sid) if on_topic else self._usable_cards(sid)
        sq = self.states[sid].sq
        return rank_bridge_candidates(self.plan, cards, self.seen_titles, sq.search_query, sq.finds)

    def _update_status(self, state: SubQuestionState) -> None:
        sid = state.sq.id
        if self._deficit(sid) == 0:
            self._confirm_bridge(state)
            self._set_status(state, "satisfied", f"{self._sources(sid)} independent source(s) >= need {state.sq.need}")
            self._unblock_dependents()
            return
        rule = self.config.dead_end
        # Seed 4.4: all three conditions make a dead end, as soon as they hold; a tool
        # failure means the search never really happened, so it can never count.
        # "question + missing words" rewords the question; seed 4.2 does not count it as an angle.
        angles = [a for a in state.angles if a != "gap_followup"]
        dead = len(angles) >= rule.min_angles and state.relevant_searches >= rule.min_relevant_hits \
            and not state.tool_errors
        if (dead or state.searches >= self.config.budget.per_subq_searches) and self._reuse_bridge_article(state):
            return self._update_status(state)
        if dead and state.leads and state.searches < self.config.budget.per_subq_searches:
            self._follow_next_lead(state)
            return
        if dead or state.searches >= self.config.budget.per_subq_searches:
            self._restore_leader(state)
        if dead:
            self._set_status(state, "dead_end", "tried enough distinct angles, saw related hits, found no evidence")
            self.rec.emit(DeadEnd, subq=sid, queries_tried=list(state.queries), angles_tried=list(state.angles),
                          reason=f"{len(state.angles)} angles, {state.relevant_searches} relevant search(es), no evidence")
            self._maybe_expand(state)
        elif state.searches >= self.config.budget.per_subq_searches:
            self._set_status(state, "exhausted", "sub-question budget spent without meeting the dead-end rule")
            self._maybe_expand(state)

    def _follow_next_lead(self, state: SubQuestionState) -> None:
        """The entity this hop followed led nowhere: follow the next bridge candidate instead
        (its query names that one entity; the angles start again within the hop's budget)."""
        dep = state.sq.depends_on[0]
        name = state.leads.pop(0)
        if state.leader is None:
            state.leader = self.resolved.get(dep)
        self.resolved[dep] = name
        state.query = " ".join(SLOT.sub(name, state.sq.search_query).split())
        state.entities = [name, *(e for e in state.entities if e != name)]
        state.angles.clear()
        state.relevant_searches = 0

    def _restore_leader(self, state: SubQuestionState) -> None:
        """A hop closes without evidence after following runner-up leads: none of them was
        confirmed, so its dependency resolves to the leader again (a runner-up tried last
        is no better supported than the name the evidence ranked first)."""
        if state.leader is not None:
            self.resolved[state.sq.depends_on[0]] = state.leader

    def _reuse_bridge_article(self, state: SubQuestionState) -> bool:
        """Before a hop is closed without evidence: the article of the entity its dependency
        resolved to, if an earlier hop read it ("Salt Marsh Road is a thriller directed by Mara
        Quint" was read while looking for the film), is this hop's evidence too. Only as a last
        resort, so the hop still searches first. True when it added evidence."""
        bridges = {self.resolved[d].lower() for d in state.sq.depends_on if self.resolved.get(d)}
        before = len(self.ledger.cards_for(state.sq.id))
        for doc, read_seq in list(self.read_docs.values()):
            if state.query and names_title(doc.title, bridges) and not self.ledger.cards_for_doc(state.sq.id, doc.doc_id):
                self._keep_evidence(state, state.query, doc, read_seq)
        return self._deficit(state.sq.id) == 0 and len(self.ledger.cards_for(state.sq.id)) > before

    def _maybe_expand(self, state: SubQuestionState) -> None:
        """Seed 4.2 expansion: a closed sub-question whose reading surfaced a related entity
        gets one follow-up sub-question about it. Capped at a share of the original
        sub-questions, and the entity must share a word with a named entity of the plan so
        the research cannot drift to neighbouring topics."""
        originals = [sq for sq in self.plan.sub_questions if not sq.expansion]
        cap = int(len(originals) * self.config.planner.expansion_ratio)
        if sum(sq.expansion for sq in self.plan.sub_questions) >= cap:
            return
        known = {e for s in self.states.values() for e in s.entities} | {e for e in self.plan.entities if not e.isdigit()}
        known_lower = {e.lower() for e in known}
        cards = self._usable_cards(state.sq.id)
        # A closed sub-question has no on-topic evidence by definition: look at all it read.
        for name in self._bridge_candidates(state.sq.id, on_topic=False):
            # Anti-drift: the new entity must be named in the same evidence sentence as an
            # entity the research already has. Sorted: a set's order follows the process's
            # hash seed, and the entity named in the event must not.
            linked = [k for k in sorted(known) for c in cards
                      if name in c.quote and k.lower() != name.lower() and k.lower() in c.quote.lower()]
            if name.lower() in known_lower or not linked:
                continue
            known_words = {t for e in known for t in tokenize(e)}
            relation = " ".join(t for t in tokenize(state.query or "") if t not in known_words)
            new = SubQuestion(
                id=f"sq{len(self.plan.sub_questions) + 1}",
                axis=state.sq.axis,
                question=f"What does the corpus say about {name}, met while researching: {state.sq.question}",
                search_query=f"{name} {relation}".strip(),
                stop_condition=f"one independent source about {name}",
                expansion=True,
            )
            self.plan = self.plan.model_copy(update={"sub_questions": [*self.plan.sub_questions, new]})
            self.states[new.id] = SubQuestionState(sq=new, status="pending", query=new.search_query, entities=[name])
            self.rec.emit(SubQuestionAdded, subq=new.id, sub_question=new,
                          reason=f"{state.sq.id} closed as {state.status}; its evidence names {name!r} "
                                 f"together with {linked[0]!r}")
            return

    def _unblock_dependents(self) -> None:
        for state in self.states.values():
            if state.status != "blocked":
                continue
            if all(self.states[d].status == "satisfied" for d in state.sq.depends_on):
                fills: dict[str, str] = {}
                candidates: list[str] = []
                asked_kind: list[str] = []  # bridge names a hop asking for a country found: the topic itself
                for dep in state.sq.depends_on:
                    ranked = self._bridge_evidence(dep)[:FOLLOW_OPTIONS]
                    names = leading_names(ranked, self.states[dep].sq.finds)
                    followed = self._follow(state, dep, ranked, names) if len(state.sq.depends_on) == 1 else names
                    self.resolved.setdefault(dep, followed[0] if followed else "")
                    fills[dep] = " ".join(followed)
                    candidates += followed
                    if self.states[dep].sq.finds in ("country", "nation"):
                        asked_kind += followed
                    if len(state.sq.depends_on) == 1:
                        # Should the hop fail, each name not searched yet is followed alone.
                        top = [name for name, _, _ in ranked[:BRIDGE_LEADS]]
                        state.leads = [n for n in top if n not in followed] if len(followed) == 1 else followed[1:]
                query = SLOT.sub(lambda m: fills.get(m.group(1), ""), state.sq.search_query)
                state.query = " ".join(query.split())
                # (a country is on every other page, but the country a hop asked for is its topic)
                topic = specific_topic(list(dict.fromkeys([*candidates, *state.entities])))
                state.entities = list(dict.fromkeys([*(n for n in asked_kind if n not in topic), *topic]))
                self._set_status(state, "pending", f"dependencies answered: {fills}", resolved_query=state.query)

    def _bridge_evidence(self, sid: str) -> list[tuple[str, float, EvidenceCard]]:
        sq = self.states[sid].sq
        return rank_bridge_evidence(self.plan, self._on_topic_cards(sid), self.seen_titles, sq.search_query, sq.finds)

    def _follow(self, state: SubQuestionState, dep: str, ranked: list[tuple[str, float, EvidenceCard]],
                names: list[str]) -> list[str]:
        """The follow decision: which of the names `dep`'s evidence ranks best the next hop
        pursues. The options are the leaders searched together (the search then ranks the one
        whose article matches the hop's words), then each alone; with one name there is no
        choice to make, and none is recorded. (`names` are `leading_names`: when the leader
        alone is of the asked kind, there is no together option.)"""
        if len(ranked) < 2:
            return names
        together = [FollowCandidate(names=names, score=ranked[0][1])] if len(names) > 1 else []
        options = together + [
            FollowCandidate(names=[name], quote=card.quote, doc_id=card.doc_id, title=card.title, score=score)
            for name, score, card in ranked]
        dep_sq = self.states[dep].sq
        follow_state = FollowState(round=self.round, hop_question=dep_sq.question, next_query=state.sq.search_query,
                                   finds=dep_sq.finds)
        self._brief(self.policies.follow, state.sq.id)
        choice = self.policies.follow.choose_follow(follow_state, options)
        index = int(choice.value)  # type: ignore[call-overload]
        self.rec.emit(FollowDecision, subq=state.sq.id, dep=dep, state=follow_state, candidates=options,
                      choice=index, policy=self.policies.follow.ref, reason=choice.reason)
        return list(options[index].names)

    def _other_parent(self, dep: str) -> set[str]:
        """When hop `dep` asks for one parent, the names its evidence places in the other
        parent's place ("Elizabeth Dickens" of "the son of John and Elizabeth Dickens" for a
        father), and the asked parent's bare first name ("John", which that sentence names
        "John Dickens"): a page found for one of them confirms no bridge."""
        parent = asked_parent(SLOT.sub(" ", self.states[dep].sq.search_query))
        if parent is None:
            return set()
        out: set[str] = set()
        for card in self._on_topic_cards(dep):
            parents = parents_named(card.quote)
            if parents is not None:
                out.add(parents[1] if parent == "father" else parents[0])
                # "John" of "the son of John and Elizabeth Dickens" is "John Dickens"
                asked = parents[0] if parent == "father" else parents[1]
                out |= {asked.rsplit(" ", 1)[0]} if " " in asked else set()
        return out

    def _confirm_bridge(self, state: SubQuestionState) -> None:
        """Once a dependent hop has evidence, the candidate that evidence names is the bridge:
        the leader when the hop's most relevant card names it, else the best-ranked candidate
        whose own article the hop read, else the candidate the most relevant card names. (The
        next-hop query carries runner-ups; a card that names a runner-up in passing, "... son
        of Otto I", must not make it the bridge when the leader's own article is there.) A name
        the question itself gives is never the bridge."""
        if len(state.sq.depends_on) != 1:
            return
        dep = state.sq.depends_on[0]
        cards = self._usable_cards(state.sq.id)
        titles = {fold_accents(card.title) for card in cards}
        other_parent = self._other_parent(dep)
        # "the son of John and Elizabeth Dickens": the hop asked for the father; a name the
        # question gives is no bridge ("CARICOM", of "a member of CARICOM")
        asked = {e.lower() for e in self.plan.entities}
        followed = [e for e in state.entities if e not in other_parent and e.lower() not in asked]
        best = max(cards, key=lambda c: c.grade.relevance, default=None)
        if followed and best is not None and fold_accents(followed[0]).lower() in fold_accents(best.quote).lower():
            # the hop's most relevant sentence names the leader ("Djibouti finally gained its
            # independence ..., and X ... became its first president"): a runner-up's article
            # read by the same search does not make the runner-up the bridge
            self.resolved[dep] = followed[0]
            return
        for name in followed:
            if any(names_title(title, {fold_accents(name).lower()}) for title in titles):
                self.resolved[dep] = name
                return
        for card in sorted(cards, key=lambda c: -c.grade.relevance):
            text = fold_accents(f"{card.title} {card.quote}").lower()
            named = [e for e in followed if fold_accents(e).lower() in text]
            if named:
                self.resolved[dep] = named[0]
                return
