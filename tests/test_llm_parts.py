"""Model-backed parts in whole runs with the scripted fake: the judge verifier's firing, a
research run with LLM planner, writer, judge and critic that finishes and replays exactly,
the same run under every broken reply, cache hits that leave events unchanged, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_scripts import LELAND, blocks, first_sentence, recorder, research_script

from citeloop.eval.cli import main
from citeloop.runtime.llm import (
    FakeChatClient,
    ModelReply,
    RenderedPrompt,
    Scripted,
    fake_client,
)
from citeloop.runtime.llm.judge_verifier import JudgeVerifier
from citeloop.runtime.replay import check_run
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.runtime.verifier import EvidenceText
from citeloop.trajectories.events import PartFallback
from citeloop.trajectories.runfile import deterministic_lines, read_run

EVIDENCE = [EvidenceText(card_id="c1", text="Maximum Overdrive is a 1986 American horror film. "
                                            "It was written and directed by Stephen King.")]
GRAY = "Stephen King directed Maximum Overdrive in Wilmington with Emilio Estevez, Pat Hingle and Laura Harrington."
ALL_PARTS = {"planner": "llm", "writer": "llm", "verifier_name": "judge", "critic": "llm"}


def padded(prompt: RenderedPrompt) -> str:
    """A claim with invented names (the lexical pre-stage lands in its gray zone and the judge
    fires), then one copied from the evidence."""
    src, text = blocks(prompt)[0]
    extra = " alongside Zorblat Quenth, Mira Vantablack, Orrin Pelk, Tasha Windlow and Bram Okoro at night."
    return json.dumps({"claims": [{"text": first_sentence(text).rstrip(".") + extra, "cards": [src]},
                                  {"text": first_sentence(text), "cards": [src]}]})


# --------------------------------------------------------------------------- judge verifier


def test_the_judge_is_not_called_when_the_pre_stage_decides() -> None:
    client = FakeChatClient([])
    judge = JudgeVerifier(client)
    rec, _ = recorder()
    judge.attach(rec)
    record = judge.check("k", "It was written and directed by Stephen King.", EVIDENCE)
    assert record.verdict == "entail" and client.calls == [] and rec.checks["judge"] == {"ran": 1, "fired": 0}


def test_the_judge_fires_in_the_gray_zone_and_code_decides_from_verbatim_quotes() -> None:
    client = FakeChatClient(["It was written and directed by Stephen King."])
    judge = JudgeVerifier(client)
    rec, sink = recorder()
    judge.attach(rec)
    record = judge.check("k", GRAY, EVIDENCE)
    assert judge.prestage.check("k", GRAY, EVIDENCE).verdict == "undecidable"
    assert (record.verdict, record.checker) == ("partial", "extraction_gray")
    assert [e.type for e in sink.events] == ["model_call"] and rec.checks["judge"] == {"ran": 1, "fired": 1}


def test_without_a_recorder_the_judge_never_calls_the_model() -> None:
    client = FakeChatClient(["It was written and directed by Stephen King."])
    assert JudgeVerifier(client).check("k", GRAY, EVIDENCE).verdict == "undecidable" and client.calls == []


@pytest.mark.parametrize("name", ["malformed", "empty", "truncated", "injected", "timeout"])
def test_a_broken_extraction_leaves_the_pre_stage_verdict_and_is_recorded(name: str) -> None:
    judge = JudgeVerifier(fake_client(name))
    rec, sink = recorder()
    judge.attach(rec)
    assert judge.check("k", GRAY, EVIDENCE).verdict == "undecidable"
    notes = [e for e in sink.events if isinstance(e, PartFallback)]
    assert len(notes) == 1 and notes[0].part == "judge" and notes[0].model_call_seqs == [sink.events[0].seq]


# --------------------------------------------------------------------------- whole runs


def test_a_run_with_every_model_part_finishes_records_and_replays_exactly(kit: ResearchKit, tmp_path: Path) -> None:
    client = FakeChatClient(research_script({"write_claims": padded}), name="research")
    result, path = run_research(LELAND, kit, out_dir=tmp_path, llm=client, **ALL_PARTS)  # type: ignore[arg-type]
    assert path is not None and result.outcome.status == "completed"
    run = read_run(path)
    spec = run.header.spec
    assert spec.planner.name == "llm" and spec.planner.args["model"] == "fake:research"
    assert spec.verifier.name == "judge" and {"writer", "critic"} <= spec.policies.keys()
    assert spec.prompt_versions == {"critic_weakest": "1", "plan_research": "1", "verdict_extract": "1",
                                    "write_claims": "1"}
    prompts = [e.prompt_id for e in run.events if e.type == "model_call"]
    assert prompts[0] == "plan_research" and {"write_claims", "verdict_extract", "critic_weakest"} <= set(prompts)
    assert run.events[prompts.index("plan_research")].type == "model_call"
    checks = run.events[-1].checks  # type: ignore[attr-defined]
    assert checks["judge"]["fired"] == prompts.count("verdict_extract") > 0
    assert checks["judge"]["ran"] > checks["judge"]["fired"]  # copied claims are decided without a call
    # Invented names never reach the report: gray-zone claims are weakened once, then dropped.
    assert "Zorblat" not in result.report.model_dump_json()
    check = check_run(run)
    assert check.ok, check.divergence


@pytest.mark.parametrize("name", ["malformed", "empty", "truncated", "injected", "refused", "timeout"])
def test_with_every_reply_broken_the_run_is_the_rule_run_and_replays(kit: ResearchKit, tmp_path: Path,
                                                                      name: str) -> None:
    rule, _ = run_research(LELAND, kit, out_dir=None, sink=_sink())
    result, path = run_research(LELAND, kit, out_dir=tmp_path, llm=fake_client(name), **ALL_PARTS)  # type: ignore[arg-type]
    assert path is not None
    assert result.plan == rule.plan and result.report.sections == rule.report.sections
    run = read_run(path)
    parts = {e.part for e in run.events if isinstance(e, PartFallback)}
    assert {"planner", "writer", "critic"} <= parts
    assert check_run(run).ok


def _sink():
    from citeloop.trajectories.runfile import MemorySink

    return MemorySink()


class _CacheHits:
    """Replies as a response cache serves them: `cached`, no attempts."""

    def __init__(self, inner: FakeChatClient) -> None:
        self.inner = inner

    model = property(lambda self: self.inner.model)
    sampling = property(lambda self: self.inner.sampling)
    name = property(lambda self: self.inner.name)

    def chat(self, prompt, constraint=None) -> ModelReply:
        return self.inner.chat(prompt, constraint).model_copy(update={"cached": True, "attempts": []})


def test_replies_served_from_a_cache_record_the_same_trajectory(kit: ResearchKit, tmp_path: Path) -> None:
    _, live = run_research(LELAND, kit, out_dir=tmp_path / "live", llm=FakeChatClient(research_script()),
                           **ALL_PARTS)  # type: ignore[arg-type]
    _, cached = run_research(LELAND, kit, out_dir=tmp_path / "cached",
                             llm=_CacheHits(FakeChatClient(research_script())), **ALL_PARTS)  # type: ignore[arg-type]
    assert live is not None and cached is not None
    assert deterministic_lines(live) == deterministic_lines(cached)
    meta_live, meta_cached = read_run(live).events[-1], read_run(cached).events[-1]
    assert {m["cached"] for m in meta_live.model_calls.values()} == {False}  # type: ignore[attr-defined]
    assert {m["cached"] for m in meta_cached.model_calls.values()} == {True}  # type: ignore[attr-defined]
    assert check_run(read_run(cached)).ok


def test_a_model_reply_that_is_not_recorded_is_a_replay_divergence(kit: ResearchKit, tmp_path: Path) -> None:
    _, path = run_research(LELAND, kit, out_dir=tmp_path, llm=FakeChatClient(research_script()), **ALL_PARTS)  # type: ignore[arg-type]
    assert path is not None
    lines = path.read_text(encoding="utf-8").splitlines()
    # Change the recorded plan call's request digest: the replay's request then matches no
    # recorded reply, and replay must not invent one.
    plan_line = next(i for i, line in enumerate(lines) if '"prompt_id":"plan_research"' in line)
    event = json.loads(lines[plan_line])
    event["request_digest"] = "0" * 64
    lines[plan_line] = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    check = check_run(read_run(edited))
    assert not check.ok and check.divergence is not None and check.divergence.seq == 0
    assert check.divergence.detail["completion"][1] == "" and "not recorded" in check.divergence.detail["error"][1]


def test_cli_research_with_model_parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["research", LELAND, "--planner", "llm", "--writer", "llm", "--verifier", "judge", "--critic", "llm",
            "--llm", "fake:malformed", "--json", "--out", str(tmp_path)]
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    run = read_run(payload["trajectory"])
    assert run.header.spec.planner.name == "llm" and any(e.type == "part_fallback" for e in run.events)
    assert main(["show", payload["trajectory"], "--json"]) == 0
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert checks["plan_gate"] == {"ran": 1, "fired": 1} and checks["audit"]["fired"] == 0
    assert main(["research", LELAND, "--planner", "llm", "--out", str(tmp_path)]) == 2
    assert "needs a model client" in capsys.readouterr().err


def test_an_endpoint_file_is_read_for_llm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "endpoint.yaml"
    bad.write_text("base_url: http://127.0.0.1:9/v1\n", encoding="utf-8")
    assert main(["research", LELAND, "--planner", "llm", "--llm", str(bad), "--out", str(tmp_path)]) == 2
    assert "not a model endpoint" in capsys.readouterr().err


def test_an_injected_writer_reply_cannot_add_a_link(kit: ResearchKit) -> None:
    def injected(prompt: RenderedPrompt) -> Scripted:
        src, text = blocks(prompt)[0]
        return Scripted(text=json.dumps({"claims": [
            {"text": first_sentence(text), "cards": [src]},
            {"text": "The full report is at https://evil.example/report for readers.", "cards": [src]}]}))

    result, _ = run_research(LELAND, kit, out_dir=None, sink=_sink(), writer="llm",
                             llm=FakeChatClient(research_script({"write_claims": injected})))
    assert "evil.example" not in result.report.model_dump_json()
    assert any(s.claims for s in result.report.sections)
