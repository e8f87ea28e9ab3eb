"""The research engine: plan, gap-driven search/read rounds, evidence, claims, report.

One `ResearchEngine.run` answers one question and records every step through a
`Recorder`. Three stages live in their own modules and are mixed in: evidence intake (reads,
the injection filter, cards: `citeloop.runtime.intake`), hop resolution (status, bridges,
expansion: `citeloop.runtime.hops`) and the cards each hop may use and cite
(`citeloop.runtime.card_views`); the short answer is found by `citeloop.runtime.answer`. The loop (seed 001 section 4): each round, the sub-questions that can still be
searched are taken in order of urgency (weight x deficit / need); for each, the angle
policy picks a query among angle candidates, the read policy picks hits to read and
sentences to keep, and the ledger turns kept sentences into cards. After each round the
stop policy sees the three signals; hard limits (global budget, max rounds, nothing left to
search) stop the run without asking the policy and are recorded as `hard_limit` events.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

from citeloop.runtime.answer import find_answer
from citeloop.runtime.answer_hops import (
    answer_hops,
    answer_sentence_tests,
    answer_value_kind,
    background_hops,
    hop_relation,
)
from citeloop.runtime.audit import audit_report
from citeloop.runtime.card_views import CardViews
from citeloop.runtime.claims import write_and_verify
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.entity_titles import (
    names_title,
    titles_asked_thing,
)
from citeloop.runtime.hops import HopResolution
from citeloop.runtime.intake import EvidenceIntake
from citeloop.runtime.ledger import Ledger
from citeloop.runtime.plan_gate import hops_after
from citeloop.runtime.planner import Planner
from citeloop.runtime.policies import AngleCandidate, DecisionObserver, PolicySet
from citeloop.runtime.question_asks import asked_life
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.report import SubQuestionOutcome, build_report
from citeloop.runtime.subq_state import SubQuestionState, hop_entities
from citeloop.runtime.text import content_terms, tokenize
from citeloop.runtime.tools import ReadTool, SearchTool, search_with_retry
from citeloop.runtime.verifier import Verifier
from citeloop.trajectories.events import (
    AngleDecision,
    AngleState,
    HardLimit,
    PlanCreated,
    PolicyRef,
    QueryIssued,
    ReportWritten,
    RunFinished,
    RunOutcome,
    SearchResult,
    StopDecision,
    StopSignals,
    SubQuestionStatusChanged,
)
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.models import (
    Plan,
    ReadResponse,
    Report,
    SearchHit,
)


@dataclass
class RunResult:
    run_id: str
    report: Report
    outcome: RunOutcome
    plan: Plan


@cache
def _observes(kind: type) -> bool:
    """Is a policy of this class a `DecisionObserver`? Asked before every decision: a check
    against a runtime protocol inspects the class each time, so it is kept by class."""
    return issubclass(kind, DecisionObserver)


class ResearchEngine(EvidenceIntake, HopResolution, CardViews):
    def __init__(
        self,
        config: ResearchConfig,
        planner: Planner,
        policies: PolicySet,
        verifier: Verifier,
        search_tool: SearchTool,
        read_tool: ReadTool,
        corpus_cutoff: str | None = None,
        sleep=time.sleep,
        claim_stage=None,
        screen=None,
    ) -> None:
        self.config = config
        self.planner = planner
        self.policies = policies
        self.verifier = verifier
        self.search_tool = search_tool
        self.read_tool = read_tool
        self.cutoff = corpus_cutoff
        self.sleep = sleep
        # `write_and_verify`'s signature; the LLM writer and critic come in through here.
        self.claim_stage = claim_stage or write_and_verify
        # The injection filter's optional model check (`citeloop.runtime.llm.screen`), after its rules.
        self.screen = screen

    # ------------------------------------------------------------------ run

    def run(self, header: RunHeader, plan: Plan, rec: Recorder) -> RunResult:
        started = time.perf_counter()
        self.rec = rec
        self.plan = plan
        # Card-pair conflicts at ingest use a model judge's deterministic pre-stage only.
        self.ledger = Ledger(self.config.ledger, getattr(self.verifier, "prestage", self.verifier), self.cutoff)
        self.question_terms = content_terms(plan.question)
        for part in (self.planner, self.verifier, self.claim_stage):
            # Model-backed parts record their own calls (the planner's were made before the run).
            attach = getattr(part, "attach", None)
            if attach is not None:
                attach(rec)
        rec.emit(PlanCreated, plan=plan, planner=PolicyRef(name=self.planner.name, version=self.planner.version))
        self.states = {
            sq.id: SubQuestionState(
                sq=sq,
                status="blocked" if sq.depends_on else "pending",
                query=None if sq.depends_on else sq.search_query,
                entities=hop_entities(plan.entities, sq.search_query),
            )
            for sq in plan.sub_questions
        }
        self.resolved: dict[str, str] = {}
        # Sentences that could state the answer, per answer hop (`citeloop.runtime.answer`).
        self._answer_tests = answer_sentence_tests(plan)
        value_kind = answer_value_kind(plan)
        self._dated_answer = value_kind in ("date", "number")
        self._answer_is_date = value_kind == "date"
        # Background hop -> the answer hop after it, and that hop -> the words around the slot.
        self._background_of, self._slot_words = background_hops(plan, self._answer_tests)
        # A date or a number is told by its form alone, so before its own search an answer hop
        # asking one is met only by a sentence that also has one of its relation words (a life's
        # dates need none: the test reads their role from the brackets).
        self._hop_words = {sid: hop_relation(plan, sid) for sid in self._answer_tests} \
            if self._dated_answer and asked_life(plan.question) is None else {}
        self.seen_titles: set[str] = set()
        self.seen_hits: dict[str, tuple[SearchHit, int]] = {}
        self.read_docs: dict[str, tuple[ReadResponse, int]] = {}
        self._openings: dict[str, str] = {}
        """doc id -> the first sentence of the page read, folded (`CardViews._opens_with`)."""
        self._mirror_checked: dict[tuple[str, int], bool] = {}
        """(card id, pages read) -> the card is not a mirror's addition (`_usable_cards`)."""
        self._suspected: dict[str, bool] = {}
        """card id -> its quote is a suspect (`citeloop.runtime.injection.suspected`, `_usable_cards`)."""
        self._source_counts: dict[tuple[str, int, int, tuple[str, ...]], int] = {}
        """(sub-question, cards held, pages read, its entities) -> `_sources`."""
        self.searches = self.reads = 0
        gains: list[int] = []
        new_cards: list[int] = []
        initial_deficit = sum(sq.need for sq in plan.sub_questions)
        stop_reason = ""
        self.round = 0
        for round_no in range(1, self.config.budget.max_rounds + 1):
            self.round = round_no
            open_before = {s for s in self._open()}
            sources_before = {s: self._sources(s) for s in open_before}
            cards_before = len(self.ledger.cards)
            for sid in self._by_urgency(open_before):
                if self._budget_exhausted():
                    break
                self._work_on(self.states[sid], round_no)
            gains.append(sum(max(0, self._sources(s) - sources_before[s]) for s in open_before))
            new_cards.append(len(self.ledger.cards) - cards_before)
            signals = self._signals(round_no, gains, new_cards, initial_deficit)
            limit = self._hard_limit(signals, round_no)
            if limit is not None:
                rec.emit(HardLimit, round=round_no, limit=limit[0], reason=limit[1])
                stop_reason = limit[1]
                break
            self._brief(self.policies.stop, None)
            choice = self.policies.stop.decide_stop(signals)
            rec.emit(StopDecision, state=signals, choice=str(choice.value), policy=self.policies.stop.ref,
                     reason=choice.reason)
            if choice.value == "stop":
                stop_reason = choice.reason
                break
        for state in self.states.values():
            if state.status in ("pending", "searching") and state.searches:
                self._set_status(state, "exhausted", "the run stopped before this sub-question found evidence")

        plan = self.plan  # now including any expansion sub-questions
        claims = self.claim_stage(plan, self.ledger, self.verifier, rec, self._claim_cards)
        kept_ids = {c.claim.claim_id for c in claims}
        dropped = [e.claim_id for e in rec.events if e.type == "claim_dropped"]
        outcomes = {
            sid: SubQuestionOutcome(status=s.status, queries=list(s.queries), tool_errors=list(s.tool_errors),  # type: ignore[arg-type]
                                    blocked_on=[d for d in s.sq.depends_on if self.states[d].status != "satisfied"])
            for sid, s in self.states.items()
        }
        report = build_report(plan, outcomes, self.ledger, claims, dropped, dict(self.resolved), self.cutoff)
        report = audit_report(report, self.ledger, lambda doc_id: self.read_docs.get(doc_id, (None, 0))[0], rec,
                              pages=[doc for doc, _ in self.read_docs.values()])
        # The short answer comes from what survived the audit, so it never cites a struck claim.
        answer = find_answer(plan, report, {c.claim.claim_id: c.claim.subq for c in claims},
                             {sid: s.status for sid, s in self.states.items()}, dict(self.resolved),
                             self.ledger.confidence, (doc.title for doc, _ in self.read_docs.values()))
        report = report.model_copy(update={"answer": answer})
        rec.emit(ReportWritten, report=report)
        outcome = self._outcome(report, claims, kept_ids, dropped, stop_reason)
        rec.emit(RunFinished, outcome=outcome)
        rec.finish((time.perf_counter() - started) * 1000)
        return RunResult(run_id=header.run_id, report=report, outcome=outcome, plan=plan)

    # ------------------------------------------------------------------ loop parts

    def _open(self) -> list[str]:
        per_subq = self.config.budget.per_subq_searches
        return [sid for sid, s in self.states.items() if s.status in ("pending", "searching") and s.searches < per_subq]

    def _by_urgency(self, sids: set[str]) -> list[str]:
        order = [sq.id for sq in self.plan.sub_questions]
        urgency = {s: self.states[s].sq.weight * self._deficit(s) / max(1, self.states[s].sq.need) for s in sids}
        return sorted(sids, key=lambda s: (-urgency[s], order.index(s)))

    def _budget_exhausted(self) -> bool:
        b = self.config.budget
        return self.searches >= b.max_searches or self.reads >= b.max_reads

    def _coverage(self) -> float:
        total = sum(s.sq.weight for s in self.states.values()) or 1.0
        got = sum(s.sq.weight * min(1.0, self._sources(sid) / s.sq.need) for sid, s in self.states.items())
        return got / total

    def _uncovered(self) -> list[str]:
        seen: set[str] = set()
        for card in self.ledger.cards.values():
            seen.update(content_terms(f"{card.title} {card.quote}"))
        return [t for t in self.question_terms if t not in seen]

    def _signals(self, round_no: int, gains: list[int], new_cards: list[int], initial_deficit: int) -> StopSignals:
        b, s = self.config.budget, self.config.stop
        coverage = round(self._coverage(), 4)
        flat = len(gains) >= 2 and sum(gains[-2:]) <= s.decay_eps * max(1, initial_deficit)
        return StopSignals(
            round=round_no, min_rounds=s.min_rounds, searches_used=self.searches, searches_max=b.max_searches,
            reads_used=self.reads, reads_max=b.max_reads, recent_gains=list(gains), recent_new_cards=list(new_cards),
            uncovered_terms=self._uncovered(), initial_deficit=initial_deficit, coverage=coverage,
            coverage_target=s.coverage_target, open_subqs=self._open(), min_rounds_met=round_no >= s.min_rounds,
            gain_flat=flat, coverage_met=coverage >= s.coverage_target, budget_exhausted=self._budget_exhausted(),
            answer_ready=all(self.states[sid].status == "satisfied" for sid in answer_hops(self.plan)),
        )

    def _hard_limit(self, signals: StopSignals, round_no: int) -> tuple[str, str] | None:
        """(limit, reason) when the run must stop whatever a policy would say; None otherwise."""
        if signals.budget_exhausted:
            return "budget", "hard budget reached; unresolved gaps are reported as such"
        if round_no >= self.config.budget.max_rounds:
            return "max_rounds", f"maximum of {round_no} rounds reached"
        if not signals.open_subqs:
            return "nothing_left", "no sub-question can be searched any more"
        return None

    def _brief(self, policy: object, subq: str | None, doc_id: str | None = None) -> None:
        """A policy that reads the run (`DecisionObserver`, e.g. the LLM policy) is handed the
        recorder and what the coming decision concerns, just before it decides."""
        if _observes(type(policy)):
            policy.before_decision(self.rec, subq, doc_id)  # type: ignore[attr-defined]

    def _angle_candidates(self, state: SubQuestionState) -> list[AngleCandidate]:
        base = state.query or ""
        entity_words = {t for e in state.entities for t in tokenize(e)}
        relation = " ".join(t for t in tokenize(base) if t not in entity_words)
        question_extra = [e for e in self.plan.entities if e.lower() not in base.lower()]
        raw = [
            ("base", base),
            ("entity", " ".join(state.entities)),
            ("relation", f"{relation} {' '.join(t for t in content_terms(self.plan.question) if t not in relation)}"),
            ("context", f"{base} {' '.join(question_extra)}"),
            ("question", self.plan.question),
            ("gap_followup", f"{self.plan.question} {' '.join(self._uncovered())}"),
        ]
        seen: set[str] = set()
        issued = {q.lower() for s in self.states.values() for q in s.queries}
        out = []
        for angle, query in raw:
            query = " ".join(query.split())
            # No identical query twice in a run: another sub-question's search already
            # returned what it would return (its hits stay known as leads).
            if query and query.lower() not in seen and query.lower() not in issued:
                seen.add(query.lower())
                out.append(AngleCandidate(angle=angle, query=query))
        return out

    def _known_leads(self, state: SubQuestionState) -> tuple[list[SearchHit], int | None]:
        """Unread hits from earlier searches whose title names this sub-question's entity: for a
        hop after a bridge, the entity the bridge resolved to (the page of "the Euro", an entity
        the question names, lists every country using it and would meet "the currency before
        the Euro in Finland" before the hop searched for Finland at all)."""
        names = {e.lower() for e in state.entities}
        if state.sq.depends_on:
            bridged = {self.resolved[d].lower() for d in state.sq.depends_on if self.resolved.get(d)}
            names = {n for n in names if n in bridged} or names
        leads = [
            (hit, seq) for hit, seq in self.seen_hits.values()
            if hit.doc_id not in self.ledger.documents and names_title(hit.title, names)
        ]
        if not leads:
            return [], None
        return [hit.model_copy(update={"subq": state.sq.id}) for hit, _ in leads], leads[0][1]

    def _work_on(self, state: SubQuestionState, round_no: int) -> None:
        rec, sid = self.rec, state.sq.id
        if state.status == "pending":
            self._set_status(state, "searching", f"round {round_no}: most urgent open sub-question")
        names = {e.lower() for e in state.entities}
        # Documents behind the hop this one depends on named the bridge candidates; one of
        # them being a candidate's own article is no evidence for the next hop.
        # An answer hop asking a date or a number is met before its own search only by a
        # sentence that states one (`_sources`): it may judge those documents too (the
        # director's own article, read while finding the director, gives his birth date).
        resolved = {self.resolved[d].lower() for d in state.sq.depends_on if self.resolved.get(d)}
        upstream = set() if sid in self._answer_tests and self._dated_answer else \
            {c.doc_id for dep in state.sq.depends_on for c in self.ledger.cards_for(dep)}
        for doc, read_seq in list(self.read_docs.values()):
            # A document another sub-question already read, about this one's entity: reuse it.
            # One behind the hop this one depends on only when its title is the thing this hop
            # asks of the entity that hop resolved to ("Leader of Opposition (Uganda)" for
            # "Uganda opposition leader"; not of a runner-up's words, "Baron Petre").
            if doc.doc_id in upstream and not (state.query and titles_asked_thing(doc.title, resolved, state.query)):
                continue
            if state.query and (names_title(doc.title, names) or titles_asked_thing(doc.title, names, state.query)) \
                    and not self.ledger.cards_for_doc(sid, doc.doc_id):
                self._keep_evidence(state, state.query, doc, read_seq)
        self._update_status(state)
        if state.status == "satisfied":
            return
        leads, lead_seq = self._known_leads(state)
        if leads and state.query:
            # Following a lead an earlier search already returned costs a read, not a search.
            self._read_hits(state, state.query, leads, lead_seq)  # type: ignore[arg-type]
            self._update_status(state)
            if state.status == "satisfied":
                return
        candidates = self._angle_candidates(state)
        if not candidates:
            self._set_status(state, "exhausted", "every query it could issue was already issued in this run")
            return
        angle_state = AngleState(round=round_no, base_query=state.query or "", tried_queries=list(state.queries),
                                 deficit=self._deficit(sid), dependent=bool(state.sq.depends_on),
                                 hops_after=hops_after(self.plan, sid))
        self._brief(self.policies.angle, sid)
        choice = self.policies.angle.choose_angle(angle_state, candidates)
        picked = candidates[int(choice.value)]  # type: ignore[call-overload]
        decision = rec.emit(AngleDecision, subq=sid, state=angle_state, candidates=[c.query for c in candidates],
                            angles=[c.angle for c in candidates], choice=int(choice.value),  # type: ignore[call-overload]
                            policy=self.policies.angle.ref, reason=choice.reason)
        issued = rec.emit(QueryIssued, parent=decision.seq, subq=sid, query=picked.query, angle=picked.angle,
                          k=self.config.search.k, round=round_no)
        t0 = time.perf_counter()
        response, attempts = search_with_retry(self.search_tool, picked.query, self.config.search.k, sid,
                                               self.config.retry, self.sleep)
        result = rec.emit(SearchResult, parent=issued.seq, subq=sid, query=picked.query, response=response,
                          attempts=attempts)
        rec.latency(result.seq, (time.perf_counter() - t0) * 1000)
        self.searches += 1
        state.searches += 1
        state.queries.append(picked.query)
        if picked.angle not in state.angles:
            state.angles.append(picked.angle)
        if response.status not in ("ok", "empty"):
            state.tool_errors.append(response.status)
        elif response.status == "ok":
            self.seen_titles.update(h.title for h in response.hits)
            for hit in response.hits:
                self.seen_hits.setdefault(hit.doc_id, (hit, result.seq))
            self._read_hits(state, picked.query, response.hits, result.seq)
        self._update_status(state)

    def _set_status(self, state: SubQuestionState, new: str, reason: str, resolved_query: str | None = None) -> None:
        if state.status == new:
            return
        self.rec.emit(SubQuestionStatusChanged, subq=state.sq.id, old=state.status, new=new, reason=reason,  # type: ignore[arg-type]
                      resolved_query=resolved_query)
        state.status = new

    def _outcome(self, report: Report, claims, kept_ids: set[str], dropped: list[str], stop_reason: str) -> RunOutcome:
        events = self.rec.events
        count = lambda t: sum(1 for e in events if e.type == t)
        stated = {c.claim.subq for c in claims if c.verdict in ("entail", "partial")}
        expected = [(sq.id, claim) for sq in self.plan.sub_questions for claim in sq.expected_claims]
        drafted = count("claim_drafted")
        return RunOutcome(
            status="completed",
            stop_reason=stop_reason or "stopped",
            counts={
                "searches": self.searches,
                "reads": self.reads,
                "cards": len(self.ledger.cards),
                "rejected": count("card_rejected"),
                "injections_blocked": sum(1 for e in events if e.type == "card_rejected" and e.rejected.reason == "injection"),
                "claims_drafted": drafted,
                "claims_kept": len(kept_ids),
                "dropped": len(dropped),
                "rewrites": count("claim_rewritten"),
                "conflicts": count("conflict_marked"),
                "tool_errors": sum(len(s.tool_errors) for s in self.states.values()),
                "dead_ends": count("dead_end"),
                "rounds": count("stop_decision"),
            },
            metrics={
                "coverage": round(sum(sid in stated for sid, _ in expected) / len(expected), 4) if expected else None,
                "weighted_evidence_coverage": round(self._coverage(), 4),
                "drop_rate": round(len(dropped) / drafted, 4) if drafted else None,
            },
        )
