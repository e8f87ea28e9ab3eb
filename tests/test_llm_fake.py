"""The scripted fake client: selected by name, scripted replies and every failure mode."""

from __future__ import annotations

import pytest

from citeloop.runtime.llm import (
    Constraint,
    FakeChatClient,
    RenderedPrompt,
    Scripted,
    fake_client,
    make_client,
)
from citeloop.runtime.llm.fake import FAKE_SCRIPTS
from citeloop.trajectories.events import ModelMessage

PROMPT = RenderedPrompt(id="verdict_judge", version=1, messages=[ModelMessage(role="user", content="Claim: x")])
VERDICTS = Constraint.choice(["entail", "conflict", "undecidable"])

SCRIPT_FOR_TESTS = ["entail", Scripted(status="timeout"), "conflict"]
"""A script loaded by path (`fake:tests.test_llm_fake:SCRIPT_FOR_TESTS`)."""


def test_list_script_plays_in_order_then_fails_loudly() -> None:
    client = FakeChatClient(["entail", "conflict"], name="two")
    replies = [client.chat(PROMPT, VERDICTS) for _ in range(3)]
    assert [(r.status, r.text) for r in replies[:2]] == [("ok", "entail"), ("ok", "conflict")]
    assert replies[2].status == "error" and "exhausted" in (replies[2].error or "")
    assert client.model == "fake:two" and len(client.calls) == 3 and client.calls[0] == (PROMPT, VERDICTS)
    assert replies[0].request_digest and replies[0].request_digest == replies[1].request_digest


def test_callable_script_sees_the_prompt_and_constraint() -> None:
    client = FakeChatClient(lambda prompt, constraint: constraint.value[-1] if constraint else prompt.id)
    assert client.chat(PROMPT, VERDICTS).text == "undecidable"
    assert client.chat(PROMPT).text == "verdict_judge"


@pytest.mark.parametrize("name, status, reason", [
    ("malformed", "parse_error", "not one of"),
    ("empty", "parse_error", "empty completion"),
    ("truncated", "parse_error", "truncated"),
    ("refused", "refused", "can't help"),
    ("timeout", "timeout", "timeout"),
    ("rate_limited", "rate_limited", "429"),
    ("error", "error", "error"),
])
def test_named_failure_scripts_give_a_status_never_an_empty_answer(name: str, status: str, reason: str) -> None:
    reply = make_client(f"fake:{name}").chat(PROMPT, VERDICTS)
    assert (reply.status, reply.ok) == (status, False)
    assert reason in (reply.error or "")


def test_truncated_reply_keeps_its_text_for_the_record() -> None:
    reply = fake_client("truncated").chat(PROMPT)
    assert reply.status == "parse_error" and reply.text.startswith("The evidence") and reply.finish_reason == "length"


def test_injected_reply_is_well_formed_text_and_fails_a_closed_choice() -> None:
    free = fake_client("injected").chat(PROMPT)
    assert free.status == "ok" and "IGNORE PREVIOUS INSTRUCTIONS" in free.text  # only the caller's checks stop it
    assert fake_client("injected").chat(PROMPT, VERDICTS).status == "parse_error"


def test_first_choice_and_undecidable_scripts() -> None:
    assert fake_client("first-choice").chat(PROMPT, VERDICTS).text == "entail"
    assert fake_client("undecidable").chat(PROMPT, VERDICTS).status == "ok"


def test_script_by_module_path() -> None:
    client = make_client("fake:tests.test_llm_fake:SCRIPT_FOR_TESTS")
    assert [client.chat(PROMPT).status for _ in range(3)] == ["ok", "timeout", "ok"]


def test_unknown_fake_name_lists_the_built_in_ones() -> None:
    with pytest.raises(ValueError, match="valid: .*malformed"):
        make_client("fake:nonsense")
    assert {"malformed", "empty", "truncated", "injected", "timeout"} <= FAKE_SCRIPTS.keys()
