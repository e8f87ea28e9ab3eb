"""Model-call events: one chat call to a language model (`ModelCall`) and the shapes it is
recorded with (messages, tool calls, token logprobs, sampling settings, output constraints).
Re-exported by `citeloop.trajectories.events`, which holds the event union."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator
from typing_extensions import NotRequired, TypedDict

from citeloop.trajectories.event_base import BaseEvent

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
