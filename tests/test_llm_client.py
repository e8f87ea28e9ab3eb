"""The OpenAI-compatible client against a tiny local chat-completions server: replies,
retries, timeouts, malformed bodies, constraints, the response cache and recording."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from citeloop.runtime.llm import (
    Constraint,
    ModelEndpoint,
    OpenAIChatClient,
    RenderedPrompt,
    ResponseCache,
    Sampling,
    chat_and_record,
    make_client,
)
from citeloop.runtime.llm.cache import CACHE_ENV
from citeloop.runtime.recorder import Recorder
from citeloop.trajectories.events import ModelCall, ModelMessage, RunMeta, parse_event
from citeloop.trajectories.header import ComponentRef, RunHeader, RunSpec
from citeloop.trajectories.runfile import MemorySink, dumps_line

PROMPT = RenderedPrompt(id="verdict_judge", version=1, messages=[
    ModelMessage(role="system", content="Answer with one word."),
    ModelMessage(role="user", content="Claim: the sky is blue."),
])


def completion(content: str | None, finish_reason: str = "stop", logprobs: bool = False) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "finish_reason": finish_reason,
                              "message": {"role": "assistant", "content": content}}
    if logprobs:
        choice["logprobs"] = {"content": [{"token": "ent", "logprob": -0.1, "bytes": None,
                                           "top_logprobs": [{"token": "ent", "logprob": -0.1, "bytes": None},
                                                            {"token": "con", "logprob": -2.5, "bytes": None}]},
                                          {"token": "ail", "logprob": -0.01, "bytes": None, "top_logprobs": []}]}
    return {"id": "cmpl-1", "object": "chat.completion", "created": 0, "model": "tiny",
            "choices": [choice], "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}}


@dataclass
class Planned:
    status: int = 200
    body: Any = None
    """A dict (sent as JSON) or raw text."""
    delay_s: float = 0.0


@dataclass
class FakeServer:
    url: str
    plan: list[Planned] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture(scope="module")
def _server() -> Iterator[FakeServer]:
    state = FakeServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state.requests.append({"path": self.path, "json": json.loads(body)})
            planned = state.plan.pop(0) if state.plan else Planned(body=completion("entail"))
            if planned.delay_s:
                time.sleep(planned.delay_s)
            payload = planned.body if isinstance(planned.body, str) else json.dumps(planned.body)
            data = payload.encode("utf-8")
            try:
                self.send_response(planned.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server(_server: FakeServer) -> FakeServer:
    """The module's server with a fresh plan and request log."""
    _server.plan.clear()
    _server.requests.clear()
    return _server


def client_for(server: FakeServer, cache: ResponseCache | None = None, **endpoint: Any) -> OpenAIChatClient:
    settings: dict[str, Any] = {"base_url": server.url, "model": "tiny", "timeout_s": 5.0, "max_retries": 2,
                                "backoff_s": 0.0}
    settings.update(endpoint)
    return OpenAIChatClient(ModelEndpoint(**settings), cache=cache)


def test_ok_reply_carries_text_usage_and_sends_deterministic_sampling(server: FakeServer) -> None:
    reply = client_for(server).chat(PROMPT)
    assert (reply.status, reply.text, reply.cached, reply.attempts) == ("ok", "entail", False, ["ok"])
    assert reply.usage == {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}
    assert reply.logprobs is None and reply.latency_s > 0
    sent = server.requests[0]["json"]
    assert server.requests[0]["path"] == "/v1/chat/completions"
    assert (sent["model"], sent["temperature"], sent["seed"]) == ("tiny", 0.0, 0)
    assert sent["messages"] == [m.model_dump() for m in PROMPT.messages]


def test_logprobs_are_requested_and_recorded(server: FakeServer) -> None:
    server.plan = [Planned(body=completion("entail", logprobs=True))]
    reply = client_for(server, sampling=Sampling(logprobs=True, top_logprobs=2)).chat(PROMPT)
    assert server.requests[0]["json"]["logprobs"] is True and server.requests[0]["json"]["top_logprobs"] == 2
    assert reply.logprobs is not None and [t.token for t in reply.logprobs] == ["ent", "ail"]
    assert reply.logprobs[0].top == {"ent": -0.1, "con": -2.5}


def test_rate_limit_is_retried_then_ok(server: FakeServer) -> None:
    server.plan = [Planned(status=429, body={"error": {"message": "slow down"}}), Planned(body=completion("entail"))]
    reply = client_for(server).chat(PROMPT)
    assert (reply.status, reply.text, reply.attempts) == ("ok", "entail", ["rate_limited", "ok"])
    assert len(server.requests) == 2


def test_server_errors_are_retried_and_end_as_error_not_empty(server: FakeServer) -> None:
    server.plan = [Planned(status=503, body={"error": {"message": "overloaded"}})] * 3
    reply = client_for(server, max_retries=2).chat(PROMPT)
    assert (reply.status, reply.text, reply.attempts) == ("error", "", ["error", "error", "error"])
    assert "503" in (reply.error or "") and len(server.requests) == 3


def test_client_errors_are_not_retried(server: FakeServer) -> None:
    server.plan = [Planned(status=400, body={"error": {"message": "bad request"}})]
    reply = client_for(server).chat(PROMPT)
    assert (reply.status, reply.attempts, len(server.requests)) == ("error", ["error"], 1)


def test_backoff_doubles_between_retries(server: FakeServer) -> None:
    server.plan = [Planned(status=429, body={})] * 3
    waits: list[float] = []
    endpoint = ModelEndpoint(base_url=server.url, model="tiny", max_retries=2, backoff_s=0.5)
    reply = OpenAIChatClient(endpoint, sleep=waits.append).chat(PROMPT)
    assert reply.status == "rate_limited" and waits == [0.5, 1.0]


def test_slow_reply_is_a_timeout_not_an_empty_answer(server: FakeServer) -> None:
    server.plan = [Planned(body=completion("late"), delay_s=1.5)]
    started = time.perf_counter()
    reply = client_for(server, timeout_s=0.3, max_retries=0).chat(PROMPT)
    assert time.perf_counter() - started < 1.4
    assert (reply.status, reply.text, reply.attempts) == ("timeout", "", ["timeout"])
    assert not reply.ok and reply.error


def test_unreachable_server_is_an_error(tmp_path: Path) -> None:
    endpoint = ModelEndpoint(base_url="http://127.0.0.1:9/v1", model="tiny", timeout_s=1, max_retries=1,
                             backoff_s=0.0)
    reply = OpenAIChatClient(endpoint).chat(PROMPT)
    assert (reply.status, reply.attempts) == ("error", ["error", "error"])


@pytest.mark.parametrize("body, reason", [
    ("{not json", "malformed response body"),
    ({"choices": []}, "malformed response body"),
    ({"object": "chat.completion"}, "malformed response body"),
    (completion(""), "empty completion"),
    (completion(None), "empty completion"),
    (completion("The evidence says", finish_reason="length"), "truncated"),
])
def test_malformed_empty_and_truncated_bodies_are_parse_errors(server: FakeServer, body: Any, reason: str) -> None:
    server.plan = [Planned(body=body)]
    reply = client_for(server).chat(PROMPT)
    assert reply.status == "parse_error" and reason in (reply.error or "")
    assert len(server.requests) == 1  # a parse error is not retried: the same request gives the same body


def test_refusal_is_its_own_status(server: FakeServer) -> None:
    body = completion(None)
    body["choices"][0]["message"]["refusal"] = "I can't help with that."
    server.plan = [Planned(body=body)]
    reply = client_for(server).chat(PROMPT)
    assert (reply.status, reply.error) == ("refused", "I can't help with that.")


def test_choice_constraint_is_sent_as_structured_outputs_and_rechecked(server: FakeServer) -> None:
    choices = ["entail", "conflict", "undecidable"]
    server.plan = [Planned(body=completion("entail")), Planned(body=completion("probably entail"))]
    client = client_for(server)
    assert client.chat(PROMPT, Constraint.choice(choices)).status == "ok"
    sent = server.requests[0]["json"]
    assert sent["structured_outputs"] == {"choice": choices} and "guided_choice" not in sent
    off = client.chat(PROMPT, Constraint.choice(choices))
    assert off.status == "parse_error" and "not one of" in (off.error or "")


def test_regex_and_json_constraints(server: FakeServer) -> None:
    server.plan = [Planned(body=completion("A12")), Planned(body=completion('{"a": 1}')),
                   Planned(body=completion("{oops"))]
    client = client_for(server)
    assert client.chat(PROMPT, Constraint.regex(r"[A-Z]\d+")).status == "ok"
    assert server.requests[0]["json"]["structured_outputs"] == {"regex": r"[A-Z]\d+"}
    schema = {"type": "object"}
    assert client.chat(PROMPT, Constraint.json_schema(schema)).status == "ok"
    assert server.requests[1]["json"]["response_format"]["json_schema"]["schema"] == schema
    assert client.chat(PROMPT, Constraint.json_schema(schema)).status == "parse_error"


def test_second_identical_call_is_a_cache_hit(server: FakeServer, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    first = client_for(server, cache=cache).chat(PROMPT)
    again = client_for(server, cache=cache).chat(PROMPT)  # a new client: the cache is on disk
    assert len(server.requests) == 1
    assert (first.cached, again.cached) == (False, True)
    assert (again.status, again.text, again.usage, again.request_digest) == (
        "ok", first.text, first.usage, first.request_digest)
    assert cache.path(first.request_digest).is_file()


def test_cache_key_covers_prompt_version_sampling_and_constraint(server: FakeServer, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    client_for(server, cache=cache).chat(PROMPT)
    client_for(server, cache=cache).chat(PROMPT.model_copy(update={"version": 2}))
    client_for(server, cache=cache, sampling=Sampling(seed=7)).chat(PROMPT)
    client_for(server, cache=cache).chat(PROMPT, Constraint.choice(["entail", "undecidable"]))
    assert len(server.requests) == 4


def test_failures_are_not_cached(server: FakeServer, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    server.plan = [Planned(body="{not json"), Planned(body=completion("entail"))]
    assert client_for(server, cache=cache).chat(PROMPT).status == "parse_error"
    assert client_for(server, cache=cache).chat(PROMPT).status == "ok"
    assert len(server.requests) == 2


def test_cache_dir_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    assert ResponseCache.from_env().directory == tmp_path / "llm"


def test_api_key_is_read_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test")
    assert ModelEndpoint(base_url="http://x/v1", model="m", api_key_env="MY_KEY").api_key() == "sk-test"
    assert ModelEndpoint(base_url="http://x/v1", model="m").api_key() == "EMPTY"
    with pytest.raises(ValueError):
        ModelEndpoint(base_url="http://x/v1", model="m", api_key="sk-inline")  # type: ignore[call-arg]


def test_make_client_builds_the_real_client_from_a_mapping(server: FakeServer) -> None:
    client = make_client({"base_url": server.url, "model": "tiny", "backoff_s": 0})
    assert isinstance(client, OpenAIChatClient) and client.chat(PROMPT).text == "entail"
    with pytest.raises(ValueError, match="fake:NAME"):
        make_client("tiny")


def header() -> RunHeader:
    ref = ComponentRef(name="x", version="1")
    spec = RunSpec(question="q", seed=0, config={}, config_digest="d", planner=ref, policies={}, tools={},
                   verifier=ref, prompt_versions={"verdict_judge": "1"}, corpus_fingerprint="f",
                   corpus_source="embedded", packages={})
    return RunHeader(run_id="run-llm", spec=spec)


def _recorder() -> tuple[Recorder, MemorySink]:
    sink = MemorySink()
    return Recorder(header(), sink), sink


def test_replies_are_recorded_as_model_call_events(server: FakeServer, tmp_path: Path) -> None:
    server.plan = [Planned(status=429, body={}), Planned(body=completion("entail", logprobs=True))]
    client = client_for(server, cache=ResponseCache(tmp_path), sampling=Sampling(logprobs=True))
    recorder, sink = _recorder()
    reply, event = chat_and_record(client, recorder, PROMPT, Constraint.choice(["entail", "undecidable"]), parent=3,
                                   subq="sq1")
    _, cached_event = chat_and_record(client, recorder, PROMPT, Constraint.choice(["entail", "undecidable"]))
    assert isinstance(event, ModelCall) and (event.seq, event.parent_seq, event.subq) == (0, 3, "sq1")
    assert (event.prompt_id, event.prompt_version, event.model) == ("verdict_judge", 1, "tiny")
    assert (event.status, event.completion) == ("ok", "entail")
    # Retries and cache hits are transport facts: run_meta holds them, the event does not.
    assert recorder.model_calls[str(event.seq)] == {"attempts": ["rate_limited", "ok"], "cached": False}
    assert event.sampling["temperature"] == 0.0 and event.constraint == {"kind": "choice",
                                                                         "value": ["entail", "undecidable"]}
    assert event.logprobs and event.usage and event.request_digest == reply.request_digest
    assert recorder.model_calls[str(cached_event.seq)] == {"attempts": [], "cached": True}
    assert cached_event.completion == "entail"
    # Served from the cache, the call is recorded as the same event (exact replay stays exact).
    same = cached_event.model_dump(exclude={"seq", "parent_seq", "subq"})
    assert same == event.model_dump(exclude={"seq", "parent_seq", "subq"})
    assert "0" in recorder.latency_ms  # latency goes to run_meta, never into the event
    assert parse_event(json.loads(dumps_line(event))) == event
    recorder.finish(wall_ms=1.0)
    assert isinstance(sink.events[-1], RunMeta)


def test_failed_call_is_recorded_with_its_status(server: FakeServer) -> None:
    server.plan = [Planned(body="{not json")]
    recorder, _ = _recorder()
    _, event = chat_and_record(client_for(server), recorder, PROMPT)
    assert (event.status, event.completion) == ("parse_error", "") and "malformed" in (event.error or "")
