"""Model calls into the trajectory: one `ModelCall` event per call; its latency, retries and
cache hit go to `run_meta` (transport facts), so a cached replay records the same event."""

from __future__ import annotations

from citeloop.runtime.llm.client import ChatClient, Constraint, ModelReply, Sampling
from citeloop.runtime.llm.prompts import RenderedPrompt
from citeloop.runtime.recorder import Recorder
from citeloop.trajectories.events import ModelCall


def record_reply(recorder: Recorder, prompt: RenderedPrompt, reply: ModelReply, sampling: Sampling,
                 constraint: Constraint | None = None, *, parent: int | None = None,
                 subq: str | None = None) -> ModelCall:
    event = recorder.emit(
        ModelCall, parent=parent, subq=subq,
        prompt_id=prompt.id, prompt_version=prompt.version, model=reply.model, messages=prompt.messages,
        sampling=sampling.model_dump(mode="json"),
        constraint=constraint.record() if constraint else None,
        request_digest=reply.request_digest, status=reply.status, completion=reply.text,
        finish_reason=reply.finish_reason, error=reply.error, usage=reply.usage,
        logprobs=reply.logprobs, option_scores=reply.option_scores,
    )
    recorder.latency(event.seq, reply.latency_s * 1000.0)
    recorder.model_call_meta(event.seq, list(reply.attempts), reply.cached)
    return event


def chat_and_record(client: ChatClient, recorder: Recorder, prompt: RenderedPrompt,
                    constraint: Constraint | None = None, *, parent: int | None = None,
                    subq: str | None = None) -> tuple[ModelReply, ModelCall]:
    """Ask the model and record the call, whatever its status."""
    reply = client.chat(prompt, constraint)
    return reply, record_reply(recorder, prompt, reply, client.sampling, constraint, parent=parent, subq=subq)
