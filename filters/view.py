"""One run as scorers see it: its events indexed once, its report as sentences, a judge.

`RunView.build` accepts a loaded `RunFile` or a plain list of events (with the header if
there is one): the eval harness scores in-memory runs from a `MemorySink`. Everything a
scorer needs is derived from the events; nothing is recomputed by re-running anything.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from citeloop.filters.judge import CachedJudge, CitationJudge, resolve_judge
from citeloop.filters.sentences import ReportSentence, report_sentences
from citeloop.trajectories.events import BaseEvent, PlanCreated, ReportWritten, RunFinished
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.models import EvidenceCard, Plan, Report, Verdict
from citeloop.trajectories.runfile import RunFile


@dataclass
class RunView:
    run_id: str
    header: RunHeader | None
    events: list[Any]
    judge: CachedJudge
    at_most_citations: int = 3
    """ALCE scores at most this many citations per sentence (the first ones)."""
    by_type: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def build(cls, run: RunFile | Sequence[BaseEvent], header: RunHeader | None = None,
              judge: str | CitationJudge | None = None, at_most_citations: int = 3) -> RunView:
        if isinstance(run, RunFile):
            header, events = run.header, list(run.events)
        else:
            events = list(run)
        run_id = header.run_id if header is not None else (events[0].run_id if events else "")
        by_type: dict[str, list[Any]] = defaultdict(list)
        for event in events:
            by_type[event.type].append(event)
        inner = resolve_judge(judge)
        cached = inner if isinstance(inner, CachedJudge) else CachedJudge(inner)
        return cls(run_id=run_id, header=header, events=events, judge=cached,
                   at_most_citations=at_most_citations, by_type=dict(by_type))

    def of(self, type_name: str) -> list[Any]:
        return self.by_type.get(type_name, [])

    # ------------------------------------------------------------------ run parts

    @cached_property
    def plan(self) -> Plan | None:
        created: list[PlanCreated] = self.of("plan_created")
        return created[0].plan if created else None

    @cached_property
    def report(self) -> Report | None:
        written: list[ReportWritten] = self.of("report_written")
        return written[-1].report if written else None

    @cached_property
    def outcome(self) -> Any:
        finished: list[RunFinished] = self.of("run_finished")
        return finished[-1].outcome if finished else None

    @property
    def question(self) -> str:
        if self.plan is not None:
            return self.plan.question
        if self.report is not None:
            return self.report.question
        return self.header.spec.question if self.header is not None else ""

    @cached_property
    def cards(self) -> dict[str, EvidenceCard]:
        """Every evidence card of the run: the ledger's, then the report appendix's."""
        cards = {e.card.card_id: e.card for e in self.of("card_created")}
        if self.report is not None:
            for card in self.report.evidence:
                cards.setdefault(card.card_id, card)
        return cards

    @cached_property
    def claim_subq(self) -> dict[str, str]:
        return {e.claim.claim_id: e.claim.subq for e in self.of("claim_drafted")}

    @cached_property
    def final_status(self) -> dict[str, str]:
        """Each sub-question's last status (plan and expansions)."""
        status: dict[str, str] = {}
        if self.plan is not None:
            status = {sq.id: "blocked" if sq.depends_on else "pending" for sq in self.plan.sub_questions}
        for added in self.of("subq_added"):
            status.setdefault(added.sub_question.id, "pending")
        for change in self.of("subq_status_changed"):
            status[change.subq] = change.new
        return status

    @cached_property
    def sentences(self) -> list[ReportSentence]:
        return report_sentences(self.report) if self.report is not None else []

    # ------------------------------------------------------------------ citations

    def evidence_text(self, card_id: str) -> str | None:
        """The text a judge sees for a citation: the card's verbatim quote; None if no such card."""
        card = self.cards.get(card_id)
        return card.quote if card is not None else None

    def valid(self, card_id: str) -> bool:
        return card_id in self.cards

    def verdict(self, sentence: str, card_ids: Sequence[str]) -> Verdict:
        """The judge's verdict on `sentence` given the concatenated evidence of `card_ids`
        (invalid ids contribute nothing; with no evidence at all the verdict is `irrelevant`)."""
        texts = [t for t in (self.evidence_text(c) for c in card_ids) if t]
        if not texts:
            return "irrelevant"
        return self.judge.judge(sentence, texts)

    def sentence_verdict(self, s: ReportSentence) -> Verdict | None:
        """Verdict on a cited sentence against all its cited evidence; None if it cites nothing."""
        return self.verdict(s.text, s.citations) if s.citations else None
