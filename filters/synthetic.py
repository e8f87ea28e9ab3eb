"""Hand-built trajectories: event lists written step by step, for scorer self-checks and tests.

`TrajectoryBuilder` emits the same event classes the runtime records, with consistent
seqs and parent links, so a scorer cannot tell a built run from a recorded one. Every
case a scorer must get right (no citations, invalid ids, five citations, a partial-only
report, an empty report, duplicates, conflicts, a spent budget) can be written in a few
lines without running the engine.
"""

from __future__ import annotations

from typing import Any

from citeloop.runtime.ledger import AUTHORITY, PRIMACY
from citeloop.trajectories.events import (
    BaseEvent,
    CardCreated,
    ClaimDrafted,
    ClaimDropped,
    ClaimRewritten,
    ConflictMarked,
    DocumentRead,
    EvidenceBound,
    PlanCreated,
    PolicyRef,
    ReportWritten,
    RunFinished,
    RunOutcome,
    SearchResult,
    StopDecision,
    StopSignals,
    SubQuestionStatusChanged,
    VerdictReached,
)
from citeloop.trajectories.header import ComponentRef, RunHeader, RunSpec
from citeloop.trajectories.models import (
    Axis,
    Claim,
    Disagreement,
    EvidenceCard,
    Gap,
    Grade,
    Plan,
    Report,
    ReportClaim,
    ReportSection,
    SearchHit,
    SearchResponse,
    SubQuestion,
    VerdictRecord,
)

_POLICY = PolicyRef(name="synthetic", version="1")


class TrajectoryBuilder:
    def __init__(self, question: str = "Who directed Maximum Overdrive?", run_id: str = "run-synthetic",
                 planner: str = "rule", policy: str = "heuristic") -> None:
        self.question = question
        self.run_id = run_id
        self.events: list[BaseEvent] = []
        self.cards: dict[str, EvidenceCard] = {}
        self.claims: dict[str, tuple[Claim, str]] = {}
        self.plan_obj: Plan | None = None
        self.header = RunHeader(run_id=run_id, spec=RunSpec(
            question=question, seed=0, config={}, config_digest="", planner=ComponentRef(name=planner, version="1"),
            policies={"spec": ComponentRef(name=policy, version="1")}, tools={},
            verifier=ComponentRef(name="lexical", version="1"), corpus_fingerprint="", corpus_source="synthetic",
            packages={}))

    def emit(self, cls: type, parent: int | None = None, subq: str | None = None, **fields: Any) -> Any:
        event = cls(run_id=self.run_id, seq=len(self.events), parent_seq=parent, subq=subq, **fields)
        self.events.append(event)
        return event

    # ------------------------------------------------------------------ plan and loop

    def plan(self, expected: dict[str, list[str]]) -> Plan:
        """One axis and sub-question per key of `expected` (sub-question id -> expected claims)."""
        subs = [SubQuestion(id=sid, axis=f"a-{sid}", question=f"{sid}?", search_query=sid, stop_condition="one source",
                            expected_claims=claims) for sid, claims in expected.items()]
        self.plan_obj = Plan(question=self.question, question_type="factoid", scope_in=[], scope_out=[],
                             axes=[Axis(id=f"a-{sid}", title=f"Section {sid}") for sid in expected],
                             sub_questions=subs)
        self.emit(PlanCreated, plan=self.plan_obj, planner=_POLICY)
        return self.plan_obj

    def status(self, subq: str, old: str, new: str) -> None:
        self.emit(SubQuestionStatusChanged, subq=subq, old=old, new=new, reason="built")

    def search(self, subq: str, doc_ids: list[str], status: str = "ok") -> int:
        hits = [SearchHit(doc_id=d, title=d, source="test", snippet=d, score=1.0, rank=i, subq=subq)
                for i, d in enumerate(doc_ids)]
        event = self.emit(SearchResult, subq=subq, query=f"query {subq}", response=SearchResponse(
            status=status, hits=hits if status == "ok" else []), attempts=[status])
        return event.seq

    def read(self, subq: str, doc_id: str, parent: int | None = None, url: str | None = None,
             status: str = "ok") -> int:
        event = self.emit(DocumentRead, parent=parent, subq=subq, doc_id=doc_id, status=status, attempts=[status],
                          title=doc_id, url=url or f"https://example.org/{doc_id}")
        return event.seq

    def card(self, subq: str, quote: str, doc_id: str | None = None, parent: int | None = None,
             evidence_type: str = "reference_work", cluster: str | None = None, mirrors: list[str] | None = None,
             card_id: str | None = None) -> str:
        card_id = card_id or f"card-{len(self.cards) + 1}"
        doc_id = doc_id or f"doc-{card_id}"
        card = EvidenceCard(
            card_id=card_id, subq=subq, doc_id=doc_id, sentence_ids=[f"{doc_id}#s0"], quote=quote, context=quote,
            title=doc_id, url=f"https://example.org/{doc_id}", publisher="test", published=None,
            evidence_type=evidence_type,  # type: ignore[arg-type]
            grade=Grade(authority=AUTHORITY.get(evidence_type, "unknown"), freshness="undated",  # type: ignore[arg-type]
                        primacy=PRIMACY.get(evidence_type, "unknown"), relevance=1.0),  # type: ignore[arg-type]
            cluster_id=cluster or f"cl-{doc_id}", mirrors=list(mirrors or []))
        self.cards[card_id] = card
        self.emit(CardCreated, parent=parent, subq=subq, card=card)
        return card_id

    def conflict(self, card_id: str, other: str) -> None:
        self.emit(ConflictMarked, subq=self.cards[card_id].subq, card_id=card_id, other_card_id=other, reason="built")

    def stop(self, searches_used: int, searches_max: int, reads_used: int = 0, reads_max: int = 10,
             budget_exhausted: bool = False) -> None:
        signals = StopSignals(round=1, min_rounds=1, searches_used=searches_used, searches_max=searches_max,
                              reads_used=reads_used, reads_max=reads_max, recent_gains=[], recent_new_cards=[],
                              uncovered_terms=[], initial_deficit=1, coverage=0.0, coverage_target=0.85, open_subqs=[],
                              min_rounds_met=True, gain_flat=False, coverage_met=False,
                              budget_exhausted=budget_exhausted)
        self.emit(StopDecision, state=signals, choice="stop", policy=_POLICY, reason="built")

    # ------------------------------------------------------------------ claims and report

    def claim(self, subq: str, text: str, card_ids: list[str], verdict: str = "entail",
              rewritten_from: str | None = None) -> str:
        """Draft, bind and check a claim; `rewritten_from` records a rewrite from that text first."""
        claim_id = f"claim-{subq}-{sum(1 for c, _ in self.claims.values() if c.subq == subq) + 1}"
        claim = Claim(claim_id=claim_id, subq=subq, text=rewritten_from or text, card_ids=card_ids)
        drafted = self.emit(ClaimDrafted, subq=subq, claim=claim)
        self.emit(EvidenceBound, parent=drafted.seq, subq=subq, claim_id=claim_id, card_ids=card_ids)
        if rewritten_from is not None:
            first = self.emit(VerdictReached, parent=drafted.seq, subq=subq, record=VerdictRecord(
                claim_id=claim_id, verdict="partial", checker="built", reason="built", support=0.6))
            self.emit(ClaimRewritten, parent=first.seq, subq=subq, claim_id=claim_id, old_text=rewritten_from,
                      new_text=text, reason="built")
        self.emit(VerdictReached, parent=drafted.seq, subq=subq, record=VerdictRecord(
            claim_id=claim_id, verdict=verdict, checker="built", reason="built", support=1.0))  # type: ignore[arg-type]
        self.claims[claim_id] = (claim.model_copy(update={"text": text}), verdict)
        return claim_id

    def drop(self, subq: str, text: str, card_ids: list[str], verdict: str = "irrelevant") -> str:
        claim_id = self.claim(subq, text, card_ids, verdict)
        self.emit(ClaimDropped, subq=subq, claim_id=claim_id, verdict=verdict, reason="built")
        del self.claims[claim_id]
        return claim_id

    def report_claim(self, claim_id: str, citations: list[str] | None = None, text: str | None = None,
                     verdict: str | None = None) -> ReportClaim:
        claim, recorded = self.claims[claim_id]
        return ReportClaim(claim_id=claim_id, text=text or claim.text,
                           citations=list(claim.card_ids if citations is None else citations),
                           verdict=verdict or recorded, confidence="weak",  # type: ignore[arg-type]
                           independent_sources=len({self.cards[c].cluster_id for c in claim.card_ids if c in self.cards}))

    def report(self, sections: dict[str, list[ReportClaim | str]] | None = None,
               disagreements: list[str] = (), gaps: list[str] = (), assumptions: list[str] = ()) -> Report:
        """Write the report. `sections` maps a section title to its claims (ids or built
        `ReportClaim`s); by default every kept non-conflict claim, one section per sub-question."""
        if sections is None:
            sections = {}
            for claim_id, (claim, verdict) in self.claims.items():
                if verdict != "conflict":
                    sections.setdefault(f"Section {claim.subq}", []).append(claim_id)
        built = [ReportSection(axis=f"a{i}", title=title,
                               claims=[c if isinstance(c, ReportClaim) else self.report_claim(c) for c in claims])
                 for i, (title, claims) in enumerate(sections.items(), start=1)]
        dis = [Disagreement(claim_id=c, text=self.claims[c][0].text, card_ids=list(self.claims[c][0].card_ids),
                            counter_card_ids=[]) for c in disagreements]
        cited = [cid for s in built for c in s.claims for cid in c.citations]
        cited += [cid for d in dis for cid in d.card_ids]
        evidence = [self.cards[c] for c in dict.fromkeys(cited) if c in self.cards]
        gap_list = [Gap(subq=g, question=f"{g}?", status="exhausted", queries_tried=[f"query {g}"],
                        note="not found yet within this run's budget; more searching might find it") for g in gaps]
        report = Report(question=self.question, sections=built, gaps=gap_list, disagreements=dis, dropped=[],
                        assumptions=list(assumptions), corpus_cutoff=None, evidence=evidence)
        self.emit(ReportWritten, report=report)
        return report

    def finish(self) -> list[BaseEvent]:
        self.emit(RunFinished, outcome=RunOutcome(status="completed", stop_reason="built", counts={}, metrics={}))
        return self.events
