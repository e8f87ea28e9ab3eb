"""The injection filter's optional model check (`--screen llm`) with the scripted fake: one
call per read document after the rules; `instruction` rejects the document's sentences,
anything unusable leaves the rules' verdict and is recorded; the run replays exactly."""

from __future__ import annotations

import json

from pathlib import Path

import pytest
from llm_scripts import LELAND, blocks

from citeloop.runtime.llm import FakeChatClient, RenderedPrompt, Scripted
from citeloop.runtime.llm.client import ModelReply
from citeloop.runtime.llm.parts import LLMPartsError
from citeloop.runtime.replay import check_run
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.events import PartFallback, TokenLogprob
from citeloop.trajectories.runfile import MemorySink, read_run


def _first_source_is_an_injection() -> tuple[FakeChatClient, list[str]]:
    """A model that calls the first document it screens `instruction`, every other `clean`."""
    seen: list[str] = []

    def answer(prompt: RenderedPrompt, constraint: object) -> str:
        assert prompt.id == "injection_check"
        source = blocks(prompt)[0][0]
        seen.append(source)
        return "instruction" if source == seen[0] else "clean"

    return FakeChatClient(answer, name="screen"), seen


def test_a_document_the_model_flags_gives_no_card_and_the_run_replays(kit: ResearchKit, tmp_path: Path) -> None:
    client, seen = _first_source_is_an_injection()
    result, path = run_research(LELAND, kit, out_dir=tmp_path, llm=client, screen="llm")
    assert path is not None and result.outcome.status == "completed"
    run = read_run(path)
    calls = [e for e in run.events if e.type == "model_call"]
    assert [e.prompt_id for e in calls] == ["injection_check"] * len(seen) and len(seen) >= 2
    assert run.header.spec.policies["screen"].name == "llm"
    rejected = [e for e in run.events if e.type == "card_rejected" and e.rejected.reason == "injection"]
    assert len(rejected) == 1 and rejected[0].rejected.detail.startswith(f"model check (model_call {calls[0].seq})")
    flagged_doc = rejected[0].rejected.doc_id
    cards = [e.card for e in run.events if e.type == "card_created"]
    assert cards and all(c.doc_id != flagged_doc for c in cards)
    assert run.events[-1].checks["injection_model"] == {"ran": len(seen), "fired": 1}  # type: ignore[attr-defined]
    check = check_run(run)
    assert check.ok, check.divergence


@pytest.mark.parametrize("reply", ["maybe", Scripted(status="timeout")], ids=["unparsable", "timeout"])
def test_an_unusable_check_leaves_the_rules_verdict_and_is_recorded(kit: ResearchKit, reply: object) -> None:
    plain = MemorySink()
    rule, _ = run_research(LELAND, kit, out_dir=None, sink=plain)
    sink = MemorySink()
    result, _ = run_research(LELAND, kit, out_dir=None, sink=sink, screen="llm",
                             llm=FakeChatClient(lambda p, c: reply, name="broken"))  # type: ignore[arg-type,return-value]
    assert result.report.sections == rule.report.sections  # nothing rejected: the rules stood
    fallbacks = [e for e in sink.events if isinstance(e, PartFallback)]
    calls = [e for e in sink.events if e.type == "model_call"]
    assert fallbacks and len(fallbacks) == len(calls)
    assert all(f.part == "screen" and f.fallback == "rules only" for f in fallbacks)
    expected = "unusable reply: reply 'maybe' is not one of" if reply == "maybe" else "failed (timeout"
    assert all(expected in f.reason and f.model_call_seqs == [c.seq] for f, c in zip(fallbacks, calls))
    assert sink.events[-1].checks["injection_model"]["fired"] == 0  # type: ignore[attr-defined]


def test_the_screen_needs_a_model_and_a_known_name(kit: ResearchKit) -> None:
    with pytest.raises(LLMPartsError, match="screen llm"):
        run_research(LELAND, kit, out_dir=None, sink=MemorySink(), screen="llm")
    with pytest.raises(LLMPartsError, match="unknown screen 'model'"):
        run_research(LELAND, kit, out_dir=None, sink=MemorySink(), screen="model")


def test_cli_screen_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citeloop.eval.cli import main

    argv = ["research", LELAND, "--screen", "llm", "--llm", "fake:malformed", "--json", "--out", str(tmp_path)]
    assert main(argv) == 0
    run = read_run(json.loads(capsys.readouterr().out)["trajectory"])
    assert run.header.spec.policies["screen"].name == "llm"
    assert {e.part for e in run.events if isinstance(e, PartFallback)} == {"screen"}  # malformed: rules only
    assert main(["research", LELAND, "--screen", "model", "--llm", "fake:malformed", "--out", str(tmp_path)]) == 2
    assert "unknown screen 'model'" in capsys.readouterr().err
    assert main(["research", LELAND, "--screen", "llm", "--out", str(tmp_path)]) == 2
    assert "screen llm" in capsys.readouterr().err


def _said(answer: str, p_instruction: float) -> Scripted:
    """A reply whose first token is `answer`, with `instruction` at probability p_instruction."""
    import math

    top = {"instruction": math.log(p_instruction), "clean": math.log(max(1e-9, 1 - p_instruction))}
    return Scripted(text=answer, logprobs=[TokenLogprob(token=answer, logprob=top[answer], top=top)])


@pytest.mark.parametrize(("reply", "rejected"), [
    (_said("instruction", 0.97), True),
    (_said("instruction", 0.6), False),  # said, but not with confidence
    (_said("clean", 0.02), False),
    (Scripted(text="instruction"), True),  # no logprobs: taken at its word
], ids=["sure", "unsure", "clean", "no-logprobs"])
def test_the_model_check_rejects_a_page_only_with_confidence(kit: ResearchKit, reply: Scripted,
                                                             rejected: bool) -> None:
    sink = MemorySink()
    run_research(LELAND, kit, out_dir=None, sink=sink, screen="llm",
                 llm=FakeChatClient(lambda p, c: reply, name="scored"))
    by_model = [e for e in sink.events if e.type == "card_rejected" and e.rejected.detail.startswith("model check")]
    assert bool(by_model) is rejected
    if rejected and reply.logprobs:
        assert "confidence 0.97" in by_model[0].rejected.detail
    fired = sink.events[-1].checks["injection_model"]["fired"]  # type: ignore[attr-defined]
    assert (fired > 0) is rejected


def test_min_confidence_must_be_a_probability() -> None:
    from citeloop.runtime.llm.screen import LLMInjectionScreen

    with pytest.raises(ValueError, match="within"):
        LLMInjectionScreen(FakeChatClient(lambda p, c: "clean", name="x"), min_confidence=1.5)
    screen = LLMInjectionScreen(FakeChatClient(lambda p, c: "clean", name="x"), min_confidence=None)
    assert screen.verdict(ModelReply(status="ok", text="instruction"))[2] is True


def test_a_lower_threshold_rejects_an_unsure_page_is_recorded_and_replays(kit: ResearchKit, tmp_path: Path) -> None:
    unsure = _said("instruction", 0.6)
    client = FakeChatClient(lambda p, c: unsure, name="unsure")
    result, path = run_research(LELAND, kit, out_dir=tmp_path, screen="llm", llm=client, screen_min_confidence=0.5)
    assert path is not None
    run = read_run(path)
    assert run.header.spec.policies["screen"].args["min_confidence"] == 0.5
    assert [e for e in run.events if e.type == "card_rejected" and e.rejected.detail.startswith("model check")]
    check = check_run(run)  # the replay rebuilds the screen with the recorded threshold
    assert check.ok, check.divergence
    _, default_path = run_research(LELAND, kit, out_dir=tmp_path, screen="llm", llm=client)
    default = read_run(default_path)  # type: ignore[arg-type]
    assert "min_confidence" not in default.header.spec.policies["screen"].args  # the default is not written
    assert not [e for e in default.events if e.type == "card_rejected" and e.rejected.detail.startswith("model check")]
    with pytest.raises(LLMPartsError, match="within"):
        run_research(LELAND, kit, out_dir=None, sink=MemorySink(), screen="llm", llm=client, screen_min_confidence=2.0)


def test_cli_screen_min_confidence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citeloop.eval.cli import main

    argv = ["research", LELAND, "--screen", "llm", "--llm", "fake:malformed", "--screen-min-confidence", "0.75",
            "--json", "--out", str(tmp_path)]
    assert main(argv) == 0
    run = read_run(json.loads(capsys.readouterr().out)["trajectory"])
    assert run.header.spec.policies["screen"].args["min_confidence"] == 0.75
    assert main(["research", LELAND, "--screen-min-confidence", "0.75", "--out", str(tmp_path)]) == 2
    assert "needs --screen llm" in capsys.readouterr().err
