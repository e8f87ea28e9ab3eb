"""Outcome scores of a finished (branched) run: what each side of a decision earned.

With gold (a gold file that has the question):

    score = gold recall of what the run read
          + answer_weight x answer correct (where the gold file has the answer)
          - search_cost x searches - read_cost x reads

Without gold: the gold-free run score (`filters.answers.run_score`: the stated answer's
confidence first, then chained pages, citation correctness, evidence breadth and sub-questions
satisfied; 0 when not computed), minus the same costs. Both scores are kept on every outcome (`gold_recall` and `filters_score`), so
one set of rollouts is scored either way.

The defaults make each decision kind able to win: a search that adds no gold (and the reads
it leads to) costs more than the margin a pair needs (`margins`), so stopping beats such a
search, and the fewest tool calls that still reach the outcome win (the OTC-PO idea).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from citeloop.filters.answers import answer_match, stated_answer
from citeloop.filters.gold import GoldSet
from citeloop.filters.metrics import score_run
from citeloop.filters.view import RunView
from citeloop.trajectories.events import BaseEvent
from citeloop.trajectories.header import RunHeader

CustomScorer = Callable[[RunHeader, list[BaseEvent]], float]
"""A hand-made outcome score (tests, experiments); it replaces the gold/filters score."""

DEFAULT_MARGIN = 0.05


@dataclass(frozen=True)
class OutcomeSettings:
    search_cost: float = 0.03
    """Per search. With three reads per search, a search that adds nothing costs 0.06 > the margin."""
    read_cost: float = 0.01
    """Per document read."""
    answer_weight: float = 0.5
    """Weight of a right short answer, where the gold file has the answer."""
    gold: GoldSet | None = None
    corpus: str | None = None
    """The runs' corpus file; None is the embedded corpus."""
    custom: CustomScorer | None = None
    score_by_gold: bool = True
    """False: record each side's gold recall but score by the filters (to measure how well they agree)."""
    margins: dict[str, float] = field(default_factory=dict)
    """Per decision kind, the least score difference that counts as a win (default `DEFAULT_MARGIN`)."""

    def margin(self, kind: str) -> float:
        return self.margins.get(kind, DEFAULT_MARGIN)

    def cost(self, searches: int, reads: int) -> float:
        return self.search_cost * searches + self.read_cost * reads


@dataclass(frozen=True)
class Outcome:
    score: float
    basis: str
    """`gold_recall`, `filters` or `custom`: what `score` was computed from."""
    verified: bool
    """The report has a cited claim and every cited claim's verdict is `entail`."""
    gold_recall: float | None
    """Gold recall of what the branch read, where the gold file has the question."""
    searches: int
    run_id: str
    filters_score: float
    """The gold-free score, kept beside `score` so one set of rollouts can be scored both ways."""
    reads: int = 0
    answer_correct: float | None = None
    """1.0 / 0.0 when the gold file has the question's answer; None otherwise."""

    def rescored(self, score_by_gold: bool, settings: OutcomeSettings) -> Outcome:
        """This outcome scored by gold (where known) or by the filters alone; custom scores stay."""
        if self.basis == "custom":
            return self
        if score_by_gold and self.gold_recall is not None:
            earned = self.gold_recall + settings.answer_weight * (self.answer_correct or 0.0)
            return replace(self, score=round(earned - settings.cost(self.searches, self.reads), 6),
                           basis="gold_recall")
        return replace(self, score=self.filters_score, basis="filters")


def report_verified(events: list[BaseEvent]) -> bool:
    report = next((e.report for e in reversed(events) if e.type == "report_written"), None)  # type: ignore[attr-defined]
    if report is None:
        return False
    cited = [c for section in report.sections for c in section.claims if c.citations]
    return bool(cited) and all(c.verdict == "entail" for c in cited)


def gold_free_quality(header: RunHeader, events: list[BaseEvent]) -> tuple[float, int, int]:
    """(the gold-free run score, 0 when not computed; searches; reads)."""
    s = score_run(events, header=header)
    reads = sum(1 for e in events if e.type == "document_read")
    return s.run_score or 0.0, s.searches, reads


def answer_correct(header: RunHeader, events: list[BaseEvent], gold: GoldSet | None) -> float | None:
    entry = gold.get(header.spec.question) if gold is not None else None
    if entry is None or not entry.answers:
        return None
    match = answer_match(stated_answer(RunView.build(events, header=header)), list(entry.answers))
    return None if match is None else float(match.correct)


def score_outcome(header: RunHeader, events: list[BaseEvent], settings: OutcomeSettings) -> Outcome:
    gold = settings.gold.recall(header.spec.question, events) if settings.gold is not None else None
    quality, searches, reads = gold_free_quality(header, events)
    filters_score = round(quality - settings.cost(searches, reads), 6)
    outcome = Outcome(filters_score, "filters", report_verified(events), gold, searches, header.run_id, filters_score,
                      reads, answer_correct(header, events, settings.gold))
    if settings.custom is not None:
        return replace(outcome, score=round(settings.custom(header, events), 6), basis="custom")
    return outcome.rescored(settings.score_by_gold, settings)
