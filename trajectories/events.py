"""Trajectory events: one pydantic class per kind, read through one discriminated union.

A run file is a header line (`RunHeader`) followed by these events in `seq` order.
Every event carries `run_id`, `seq` and `parent_seq` (its causal parent, e.g. a read's
search) and `subq` where it concerns a sub-question. Nothing here reads a clock: the only
wall-clock facts of a run live in the final `run_meta` event, which determinism checks
leave out.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from citeloop.trajectories.models import (
    Claim,
    EvidenceCard,
    Plan,
    RejectedText,
    Report,
    SearchHit,
    SearchResponse,
    SubQuestion,
    SubQuestionStatus,
    ToolStatus,
    Verdict,
    VerdictRecord,
)


class PolicyRef(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    """Registry name of the policy, e.g. `heuristic`."""
    version: str
    """Version string of the policy implementation."""


class BaseEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    run_id: str
    """Id of the run this event belongs to."""
    seq: int
    """Position in the run: 0, 1, 2, ..."""
    parent_seq: int | None = None
    """The event that caused this one, if any."""
    subq: str | None = None
    """Sub-question this event concerns, if any."""


# --------------------------------------------------------------------------- planning


class PlanCreated(BaseEvent):
    type: Literal["plan_created"] = "plan_created"
    plan: Plan
    """The validated plan; the run does not start when validation fails."""
    planner: PolicyRef


class SubQuestionAdded(BaseEvent):
    type: Literal["subq_added"] = "subq_added"
    sub_question: SubQuestion
    """An expansion sub-question added during the loop."""
    reason: str


class SubQuestionStatusChanged(BaseEvent):
    type: Literal["subq_status"] = "subq_status"
    old: SubQuestionStatus
    new: SubQuestionStatus
    reason: str
    resolved_query: str | None = None
    """For a dependent sub-question becoming ready: its query with slots filled."""


# --------------------------------------------------------------------------- decisions


class AngleState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    round: int
    base_query: str
    tried_queries: list[str]
    deficit: int
    """Evidence sources still needed by this sub-question."""
    dependent: bool = False
    """The query carries an entity found by an earlier hop."""


class AngleDecision(BaseEvent):
    type: Literal["angle_decision"] = "angle_decision"
    state: AngleState
    candidates: list[str]
    """Candidate queries, one per angle."""
    angles: list[str]
    """The angle name of each candidate."""
    choice: int
    """Index into candidates."""
    policy: PolicyRef
    reason: str


class ReadState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    hits: list[SearchHit]
    """The hits of the search being read from."""
    already_read: list[str]
    """Doc ids the run has read before."""
    reads_left: int
    """Reads the budget still allows for this sub-question."""
    named: list[str] = Field(default_factory=list)
    """Doc ids of hits whose title names one of the sub-question's entities."""


class ReadDecision(BaseEvent):
    type: Literal["read_decision"] = "read_decision"
    state: ReadState
    candidates: list[str]
    """Doc ids of hits that could be read."""
    choice: list[str]
    """Doc ids chosen to read, in order."""
    policy: PolicyRef
    reason: str


class KeepCandidate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    sid: str
    text: str
    relevance: float


class KeepDecision(BaseEvent):
    type: Literal["keep_decision"] = "keep_decision"
    doc_id: str
    candidates: list[KeepCandidate]
    """Sentences of the document that could become evidence cards."""
    choice: list[str]
    """Sentence ids kept as cards."""
    policy: PolicyRef
    reason: str


class StopSignals(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    round: int
    min_rounds: int
    searches_used: int
    searches_max: int
    reads_used: int
    reads_max: int
    recent_gains: list[int]
    """New independent evidence bound to open sub-questions, per round, most recent last."""
    recent_new_cards: list[int]
    """New evidence cards per round, most recent last."""
    uncovered_terms: list[str]
    """Question terms that no kept evidence mentions yet."""
    initial_deficit: int
    coverage: float
    """Weighted coverage of sub-questions by evidence."""
    coverage_target: float
    open_subqs: list[str]
    """Sub-questions that can still be searched."""
    min_rounds_met: bool
    gain_flat: bool
    coverage_met: bool
    budget_exhausted: bool


class StopDecision(BaseEvent):
    type: Literal["stop_decision"] = "stop_decision"
    state: StopSignals
    candidates: list[Literal["continue", "stop"]] = Field(default_factory=lambda: ["continue", "stop"])
    choice: Literal["continue", "stop"]
    policy: PolicyRef
    reason: str


# --------------------------------------------------------------------------- tools


class QueryIssued(BaseEvent):
    type: Literal["query_issued"] = "query_issued"
    query: str
    angle: str
    k: int
    round: int


class SearchResult(BaseEvent):
    type: Literal["search_result"] = "search_result"
    query: str
    response: SearchResponse
    attempts: list[ToolStatus]
    """Status of every attempt, retries included; the last one is `response.status`."""


class TextBlob(BaseEvent):
    type: Literal["text_blob"] = "text_blob"
    digest: str
    """sha256 of the text; events refer to the text by this digest."""
    text: str


class SentenceSpan(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    sid: str
    index: int
    start: int
    end: int
    """Character offsets into the document text blob."""


class DocumentRead(BaseEvent):
    type: Literal["document_read"] = "document_read"
    doc_id: str
    status: ToolStatus
    attempts: list[ToolStatus]
    title: str = ""
    url: str | None = None
    publisher: str | None = None
    published: str | None = None
    source_type: str | None = None
    text_digest: str | None = None
    """Digest of the `text_blob` holding the document text (stored once per file)."""
    sentences: list[SentenceSpan] = Field(default_factory=list)
    error: str | None = None


# --------------------------------------------------------------------------- evidence


class CardCreated(BaseEvent):
    type: Literal["card_created"] = "card_created"
    card: EvidenceCard


class CardRejected(BaseEvent):
    type: Literal["card_rejected"] = "card_rejected"
    rejected: RejectedText


class ConflictMarked(BaseEvent):
    type: Literal["conflict_marked"] = "conflict_marked"
    card_id: str
    other_card_id: str
    reason: str


# --------------------------------------------------------------------------- claims


class ClaimDrafted(BaseEvent):
    type: Literal["claim_drafted"] = "claim_drafted"
    claim: Claim


class EvidenceBound(BaseEvent):
    type: Literal["binding"] = "binding"
    claim_id: str
    card_ids: list[str]


class VerdictReached(BaseEvent):
    type: Literal["verdict"] = "verdict"
    record: VerdictRecord
    pass_: int = Field(default=1, alias="pass")
    """1 for the first check, 2 for the check after a rewrite."""
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class ClaimRewritten(BaseEvent):
    type: Literal["rewrite"] = "rewrite"
    claim_id: str
    old_text: str
    new_text: str
    reason: str


class ClaimDropped(BaseEvent):
    type: Literal["drop"] = "drop"
    claim_id: str
    verdict: Verdict
    reason: str


class DeadEnd(BaseEvent):
    type: Literal["dead_end"] = "dead_end"
    queries_tried: list[str]
    angles_tried: list[str]
    reason: str


# --------------------------------------------------------------------------- model calls


ModelCallStatus = Literal["ok", "timeout", "rate_limited", "parse_error", "refused", "error"]
"""Outcome of one model call. Only `ok` carries an answer; the others are failures (an
empty, truncated or off-constraint completion is `parse_error`) and never mean "no information"."""


class ModelMessage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    role: Literal["system", "user", "assistant"]
    content: str


class TokenLogprob(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    token: str
    logprob: float
    token_id: int | None = None
    """Vocabulary id, when the server returns it."""
    top: dict[str, float] = Field(default_factory=dict)
    """Top alternatives at this position (token -> logprob), when requested."""


class ModelCall(BaseEvent):
    """One chat call to a language model: what was asked, under which settings, and what came back.

    Latency is not here (it is wall-clock): it goes to `run_meta.latency_ms` under this seq.
    """

    type: Literal["model_call"] = "model_call"
    prompt_id: str
    """Id of the prompt asset (configs/prompts/ID.yaml)."""
    prompt_version: int
    model: str
    """Model name as sent to the server (or `fake:NAME` for the scripted client)."""
    messages: list[ModelMessage]
    """The rendered messages, exactly as sent."""
    sampling: dict[str, Any]
    """Sampling settings sent with the request (temperature, seed, max_tokens, ...)."""
    constraint: dict[str, Any] | None = None
    """Structured-output constraint (`{"kind": "choice", "value": [...]}` etc.), if any."""
    request_digest: str
    """Content hash of (model, prompt id and version, messages, sampling, constraint): the cache key."""
    status: ModelCallStatus
    completion: str = ""
    """The completion text as returned (also kept on failures such as a truncated reply)."""
    finish_reason: str | None = None
    error: str | None = None
    """Human-readable reason for a failure status."""
    attempts: list[ModelCallStatus] = Field(default_factory=list)
    """Status of every attempt, retries included (empty for a cache hit)."""
    usage: dict[str, int] | None = None
    """Token usage (`prompt_tokens`, `completion_tokens`, ...), when the server returns it."""
    logprobs: list[TokenLogprob] | None = None
    """Per-token logprobs of the completion, when requested and returned."""

    @model_validator(mode="before")
    @classmethod
    def _drop_transport_facts(cls, data: Any) -> Any:
        # Files written before the transport facts moved to `run_meta.model_calls` carry
        # `attempts` and `cached` here; they say how a reply arrived, not what it was.
        if isinstance(data, dict) and ("attempts" in data or "cached" in data):
            data = {k: v for k, v in data.items() if k not in ("attempts", "cached")}
        return data


class PartFallback(BaseEvent):
    """A model-backed part could not be used as designed and its rule-based stand-in took over."""

    type: Literal["part_fallback"] = "part_fallback"
    part: Literal["planner", "writer", "judge", "critic", "screen"]
    """Which role fell back."""
    fallback: str
    """What took over, e.g. `rule planner`, `rule writer`, `deterministic verdict`, `no veto`."""
    reason: str
    """Why, e.g. the plan gate's reasons or the reply's parse error."""
    model_call_seqs: list[int] = Field(default_factory=list)
    """The `model_call` events whose replies were rejected."""


class CitationRemoved(BaseEvent):
    """The output audit found a citation whose quote its source does not bear out."""

    type: Literal["citation_removed"] = "citation_removed"
    claim_id: str
    card_id: str
    reason: str
    claim_removed: bool
    """True when this was the claim's last citation, so the claim left the report."""


# --------------------------------------------------------------------------- outcome


class ReportWritten(BaseEvent):
    type: Literal["report"] = "report"
    report: Report


class RunOutcome(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    status: Literal["completed", "failed"]
    stop_reason: str
    counts: dict[str, int]
    """searches, reads, cards, rejected, claims, kept, dropped, rewrites, tool_errors..."""
    metrics: dict[str, float | None]
    """Outcome metrics computed from the ledger; None means not computed."""


class RunFinished(BaseEvent):
    type: Literal["run_finished"] = "run_finished"
    outcome: RunOutcome


class RunMeta(BaseEvent):
    """The one non-deterministic block: wall-clock times, latencies and host facts."""

    type: Literal["run_meta"] = "run_meta"
    started_at: str
    finished_at: str
    wall_ms: float
    host: dict[str, str]
    latency_ms: dict[str, float]
    """Tool-call latency by event seq (as a string key)."""
    model_calls: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """How each model call's reply arrived, by `model_call` seq: `attempts` (status of every
    try, retries included; empty for a cache hit) and `cached`. Transport facts, so they sit
    here: a replay served from a cache records the same `model_call` events."""
    checks: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Per check (e.g. `judge`, `writer_numbers`, `audit`): `ran` and `fired` counts in this run,
    so firing rates can be measured (a check that fires often is a bug)."""


Event = Union[
    PlanCreated,
    SubQuestionAdded,
    SubQuestionStatusChanged,
    AngleDecision,
    ReadDecision,
    KeepDecision,
    StopDecision,
    QueryIssued,
    SearchResult,
    TextBlob,
    DocumentRead,
    CardCreated,
    CardRejected,
    ConflictMarked,
    ClaimDrafted,
    EvidenceBound,
    VerdictReached,
    ClaimRewritten,
    ClaimDropped,
    DeadEnd,
    ModelCall,
    PartFallback,
    CitationRemoved,
    ReportWritten,
    RunFinished,
    RunMeta,
]
AnyEvent = Annotated[Event, Field(discriminator="type")]

DECISION_TYPES: frozenset[str] = frozenset({"angle_decision", "read_decision", "keep_decision", "stop_decision"})
NONDETERMINISTIC_TYPES: frozenset[str] = frozenset({"run_meta"})


@cache
def event_adapter() -> TypeAdapter[Any]:
    """The one cached TypeAdapter for the event union."""
    return TypeAdapter(AnyEvent)


def parse_event(data: dict[str, Any]) -> Event:
    return event_adapter().validate_python(data)


def event_to_dict(event: BaseEvent) -> dict[str, Any]:
    return event.model_dump(mode="json", by_alias=True)
