"""Which cards a sub-question may use, a stage of the research engine: its usable cards (no
mirror's additions, no suspect quotes), its on-topic cards (those naming its entities), the
cards its claims are written from (about the entity its dependency resolved to; for an answer
hop, those that can state the answer), and its count of independent sources.

`CardViews` is mixed into `ResearchEngine` (`citeloop.runtime.engine`) and reads its run state:
the ledger, the pages read, the hops' states and resolved entities, and the answer tests.
"""

from __future__ import annotations

from citeloop.runtime.answer_sentences import most_precise_per_source
from citeloop.runtime.audit import mirror_problem
from citeloop.runtime.entity_titles import is_namesake, names_entity
from citeloop.runtime.injection import suspected
from citeloop.runtime.text import content_terms, fold_accents
from citeloop.trajectories.models import EvidenceCard


class CardViews:
    """The cards each sub-question may use, name, cite and count (mixed into `ResearchEngine`)."""

    def _on_topic_cards(self, sid: str) -> list[EvidenceCard]:
        """The sub-question's cards that name one of its entities (all of them if it names none).

        A sub-question about a named entity is answered only by evidence that names it, and
        its bridge to the next hop is read only from that evidence: a sibling's article read
        by the same search must not decide this chain's next entity.
        """
        entities = self.states[sid].entities
        names = [fold_accents(e).lower() for e in entities]
        cards = [c for c in self._usable_cards(sid) if not is_namesake(c.title, entities)]
        if not names:
            return cards
        return [c for c in cards if names_entity(c, names) or any(self._opens_with(c.doc_id, n) for n in names)]

    def _usable_cards(self, sid: str) -> list[EvidenceCard]:
        """The sub-question's cards, less what a lower-graded copy added to a page read in
        this run (`citeloop.runtime.audit.mirror_problem`) and less suspect quotes (about write-ups of
        the page, or half suspected by the learned injection filter:
        `citeloop.runtime.injection.suspected`). Such a quote neither names a bridge nor counts as a
        source nor becomes a claim: the output audit would strike a mirror's citation anyway,
        but only after a name planted in it had steered the next hop's searches."""
        pages = [page for page, _ in self.read_docs.values()]
        usable = []
        for card in self.ledger.cards_for(sid):
            if card.card_id not in self._suspected:
                self._suspected[card.card_id] = suspected(card.quote) is not None
                self.rec.check("injection_suspect", self._suspected[card.card_id])
            if self._suspected[card.card_id]:
                continue
            key = (card.card_id, len(pages))  # a new read can reveal a card's page as a copy
            if key not in self._mirror_checked:
                doc = self.read_docs.get(card.doc_id)
                self._mirror_checked[key] = doc is None or mirror_problem(card, doc[0], pages) is None
            if self._mirror_checked[key]:
                usable.append(card)
        return usable

    def _claim_cards(self, sid: str) -> list[EvidenceCard]:
        """The evidence a sub-question's claims are written from: its on-topic cards, and for
        a hop that follows one other hop, only those naming the entity that hop resolved to
        (when any does). The next-hop query carries runner-up names too; a card about a
        runner-up is about another chain, and stating it would contradict the resolution
        the report shows (and hands a name planted on one page a way into the report). The one
        exception: an answer hop asking a date or a number whose resolved name has no sentence
        with such a value takes a runner-up's sentence that has one (the leader was then most
        likely the wrong name; a value, told by its form, plants no name)."""
        on_topic = cards = self._on_topic_cards(sid)
        deps = self.states[sid].sq.depends_on
        resolved = self.resolved.get(deps[0]) if len(deps) == 1 else None
        if resolved:
            name = fold_accents(resolved).lower()
            cards = [c for c in cards if names_entity(c, [name]) or self._opens_with(c.doc_id, name)] or cards
        if sid in self._background_of:
            return self._background_claim_cards(cards, self._background_of[sid])
        test = self._answer_tests.get(sid)
        if test is not None:
            # An answer hop's claims come from sentences that can state the answer, when any do:
            # about the resolved entity first; for a date or a number (told by its form, so
            # the test is strict) else about a runner-up the hop searched too.
            runner_ups = on_topic if self._dated_answer else []
            cards = [c for c in cards if test(c.quote)] or [c for c in runner_ups if test(c.quote)] or cards
            if self._answer_is_date:
                cards = most_precise_per_source(cards, self.plan.question)
        return cards

    def _opens_with(self, doc_id: str, name: str) -> bool:
        """Is the page read as `doc_id` the article of `name` (folded, lower case): does its first
        sentence open with the name? Every sentence of an entity's own article is about it, also
        one that calls it by a shorter name ("Beauchamp was the fourth son of Thomas de
        Beauchamp" in the article that opens "William de Beauchamp, 1st Baron Bergavenny, KG
        ..."), under a title that spells the name another way ("William Beauchamp, ...")."""
        if doc_id not in self._openings:
            doc = self.read_docs.get(doc_id)
            if doc is None:
                return False  # not read (yet): asked again once it is
            self._openings[doc_id] = fold_accents(doc[0].sentences[0].text).lower() if doc[0].sentences else ""
        return self._openings[doc_id].startswith(name)

    def _background_claim_cards(self, cards: list[EvidenceCard], answer_sid: str) -> list[EvidenceCard]:
        """A background hop's claim evidence (a factoid the plan could not tell from two hops,
        whose first search is the whole question): the sentence most likely to state the
        answer, and the most relevant card of another source. The sentence most likely to state
        it is, among those that could, first a page's own sentence that calls its subject what
        the question asks for with two of the slot's words at least (`_calls_itself`:
        "Navvulata is a 1998 Telugu comedy film, produced by ..." for "Which 1988 Telugu comedy
        produced by ...?"), then the one with most of the words around the question's slot ("He
        was the father of Bollywood actress Antara Mali" for "... is father to which Bollywood
        actress?"). The search for the whole question often reads the answer's page, and
        without this it is read, carded and left out of the report for the two most relevant
        sentences."""
        test = self._answer_tests[answer_sid]
        relation = self._slot_words[answer_sid]
        finds = set(content_terms(next(s.finds for s in self.plan.sub_questions if s.id == answer_sid)))
        scored = []
        for i, card in enumerate(cards):
            shared = len(relation & set(content_terms(card.quote)))
            if shared and test(card.quote):
                scored.append((shared >= 2 and self._calls_itself(card, finds), shared, card.grade.relevance, -i, card))
        if not scored:
            return cards
        stating = max(scored, key=lambda x: x[:4])[4]
        others = [c for c in cards if c.cluster_id != stating.cluster_id]
        return [stating, max(others, key=lambda c: c.grade.relevance)] if others else [stating]

    def _calls_itself(self, card: EvidenceCard, finds: set[str]) -> bool:
        """Does the card open its page and call the page's subject what the question asks for
        ("Navvulata is a 1998 Telugu comedy film ..." for "Which 1988 Telugu comedy ...?"), a
        subject the question does not name ("Mila Dorn is a Merrow actress" answers no "which
        actress" of a question that names her)?"""
        name = fold_accents(card.title.split(" (")[0]).lower()
        return bool(finds & set(content_terms(card.quote))) and fold_accents(card.quote).lower().startswith(name) \
            and name not in fold_accents(self.plan.question).lower()

    def _sources(self, sid: str) -> int:
        """Independent sources among the sub-question's on-topic cards. Asked for every open
        hop after every search and read; the count can change only with a new card (the
        ledger never drops one), a new page read (a card can turn out a mirror's) or the
        hop's entities (a resolved dependency), so it is kept by those."""
        searched = self.states[sid].searches > 0
        key = (sid, len(self.ledger.cards), len(self.read_docs), tuple(self.states[sid].entities), searched)
        if key not in self._source_counts:
            cards = self._on_topic_cards(sid)
            test = self._answer_tests.get(sid)
            if test is not None and not searched:
                # Before its own search, an answer hop is met only by a sentence that can state
                # its answer ("Kristen Ruhlin is an American actress", read for the film, names
                # the entity but gives no birth date) and says something of what the hop asks
                # (one of its relation words: "Red Wave ... was released in 1986" has a date
                # but says nothing of invading Manchuria); after one, by what it found.
                words = self._hop_words.get(sid, set())
                cards = [c for c in cards if test(c.quote) and (not words or words & set(content_terms(c.quote)))]
            self._source_counts[key] = self.ledger.independent_sources([c.card_id for c in cards])
        return self._source_counts[key]

    def _deficit(self, sid: str) -> int:
        return max(0, self.states[sid].sq.need - self._sources(sid))
