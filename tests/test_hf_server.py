"""The transformers chat server: OpenAI wire format, exact choice decoding, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("transformers")

from citeloop.training.hf_server import ChatModel, HFServerError, served_hf  # noqa: E402

MESSAGES = [{"role": "system", "content": "Answer with STOP or CONTINUE."},
            {"role": "user", "content": "Coverage 0.40 (target 0.85). Stop now?"}]


def _scored_by_hand(model_dir: Path, messages: list[dict[str, str]], choice: str,
                    closed: bool = True) -> tuple[list[int], list[float], int]:
    """(tokens of `choice`, and when `closed` of the end of the turn the chat template adds after
    it; their log-probabilities after the chat prompt; prompt length), computed without the
    server: plain transformers, one forward pass per prefix."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    lm = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32).eval()
    prompt = list(tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                return_dict=True)["input_ids"])
    tokens = tokenizer(choice, add_special_tokens=False)["input_ids"]
    if closed:
        whole = list(tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": choice}],
                                                   tokenize=True, return_dict=True)["input_ids"])
        assert whole[:len(prompt)] == prompt and whole[len(prompt):len(prompt) + len(tokens)] == tokens
        tokens = whole[len(prompt):]
        assert tokenizer.eos_token_id in tokens[len(tokenizer(choice, add_special_tokens=False)["input_ids"]):]
    logprobs = []
    with torch.no_grad():
        for i, token in enumerate(tokens):
            next_logits = lm(torch.tensor([prompt + tokens[:i]])).logits[0, -1]
            logprobs.append(float(torch.log_softmax(next_logits, dim=-1)[token]))
    return tokens, logprobs, len(prompt)


def test_choice_replies_are_the_most_likely_choice_with_logprobs(tiny_model: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_model))
    scored = {c: _scored_by_hand(tiny_model, MESSAGES, c) for c in ("STOP", "CONTINUE")}
    totals = {c: sum(lps) for c, (_, lps, _) in scored.items()}
    with served_hf(tiny_model) as server:
        client = openai.OpenAI(base_url=server.endpoint, api_key="none")
        assert [m.id for m in client.models.list().data] == [str(tiny_model)]
        reply = client.chat.completions.create(
            model=str(tiny_model), messages=MESSAGES, temperature=0, logprobs=True, max_tokens=4,
            extra_body={"structured_outputs": {"choice": ["STOP", "CONTINUE"]}})
    choice = reply.choices[0]
    best = max(totals, key=totals.get)
    assert abs(totals["STOP"] - totals["CONTINUE"]) > 1e-3  # not a near tie, so the argmax is meaningful
    assert choice.message.content == best
    tokens, logprobs, n_prompt = scored[best]
    assert [t.token for t in choice.logprobs.content] == [tokenizer.decode([t]) for t in tokens]
    assert [t.logprob for t in choice.logprobs.content] == pytest.approx(logprobs, abs=1e-4)
    assert reply.usage.prompt_tokens == n_prompt
    assert reply.usage.completion_tokens == len(tokens)


def test_free_generation_and_bad_requests(tiny_model: Path) -> None:
    with served_hf(tiny_model) as server:
        client = openai.OpenAI(base_url=server.endpoint, api_key="none", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=MESSAGES, temperature=0, max_tokens=3,
                                               extra_body={"structured_outputs": {"regex": "READ (NONE|[1-3])"}})
        assert reply.usage.completion_tokens <= 3
        assert "not enforced" in reply.model_extra["citeloop_note"]
        with pytest.raises(openai.BadRequestError, match="non-empty list"):
            client.chat.completions.create(model="m", messages=[], max_tokens=3)
        prefill = {"prompt_logprobs": 0, "continue_final_message": True, "add_generation_prompt": False}
        with pytest.raises(openai.BadRequestError, match="needs the last message to be the assistant's"):
            client.chat.completions.create(model="m", messages=MESSAGES, max_tokens=1, extra_body=prefill)
        with pytest.raises(openai.BadRequestError, match="cannot be combined with add_generation_prompt"):
            client.chat.completions.create(model="m", messages=[*MESSAGES, {"role": "assistant", "content": "STOP"}],
                                           max_tokens=1, extra_body={**prefill, "add_generation_prompt": True})


def test_a_prefill_request_returns_the_prompt_logprobs_as_vllm_does(tiny_model: Path) -> None:
    """Every prompt token after the first with its logprob, equal to plain transformers' numbers."""
    import json as _json

    tokens, logprobs, _ = _scored_by_hand(tiny_model, MESSAGES, "STOP", closed=False)
    with served_hf(tiny_model) as server:
        client = openai.OpenAI(base_url=server.endpoint, api_key="none", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="m", messages=[*MESSAGES, {"role": "assistant", "content": "STOP"}], max_tokens=1,
            extra_body={"prompt_logprobs": 0, "continue_final_message": True, "add_generation_prompt": False})
    body = _json.loads(raw.text)
    positions, ids = body["prompt_logprobs"], body["prompt_token_ids"]
    assert positions[0] is None and len(positions) == len(ids)
    assert ids[-len(tokens):] == tokens  # the prefilled reply's tokens end the prompt
    tail = [positions[i][str(ids[i])]["logprob"] for i in range(len(ids) - len(tokens), len(ids))]
    assert tail == pytest.approx(logprobs, abs=1e-4)


def test_a_folder_without_a_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(HFServerError, match="no config.json"):
        ChatModel(tmp_path)


def test_an_unknown_or_missing_device_is_a_clear_error(tiny_model: Path) -> None:
    import torch

    with pytest.raises(HFServerError, match="device 'tpu': use cpu, cuda, auto"):
        ChatModel(tiny_model, device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(HFServerError, match="torch sees no GPU"):
            ChatModel(tiny_model, device="cuda")
    assert ChatModel(tiny_model, device="auto").device == ("cuda" if torch.cuda.is_available() else "cpu")


def test_citeloop_serve_engine_hf_serves_until_sigterm(tiny_model: Path) -> None:
    """`citeloop serve MODEL --engine hf --json`: one JSON line naming the endpoint, a server that
    answers there, and a clean exit on SIGTERM."""
    import json as _json
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "citeloop.eval.cli", "serve", str(tiny_model), "--engine", "hf",
                             "--port", "0", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        info = _json.loads(proc.stdout.readline())
        assert info["engine"] == "hf" and info["models"] == [str(tiny_model)]
        client = openai.OpenAI(base_url=info["endpoint"], api_key="none", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=MESSAGES, max_tokens=3,
                                               extra_body={"structured_outputs": {"choice": ["STOP", "CONTINUE"]}})
        assert reply.choices[0].message.content in ("STOP", "CONTINUE")
    finally:
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "stopping the transformers server" in stderr



def test_the_prefix_cache_reuses_a_shared_prompt_and_changes_no_score(tiny_model: Path) -> None:
    """Options of one decision share their prompt: with the prefix cache the shared tokens run
    once, and every logprob equals the uncached model's (float rounding aside), also for a
    request that is a prefix of the one before and for one that shares nothing."""
    other = [{"role": "user", "content": "Something else entirely."}]
    requests = [[*MESSAGES, {"role": "assistant", "content": "CONTINUE"}],
                [*MESSAGES, {"role": "assistant", "content": "STOP"}],
                [*MESSAGES, {"role": "assistant", "content": "STOP"}],
                other + [{"role": "assistant", "content": "STOP"}]]
    plain, cached = ChatModel(tiny_model, prefix_cache=False), ChatModel(tiny_model, prefix_cache=True)
    ids = []
    for messages in requests:
        ids_plain, lps_plain = plain.prefill_logprobs(messages, closed=True)
        ids_cached, lps_cached = cached.prefill_logprobs(messages, closed=True)
        assert ids_cached == ids_plain and len(lps_cached) == len(ids_plain) - 1
        assert lps_cached == pytest.approx(lps_plain, abs=1e-4)
        ids.append(ids_plain)
    assert plain.tokens_run == sum(len(i) for i in ids)
    # By hand: request 2 shares the prompt with request 1 up to the reply; request 3 is request 2
    # again (only its last token runs); request 4 shares at most the chat template's opening.
    shared_12 = next(k for k, (a, b) in enumerate(zip(ids[0], ids[1])) if a != b)
    shared_34 = next(k for k, (a, b) in enumerate(zip(ids[2], ids[3])) if a != b)
    expected = len(ids[0]) + (len(ids[1]) - shared_12 + 1) + 1 + (len(ids[3]) - max(shared_34 - 1, 0))
    assert cached.tokens_run == expected < plain.tokens_run
