"""A chat client that answers from a trajectory: the recorded replies of a run's model calls.

The model-call counterpart of `runtime.recorded_tools`. Each `model_call` event holds the
request digest (model, prompt id and version, messages, sampling, constraint) and what came
back, so a replay that sends the same request gets the same reply, failures included, in
recorded order per digest. A request the record cannot answer is an `error` reply with
`not recorded`, never an invented completion; with `live` given it goes there instead.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence

from citeloop.runtime.llm.client import (
    ChatClient,
    Constraint,
    ModelReply,
    Sampling,
    request_digest,
)
from citeloop.runtime.llm.prompts import RenderedPrompt
from citeloop.trajectories.events import BaseEvent, ModelCall

NOT_RECORDED = "not recorded"


class RecordedChatClient:
    """Serves a run's recorded model replies by request digest."""

    def __init__(self, events: Sequence[BaseEvent], model: str, sampling: Sampling,
                 live: ChatClient | None = None) -> None:
        self._model = model
        self._sampling = sampling
        self.live = live
        self.replies: dict[str, deque[ModelCall]] = defaultdict(deque)
        for e in events:
            if isinstance(e, ModelCall):
                self.replies[e.request_digest].append(e)
        self.served = 0
        self.misses: list[str] = []

    @property
    def model(self) -> str:
        return self._model

    @property
    def sampling(self) -> Sampling:
        return self._sampling

    def chat(self, prompt: RenderedPrompt, constraint: Constraint | None = None) -> ModelReply:
        digest = request_digest(self.model, prompt, self.sampling, constraint)
        queue = self.replies.get(digest)
        if queue:
            self.served += 1
            call = queue.popleft()
            return ModelReply(status=call.status, text=call.completion, finish_reason=call.finish_reason,
                              error=call.error, attempts=[call.status], usage=call.usage, logprobs=call.logprobs,
                              model=self.model, request_digest=digest)
        if self.live is not None:
            return self.live.chat(prompt, constraint)
        self.misses.append(f"{prompt.id} v{prompt.version} ({digest[:12]})")
        return ModelReply(status="error", error=NOT_RECORDED, attempts=["error"], model=self.model,
                          request_digest=digest)
