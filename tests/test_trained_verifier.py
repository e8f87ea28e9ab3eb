"""The `trained` verifier with a scripted model: the prompt it sends, strict parsing of the
reply, fallback to the lexical verdict, gating to the lexical gray zone, the firing counts in
`run_meta.checks`, and `eval --task verify` / research / rescore with `trained:ENDPOINT`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.runtime.llm import FakeChatClient, Scripted, fake_client
from citeloop.runtime.llm.parts import LLMPartsError, make_verifier
from citeloop.runtime.llm.trained_verifier import ANSWERS, TrainedVerifier, in_gray_zone, parse_verdict
from citeloop.runtime.replay import check_run
from citeloop.runtime.rescore import ScorerError, resolve_scorer
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.runtime.verifier import EvidenceText, VerifierConfig
from citeloop.trajectories.events import PartFallback
from citeloop.trajectories.runfile import read_run
from llm_scripts import LELAND, blocks, recorder

EVIDENCE = [EvidenceText(card_id="c1", text="Maximum Overdrive is a 1986 American horror film. "
                                            "It was written and directed by Stephen King."),
            EvidenceText(card_id="c2", text="Wilmington has a film studio.")]
COPIED = "It was written and directed by Stephen King."
# 5 of 12 terms stated: support 0.42, inside the default gray zone [0.25, 0.5).
GRAY = "Stephen King directed Maximum Overdrive in Wilmington with Emilio Estevez, Pat Hingle and Laura Harrington."


def trained(reply: str | Scripted | list, config: VerifierConfig | None = None) -> tuple[TrainedVerifier, FakeChatClient]:
    client = FakeChatClient(reply if isinstance(reply, list) else [reply])
    return TrainedVerifier(client, config), client


@pytest.mark.parametrize(("text", "expected"), [
    ("entail", "entail"), ("Conflict.", "conflict"), ("  partial\n", "partial"), ("undecidable", "undecidable"),
    ("entail: the evidence states it", None), ("", None), ("yes", None), ("entail.", "entail"), ("entail..", None),
])
def test_replies_are_parsed_strictly(text: str, expected: str | None) -> None:
    assert parse_verdict(text) == expected


def test_a_decided_check_never_reaches_the_model() -> None:
    verifier, client = trained([])
    record = verifier.check("k", COPIED, EVIDENCE)
    assert (record.verdict, record.checker) == ("entail", "lexical") and client.calls == []
    conflict = verifier.check("k", "It was never written and directed by Stephen King.", EVIDENCE)
    assert conflict.verdict == "conflict" and client.calls == []
    counts = verifier.checks()["trained"]
    assert (counts["ran"], counts["fired"], counts["fire_rate"]) == (2, 0, 0.0)


def test_the_gray_zone_is_asked_with_the_aligned_sentences_only() -> None:
    verifier, client = trained("conflict")
    lexical = verifier.prestage.check("k", GRAY, EVIDENCE)
    assert in_gray_zone(lexical, verifier.config)
    record = verifier.check("k", GRAY, EVIDENCE)
    assert (record.verdict, record.checker) == ("conflict", "trained")
    assert "lexical pre-stage: undecidable" in record.reason
    (prompt, constraint), = client.calls
    assert prompt.id == "verdict_judge" and GRAY in prompt.messages[-1].content
    # The two sentences that state parts of the claim, not the one that adds a single term.
    assert [text for _, text in blocks(prompt)] == ["Maximum Overdrive is a 1986 American horror film.", COPIED]
    assert constraint is not None and constraint.kind == "choice" and constraint.value == list(ANSWERS)
    assert verifier.checks()["trained"]["fired"] == 1


def test_the_gray_zone_is_configurable() -> None:
    verifier, client = trained([], VerifierConfig(model_gray_zone=(0.9, 1.0)))
    assert verifier.check("k", GRAY, EVIDENCE).verdict == "undecidable" and client.calls == []


@pytest.mark.parametrize("name", ["malformed", "empty", "truncated", "injected", "timeout", "refused"])
def test_an_unusable_reply_leaves_the_lexical_verdict_recorded_as_a_fallback(name: str) -> None:
    verifier = TrainedVerifier(fake_client(name))
    rec, sink = recorder()
    verifier.attach(rec)
    lexical = verifier.prestage.check("k", GRAY, EVIDENCE)
    record = verifier.check("k", GRAY, EVIDENCE)
    assert (record.verdict, record.checker) == (lexical.verdict, lexical.checker)
    assert "verdict model fallback" in record.reason
    assert [e.type for e in sink.events] == ["model_call", "part_fallback"]
    fallback = sink.events[-1]
    assert isinstance(fallback, PartFallback) and fallback.model_call_seqs == [sink.events[0].seq]
    assert rec.checks["trained"] == {"ran": 1, "fired": 1} and rec.checks["trained_fallback"] == {"ran": 1, "fired": 1}
    assert verifier.checks()["trained"]["fallbacks"] == 1


def test_an_undecidable_answer_is_an_abstention() -> None:
    verifier, _ = trained("undecidable")
    record = verifier.check("k", GRAY, EVIDENCE)
    assert record.verdict == "undecidable" and record.checker == "lexical"
    assert verifier.checks()["trained"]["abstained"] == 1 and verifier.checks()["trained"]["fallbacks"] == 0


def test_a_bad_endpoint_is_refused_before_any_work() -> None:
    with pytest.raises(LLMPartsError, match="trained:"):
        make_verifier("trained:")
    with pytest.raises(LLMPartsError, match="trained:ENDPOINT"):
        make_verifier("judge")
    with pytest.raises(LLMPartsError, match="nope.yaml"):
        make_verifier("trained:nope.yaml")


def test_a_research_run_counts_the_checks_and_replays(kit: ResearchKit, tmp_path: Path) -> None:
    result, path = run_research(LELAND, kit, out_dir=tmp_path, verifier_name="trained:fake:llm_scripts:verdict_script")
    assert path is not None and result.outcome.status == "completed"
    run = read_run(path)
    assert run.header.spec.verifier.name == "trained"
    assert run.header.spec.verifier.args["model"] == "fake:llm_scripts:verdict_script"
    checks = run.events[-1].checks  # type: ignore[attr-defined]
    calls = [e for e in run.events if e.type == "model_call"]
    assert checks["trained"]["ran"] > 0 and checks["trained"]["fired"] == len(calls)
    assert check_run(run).ok
    rescored = resolve_scorer("trained:fake:llm_scripts:verdict_script").rescore(run)
    assert rescored.scorer == "trained:fake:llm_scripts:verdict_script" and rescored.claims
    with pytest.raises(ScorerError, match="nope.yaml"):
        resolve_scorer("trained:nope.yaml")


def test_eval_verify_with_the_trained_verifier_reports_its_firing_rate(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"label": "supported", "supporting_sentences": [[1]], "meta": {"id": f"w{i}"},
             "claim": claim, "evidence": ["(meta data) TITLE: Film", "Maximum Overdrive is a 1986 horror film.",
                                          "It was never released in Wilmington cinemas."]}
            for i, claim in enumerate(["Maximum Overdrive is a 1986 horror film.",
                                       "Maximum Overdrive premiered in Wilmington cinemas with a large local crowd."])]
    data = tmp_path / "claims.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["eval", "--dataset", str(data), "--verifier", "trained:fake:llm_scripts:verdict_script",
                 "--out", str(out)]) == 0
    assert "check trained" in capsys.readouterr().out
    v = json.loads((out / "eval.json").read_text(encoding="utf-8"))["verification"]
    assert v["verifier"]["name"] == "trained"
    assert v["checks"]["trained"]["ran"] == 2 and 0 <= v["checks"]["trained"]["fire_rate"] <= 1
    checkers = {r["claim_id"]: r["checker"] for r in v["per_claim"]}
    assert checkers["w0"] == "lexical"  # stated verbatim: decided without the model
