"""The transformers chat server: OpenAI wire format, exact choice decoding, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("transformers")

from citeloop.training.hf_server import ChatModel, HFServerError, served_hf  # noqa: E402

MESSAGES = [{"role": "system", "content": "Answer with STOP or CONTINUE."},
            {"role": "user", "content": "Coverage 0.40 (target 0.85). Stop now?"}]


def test_choice_replies_are_the_most_likely_choice_with_logprobs(tiny_model: Path) -> None:
    model = ChatModel(tiny_model)
    prompt = model.prompt_ids(MESSAGES)
    totals = {c: sum(model._continuation_logprobs(prompt, model.tokenizer.encode(c, add_special_tokens=False)))
              for c in ("STOP", "CONTINUE")}
    with served_hf(tiny_model) as server:
        client = openai.OpenAI(base_url=server.endpoint, api_key="none")
        assert [m.id for m in client.models.list().data] == [str(tiny_model)]
        reply = client.chat.completions.create(
            model=str(tiny_model), messages=MESSAGES, temperature=0, logprobs=True, max_tokens=4,
            extra_body={"structured_outputs": {"choice": ["STOP", "CONTINUE"]}})
    choice = reply.choices[0]
    assert choice.message.content == max(totals, key=totals.get)
    assert sum(t.logprob for t in choice.logprobs.content) == pytest.approx(totals[choice.message.content], abs=1e-4)
    assert reply.usage.prompt_tokens == len(prompt)


def test_free_generation_and_bad_requests(tiny_model: Path) -> None:
    with served_hf(tiny_model) as server:
        client = openai.OpenAI(base_url=server.endpoint, api_key="none", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=MESSAGES, temperature=0, max_tokens=3,
                                               extra_body={"structured_outputs": {"regex": "READ (NONE|[1-3])"}})
        assert reply.usage.completion_tokens <= 3
        assert "not enforced" in reply.model_extra["citeloop_note"]
        with pytest.raises(openai.BadRequestError, match="non-empty list"):
            client.chat.completions.create(model="m", messages=[], max_tokens=3)


def test_a_folder_without_a_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(HFServerError, match="no config.json"):
        ChatModel(tmp_path)
