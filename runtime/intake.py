"""Evidence intake, a stage of the research engine: reading the hits a policy picked, and
turning a read page into evidence cards.

`EvidenceIntake` is mixed into `ResearchEngine` and works on its run state (ledger,
recorder, policies, budgets). A page's sentences pass the injection filter (rules, then the
learned line, then the optional model check) before the keep policy sees them; kept
sentences become cards, near-duplicates are rejected and conflicts between cards marked.
"""

from __future__ import annotations

import time
from citeloop.runtime.bridging import focus_terms, hop_relation_words, with_attribute_cues
from citeloop.runtime.entity_titles import names_title
from citeloop.runtime.injection import findings_by_line, strip_invisible
from citeloop.runtime.parentage import about_another_person
from citeloop.runtime.subq_state import SubQuestionState
from citeloop.runtime.text import content_terms, fold_accents, term_overlap
from citeloop.runtime.tools import read_with_retry
from citeloop.trajectories.events import (
    CardCreated,
    CardRejected,
    ConflictMarked,
    DocumentRead,
    KeepCandidate,
    KeepDecision,
    ReadDecision,
    ReadState,
    SentenceSpan,
)
from citeloop.trajectories.models import ReadResponse, RejectedText



class EvidenceIntake:
    """Reads and evidence cards (mixed into `ResearchEngine`)."""

    def _read_hits(self, state: SubQuestionState, query: str, hits, parent: int) -> None:
        rec, sid = self.rec, state.sq.id
        relevance = {
            h.doc_id: round(term_overlap(focus_terms(query, state.entities, f"{h.title} {h.snippet}"),
                                         content_terms(f"{h.title} {h.snippet}")), 4)
            for h in hits
        }
        if max(relevance.values(), default=0.0) >= self.config.read.min_hit_relevance:
            state.relevant_searches += 1
        reads_left = min(self.config.budget.max_reads - self.reads, self.config.budget.per_subq_reads - state.reads)
        names = {e.lower() for e in state.entities}
        read_state = ReadState(hits=list(hits), already_read=sorted(self.ledger.documents), reads_left=max(0, reads_left),
                               named=[h.doc_id for h in hits if names_title(h.title, names)])
        self._brief(self.policies.read, sid)
        choice = self.policies.read.choose_reads(read_state, relevance, max(0, reads_left))
        chosen = list(choice.value)[: max(0, reads_left)]  # type: ignore[call-overload]
        # The options: every hit of the search not read yet (rank 7 as well as rank 2); the
        # read budget is the limit.
        unread = [h.doc_id for h in hits if h.doc_id not in self.ledger.documents]
        decision = rec.emit(ReadDecision, parent=parent, subq=sid, state=read_state, candidates=unread,
                            choice=chosen, policy=self.policies.read.ref, reason=choice.reason)
        for doc_id in chosen:
            t0 = time.perf_counter()
            doc, attempts = read_with_retry(self.read_tool, doc_id, self.config.retry, self.sleep)
            read_event = self._record_read(sid, doc, attempts, decision.seq)
            rec.latency(read_event.seq, (time.perf_counter() - t0) * 1000)
            self.reads += 1
            state.reads += 1
            if doc.status != "ok":
                if doc.status != "empty":  # `empty` is a real answer, not a failed call
                    state.tool_errors.append(doc.status)
                continue
            self.read_docs[doc.doc_id] = (doc, read_event.seq)
            self._keep_evidence(state, query, doc, read_event.seq)

    def _record_read(self, sid: str, doc: ReadResponse, attempts, parent: int) -> DocumentRead:
        spans, digest = [], None
        if doc.sentences:
            text, offset = "", 0
            for s in doc.sentences:
                start = offset + (1 if text else 0)
                text = f"{text} {s.text}" if text else s.text
                spans.append(SentenceSpan(sid=s.sid, index=s.index, start=start, end=len(text)))
                offset = len(text)
            digest = self.rec.blob(text)
        return self.rec.emit(DocumentRead, parent=parent, subq=sid, doc_id=doc.doc_id, status=doc.status,
                             attempts=attempts, title=doc.title, url=doc.url, publisher=doc.publisher,
                             published=doc.published, source_type=doc.source_type, text_digest=digest,
                             sentences=spans, error=doc.error)

    def _keep_evidence(self, state: SubQuestionState, query: str, doc: ReadResponse, parent: int) -> None:
        rec, sid = self.rec, state.sq.id
        self.ledger.register(doc)
        doc_text = " ".join([doc.title, *(s.text for s in doc.sentences)])
        key = focus_terms(f"{query} {' '.join(state.entities)}", state.entities, doc_text)
        # The first search of a hop is often the whole question ("Who is the father-in-law of
        # X?"): the sentences are still judged by the relation the hop itself asks ("spouse").
        key += [t for t in hop_relation_words(state.sq.search_query) if t not in key]
        title_terms = content_terms(doc.title)
        answer_test = self._answer_tests.get(sid)
        # The bonus goes to pages about the entity the previous hop resolved to: a runner-up's
        # page must not win the bridge on a sentence that merely has the answer's shape.
        bridges = [fold_accents(self.resolved[d]).lower() for d in state.sq.depends_on if self.resolved.get(d)]
        if bridges and not any(b in fold_accents(doc_text).lower() for b in bridges) \
                and not names_title(fold_accents(doc.title), set(bridges)):
            answer_test = None
        candidates: list[KeepCandidate] = []
        injected: set[str] = set()
        cleaned = [strip_invisible(s.text) for s in doc.sentences]
        findings = findings_by_line(cleaned)
        for i, (s, clean) in enumerate(zip(doc.sentences, cleaned)):
            line, why = findings.get(i, (None, None))
            # Firing rates (run_meta.checks): the rules see every sentence, the learned
            # filter only those the rules pass.
            rec.check("injection_rules", line == "rules")
            if line != "rules":
                rec.check("injection_learned", line == "learned")
            if why is not None:
                injected.add(s.sid)
                rec.emit(CardRejected, parent=parent, subq=sid, rejected=RejectedText(
                    doc_id=doc.doc_id, sentence_ids=[s.sid], reason="injection", detail=why))
                continue
            terms = with_attribute_cues(key, content_terms(clean))
            rel = 0.7 * term_overlap(key, terms + title_terms) + 0.3 * term_overlap(key, terms)
            if answer_test is not None and rel > 0 and answer_test(clean) \
                    and not about_another_person(" ".join(cleaned[:2]), clean):
                rel = min(1.0, rel + self.config.read.answer_sentence_bonus)
            candidates.append(KeepCandidate(sid=s.sid, text=clean, relevance=round(rel, 4)))
        if self.screen is not None and candidates:
            why = self.screen.flagged(doc.doc_id, doc.url or doc.doc_id, doc.published,
                                      [(c.sid, c.text) for c in candidates], rec, parent, sid)
            if why is not None:
                rec.emit(CardRejected, parent=parent, subq=sid, rejected=RejectedText(
                    doc_id=doc.doc_id, sentence_ids=[c.sid for c in candidates], reason="injection", detail=why))
                injected.update(c.sid for c in candidates)
                candidates = []
        self._brief(self.policies.read, sid, doc.doc_id)
        choice = self.policies.read.choose_keep(candidates, self.config.read.cards_per_doc)
        chosen = list(choice.value)  # type: ignore[call-overload]
        decision = rec.emit(KeepDecision, parent=parent, subq=sid, doc_id=doc.doc_id, candidates=candidates,
                            choice=chosen, policy=self.policies.read.ref, reason=choice.reason)
        by_sid = {c.sid: c for c in candidates}
        # Injected sentences leave the document before cards are cut, so they cannot ride
        # into a card's context (and from there into the report) as a neighbour of a quote.
        clean_doc = doc.model_copy(update={"sentences": [
            s if clean == s.text else s.model_copy(update={"text": clean})
            for s, clean in zip(doc.sentences, cleaned) if s.sid not in injected]})
        index_of = {s.sid: i for i, s in enumerate(clean_doc.sentences)}
        for cand in candidates:
            if cand.sid not in chosen:
                continue
            card = self.ledger.make_card(sid, clean_doc, [index_of[cand.sid]], by_sid[cand.sid].relevance,
                                         self.config.read.context_sentences)
            duplicate = self.ledger.duplicate_of(sid, card.quote)
            if duplicate is not None or card.card_id in self.ledger.cards:
                rec.emit(CardRejected, parent=decision.seq, subq=sid, rejected=RejectedText(
                    doc_id=doc.doc_id, sentence_ids=card.sentence_ids, reason="duplicate",
                    detail=f"same quote already held by {duplicate or card.card_id}"))
                continue
            stored, conflicts = self.ledger.add(card)
            created = rec.emit(CardCreated, parent=decision.seq, subq=sid, card=stored)
            for other_id, why in conflicts:
                rec.emit(ConflictMarked, parent=created.seq, subq=sid, card_id=stored.card_id,
                         other_card_id=other_id, reason=why)
