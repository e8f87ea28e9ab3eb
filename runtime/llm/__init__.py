"""LLM-backed parts' plumbing: the OpenAI-compatible client, its response cache, the
scripted fake, versioned prompt assets, and recording model calls into the trajectory."""

from __future__ import annotations

from citeloop.runtime.llm.cache import ResponseCache
from citeloop.runtime.llm.client import (
    ChatClient,
    Constraint,
    ModelEndpoint,
    ModelReply,
    OpenAIChatClient,
    Sampling,
)
from citeloop.runtime.llm.fake import FakeChatClient, Scripted, fake_client
from citeloop.runtime.llm.prompts import (
    DataItem,
    PromptError,
    PromptLibrary,
    PromptSpec,
    RenderedPrompt,
)
from citeloop.runtime.llm.record import chat_and_record, record_reply
from citeloop.trajectories.errors import ErrorWording, validation_message

__all__ = [
    "ChatClient", "Constraint", "DataItem", "FakeChatClient", "ModelEndpoint", "ModelReply", "OpenAIChatClient",
    "PromptError", "PromptLibrary", "PromptSpec", "RenderedPrompt", "ResponseCache", "Sampling", "Scripted",
    "chat_and_record", "fake_client", "make_client", "model_spec", "record_reply",
]


def model_spec(text: str) -> str | ModelEndpoint:
    """What a `--llm` option names: `fake:NAME` as is, else the path of an endpoint YAML
    (`base_url`, `model`, ...), read and validated; ValueError says what is wrong."""
    if text.startswith("fake:"):
        return text
    from pydantic import ValidationError

    from citeloop.runtime.registry import read_yaml_mapping

    data = read_yaml_mapping(text)
    try:
        return ModelEndpoint.model_validate(data)
    except ValidationError as exc:
        problem = validation_message(exc, ErrorWording(other="{msg} at {loc}"), first_only=True)
        raise ValueError(f"{text}: not a model endpoint ({problem})") from exc


def make_client(spec: str | ModelEndpoint | dict, cache: ResponseCache | None = None) -> ChatClient:
    """`fake:NAME` gives the scripted fake; an endpoint (or its mapping) the OpenAI-compatible client."""
    if isinstance(spec, str):
        if spec.startswith("fake:"):
            return fake_client(spec.removeprefix("fake:"))
        raise ValueError(f"unknown model client {spec!r}; use `fake:NAME` or a ModelEndpoint")
    endpoint = spec if isinstance(spec, ModelEndpoint) else ModelEndpoint.model_validate(spec)
    return OpenAIChatClient(endpoint, cache=cache)
