"""The model client: one OpenAI-compatible chat client (vLLM, or any server speaking the
chat-completions shape) behind a small `ChatClient` protocol.

Every call ends in a `ModelReply` with a status; nothing is raised into the engine and no
failure is ever handed back as an empty answer. Transient failures (timeouts, 429s, 5xx,
lost connections) are retried with exponential backoff; the openai package's own retries
are switched off so each attempt is ours to count and record. Successful replies are
cached on disk by the content hash of the request (`citeloop.runtime.llm.cache`).
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from citeloop.runtime.llm.cache import ResponseCache
from citeloop.runtime.llm.prompts import RenderedPrompt
from citeloop.runtime.llm.sequence_scoring import ScoringError, best_choice, prompt_token_logprobs, request_body
from citeloop.trajectories.events import ModelCallStatus, TokenLogprob
from citeloop.trajectories.header import content_digest


class Sampling(BaseModel):
    """Sampling settings sent with every request; deterministic by default."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    temperature: float = Field(0.0, ge=0.0)
    """0 is greedy decoding."""
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    seed: int = 0
    """Fixed seed, so a server that samples anyway does so reproducibly."""
    max_tokens: int = Field(512, ge=1)
    logprobs: bool = False
    """Ask for per-token logprobs of the completion."""
    top_logprobs: int | None = Field(None, ge=0, le=20)


class ModelEndpoint(BaseModel):
    """Where the model is served and how to talk to it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    base_url: str
    """OpenAI-compatible API root, e.g. `http://127.0.0.1:8000/v1`."""
    model: str
    """Model name as the server knows it."""
    api_key_env: str | None = None
    """Name of the environment variable holding the API key (the key itself never sits in a config).
    None, or an unset variable, sends a placeholder key (local vLLM needs none)."""
    timeout_s: float = Field(60.0, gt=0)
    """Per-attempt timeout."""
    max_retries: int = Field(2, ge=0)
    """Retries after the first attempt, for timeouts, rate limits, 5xx and lost connections."""
    backoff_s: float = Field(0.5, ge=0)
    """Wait before the first retry; doubled for each further one."""
    sampling: Sampling = Field(default_factory=Sampling)

    def api_key(self) -> str:
        if self.api_key_env:
            return os.environ.get(self.api_key_env) or "EMPTY"
        return "EMPTY"


class Constraint(BaseModel):
    """A structured-output constraint, sent as vLLM's `structured_outputs` and re-checked here;
    or, for a choice with `scoring="sequence"`, decided by scoring each option's whole token
    sequence (`citeloop.runtime.llm.sequence_scoring`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["choice", "regex", "json"]
    value: Any
    """The choices (list of str), the regex (str), or the JSON schema (dict)."""
    scoring: Literal["sequence"] | None = None
    """Choices only: `sequence` scores every option's whole sequence and takes the likeliest;
    None leaves the choice to the server's constrained decoding."""

    @classmethod
    def choice(cls, options: list[str], scoring: Literal["sequence"] | None = None) -> Constraint:
        return cls(kind="choice", value=list(options), scoring=scoring)

    def record(self) -> dict[str, Any]:
        """As recorded in `model_call` events and hashed into the cache key (no `scoring` when unset,
        so records and keys of plain constraints are what they always were)."""
        return self.model_dump(mode="json", exclude_none=True)

    @classmethod
    def regex(cls, pattern: str) -> Constraint:
        return cls(kind="regex", value=pattern)

    @classmethod
    def json_schema(cls, schema: dict[str, Any]) -> Constraint:
        return cls(kind="json", value=schema)

    def request_fields(self) -> dict[str, Any]:
        # vLLM >= 0.11 reads `structured_outputs`; the old `guided_*` keys are silently ignored.
        if self.kind == "json":
            return {"response_format": {"type": "json_schema",
                                        "json_schema": {"name": "reply", "schema": self.value}}}
        return {"extra_body": {"structured_outputs": {self.kind: self.value}}}

    def violation(self, text: str) -> str | None:
        """Why `text` does not meet the constraint (None when it does): servers may ignore it."""
        if self.kind == "choice":
            return None if text.strip() in self.value else f"reply {text[:80]!r} is not one of {self.value}"
        if self.kind == "regex":
            return None if re.fullmatch(self.value, text.strip()) else f"reply {text[:80]!r} does not match the regex"
        try:
            json.loads(text)
        except ValueError as exc:
            return f"reply is not valid JSON ({exc})"
        return None


class ModelReply(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    status: ModelCallStatus
    text: str = ""
    """The completion; meaningful as an answer only when `status` is `ok`."""
    finish_reason: str | None = None
    error: str | None = None
    attempts: list[ModelCallStatus] = Field(default_factory=list)
    usage: dict[str, int] | None = None
    logprobs: list[TokenLogprob] | None = None
    option_scores: dict[str, float] | None = None
    """Sequence-scored choices: every option's total logprob."""
    cached: bool = False
    latency_s: float = 0.0
    """Wall-clock time of the call (metadata: never part of an event)."""
    model: str = ""
    request_digest: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class ChatClient(Protocol):
    """What the LLM-backed parts talk to: the OpenAI-compatible client or the scripted fake."""

    @property
    def model(self) -> str: ...

    @property
    def sampling(self) -> Sampling: ...

    def chat(self, prompt: RenderedPrompt, constraint: Constraint | None = None) -> ModelReply: ...


def request_digest(model: str, prompt: RenderedPrompt, sampling: Sampling, constraint: Constraint | None) -> str:
    """The cache key: everything that decides the completion, and nothing else (not the URL)."""
    return content_digest({
        "model": model,
        "prompt_id": prompt.id,
        "prompt_version": prompt.version,
        "messages": [m.model_dump(mode="json") for m in prompt.messages],
        "sampling": sampling.model_dump(mode="json"),
        "constraint": constraint.record() if constraint else None,
    })


def check_completion(text: str, finish_reason: str | None, refusal: str | None,
                     constraint: Constraint | None) -> tuple[ModelCallStatus, str | None]:
    """Status of a completion the server did return: refusals, truncation, empty and
    off-constraint text are failures, never answers."""
    if refusal or finish_reason == "content_filter":
        return "refused", refusal or "content filter"
    if finish_reason == "length":
        return "parse_error", "truncated: the completion hit max_tokens"
    if not text.strip():
        return "parse_error", "empty completion"
    if constraint is not None:
        problem = constraint.violation(text)
        if problem:
            return "parse_error", problem
    return "ok", None


class _AttemptFailed(Exception):
    def __init__(self, status: ModelCallStatus, message: str, retry: bool) -> None:
        super().__init__(message)
        self.status, self.retry = status, retry


def _parse_logprobs(choice: dict[str, Any]) -> list[TokenLogprob] | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    out = []
    for item in content:
        top = {t["token"]: float(t["logprob"]) for t in item.get("top_logprobs") or [] if "token" in t}
        out.append(TokenLogprob(token=item["token"], logprob=float(item["logprob"]),
                                token_id=item.get("token_id"), top=top))
    return out


class OpenAIChatClient:
    """Chat completions over the `openai` package, with our retries, status mapping and cache."""

    def __init__(self, endpoint: ModelEndpoint, cache: ResponseCache | None = None,
                 sleep: Any = time.sleep) -> None:
        self.endpoint = endpoint
        self.cache = cache
        self._sleep = sleep  # injectable so tests need not wait out the backoff
        import openai  # here, not at module level: the package takes seconds to import

        self._client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key(),
                                     timeout=endpoint.timeout_s, max_retries=0)

    @property
    def model(self) -> str:
        return self.endpoint.model

    @property
    def sampling(self) -> Sampling:
        return self.endpoint.sampling

    def chat(self, prompt: RenderedPrompt, constraint: Constraint | None = None) -> ModelReply:
        started = time.perf_counter()
        digest = request_digest(self.model, prompt, self.sampling, constraint)
        if self.cache is not None:
            hit = self.cache.get(digest)
            if hit is not None:
                reply = ModelReply.model_validate(hit)
                return reply.model_copy(update={"cached": True, "attempts": [],
                                                "latency_s": time.perf_counter() - started})
        attempts: list[ModelCallStatus] = []
        while True:
            try:
                reply = self._attempt(prompt, constraint)
            except _AttemptFailed as failed:
                attempts.append(failed.status)
                if failed.retry and len(attempts) <= self.endpoint.max_retries:
                    self._sleep(self.endpoint.backoff_s * 2 ** (len(attempts) - 1))
                    continue
                return ModelReply(status=failed.status, error=str(failed), attempts=attempts, model=self.model,
                                  request_digest=digest, latency_s=time.perf_counter() - started)
            attempts.append(reply.status)
            reply = reply.model_copy(update={"attempts": attempts, "model": self.model, "request_digest": digest,
                                             "latency_s": time.perf_counter() - started})
            if reply.ok and self.cache is not None:
                self.cache.put(digest, reply.model_dump(mode="json", exclude={"latency_s", "cached", "attempts"}))
            return reply

    def _attempt(self, prompt: RenderedPrompt, constraint: Constraint | None) -> ModelReply:
        if constraint is not None and constraint.kind == "choice" and constraint.scoring == "sequence":
            return self._score_options(prompt, constraint)
        s = self.sampling
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in prompt.messages],
            "temperature": s.temperature, "top_p": s.top_p, "seed": s.seed, "max_tokens": s.max_tokens,
        }
        if s.logprobs:
            kwargs["logprobs"] = True
            if s.top_logprobs is not None:
                kwargs["top_logprobs"] = s.top_logprobs
        if constraint is not None:
            kwargs.update(constraint.request_fields())
        return self._read_body(self._post(kwargs), constraint)

    def _score_options(self, prompt: RenderedPrompt, constraint: Constraint) -> ModelReply:
        """One prefill request per option; the likeliest whole option is the reply."""
        messages = [m.model_dump() for m in prompt.messages]
        try:
            scored = {option: prompt_token_logprobs(self._post(request_body(self.model, messages, option)))
                      for option in constraint.value}
            choice = best_choice(scored)
        except ScoringError as exc:
            raise _AttemptFailed("parse_error", str(exc), False) from exc
        return ModelReply(status="ok", text=choice.best, finish_reason="stop", logprobs=choice.tokens,
                          option_scores=choice.scores, usage={"prompt_tokens": choice.prompt_tokens})

    def _post(self, kwargs: dict[str, Any]) -> str:
        """The raw body of one chat-completions request; failures as `_AttemptFailed` statuses."""
        import openai

        try:
            return self._client.chat.completions.with_raw_response.create(**kwargs).text
        except openai.APITimeoutError as exc:
            raise _AttemptFailed("timeout", f"no reply within {self.endpoint.timeout_s}s", True) from exc
        except openai.RateLimitError as exc:
            raise _AttemptFailed("rate_limited", f"HTTP 429: {_short(exc)}", True) from exc
        except openai.APIStatusError as exc:
            transient = exc.status_code >= 500
            raise _AttemptFailed("error", f"HTTP {exc.status_code}: {_short(exc)}", transient) from exc
        except openai.APIConnectionError as exc:
            raise _AttemptFailed("error", f"connection failed: {exc}", True) from exc
        except openai.OpenAIError as exc:  # anything else the package raises is still a status
            raise _AttemptFailed("error", f"{type(exc).__name__}: {exc}", False) from exc

    def _read_body(self, body_text: str, constraint: Constraint | None) -> ModelReply:
        try:
            body = json.loads(body_text)
            choice = body["choices"][0]
            message = choice["message"]
            text = message.get("content") or ""
            if not isinstance(text, str):
                raise TypeError("message content is not a string")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise _AttemptFailed("parse_error", f"malformed response body ({type(exc).__name__}: "
                                 f"{exc}): {body_text[:120]!r}", False) from exc
        finish_reason = choice.get("finish_reason")
        status, error = check_completion(text, finish_reason, message.get("refusal"), constraint)
        usage = body.get("usage")
        usage = {k: v for k, v in usage.items() if isinstance(v, int)} if isinstance(usage, dict) else None
        try:
            logprobs = _parse_logprobs(choice)
        except (KeyError, TypeError, ValueError):
            logprobs = None  # a garbled logprobs block does not spoil the completion itself
        return ModelReply(status=status, text=text, finish_reason=finish_reason, error=error,
                          usage=usage or None, logprobs=logprobs)


def _short(exc: Exception) -> str:
    return str(exc)[:200]
