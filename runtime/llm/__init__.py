"""LLM-backed parts' plumbing: the OpenAI-compatible client, its response cache, the
scripted fake, versioned prompt assets, and recording model calls into the trajectory."""

from __future__ import annotations

from runtime.llm.cache import ResponseCache
from runtime.llm.client import (
    ChatClient,
    Constraint,
    ModelEndpoint,
    ModelReply,
    OpenAIChatClient,
    Sampling,
)
from runtime.llm.fake import FakeChatClient, Scripted, fake_client
from runtime.llm.prompts import (
    DataItem,
    PromptError,
    PromptLibrary,
    PromptSpec,
    RenderedPrompt,
)
from runtime.llm.record import chat_and_record, record_reply

__all__ = [
    "ChatClient", "Constraint", "DataItem", "FakeChatClient", "ModelEndpoint", "ModelReply", "OpenAIChatClient",
    "PromptError", "PromptLibrary", "PromptSpec", "RenderedPrompt", "ResponseCache", "Sampling", "Scripted",
    "chat_and_record", "fake_client", "make_client", "record_reply",
]


def make_client(spec: str | ModelEndpoint | dict, cache: ResponseCache | None = None) -> ChatClient:
    """`fake:NAME` gives the scripted fake; an endpoint (or its mapping) the OpenAI-compatible client."""
    if isinstance(spec, str):
        if spec.startswith("fake:"):
            return fake_client(spec.removeprefix("fake:"))
        raise ValueError(f"unknown model client {spec!r}; use `fake:NAME` or a ModelEndpoint")
    endpoint = spec if isinstance(spec, ModelEndpoint) else ModelEndpoint.model_validate(spec)
    return OpenAIChatClient(endpoint, cache=cache)
