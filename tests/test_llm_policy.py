"""The LLM policy (runtime/policies/llm.py) against a scripted OpenAI-compatible server and
the scripted fake client: prompts equal the dataset renderings, constraints admit exactly the
valid actions, valid replies are used, every failure falls back to the heuristic's choice and
is recorded, and a run with model decisions replays exactly without the server."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from citeloop.runtime.branch import branch_run
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.engine import ResearchEngine
from citeloop.runtime.llm.client import ModelEndpoint, OpenAIChatClient
from citeloop.runtime.llm.fake import FakeChatClient, Scripted
from citeloop.runtime.llm.recorded import RecordedChatClient
from citeloop.runtime.planner import resolve_planner
from citeloop.runtime.policies import PolicyError, PolicySet, parse_llm_spec, resolve_policies
from citeloop.runtime.policies.actions import KIND_OF_EVENT, parse_action
from citeloop.runtime.policies.llm import SAMPLING, LLMPolicy, action_constraint, llm_decision_counts
from citeloop.runtime.policies.prompts import RunContext, candidate_count, render_prompt
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.replay import check_run
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.runtime.tools import CorpusReadTool, CorpusSearchTool
from citeloop.runtime.verifier import resolve_verifier
from citeloop.trajectories.events import DECISION_TYPES, ModelCall
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.runfile import MemorySink, RunFile, read_run

LELAND = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
MODEL = "fake-policy"


# --------------------------------------------------------------------------- a scripted server

Reply = Callable[[dict[str, Any]], tuple[int, str]]
"""Request body -> (HTTP status, completion text)."""


def obliging(body: dict[str, Any]) -> tuple[int, str]:
    """A valid action for every request, not always the heuristic's: stop once coverage is met,
    the last angle, the first results and sentences that the constraint admits."""
    rule = body["structured_outputs"]
    user = body["messages"][-1]["content"]
    if "choice" in rule:
        if rule["choice"] == ["CONTINUE", "STOP"]:
            return 200, "STOP" if "Coverage met: yes" in user else "CONTINUE"
        return 200, rule["choice"][-1]
    word = rule["regex"].split()[0]
    for text in (f"{word} 2,1", f"{word} 1", f"{word} NONE"):
        if re.fullmatch(rule["regex"], text):
            return 200, text
    raise AssertionError(f"no scripted answer fits {rule['regex']}")


class FakeOpenAI:
    """`/v1/models` and `/v1/chat/completions` in a thread, answering with `reply`."""

    def __init__(self, reply: Reply = obliging, delay_s: float = 0.0) -> None:
        self.reply, self.delay_s = reply, delay_s
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the timeout test)

            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": MODEL, "object": "model"},
                                                                {"id": "other", "object": "model"}]})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                time.sleep(owner.delay_s)
                status, text = owner.reply(body)
                if status != 200:
                    self._send(status, {"error": {"message": text}})
                    return
                tokens = [{"token": t, "logprob": -0.25, "bytes": None, "top_logprobs": []} for t in text.split()]
                self._send(200, {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                                 "choices": [{"index": 0, "finish_reason": "stop", "logprobs": {"content": tokens},
                                              "message": {"role": "assistant", "content": text}}],
                                 "usage": {"prompt_tokens": 100, "completion_tokens": len(tokens),
                                           "total_tokens": 100 + len(tokens)}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def all_kinds(url: str) -> str:
    return f"llm:stop={url},angle={url},read={url},follow={url}"


def decisions(run: RunFile) -> list[Any]:
    return [e for e in run.events if e.type in DECISION_TYPES]


def model_call_of(run: RunFile, decision: Any) -> ModelCall | None:
    """The model call a decision's reason names (None for a decision taken without one)."""
    m = re.search(r"model_call (\d+)", decision.reason)
    if m is None:
        return None
    call = run.events[int(m.group(1))]
    assert isinstance(call, ModelCall)
    return call


# --------------------------------------------------------------------------- a full run on the server


@pytest.fixture(scope="module")
def served_run(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> tuple[RunFile, list[dict[str, Any]]]:
    with FakeOpenAI() as server:
        _, path = run_research(LELAND, kit, policy_spec=all_kinds(server.url),
                               out_dir=tmp_path_factory.mktemp("llm-run"))
    assert path is not None
    return read_run(path), server.requests


@pytest.fixture(scope="module")
def heuristic_run(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> RunFile:
    _, path = run_research(LELAND, kit, policy_spec="heuristic", out_dir=tmp_path_factory.mktemp("heuristic"))
    return read_run(path)  # type: ignore[arg-type]


def test_a_run_on_the_server_records_every_model_call(served_run: tuple[RunFile, list[dict[str, Any]]]) -> None:
    run, requests = served_run
    calls = [e for e in run.events if isinstance(e, ModelCall)]
    assert len(calls) == len(requests) > 5
    assert {c.prompt_id for c in calls} == {"citeloop.stop", "citeloop.angle", "citeloop.read", "citeloop.keep",
                                            "citeloop.follow"}
    for call, request in zip(calls, requests):
        assert call.status == "ok" and call.model == MODEL and call.prompt_version == 3
        assert call.sampling["temperature"] == 0.0 and call.sampling["logprobs"] is True
        assert call.logprobs and call.logprobs[0].logprob == -0.25
        assert [m.model_dump() for m in call.messages] == request["messages"]
        assert request["temperature"] == 0.0 and request["logprobs"] is True and request["model"] == MODEL
        assert request["structured_outputs"] == {call.constraint["kind"]: call.constraint["value"]}
    counts = llm_decision_counts(run.events)
    assert counts["fallback"] == 0 and counts["model"] == len(calls)
    assert run.events[-2].outcome.status == "completed"  # type: ignore[attr-defined]


def test_prompts_sent_equal_the_dataset_renderings(served_run: tuple[RunFile, list[dict[str, Any]]]) -> None:
    run, _ = served_run
    ctx = RunContext.of(run)
    checked = set()
    for event in decisions(run):
        call = model_call_of(run, event)
        if call is None:
            continue
        messages, template = render_prompt(event, ctx)
        assert [m.model_dump() for m in call.messages] == messages, f"decision at seq {event.seq}"
        assert (call.prompt_id, call.prompt_version) == (template.id, template.version)
        assert call.subq == event.subq
        checked.add(event.type)
    assert checked == set(DECISION_TYPES)


def test_valid_replies_are_the_decisions(served_run: tuple[RunFile, list[dict[str, Any]]]) -> None:
    run, _ = served_run
    for event in decisions(run):
        call = model_call_of(run, event)
        if call is None:
            assert event.policy.name == "llm"
            continue
        kind = KIND_OF_EVENT[event.type]
        action = parse_action(kind, call.completion, candidate_count(event))
        if kind == "read":
            expected: Any = [event.candidates[i] for i in action]  # type: ignore[union-attr]
        elif kind == "keep":
            expected = [event.candidates[i].sid for i in action]  # type: ignore[union-attr]
        else:
            expected = action
        assert event.choice == expected and event.policy.name == "llm"
        assert event.reason == f"llm: {call.completion} (model_call {call.seq})"


def test_the_run_replays_exactly_without_the_server(served_run: tuple[RunFile, list[dict[str, Any]]]) -> None:
    run, _ = served_run  # the server is shut down: every reply must come from the record
    check = check_run(run)
    assert check.ok, check.divergence


def test_replayed_policies_answer_from_the_record_and_go_live_otherwise(
        served_run: tuple[RunFile, list[dict[str, Any]]], heuristic_run: RunFile) -> None:
    run, _ = served_run
    spec = run.header.spec.policies["spec"].name
    replayed = resolve_policies(spec, ResearchConfig(), 0, recorded=run.events)  # its server is gone
    assert isinstance(replayed.stop.client, RecordedChatClient)  # type: ignore[attr-defined]
    assert replayed.stop.client.model == MODEL  # type: ignore[attr-defined]
    with FakeOpenAI() as server:
        swapped = resolve_policies(f"llm:stop={server.url}", ResearchConfig(), 0, recorded=heuristic_run.events)
    assert isinstance(swapped.stop.client, OpenAIChatClient) and swapped.angle.ref.name == "heuristic"  # type: ignore[attr-defined]


def test_a_branch_of_a_model_run_continues_with_the_model(served_run: tuple[RunFile, list[dict[str, Any]]],
                                                          kit: ResearchKit, tmp_path: Path) -> None:
    run, _ = served_run
    angle = next(e for e in decisions(run) if e.type == "angle_decision")
    other = next(i for i in range(len(angle.candidates)) if i != angle.choice)
    with FakeOpenAI() as server:
        branched = branch_run(run, angle.seq, str(other), then=all_kinds(server.url), out_dir=tmp_path, kit=kit)
    branch = read_run(branched.path)  # type: ignore[arg-type]
    forced = next(e for e in decisions(branch) if e.type == "angle_decision" and e.reason.startswith("forced"))
    later = [e for e in decisions(branch) if e.seq > forced.seq and e.policy.name == "llm"]
    assert later and server.requests
    ctx = RunContext.of(branch)
    for event in later:
        call = model_call_of(branch, event)
        if call is not None:  # the continuation saw the replayed prefix: same prompts as the datasets
            assert [m.model_dump() for m in call.messages] == render_prompt(event, ctx)[0]


# --------------------------------------------------------------------------- fallbacks


def _script(kind: str) -> Callable[[Any, Any], Any]:
    def reply(prompt: Any, constraint: Any) -> Any:
        word = (constraint.value[0] if constraint.kind == "choice" else constraint.value).split()[0]
        return {
            "malformed": f"I think {word.lower()} 1 is best",
            "empty": "",
            "out_of_range": "STOP NOW" if word in ("CONTINUE", "STOP") else f"{word} 99",
            "repeated": f"{word} 1,1" if constraint.kind == "regex" else "maybe",
            "timeout": Scripted(status="timeout"),
            "error": Scripted(status="error"),
            "truncated": Scripted(text=f"{word} ", finish_reason="length"),
        }[kind]
    return reply


def _fake_policy(kind: str) -> Callable[[str, ResearchConfig, int], LLMPolicy]:
    return lambda _kind, config, _seed: LLMPolicy(FakeChatClient(_script(kind), sampling=SAMPLING), config)


malformed, empty, out_of_range, repeated, timeout, error, truncated = (
    _fake_policy(k) for k in ("malformed", "empty", "out_of_range", "repeated", "timeout", "error", "truncated"))


@pytest.mark.parametrize("script,cause", [
    ("malformed", "parse_error"), ("empty", "parse_error"), ("out_of_range", "parse_error"),
    ("repeated", "invalid|parse_error"), ("timeout", "timeout"), ("error", "error"), ("truncated", "parse_error"),
])
def test_failed_replies_fall_back_to_the_heuristic_and_say_so(script: str, cause: str, kit: ResearchKit,
                                                              heuristic_run: RunFile, tmp_path: Path) -> None:
    factory = f"{__name__}:{script}"
    _, path = run_research(LELAND, kit, policy_spec=f"stop={factory},angle={factory},read={factory}",
                           out_dir=tmp_path)
    run = read_run(path)  # type: ignore[arg-type]
    ours, theirs = decisions(run), decisions(heuristic_run)
    assert [(e.type, e.choice) for e in ours] == [(e.type, e.choice) for e in theirs]
    for mine, heuristic in zip(ours, theirs):
        call = model_call_of(run, mine)
        if call is None:
            continue
        assert re.fullmatch(rf"llm fallback \(({cause}), model_call {call.seq}\): " + re.escape(heuristic.reason),
                            mine.reason), mine.reason
        assert call.status != "ok" or mine.reason.startswith("llm fallback (invalid")
    counts = llm_decision_counts(run.events)
    assert counts["model"] == 0 and counts["fallback"] == counts["decisions"] - counts["no_call"] > 5
    assert check_run(run).ok  # fallbacks replay exactly too


def run_with(policy: LLMPolicy, kit: ResearchKit, header: RunHeader) -> list[Any]:
    """The events of LELAND researched with `policy` for every kind, in memory."""
    config = ResearchConfig()
    planner = resolve_planner("rule", config.planner)
    engine = ResearchEngine(config, planner, PolicySet(policy, policy, policy, policy, spec="test"),
                            resolve_verifier("lexical", config.verifier), CorpusSearchTool(kit.corpus, kit.index),
                            CorpusReadTool(kit.corpus), kit.corpus.cutoff)
    sink = MemorySink()
    sink.write_header(header)
    engine.run(header, planner.plan(LELAND), Recorder(header, sink))
    return sink.events


@pytest.mark.parametrize("server_kwargs,timeout_s,status", [
    ({"reply": lambda body: (500, "boom")}, 5.0, "error"),
    ({"delay_s": 0.5}, 0.1, "timeout"),
])
def test_an_http_500_and_a_slow_server_fall_back(server_kwargs: dict[str, Any], timeout_s: float, status: str,
                                                 kit: ResearchKit, heuristic_run: RunFile) -> None:
    with FakeOpenAI(**server_kwargs) as server:
        client = OpenAIChatClient(ModelEndpoint(base_url=server.url, model=MODEL, timeout_s=timeout_s,
                                                max_retries=1, backoff_s=0.0, sampling=SAMPLING))
        events = run_with(LLMPolicy(client), kit, heuristic_run.header)
    calls = [e for e in events if isinstance(e, ModelCall)]
    assert calls and {c.status for c in calls} == {status}
    assert len(server.requests) == 2 * len(calls)  # the client's one retry each
    ours = [e for e in events if e.type in DECISION_TYPES]
    assert [(e.type, e.choice) for e in ours] == [(e.type, e.choice) for e in decisions(heuristic_run)]
    assert all(e.reason.startswith(f"llm fallback ({status}, ") for e in ours if "model_call" in e.reason)


# --------------------------------------------------------------------------- constraints and specs


def test_read_and_keep_regexes_admit_exactly_the_valid_lines() -> None:
    pattern = action_constraint("read", 12, 2).value  # type: ignore[union-attr]
    admitted = ["READ NONE", "READ 1", "READ 12", "READ 3,1", "READ 10,12", "READ 1,1"]
    refused = ["READ 0", "READ 13", "READ 1,2,3", "READ", "READ 1, 2", "read 1", "READ 01", "READ NONE,1",
               "READ 1 ", " READ 1", "KEEP 1", "READ 1,", "READ 112"]
    assert [s for s in admitted if re.fullmatch(pattern, s)] == admitted
    assert [s for s in refused if re.fullmatch(pattern, s)] == []
    keep = action_constraint("keep", 3, 5).value  # type: ignore[union-attr]
    assert re.fullmatch(keep, "KEEP 3,2,1") and not re.fullmatch(keep, "KEEP 4") \
        and not re.fullmatch(keep, "KEEP 1,2,3,1")
    assert action_constraint("read", 4, 0) is None and action_constraint("keep", 0, 3) is None


def test_stop_and_angle_are_choices() -> None:
    assert action_constraint("stop", 2).value == ["CONTINUE", "STOP"]  # type: ignore[union-attr]
    assert action_constraint("angle", 3).value == ["ANGLE 1", "ANGLE 2", "ANGLE 3"]  # type: ignore[union-attr]
    assert action_constraint("angle", 1) is None
    assert action_constraint("follow", 3).value == ["FOLLOW 1", "FOLLOW 2", "FOLLOW 3"]  # type: ignore[union-attr]
    assert action_constraint("follow", 1) is None
    request = action_constraint("angle", 2).request_fields()  # type: ignore[union-attr]
    assert request == {"extra_body": {"structured_outputs": {"choice": ["ANGLE 1", "ANGLE 2"]}}}


def test_the_model_comes_from_the_server_unless_named() -> None:
    with FakeOpenAI() as server:
        listed = resolve_policies(f"llm:read={server.url}", ResearchConfig(), 0)
        named = resolve_policies(f"llm:stop={server.url}#other", ResearchConfig(), 0)
        shared = resolve_policies(all_kinds(server.url), ResearchConfig(), 0)
    assert listed.read.client.model == MODEL and listed.stop.ref.name == "heuristic"  # type: ignore[attr-defined]
    assert named.stop.client.model == "other"  # type: ignore[attr-defined]
    assert shared.stop is shared.angle is shared.read
    assert parse_llm_spec("llm:stop=http://h:1/v1/#m") == {"stop": ("http://h:1/v1", "m")}


@pytest.mark.parametrize("spec", ["llm", "stop=llm", "llm:", "llm:stop", "llm:stop=127.0.0.1:8000",
                                  "llm:halt=http://h/v1", "llm:stop=http://h/v1,stop=http://h/v1"])
def test_bad_llm_specs_name_the_valid_form(spec: str) -> None:
    with pytest.raises(PolicyError, match=re.escape("llm:KIND=URL[#MODEL]")):
        resolve_policies(spec, ResearchConfig(), 0)


def test_an_unreachable_server_is_a_clear_error() -> None:
    with FakeOpenAI() as server:
        url = server.url
    with pytest.raises(PolicyError, match="cannot list the models served at .*citeloop serve MODEL"):
        resolve_policies(f"llm:stop={url}", ResearchConfig(), 0)
