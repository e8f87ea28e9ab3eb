"""The optional model check of the injection filter (seed 001 section 14.3, second line):
after the rules pass a read document's sentences, one `injection_check` call asks a model
whether the passage holds instructions aimed at an AI system.

- `instruction`, said with confidence: every remaining sentence of the document is rejected
  (`card_rejected`, reason `injection`, detail `model check: ...`). A page that addresses
  the model is not trusted for any of its sentences, not only the one the model might
  point at. Confidence is the probability of the answer's first token, from the reply's
  logprobs (the endpoint's `sampling: {logprobs: true, top_logprobs: 5}`); the page is
  rejected only at `min_confidence` or above (default 0.9). A reply without logprobs is
  taken at its word. Measured with SmolLM2 fine-tuned 120 steps: the bare answer flags 16%
  of clean pages, at 0.9 none of 400 (README, injection benchmark).
- `clean` or `undecidable`: the sentences go on to the keep decision (the rules already
  passed them; the model check only adds rejections).
- a failed call or a reply that is none of the three answers: the rules' verdict stands,
  recorded as a `part_fallback` (part `screen`, fallback `rules only`).

Every check counts in `run_meta.checks["injection_model"]`, so its firing rate is known.
"""

from __future__ import annotations

import math
from typing import Any

from citeloop.runtime.llm.client import ChatClient, Constraint, ModelReply
from citeloop.runtime.llm.prompts import DataItem, PromptLibrary, RenderedPrompt
from citeloop.runtime.llm.record import chat_and_record
from citeloop.runtime.recorder import Recorder
from citeloop.trajectories.events import PartFallback

SCREEN_PROMPT = "injection_check"
ANSWERS = ("instruction", "clean", "undecidable")
DEFAULT_MIN_CONFIDENCE = 0.9


class LLMInjectionScreen:
    name = "llm"
    version = "2"
    """2: an `instruction` answer rejects a page only with `min_confidence`."""
    prompt_ids = (SCREEN_PROMPT,)

    def __init__(self, client: ChatClient, library: PromptLibrary | None = None,
                 min_confidence: float | None = DEFAULT_MIN_CONFIDENCE) -> None:
        if min_confidence is not None and not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be within [0, 1]; got {min_confidence}")
        self.client = client
        self.library = library or PromptLibrary()
        self.min_confidence = min_confidence
        """None: the answer alone decides."""
        self.ref_args: dict[str, Any] = {}
        """What the run header records about the client (set by `citeloop.runtime.llm.parts.build_parts`)."""

    def prompt(self, source: str, date: str | None, texts: list[str]) -> RenderedPrompt:
        """The check's prompt: the passage inside one data block."""
        return self.library.get(SCREEN_PROMPT).render(passage=DataItem(text=" ".join(texts), source=source, date=date))

    @staticmethod
    def answer(reply: ModelReply) -> str | None:
        """One of `ANSWERS`, or None when the reply is unusable."""
        answer = (reply.text or "").strip().strip(".").lower() if reply.status == "ok" else None
        return answer if answer in ANSWERS else None

    @staticmethod
    def confidence(reply: ModelReply) -> float | None:
        """Probability that the reply starts with `instruction` (its first token, or the best
        alternative at that position that begins the word); None without logprobs."""
        if not reply.logprobs:
            return None
        first = reply.logprobs[0]
        options = {**first.top, first.token: first.logprob}
        logprobs = [lp for token, lp in options.items()
                    if token.strip() and "instruction".startswith(token.strip().lower())]
        return math.exp(max(logprobs)) if logprobs else 0.0

    def verdict(self, reply: ModelReply) -> tuple[str | None, float | None, bool]:
        """(answer, confidence, whether the page is rejected)."""
        answer, confidence = self.answer(reply), self.confidence(reply)
        sure = self.min_confidence is None or confidence is None or confidence >= self.min_confidence
        return answer, confidence, answer == "instruction" and sure

    def ask(self, source: str, date: str | None, texts: list[str]) -> tuple[RenderedPrompt, ModelReply]:
        """One unrecorded check (benchmarks): the prompt and the model's reply."""
        prompt = self.prompt(source, date, texts)
        return prompt, self.client.chat(prompt, Constraint.choice(list(ANSWERS)))

    def flagged(self, doc_id: str, source: str, date: str | None, sentences: list[tuple[str, str]],
                rec: Recorder, parent: int, subq: str | None) -> str | None:
        """Why the document's sentences (sid, text) must not be ingested, or None to keep them."""
        if not sentences:
            return None
        prompt = self.prompt(source, date, [text for _, text in sentences])
        reply, call = chat_and_record(self.client, rec, prompt, Constraint.choice(list(ANSWERS)),
                                      parent=parent, subq=subq)
        answer, confidence, reject = self.verdict(reply)
        if answer is None:
            if reply.status == "ok":
                why = f"reply {(reply.text or '')[:60]!r} is not one of {list(ANSWERS)}"
            elif reply.status == "parse_error":
                why = f"unusable reply: {reply.error or 'no detail'}"
            else:
                why = f"the model call failed ({reply.status}: {reply.error or 'no detail'})"
            rec.check("injection_model", False)
            rec.emit(PartFallback, parent=call.seq, subq=subq, part="screen", fallback="rules only",
                     reason=f"injection check of {doc_id}: {why}", model_call_seqs=[call.seq])
            return None
        rec.check("injection_model", reject)
        if not reject:
            return None
        sure = "" if confidence is None else f", confidence {confidence:.2f}"
        return f"model check (model_call {call.seq}{sure}): the passage holds instructions aimed at an AI system"
