"""Trajectory events: one pydantic class per kind, read through one discriminated union.

A run file is a header line (`RunHeader`) followed by these events in `seq` order. The
decision events live in `citeloop.trajectories.decision_events` and the base fields in
`citeloop.trajectories.event_base`; both are re-exported here.
Every event carries `run_id`, `seq` and `parent_seq` (its causal parent, e.g. a read's
search) and `subq` where it concerns a sub-question. Nothing here reads a clock: the only
wall-clock facts of a run live in the final `run_meta` event, which determinism checks
leave out.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_serializer, model_validator
from typing_extensions import NotRequired, TypedDict

from citeloop.trajectories.header import SCHEMA_VERSION
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
from citeloop.trajectories.event_base import BaseEvent, PolicyRef  # noqa: F401 - re-exported
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


ModelCallStatus = Literal["ok", "timeout", "rate_limited", "parse_error", "refused", "error"]
"""Outcome of one model call. Only `ok` carries an answer; the others are failures (an
empty, truncated or off-constraint completion is `parse_error`) and never mean "no information"."""


class ToolFunction(BaseModel):
    """The function a tool call invokes (OpenAI chat shape)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    """Name of the tool function."""
    arguments: str
    """Its arguments as the model wrote them: a JSON text, not parsed."""


class ToolCall(BaseModel):
    """One tool call requested in an assistant message (OpenAI chat shape)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str
    """Call id; the `tool` message answering it carries it as `tool_call_id`."""
    type: Literal["function"] = "function"
    """Kind of tool; `function` is the only one."""
    function: ToolFunction
    """The function called and its arguments."""


class ModelMessage(BaseModel):
    """One chat message, as sent. `tool_calls` and `tool_call_id` follow the OpenAI chat shape;
    nothing writes them yet, and they are left out of the line when unset."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    role: Literal["system", "user", "assistant", "tool"]
    """Who speaks: `tool` is the answer to an assistant's tool call."""
    content: str
    """The message text (empty for an assistant message that only calls tools)."""
    tool_calls: list[ToolCall] | None = None
    """Tool calls requested by an assistant message, if any."""
    tool_call_id: str | None = None
    """For a `tool` message: the id of the tool call it answers."""

    @model_serializer(mode="wrap")
    def _omit_unset_tool_fields(self, handler: Any) -> Any:
        # Messages without tool calls are written as before (role, content): the request
        # digests and replays of earlier runs stay the same.
        data = handler(self)
        if isinstance(data, dict):
            for key in ("tool_calls", "tool_call_id"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data


class TokenLogprob(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    token: str
    logprob: float
    token_id: int | None = None
    """Vocabulary id, when the server returns it."""
    top: dict[str, float] = Field(default_factory=dict)
    """Top alternatives at this position (token -> logprob), when requested."""


class SamplingSettings(TypedDict, total=False):
    """The sampling settings a model call was sent with, as the client's `Sampling` writes them
    (all six keys). Each key is typed where present; keys other clients add are kept as written.
    A plain dict on the event, so it serialises exactly as recorded."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]
    temperature: float
    """0 is greedy decoding."""
    top_p: float
    """Nucleus-sampling mass."""
    seed: int
    """Sampling seed sent to the server."""
    max_tokens: int
    """Completion length limit."""
    logprobs: bool
    """Whether per-token logprobs of the completion were asked for."""
    top_logprobs: int | None
    """How many alternatives per position were asked for, if any."""


class OutputConstraint(TypedDict):
    """A structured-output constraint sent with a model call (the client's `Constraint`)."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    kind: Literal["choice", "regex", "json"]
    """`choice` (one of a list of strings), `regex` or `json` (a JSON schema)."""
    value: list[str] | str | dict[str, Any]
    """The choices, the regex, or the JSON schema."""
    scoring: NotRequired[Literal["sequence"]]
    """A choice decided by scoring every option's whole token sequence (absent: the server's
    constrained decoding)."""


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
    sampling: SamplingSettings
    """Sampling settings sent with the request (temperature, seed, max_tokens, ...)."""
    constraint: OutputConstraint | None = None
    """Structured-output constraint (`{"kind": "choice", "value": [...]}` etc.), if any."""
    request_digest: str
    """Content hash of (model, prompt id and version, messages, sampling, constraint): the cache key."""
    status: ModelCallStatus
    completion: str = ""
    """The completion text as returned (also kept on failures such as a truncated reply)."""
    finish_reason: str | None = None
    error: str | None = None
    """Human-readable reason for a failure status."""
    usage: dict[str, int] | None = None
    """Token usage (`prompt_tokens`, `completion_tokens`, ...), when the server returns it."""
    logprobs: list[TokenLogprob] | None = None
    """Per-token logprobs of the completion, when requested and returned."""
    option_scores: dict[str, float] | None = None
    """A sequence-scored choice: every option's total logprob (the completion is the best).
    Left out of the line when None, so calls recorded before schema 6 are written as before."""

    @model_serializer(mode="wrap")
    def _omit_unset_option_scores(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("option_scores") is None:
            data.pop("option_scores", None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _drop_transport_facts(cls, data: Any) -> Any:
        # Files written before the transport facts moved to `run_meta.model_calls` carry
        # `attempts` and `cached` here; they say how a reply arrived, not what it was, and
        # differ between a live call and a replay served from the cache, so they stay out
        # of this (deterministic) event.
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
