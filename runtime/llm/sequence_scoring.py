"""Choice decisions by whole-option likelihood: each option's full token sequence is scored and
the likeliest wins.

Why: vLLM's choice-constrained decoding picks the likeliest *first token* among the prefixes
of the options, so a model whose whole-sequence preference is `CONTINUE` can still decode
`S...` -> `STOP` (issue 24, cause 1). Scoring every option's whole sequence removes that.

How, on any server speaking vLLM's chat-completions extensions (vLLM's OpenAI server; the
transformers server, `training/hf_server.py`, speaks the same): one request per option whose
last message is the assistant's reply, the option, closed as the chat template closes a turn
(`continue_final_message: false`, `add_generation_prompt: false`), asking for
`prompt_logprobs: 0` (the logprob of each prompt token) and `max_tokens: 1`. The prompts of
all options agree up to where the options differ; an option's score is the sum of the logprobs
of its tokens from there on, the end of the turn included (tokens every option shares score
the same in every option, so leaving them out changes no choice). The end of the turn is what
makes an option that is the beginning of another a whole reply: `READ 1,2` is scored as "read
these two and stop", so `READ 1,2,5` can beat it; scored open, the shorter would always win. vLLM returns, per prompt position, a map token id -> {logprob, ...} (None for the
first); with `prompt_logprobs: 0` the map holds the prompt's own token, and
`return_token_ids` names it when the map holds more.

Requests go through the `openai` client (`extra_body`), so timeouts and HTTP errors surface
as the same statuses as any other call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from citeloop.trajectories.events import TokenLogprob


class ScoringError(ValueError):
    """The server's reply cannot be read as prompt logprobs (e.g. it does not support them)."""


@dataclass(frozen=True)
class ScoredChoice:
    best: str
    scores: dict[str, float]
    """Option -> total logprob of its tokens."""
    tokens: list[TokenLogprob]
    """The best option's tokens (from where the options differ) with their logprobs."""
    prompt_tokens: int
    """Tokens every option's prompt shares."""


def request_body(model: str, messages: list[dict[str, str]], prefill: str) -> dict[str, Any]:
    """The keyword arguments of one scoring request (the prompt with `prefill` as the whole, closed reply)."""
    return {"model": model, "messages": [*messages, {"role": "assistant", "content": prefill}],
            "max_tokens": 1, "temperature": 0.0,
            "extra_body": {"prompt_logprobs": 0, "continue_final_message": False, "add_generation_prompt": False,
                           "return_token_ids": True}}


def prompt_token_logprobs(body_text: str) -> list[TokenLogprob]:
    """Per prompt position after the first: the prompt token's logprob (ScoringError if unreadable)."""
    try:
        body = json.loads(body_text)
        positions = body["prompt_logprobs"]
        ids = body.get("prompt_token_ids")
        if not isinstance(positions, list):
            raise TypeError("prompt_logprobs is not a list")
    except (ValueError, KeyError, TypeError) as exc:
        raise ScoringError(f"the server returned no prompt logprobs ({type(exc).__name__}: {exc}); whole-option "
                           "scoring needs vLLM's prompt_logprobs (or the transformers server)") from exc
    out = []
    for i, entry in enumerate(positions):
        if entry is None:
            if i == 0:
                continue
            raise ScoringError(f"prompt position {i} has no logprobs")
        if isinstance(ids, list) and i < len(ids) and str(ids[i]) in entry:
            token_id = str(ids[i])
        elif len(entry) == 1:
            token_id = next(iter(entry))
        else:
            raise ScoringError(f"prompt position {i} lists {len(entry)} tokens and the reply names none of them")
        item = entry[token_id]
        logprob = item["logprob"] if isinstance(item, dict) else item
        token = item.get("decoded_token") if isinstance(item, dict) else None
        out.append(TokenLogprob(token=str(token if token is not None else token_id), logprob=float(logprob),
                                token_id=int(token_id) if str(token_id).lstrip("-").isdigit() else None))
    return out


def _key(t: TokenLogprob) -> object:
    return t.token_id if t.token_id is not None else t.token


def best_choice(scored: dict[str, list[TokenLogprob]]) -> ScoredChoice:
    """The likeliest option, from each option's prompt positions (see the module docstring);
    ties go to the option listed first."""
    if len(scored) < 2:
        raise ScoringError("whole-option scoring needs at least two options")
    sequences = list(scored.values())
    shared = 0
    while all(len(seq) > shared for seq in sequences) and len({_key(seq[shared]) for seq in sequences}) == 1:
        shared += 1
    scores: dict[str, float] = {}
    tokens: dict[str, list[TokenLogprob]] = {}
    for option, positions in scored.items():
        tokens[option] = positions[shared:]
        scores[option] = round(sum(t.logprob for t in tokens[option]), 6)
    best = max(scored, key=lambda o: scores[o])  # max keeps the first of equal scores
    return ScoredChoice(best=best, scores=scores, tokens=tokens[best], prompt_tokens=shared + 1)
