"""Seed 002's verdict judge step with the scripted fake: one extraction call only when the
pre-stage is undecidable, quotes counted only when verbatim, fallbacks recorded."""

from __future__ import annotations

import pytest
from llm_scripts import recorder

from citeloop.runtime.llm import FakeChatClient, Scripted, fake_client
from citeloop.runtime.llm.judge import EvidenceSentence, count_quotes, judge_claim
from citeloop.trajectories.events import ModelCall
from citeloop.trajectories.models import VerdictRecord

CLAIM = "Maximum Overdrive was directed by Stephen King in 1986."
EVIDENCE = [
    EvidenceSentence(sid="d1#s0", text="Maximum Overdrive is a 1986 American horror comedy film."),
    EvidenceSentence(sid="d1#s1", text="It was written and directed by Stephen King."),
    EvidenceSentence(sid="d2#s0", text="The soundtrack was recorded by AC/DC."),
]
UNDECIDABLE = VerdictRecord(claim_id="c1", verdict="undecidable", checker="lexical", reason="gray zone",
                            support=0.4)


def test_no_call_when_the_pre_stage_decides() -> None:
    client = FakeChatClient([])
    decided = UNDECIDABLE.model_copy(update={"verdict": "entail"})
    result = judge_claim("c1", CLAIM, EVIDENCE, decided, client)
    assert result.record == decided and result.extraction is None and client.calls == []


def test_verbatim_quotes_decide_the_verdict_in_code() -> None:
    reply = "- Maximum Overdrive is a 1986 American horror comedy film.\n\"It was written and directed by Stephen King.\""
    rec, sink = recorder()
    result = judge_claim("c1", CLAIM, EVIDENCE, UNDECIDABLE, FakeChatClient([reply]), recorder=rec, parent=7)
    assert result.record.verdict == "entail" and result.record.checker == "extraction"
    assert result.extraction is not None and result.extraction.counted == ["d1#s0", "d1#s1"]
    assert not result.fallback and result.model_call_seq == 0
    event = sink.events[0]
    assert isinstance(event, ModelCall) and event.prompt_id == "verdict_extract" and event.parent_seq == 7
    assert "UNTRUSTED_EVIDENCE" in event.messages[-1].content


def test_invented_quotes_do_not_count() -> None:
    reply = "Maximum Overdrive was directed by Stephen King in 1986.\nIt was written and directed by Stephen King."
    counted, rejected = count_quotes(reply, EVIDENCE)
    assert counted == ["d1#s1"] and rejected == ["Maximum Overdrive was directed by Stephen King in 1986."]


def test_short_fragments_count_only_as_whole_sentences() -> None:
    assert count_quotes("the film", EVIDENCE) == ([], ["the film"])


def test_negated_quote_is_a_conflict() -> None:
    evidence = [EvidenceSentence(sid="d9#s0", text="Maximum Overdrive was not directed by Stephen King in 1986.")]
    result = judge_claim("c1", CLAIM, evidence, UNDECIDABLE, FakeChatClient([evidence[0].text]))
    assert result.record.verdict == "conflict"


@pytest.mark.parametrize("name, reason", [
    ("malformed", "appears verbatim"),
    ("empty", "empty completion"),
    ("truncated", "truncated"),
    ("injected", "appears verbatim"),
    ("timeout", "timeout"),
    ("refused", "refused"),
])
def test_failed_or_unusable_replies_leave_the_deterministic_verdict_and_are_recorded(name: str, reason: str) -> None:
    rec, sink = recorder()
    result = judge_claim("c1", CLAIM, EVIDENCE, UNDECIDABLE, fake_client(name), recorder=rec)
    assert result.fallback and result.record.verdict == "undecidable" and result.record.checker == "lexical"
    assert result.extraction is not None and result.extraction.outcome == "fallback"
    assert reason in result.extraction.reason and "extraction fallback" in result.record.reason
    assert len(sink.events) == 1 and isinstance(sink.events[0], ModelCall)


def test_none_answer_keeps_the_pre_stage_verdict_without_fallback() -> None:
    result = judge_claim("c1", CLAIM, EVIDENCE, UNDECIDABLE, FakeChatClient(["none"]))
    assert result.record.verdict == "undecidable" and not result.fallback
    assert result.extraction is not None and result.extraction.outcome == "none"


def test_quotes_that_settle_nothing_fall_back() -> None:
    result = judge_claim("c1", CLAIM, EVIDENCE, UNDECIDABLE,
                         FakeChatClient([Scripted(text="The soundtrack was recorded by AC/DC.")]))
    assert result.fallback and result.record.verdict == "undecidable"
    assert result.extraction is not None and result.extraction.counted == ["d2#s0"]
