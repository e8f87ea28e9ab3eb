"""Value models that trajectory events carry: plans, tool calls, evidence, claims, reports.

These are the nouns of a research run. They live in the format layer because every
event embeds them and a run file must load without the runtime that wrote it.
Frozen where a value must not change after it is recorded (cards, hits, decisions).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ToolStatus = Literal["ok", "empty", "timeout", "rate_limited", "parse_error", "refused"]
"""Outcome of one tool call. `empty` is a real answer ("nothing matched"); the last four
are failures and never mean "no information"."""

TRANSIENT_STATUSES: frozenset[str] = frozenset({"timeout", "rate_limited"})
"""Statuses worth retrying with backoff."""

SubQuestionStatus = Literal["pending", "blocked", "searching", "satisfied", "dead_end", "exhausted"]
"""`blocked`: waits on a dependency. `dead_end`: the dead-end rule fired (tried enough
angles, something relevant came back, still no evidence). `exhausted`: its budget ran out
without the dead-end conditions being met: "not found yet", not "does not exist"."""

Verdict = Literal["entail", "partial", "conflict", "irrelevant", "undecidable"]

EvidenceType = Literal[
    "primary_document",
    "primary_experiment",
    "firsthand_account",
    "independent_measurement",
    "news_report",
    "reference_work",
    "secondary_summary",
    "community_discussion",
    "unknown",
]
"""Seed 001 section 6.5; `reference_work` covers encyclopedias such as Wikipedia."""


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------- plan


class SubQuestion(Frozen):
    id: str
    """Stable id within the run, e.g. `sq1`."""
    axis: str
    """Id of the axis this sub-question belongs to."""
    question: str
    """The sub-question in falsifiable form."""
    search_query: str
    """A query that can be issued as is (may contain `{sq1}` slots filled from dependencies)."""
    stop_condition: str
    """When this sub-question counts as answered."""
    depends_on: list[str] = Field(default_factory=list)
    """Sub-question ids whose answer entity must be known before this one can be searched."""
    weight: float = 1.0
    """Importance weight used in urgency and weighted coverage."""
    need: int = 1
    """Independent evidence sources needed to call it satisfied."""
    expected_claims: list[str] = Field(default_factory=list)
    """Claims the plan expects the report to state; fixed at plan time (coverage metric)."""
    expansion: bool = False
    """True for sub-questions added during the loop (capped at a third of the originals)."""
    finds: str = ""
    """The kind of thing the hop looks for, as the question words it ("series" in "starred
    in a series that ...", "station" in "on what station"); empty when the question does not
    say. A name standing next to this word in the evidence is the likelier one."""


class Axis(Frozen):
    id: str
    title: str
    """What side of the question this axis answers; becomes a report section."""


class Premise(Frozen):
    id: str
    text: str
    """A fact the question takes for granted and the run should verify."""
    subq: str
    """The sub-question that verifies it."""


class Plan(Frozen):
    question: str
    question_type: Literal["bridge", "comparison", "factoid"]
    scope_in: list[str]
    """What this research covers."""
    scope_out: list[str]
    """What it deliberately does not cover."""
    axes: list[Axis]
    sub_questions: list[SubQuestion]
    premises: list[Premise] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    """Default assumptions made instead of asking the user (shown in the report)."""
    entities: list[str] = Field(default_factory=list)
    """Named entities the planner found in the question."""


# --------------------------------------------------------------------------- tools


class SearchHit(Frozen):
    doc_id: str
    title: str
    source: str
    """Publisher or site the hit comes from."""
    date: str | None = None
    snippet: str
    """A short snippet, never the full text."""
    score: float
    rank: int
    subq: str | None = None
    """The sub-question this search served."""


class SearchResponse(Frozen):
    status: ToolStatus
    hits: list[SearchHit] = Field(default_factory=list)
    error: str | None = None
    """Human-readable reason for a failure status."""


class Sentence(Frozen):
    sid: str
    """Stable id: `{doc_id}#s{index}`."""
    index: int
    text: str


class ReadResponse(Frozen):
    status: ToolStatus
    doc_id: str
    title: str = ""
    url: str | None = None
    publisher: str | None = None
    published: str | None = None
    source_type: str | None = None
    sentences: list[Sentence] = Field(default_factory=list)
    error: str | None = None


# --------------------------------------------------------------------------- evidence


class Grade(Frozen):
    """The four grading dimensions (authority, freshness, primary/secondary, relevance), kept separate on purpose."""

    authority: Literal["high", "medium", "low", "unknown"]
    """Standing of the publisher on this kind of claim."""
    freshness: Literal["current", "historical", "undated"]
    """Whether the evidence is inside the claim type's validity window."""
    primacy: Literal["primary", "secondary", "independent", "unknown"]
    """Did the author produce the fact themselves?"""
    relevance: float
    """Share of the sub-question's key terms the quote covers (0..1)."""


class EvidenceCard(Frozen):
    card_id: str
    """Content-addressed id of (doc id, sentence ids)."""
    subq: str
    doc_id: str
    sentence_ids: list[str]
    quote: str
    """The cited text, verbatim from the document."""
    context: str
    """The quote with its neighbouring sentences, for checking by a reader."""
    title: str
    url: str
    publisher: str
    published: str | None
    evidence_type: EvidenceType
    grade: Grade
    cluster_id: str
    """Same-source cluster: canonical URL merged with near-duplicate content."""
    mirrors: list[str] = Field(default_factory=list)
    """Doc ids of near-duplicates of this document seen in the run."""
    conflicts_with: list[str] = Field(default_factory=list)
    """Card ids this card contradicts, marked at ingest."""


class RejectedText(Frozen):
    doc_id: str
    sentence_ids: list[str]
    reason: Literal["injection", "duplicate", "low_relevance", "out_of_scope", "not_kept"]
    detail: str


# --------------------------------------------------------------------------- claims and report


class Claim(Frozen):
    claim_id: str
    subq: str
    text: str
    card_ids: list[str]
    """Evidence the claim is bound to."""


class VerdictRecord(Frozen):
    claim_id: str
    verdict: Verdict
    checker: str
    """Which check decided it (e.g. `lexical`, `number`, `negation`, `reverse`)."""
    reason: str
    support: float
    """Share of the claim's content terms found in its evidence."""
    missing_terms: list[str] = Field(default_factory=list)
    missing_numbers: list[str] = Field(default_factory=list)
    counter_card_ids: list[str] = Field(default_factory=list)
    """Cards found by the reverse check that contradict the claim."""


class ReportClaim(Frozen):
    claim_id: str
    text: str
    citations: list[str]
    """Card ids, rendered as markers [1], [2] in Markdown."""
    verdict: Verdict
    confidence: Literal["strong", "moderate", "weak"]
    """Computed from the ledger: independent sources and primary evidence."""
    independent_sources: int
    weakened: bool = False


class ReportSection(Frozen):
    axis: str
    title: str
    claims: list[ReportClaim]


class Gap(Frozen):
    subq: str
    question: str
    status: SubQuestionStatus
    queries_tried: list[str]
    note: str


class Disagreement(Frozen):
    claim_id: str
    text: str
    card_ids: list[str]
    counter_card_ids: list[str]


AnswerKind = Literal["entity", "date", "number", "yes_no", "choice"]
"""What shape of answer the question asks for: a name, a date, a number, yes or no, or one of
the options the question names."""
AnswerStatus = Literal["answered", "not_found", "dead_end", "conflict"]


class Answer(Frozen):
    """The short answer the report states first, or why there is none.

    The text is extracted in code: a span of a cited sentence (entity, date, number), or
    computed from the cited sentences of the compared hops (yes/no, choice). A model may
    phrase the claims around it, but never the answer's own words."""

    status: AnswerStatus
    """`answered`, or why not: `not_found` (no kept claim states it), `dead_end` (the hop that
    would state it was searched to a dead end), `conflict` (the evidence names different answers)."""
    kind: AnswerKind
    text: str | None = None
    """The short answer (None unless `answered`)."""
    claim_ids: list[str] = Field(default_factory=list)
    """Kept claims whose cited sentences state or compute the answer."""
    confidence: Literal["strong", "moderate", "weak"] | None = None
    """The weakest confidence of those claims (None unless `answered`)."""
    reason: str
    """How the answer was found, or why there is none."""
    candidates: list[str] = Field(default_factory=list)
    """With `conflict`: the answers the evidence supports; otherwise runners-up, best first."""


class Report(Frozen):
    question: str
    sections: list[ReportSection]
    gaps: list[Gap]
    disagreements: list[Disagreement]
    dropped: list[str]
    """Claim ids the verifier removed."""
    assumptions: list[str]
    corpus_cutoff: str | None
    """Latest publication date in the corpus, or None when documents are undated."""
    evidence: list[EvidenceCard]
    """Every card cited in the report (the appendix)."""
    resolved_entities: dict[str, str] = Field(default_factory=dict)
    """Bridge entities found in evidence, by the sub-question that found them."""
    premises: dict[str, bool] = Field(default_factory=dict)
    """Premise text -> whether the sub-question verifying it found evidence."""
    answer: Answer | None = None
    """The short answer (or why there is none); None in reports written before schema 3."""
