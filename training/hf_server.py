"""A small OpenAI-compatible chat server on transformers, for machines without vLLM and for CI.

It serves one causal LM folder on 127.0.0.1 from a background thread: `GET /health`,
`GET /v1/models` and `POST /v1/chat/completions` (requests serialised by a lock). It speaks
the subset `LLMPolicy` uses:

- a `structured_outputs.choice` constraint is decided exactly: every choice is scored by
  its log-probability after the chat-templated prompt, and the best one is the reply (this
  is what constrained decoding over a choice amounts to);
- otherwise greedy generation up to `max_tokens`; a `structured_outputs.regex` is not
  enforced while decoding (the reply says so in `citeloop_note`), and the client re-checks
  every reply against its constraint anyway, so a miss is recorded and falls back;
- `logprobs`: per-token log-probabilities of the reply;
- a choice's score includes the end of the assistant's turn (the tokens the chat template
  closes it with), so a choice that is the beginning of another is scored as a whole reply;
- vLLM's prefill scoring request (`prompt_logprobs`, `add_generation_prompt: false`, the last
  message the assistant's, left open with `continue_final_message: true` or closed as the
  template closes a turn): the logprob of every prompt token after the first, with
  `prompt_token_ids`, as vLLM returns them; whole-option scoring
  (`citeloop.runtime.llm.sequence_scoring`) works the same against this server and vLLM.

vLLM stays the server for real use (batching, speed); this one exists so the whole loop can
run, and be tested, with no vLLM installed. It runs the model on the GPU when torch sees one
(`device`, default auto), in fp32 everywhere.
"""

from __future__ import annotations

import inspect
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class HFServerError(RuntimeError):
    pass


DEVICES = ("cpu", "cuda", "auto")
"""Where the model runs; auto: a GPU when torch sees one."""


class ChatModel:
    """A causal LM and its tokenizer, with the two operations the server needs."""

    def __init__(self, model_dir: Path, threads: int = 1, device: str = "auto", prefix_cache: bool = True) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if not (Path(model_dir) / "config.json").is_file():
            raise HFServerError(f"{model_dir} is not a model folder (no config.json)")
        if device not in DEVICES:
            raise HFServerError(f"device {device!r}: use {', '.join(DEVICES)}")
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        elif device == "cuda" and not torch.cuda.is_available():
            raise HFServerError("device cuda was asked for, but torch sees no GPU")
        torch.set_num_threads(threads)
        self.torch = torch
        self.device = device
        self.tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        # fp32 on every device: the scores then match the CPU's to float rounding.
        self.model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32).to(device)
        self.model.eval()
        self.name = str(model_dir)
        self.prefix_cache = prefix_cache
        # transformers 5.2x names the keys-and-values cache `cache`; earlier versions `past_key_values`.
        self._cache_argument = "cache" if "cache" in inspect.signature(self.model.forward).parameters \
            else "past_key_values"
        self._previous: tuple[list[int], list[float], Any] | None = None
        """The last scored ids, their logprobs and the model's keys and values (prefix cache)."""
        self.tokens_run = 0
        """Tokens run through the model by scoring so far (the prefix cache's saving shows here)."""

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        return list(ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids)

    def choose(self, messages: list[dict[str, str]], choices: list[str]) -> tuple[str, list[tuple[str, float]], int]:
        """The choice with the highest total log-probability as a whole reply (the end of the
        turn included); its token logprobs; prompt tokens."""
        prompt = self.prompt_ids(messages)
        best: tuple[float, str, list[tuple[str, float]]] | None = None
        for choice in choices:
            ids, lps = self.prefill_logprobs([*messages, {"role": "assistant", "content": choice}], closed=True)
            if ids[:len(prompt)] != prompt:
                raise ValueError("the chat template renders a reply's start unlike its generation prompt")
            tokens, lps = ids[len(prompt):], lps[len(prompt) - 1:]
            total = sum(lps)
            if best is None or total > best[0]:
                best = (total, choice, [(self.tokenizer.decode([t]), lp) for t, lp in zip(tokens, lps)])
        assert best is not None
        return best[1], best[2], len(prompt)

    def prefill_logprobs(self, messages: list[dict[str, str]], closed: bool = False) -> tuple[list[int], list[float]]:
        """The chat-templated prompt with its last (assistant) message left open (or `closed` as the
        template closes a turn), as token ids, and the logprob of each token after the first."""
        rendered = self.tokenizer.apply_chat_template(messages, continue_final_message=not closed,
                                                      add_generation_prompt=False, tokenize=True)
        ids = list(rendered["input_ids"] if hasattr(rendered, "keys") else rendered)
        return ids, self.token_logprobs(ids)

    def token_logprobs(self, ids: list[int]) -> list[float]:
        """The logprob of each of `ids` after the first. With the prefix cache, the tokens this
        shares with the previous call's are not run again: their logprobs and keys and values are
        the previous call's (the options of one decision share the whole prompt)."""
        torch = self.torch
        start, past, known = 0, None, []
        if self.prefix_cache and self._previous is not None:
            previous_ids, previous_lps, cache = self._previous
            shared = _shared_prefix(previous_ids, ids)
            if shared >= 2:
                # The last shared token is run again: its logits give the first new token's logprob.
                start = shared - 1
                surplus = cache.get_seq_length() - start
                if surplus:
                    cache.crop(-surplus)  # a negative count removes that many tokens (transformers 4.x and 5.x)
                past, known = cache, previous_lps[:start]
        self._previous = None
        self.tokens_run += len(ids) - start
        with torch.no_grad():
            out = self.model(torch.tensor([ids[start:]], device=self.device), use_cache=self.prefix_cache,
                             **{self._cache_argument: past})
        logp = torch.log_softmax(out.logits[0, :-1].float(), dim=-1)
        lps = known + [float(logp[i, t]) for i, t in enumerate(ids[start + 1:])]
        if self.prefix_cache:
            self._previous = (ids, lps, getattr(out, self._cache_argument))
        return lps

    def generate(self, messages: list[dict[str, str]], max_tokens: int) -> tuple[str, list[tuple[str, float]], int]:
        torch = self.torch
        prompt = self.prompt_ids(messages)
        with torch.no_grad():
            out = self.model.generate(torch.tensor([prompt], device=self.device), max_new_tokens=max_tokens,
                                      do_sample=False, output_scores=True, return_dict_in_generate=True,
                                      pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id)
        new = out.sequences[0][len(prompt):].tolist()
        eos = self.tokenizer.eos_token_id
        tokens = []
        for i, t in enumerate(new):
            if t == eos:
                break
            tokens.append((t, float(torch.log_softmax(out.scores[i][0].float(), dim=-1)[t])))
        text = self.tokenizer.decode([t for t, _ in tokens], skip_special_tokens=True)
        return text, [(self.tokenizer.decode([t]), lp) for t, lp in tokens], len(prompt)


def _shared_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens `a` and `b` share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def completion_body(model: ChatModel, body: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI chat-completion response to one request body."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValueError("'messages' must be a non-empty list")
    if body.get("prompt_logprobs") is not None:
        return _prefill_body(model, body, messages)
    structured = body.get("structured_outputs") or {}
    note = None
    if "choice" in structured:
        choices = [str(c) for c in structured["choice"]]
        if not choices:
            raise ValueError("structured_outputs.choice is empty")
        text, tokens, n_prompt = model.choose(messages, choices)
    else:
        if "regex" in structured:
            note = "regex constraint not enforced by the transformers server; the client re-checks the reply"
        text, tokens, n_prompt = model.generate(messages, int(body.get("max_tokens") or 64))
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    if body.get("logprobs"):
        choice["logprobs"] = {"content": [{"token": t, "logprob": lp, "top_logprobs": []} for t, lp in tokens]}
    reply = {"id": f"chatcmpl-{time.time_ns()}", "object": "chat.completion", "created": int(time.time()),
             "model": body.get("model") or model.name, "choices": [choice],
             "usage": {"prompt_tokens": n_prompt, "completion_tokens": len(tokens),
                       "total_tokens": n_prompt + len(tokens)}}
    if note:
        reply["citeloop_note"] = note
    return reply


def _prefill_body(model: ChatModel, body: dict[str, Any], messages: list[dict[str, str]]) -> dict[str, Any]:
    """vLLM's answer to a prefill scoring request: prompt logprobs (position 0: None) and ids;
    no completion is generated (`finish_reason: length`, as with max_tokens reached)."""
    if body.get("add_generation_prompt", True):
        raise ValueError("a prompt_logprobs (scoring) request cannot be combined with add_generation_prompt")
    if not messages or messages[-1].get("role") != "assistant":
        raise ValueError("a prompt_logprobs (scoring) request needs the last message to be the assistant's")
    ids, lps = model.prefill_logprobs(messages, closed=not body.get("continue_final_message"))
    positions: list[Any] = [None] + [{str(t): {"logprob": lp, "rank": None, "decoded_token": model.tokenizer.decode([t])}}
                                     for t, lp in zip(ids[1:], lps)]
    return {"id": f"chatcmpl-{time.time_ns()}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model") or model.name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "length"}],
            "prompt_logprobs": positions, "prompt_token_ids": ids,
            "usage": {"prompt_tokens": len(ids), "completion_tokens": 0, "total_tokens": len(ids)}}


def _handler(model: ChatModel, lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test and CLI output clean
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            if self.path == "/health":
                self._send(200, {})
            elif self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": model.name, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:  # noqa: N802
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                with lock:
                    self._send(200, completion_body(model, body))
            except (ValueError, TypeError, KeyError) as exc:
                self._send(400, {"error": {"message": str(exc), "type": "invalid_request_error"}})

    return Handler


@dataclass
class HFServer:
    httpd: ThreadingHTTPServer
    thread: threading.Thread

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def endpoint(self) -> str:
        return self.base_url + "/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


@contextmanager
def served_hf(model_dir: str | Path, port: int = 0, threads: int = 1, device: str = "auto") -> Iterator[HFServer]:
    """Serve `model_dir` on 127.0.0.1 (a free port by default) for the duration of the block,
    on `device` (cpu, cuda, or auto: a GPU when torch sees one)."""
    model = ChatModel(Path(model_dir), threads, device)
    httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(model, threading.Lock()))
    thread = threading.Thread(target=httpd.serve_forever, name="citeloop-hf-server", daemon=True)
    thread.start()
    server = HFServer(httpd, thread)
    try:
        yield server
    finally:
        server.stop()
