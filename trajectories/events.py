"""Trajectory events: one pydantic class per kind, read through one discriminated union.

A run file is a header line (`RunHeader`) followed by these events in `seq` order. The
decision events live in `citeloop.trajectories.decision_events`, the model-call events in
`citeloop.trajectories.model_call_events` and the base fields in
`citeloop.trajectories.event_base`; all are re-exported here.
Every event carries `run_id`, `seq` and `parent_seq` (its causal parent, e.g. a read's
search) and `subq` where it concerns a sub-question. Nothing here reads a clock: the only
wall-clock facts of a run live in the final `run_meta` event, which determinism checks
leave out.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict

from citeloop.trajectories.header import SCHEMA_VERSION
from citeloop.trajectories.models import (
    Claim,
    EvidenceCard,
    Plan,
    RejectedText,
    Report,
    SearchResponse,
    SubQuestion,
    SubQuestionStatus,
    ToolStatus,
    Verdict,
    VerdictRecord,
)
from citeloop.trajectories.event_base import BaseEvent, PolicyRef  # noqa: F401 - re-exported
from citeloop.trajectories.model_call_events import (  # noqa: F401 - re-exported
    ModelCall,
    ModelCallStatus,
    ModelMessage,
    OutputConstraint,
    SamplingSettings,
    TokenLogprob,
    ToolCall,
    ToolFunction,
)
from citeloop.trajectories.decision_events import (  # noqa: F401 - re-exported
    AngleDecision,
    AngleState,
    FollowCandidate,
    FollowDecision,
    FollowState,
    HardLimit,
    KeepCandidate,
    KeepDecision,
    ReadDecision,
    ReadState,
    StopDecision,
    StopSignals,
)


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
    type: Literal["subq_status_changed"] = "subq_status_changed"
    old: SubQuestionStatus
    new: SubQuestionStatus
    reason: str
    resolved_query: str | None = None
    """For a dependent sub-question becoming ready: its query with slots filled."""


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
    type: Literal["evidence_bound"] = "evidence_bound"
    claim_id: str
    card_ids: list[str]


class VerdictReached(BaseEvent):
    type: Literal["verdict_reached"] = "verdict_reached"
    record: VerdictRecord
    pass_: int = Field(default=1, alias="pass")
    """1 for the first check, 2 for the check after a rewrite."""
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class ClaimRewritten(BaseEvent):
    type: Literal["claim_rewritten"] = "claim_rewritten"
    claim_id: str
    old_text: str
    new_text: str
    reason: str


class ClaimDropped(BaseEvent):
    type: Literal["claim_dropped"] = "claim_dropped"
    claim_id: str
    verdict: Verdict
    reason: str


class DeadEnd(BaseEvent):
    type: Literal["dead_end"] = "dead_end"
    queries_tried: list[str]
    angles_tried: list[str]
    reason: str


# --------------------------------------------------------------------------- model calls


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
    type: Literal["report_written"] = "report_written"
    report: Report


class RunOutcome(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    status: Literal["completed", "failed"]
    stop_reason: str
    counts: dict[str, int]
    """Counts by name: `searches`, `reads`, `cards`, `rejected`, `injections_blocked`,
    `claims_drafted`, `claims_kept`, `dropped`, `rewrites`, `conflicts`, `tool_errors`,
    `dead_ends`, `rounds`."""
    metrics: dict[str, float | None]
    """Outcome metrics computed from the ledger (`coverage`, `weighted_evidence_coverage`,
    `drop_rate`); None means not computed."""


class RunFinished(BaseEvent):
    type: Literal["run_finished"] = "run_finished"
    outcome: RunOutcome


class ModelCallTransport(TypedDict):
    """How one model call's reply arrived (a `run_meta` fact, not part of the `model_call` event)."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    attempts: list[ModelCallStatus]
    """Status of every attempt, retries included; empty for a cache hit."""
    cached: bool
    """The reply came from the response cache."""


class CheckCounts(TypedDict):
    """How often one check ran in a run, and how often it fired."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    ran: int
    """Times the check ran."""
    fired: int
    """Times it fired (found something)."""


class RunMeta(BaseEvent):
    """The one non-deterministic block: wall-clock times, latencies and host facts."""

    type: Literal["run_meta"] = "run_meta"
    started_at: str
    finished_at: str
    wall_ms: float
    host: dict[str, str]
    latency_ms: dict[str, float]
    """Tool-call latency by event seq (as a string key)."""
    model_calls: dict[str, ModelCallTransport] = Field(default_factory=dict)
    """How each model call's reply arrived, by `model_call` seq: `attempts` (status of every
    try, retries included; empty for a cache hit) and `cached`. Transport facts, so they sit
    here: a replay served from a cache records the same `model_call` events."""
    checks: dict[str, CheckCounts] = Field(default_factory=dict)
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
    FollowDecision,
    HardLimit,
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

DECISION_TYPES: frozenset[str] = frozenset({"angle_decision", "read_decision", "keep_decision", "stop_decision",
                                            "follow_decision"})
NONDETERMINISTIC_TYPES: frozenset[str] = frozenset({"run_meta"})


@cache
def event_adapter() -> TypeAdapter[Any]:
    """The one cached TypeAdapter for the event union."""
    return TypeAdapter(AnyEvent)


RENAMED_TAGS: dict[str, str] = {
    "subq_status": "subq_status_changed",
    "binding": "evidence_bound",
    "verdict": "verdict_reached",
    "rewrite": "claim_rewritten",
    "drop": "claim_dropped",
    "report": "report_written",
}
"""Event `type` tags of schema versions 1-3 -> their version-4 names (the class name in snake_case)."""


def migrate_event(data: Any, schema_version: int | None = SCHEMA_VERSION) -> Any:
    """An event line of a file written at `schema_version` (as its header wrote it; None: the
    header has none), brought up to SCHEMA_VERSION: before version 4 some tags had other names
    (`RENAMED_TAGS`). No old tag is a new one, so a file without a version is mapped too."""
    old = schema_version is None or schema_version < 4
    if old and isinstance(data, dict) and data.get("type") in RENAMED_TAGS:
        data = {**data, "type": RENAMED_TAGS[data["type"]]}
    before_5 = schema_version is None or schema_version < 5
    if before_5 and isinstance(data, dict) and data.get("type") == "stop_decision" \
            and (data.get("policy") or {}).get("name") == "hard_limit":
        data = _hard_limit_of(data)
    return data


def _hard_limit_of(data: dict[str, Any]) -> dict[str, Any]:
    """A schema 1-4 `stop_decision` by the `hard_limit` policy, as the `hard_limit` event it was."""
    state = data.get("state") or {}
    reason = str(data.get("reason", ""))
    limit = "budget" if state.get("budget_exhausted") else "nothing_left" if not state.get("open_subqs") \
        else "max_rounds"
    return {k: v for k, v in data.items() if k in ("run_id", "seq", "parent_seq", "subq")} | {
        "type": "hard_limit", "round": int(state.get("round", 0)), "limit": limit, "reason": reason}


def parse_event(data: dict[str, Any], schema_version: int | None = SCHEMA_VERSION) -> Event:
    """Validate one event line; `schema_version` is the file's version as written (older lines are migrated)."""
    return event_adapter().validate_python(migrate_event(data, schema_version))


def event_to_dict(event: BaseEvent) -> dict[str, Any]:
    return event.model_dump(mode="json", by_alias=True)
