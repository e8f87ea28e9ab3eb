"""Choice decisions by whole-option likelihood (runtime/llm/sequence_scoring.py): the reading of
prompt logprobs, the choice where first-token and whole-sequence preferences disagree, and the
same decisions as the transformers server's exact choice scoring on a real model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.runtime.llm.client import Constraint, ModelEndpoint, OpenAIChatClient
from citeloop.runtime.llm.prompts import RenderedPrompt
from citeloop.runtime.llm.sequence_scoring import ScoringError, best_choice, prompt_token_logprobs, request_body
from citeloop.trajectories.events import ModelMessage, TokenLogprob


def _body(tokens: list[tuple[int, float]], with_ids: bool = True) -> str:
    """A vLLM-shaped reply: position 0 None, then {token id: {logprob, decoded_token}}."""
    positions = [None] + [{str(t): {"logprob": lp, "rank": 3, "decoded_token": f"t{t}"}} for t, lp in tokens[1:]]
    body = {"choices": [{"message": {"content": ""}}], "prompt_logprobs": positions}
    if with_ids:
        body["prompt_token_ids"] = [t for t, _ in tokens]
    return json.dumps(body)


def test_prompt_logprobs_are_read_per_position() -> None:
    read = prompt_token_logprobs(_body([(1, 0.0), (7, -0.5), (9, -1.25)]))
    assert [(t.token_id, t.logprob, t.token) for t in read] == [(7, -0.5, "t7"), (9, -1.25, "t9")]
    # Two tokens listed at a position: the reply's prompt_token_ids say which is the prompt's.
    two = json.dumps({"prompt_logprobs": [None, {"5": {"logprob": -0.1}, "8": {"logprob": -2.0}}],
                      "prompt_token_ids": [1, 8]})
    assert prompt_token_logprobs(two)[0].logprob == -2.0
    with pytest.raises(ScoringError, match="names none of them"):
        prompt_token_logprobs(json.dumps({"prompt_logprobs": [None, {"5": {"logprob": -0.1}, "8": {"logprob": -2.0}}]}))
    with pytest.raises(ScoringError, match="no prompt logprobs"):
        prompt_token_logprobs(json.dumps({"choices": [{"message": {"content": "STOP"}}]}))


def _seq(*pairs: tuple[int, float]) -> list[TokenLogprob]:
    return [TokenLogprob(token=str(t), logprob=lp, token_id=t) for t, lp in pairs]


def test_the_whole_sequence_decides_not_the_first_token() -> None:
    prompt = [(1, -0.2), (2, -0.3)]  # shared by every option: scores the same in each
    # STOP's first token is the likeliest first token of all, but STOP as a whole is not.
    stop = _seq(*prompt, (50, -0.1), (51, -6.0))
    cont = _seq(*prompt, (60, -1.0), (61, -0.4), (62, -0.2))
    choice = best_choice({"STOP": stop, "CONTINUE": cont})
    assert choice.best == "CONTINUE"
    assert choice.scores == {"STOP": pytest.approx(-6.1), "CONTINUE": pytest.approx(-1.6)}
    assert [t.token_id for t in choice.tokens] == [60, 61, 62] and choice.prompt_tokens == 3
    # Options sharing their first tokens ("FOLLOW" " "): only where they differ counts.
    one, two = _seq(*prompt, (70, -0.1), (71, -0.9)), _seq(*prompt, (70, -0.1), (72, -0.4))
    assert best_choice({"FOLLOW 1": one, "FOLLOW 2": two}).scores == {"FOLLOW 1": -0.9, "FOLLOW 2": -0.4}
    with pytest.raises(ScoringError, match="at least two"):
        best_choice({"STOP": stop})


def test_an_option_that_begins_another_is_scored_as_a_whole_reply() -> None:
    """With the end of the turn scored (token 99, then the template's newline 98), "read these
    and stop" can lose to "read these and one more"; scored open, the shorter always won."""
    prompt = [(1, -0.2), (2, -0.3), (80, -0.1), (81, -0.2)]  # ... "READ 1": shared up to here
    two = best_choice({"READ 1": _seq(*prompt, (99, -3.0), (98, -0.01)),
                       "READ 1,2": _seq(*prompt, (82, -0.5), (83, -0.3), (99, -0.1), (98, -0.01))})
    assert two.best == "READ 1,2" and two.scores == {"READ 1": pytest.approx(-3.01), "READ 1,2": pytest.approx(-0.91)}


def test_the_scoring_request_prefills_the_reply() -> None:
    body = request_body("m", [{"role": "user", "content": "q"}], "STOP")
    assert body["messages"][-1] == {"role": "assistant", "content": "STOP"}
    # The reply is closed as the chat template closes a turn, so the end of the turn is scored too.
    assert body["extra_body"]["continue_final_message"] is False and body["extra_body"]["add_generation_prompt"] is False
    assert body["extra_body"]["prompt_logprobs"] == 0 and body["max_tokens"] == 1


def test_sequence_scoring_on_the_transformers_server_agrees_with_its_exact_choice(tiny_model: Path) -> None:
    """The same model and prompts: the server's own whole-choice scoring (structured_outputs.choice)
    and the client's prefill scoring give the same choice, and the recorded scores rank it first."""
    pytest.importorskip("transformers")
    from citeloop.training.hf_server import served_hf

    prompts = [[{"role": "system", "content": "Reply STOP or CONTINUE."},
                {"role": "user", "content": f"Round {r}; searches {s}/10; coverage {c:.2f}. STOP or CONTINUE?"}]
               for r, s, c in [(1, 2, 0.3), (2, 5, 0.8), (3, 9, 0.95), (4, 4, 0.1)]]
    options = [["CONTINUE", "STOP"], ["CONTINUE", "STOP"], ["FOLLOW 1", "FOLLOW 2", "FOLLOW 3"], ["ANGLE 1", "ANGLE 2"]]
    with served_hf(tiny_model) as server:
        endpoint = ModelEndpoint(base_url=server.endpoint, model=str(tiny_model), max_retries=0)
        client = OpenAIChatClient(endpoint)
        for messages, opts in zip(prompts, options):
            prompt = RenderedPrompt(id="t", version=1, messages=[ModelMessage(**m) for m in messages])
            exact = client.chat(prompt, Constraint.choice(opts))
            scored = client.chat(prompt, Constraint.choice(opts, scoring="sequence"))
            assert exact.ok and scored.ok, (exact.error, scored.error)
            assert scored.text == exact.text
            assert set(scored.option_scores) == set(opts)
            assert max(scored.option_scores, key=scored.option_scores.get) == scored.text


def _decisions(path: Path) -> list[tuple[str, object]]:
    from citeloop.trajectories.events import DECISION_TYPES
    from citeloop.trajectories.runfile import read_run

    return [(e.type, e.choice) for e in read_run(path).events if e.type in DECISION_TYPES]


QUESTION = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"


def test_a_run_scored_by_sequence_decides_as_the_servers_exact_choice(tiny_model: Path, tmp_path: Path) -> None:
    """`llm:stop=URL?score=sequence,follow=...`: the whole run takes the same decisions as with the
    server's own choice scoring, and each model call records every option's score."""
    from citeloop.runtime.session import ResearchKit, run_research
    from citeloop.training.hf_server import served_hf
    from citeloop.trajectories.runfile import read_run

    kit = ResearchKit.load()
    with served_hf(tiny_model) as server:
        exact_spec = f"llm:stop={server.endpoint},follow={server.endpoint}"
        seq = f"{server.endpoint}?score=sequence"
        _, exact = run_research(QUESTION, kit, policy_spec=exact_spec, out_dir=tmp_path / "exact")
        _, scored = run_research(QUESTION, kit, policy_spec=f"llm:stop={seq},follow={seq}", out_dir=tmp_path / "seq")
    assert _decisions(exact) == _decisions(scored)
    calls = [e for e in read_run(scored).events if e.type == "model_call"]
    assert calls and all(c.constraint["scoring"] == "sequence" and c.option_scores for c in calls)
    assert all(c.completion == max(c.option_scores, key=c.option_scores.get) for c in calls)
    plain = [e for e in read_run(exact).events if e.type == "model_call"]
    assert plain and all("scoring" not in c.constraint and c.option_scores is None for c in plain)


@pytest.mark.vllm
def test_sequence_scoring_on_vllm_decides_as_the_transformers_server(vllm_interpreter: str, tiny_model: Path,
                                                                     tmp_path: Path) -> None:
    """Opt-in (`pytest -m vllm`): the same model and run, scored on a real vLLM server and on the
    transformers server, take the same decisions."""
    from citeloop.runtime.session import ResearchKit, run_research
    from citeloop.training.hf_server import served_hf
    from citeloop.training.serve import served

    kit = ResearchKit.load()
    with served_hf(tiny_model) as server:
        seq = f"{server.endpoint}?score=sequence"
        _, on_hf = run_research(QUESTION, kit, policy_spec=f"llm:stop={seq},follow={seq}", out_dir=tmp_path / "hf")
    with served(tiny_model, python=vllm_interpreter, max_model_len=4096, log_path=tmp_path / "vllm.log",
                timeout_s=600) as server:
        seq = f"{server.endpoint}?score=sequence"
        _, on_vllm = run_research(QUESTION, kit, policy_spec=f"llm:stop={seq},follow={seq}",
                                  out_dir=tmp_path / "vllm")
    assert _decisions(on_hf) == _decisions(on_vllm)


def _train_first_token_trap(model_dir: Path, out: Path, messages: list[dict[str, str]]) -> Path:
    """The tiny model fitted (plain torch, a few seconds) to replies SOON x6, CONTINUE x3, STOP x1
    after `messages`: its likeliest first letter is S (SOON and STOP share it), while the whole
    sequence CONTINUE is three times as likely as STOP."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(str(model_dir))
    lm = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
    prompt = list(tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                          return_dict=True)["input_ids"])
    # Each reply as the chat template closes a turn (its end-of-turn token and what follows it),
    # as a chat model has seen them.
    rows = [list(tok.apply_chat_template([*messages, {"role": "assistant", "content": reply}], tokenize=True,
                                         return_dict=True)["input_ids"])
            for reply in ["SOON"] * 6 + ["CONTINUE"] * 3 + ["STOP"]]
    assert all(r[:len(prompt)] == prompt for r in rows)
    width = max(len(r) for r in rows)
    ids = torch.tensor([r + [tok.eos_token_id] * (width - len(r)) for r in rows])
    labels = ids.clone()
    labels[:, :len(prompt)] = -100
    for i, r in enumerate(rows):
        labels[i, len(r):] = -100
    optimizer = torch.optim.AdamW(lm.parameters(), lr=3e-3)
    lm.train()
    for _ in range(60):
        optimizer.zero_grad()
        lm(input_ids=ids, labels=labels).loss.backward()
        optimizer.step()
    lm.eval()
    lm.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def test_a_model_whose_first_token_says_stop_but_whose_sequence_says_continue(tiny_model: Path,
                                                                             tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from citeloop.training.hf_server import served_hf

    messages = [{"role": "system", "content": "Reply STOP or CONTINUE."}, {"role": "user", "content": "Round 1."}]
    trap = _train_first_token_trap(tiny_model, tmp_path / "trap", messages)
    # The trap, checked by hand: the first letter S is likelier than C; CONTINUE likelier than STOP.
    tok = AutoTokenizer.from_pretrained(str(trap))
    lm = AutoModelForCausalLM.from_pretrained(str(trap), dtype=torch.float32).eval()
    prompt = list(tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                          return_dict=True)["input_ids"])

    def sequence_logprob(reply: str) -> float:
        reply_ids = tok.encode(reply, add_special_tokens=False)
        with torch.no_grad():
            logp = torch.log_softmax(lm(torch.tensor([prompt + reply_ids])).logits[0], dim=-1)
        return sum(float(logp[len(prompt) - 1 + i, t]) for i, t in enumerate(reply_ids))

    first = {w: sequence_logprob(w[0]) for w in ("STOP", "CONTINUE")}
    assert first["STOP"] > first["CONTINUE"] + 0.3  # a first-token decoder would write S... -> STOP
    assert sequence_logprob("CONTINUE") > sequence_logprob("STOP") + 0.3
    with served_hf(trap) as server:
        client = OpenAIChatClient(ModelEndpoint(base_url=server.endpoint, model=str(trap), max_retries=0))
        prompt_ = RenderedPrompt(id="t", version=1, messages=[ModelMessage(**m) for m in messages])
        reply = client.chat(prompt_, Constraint.choice(["CONTINUE", "STOP"], scoring="sequence"))
    assert reply.ok and reply.text == "CONTINUE"
    assert reply.option_scores["CONTINUE"] > reply.option_scores["STOP"]


@pytest.mark.parametrize("option,message", [
    ("?score=fast", "give score=sequence"), ("?stop_margin=1.5", "give score=sequence"),
    ("?score=sequence&stop_margin=abc", "is not a number"), ("?temperature=1", "is not known"),
])
def test_bad_endpoint_options_are_refused_in_one_line(option: str, message: str) -> None:
    from citeloop.runtime.config import ResearchConfig
    from citeloop.runtime.policies import PolicyError, resolve_policies

    with pytest.raises(PolicyError, match=message):
        resolve_policies(f"llm:stop=http://127.0.0.1:9/v1{option}#m", ResearchConfig(), 0)


def test_endpoint_options_give_the_scoring_and_the_stop_margin() -> None:
    from citeloop.runtime.policies.llm import endpoint_options

    options = endpoint_options("http://h:8000/v1?score=sequence&stop_margin=1.75")
    assert (options.url, options.scoring, options.stop_margin) == ("http://h:8000/v1", "sequence", 1.75)
    assert endpoint_options("http://h:8000/v1").scoring is None
