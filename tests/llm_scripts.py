"""Scripted model replies shared by the LLM-part tests: a recorder on a memory sink, and a
`research_script` that answers every prompt of a research run the way a well-behaved model
would (a valid plan, claims copied from the evidence it was shown, verbatim quotes, a
critic's locating answer). Tests swap single answers for malformed, empty, truncated or
injected ones."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from citeloop.runtime.llm import Constraint, RenderedPrompt, Scripted
from citeloop.runtime.recorder import Recorder
from citeloop.trajectories.header import ComponentRef, RunHeader, RunSpec
from citeloop.trajectories.models import EvidenceCard, Grade, ReportClaim
from citeloop.trajectories.runfile import MemorySink

LELAND = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
BLOCK = re.compile(r"<<<UNTRUSTED_EVIDENCE source=(\".*?\") date=.*?>>>\n(.*?)\n<<<END_UNTRUSTED_EVIDENCE>>>",
                   re.DOTALL)

LELAND_PLAN = {
    "question_type": "bridge",
    "scope_in": ["films shot in Leland, North Carolina in 1986", "their directors"],
    "scope_out": ["films shot elsewhere in North Carolina"],
    "axes": [{"id": "a1", "title": "The film shot in Leland"}, {"id": "a2", "title": "Its director"}],
    "sub_questions": [
        {"id": "sq1", "axis": "a1", "question": "Which film was shot in or around Leland, North Carolina in 1986?",
         "search_query": "film shot Leland North Carolina 1986",
         "stop_condition": "one source names a film shot in Leland in 1986", "depends_on": [],
         "expected_claims": ["Names the film shot in Leland in 1986"]},
        {"id": "sq2", "axis": "a2", "question": "Who directed {sq1}?", "search_query": "{sq1} directed by",
         "stop_condition": "one source names the director of the film", "depends_on": ["sq1"],
         "expected_claims": ["Names the director of the film"]},
    ],
    "premises": [{"id": "p1", "text": "A film was shot in Leland in 1986", "subq": "sq1"}],
    "entities": ["Leland", "North Carolina"],
}


def recorder() -> tuple[Recorder, MemorySink]:
    ref = ComponentRef(name="x", version="1")
    spec = RunSpec(question="q", seed=0, config={}, config_digest="d", planner=ref, policies={}, tools={},
                   verifier=ref, corpus_fingerprint="f", corpus_source="embedded", packages={})
    sink = MemorySink()
    return Recorder(RunHeader(run_id="r", spec=spec), sink), sink


def card(card_id: str, quote: str, doc_id: str = "d1", subq: str = "sq1") -> EvidenceCard:
    """A hand-made evidence card for unit tests."""
    return EvidenceCard(card_id=card_id, subq=subq, doc_id=doc_id, sentence_ids=[f"{doc_id}#s0"], quote=quote,
                        context=quote, title="T", url=f"https://example.org/{doc_id}", publisher="example.org",
                        published=None, evidence_type="reference_work",
                        grade=Grade(authority="medium", freshness="undated", primacy="secondary", relevance=0.9),
                        cluster_id=f"cluster-{doc_id}")


def claim_of(card: EvidenceCard) -> ReportClaim:
    """A kept claim quoting the card whole, as the rule writer makes it (for `best_span` tests)."""
    return ReportClaim(claim_id=f"claim-{card.card_id}", text=card.quote, citations=[card.card_id], verdict="entail",
                       confidence="weak", independent_sources=1)


def blocks(prompt: RenderedPrompt) -> list[tuple[str, str]]:
    """(source, text) of every data block in the prompt's user message."""
    return [(json.loads(src), text) for src, text in BLOCK.findall(prompt.messages[-1].content)]


def first_sentence(text: str) -> str:
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return match.group(1) if match else text


Reply = str | Scripted
Override = dict[str, Reply | Callable[[RenderedPrompt], Reply]]


def research_script(overrides: Override | None = None) -> Callable[[RenderedPrompt, Constraint | None], Reply]:
    """A script for a whole run; `overrides` replaces the answer to one prompt id."""
    overrides = overrides or {}

    def answer(prompt: RenderedPrompt, constraint: Constraint | None) -> Reply:
        if prompt.id in overrides:
            given = overrides[prompt.id]
            return given(prompt) if callable(given) else given
        found = blocks(prompt)
        if prompt.id == "plan_research":
            return json.dumps(LELAND_PLAN)
        if prompt.id == "write_claims":
            return json.dumps({"claims": [{"text": first_sentence(text), "cards": [src]} for src, text in found[:2]]})
        if prompt.id == "verdict_extract":
            return first_sentence(found[0][1]) if found else "none"
        if prompt.id == "critic_weakest":
            first = prompt.messages[-1].content.split("\n")[1].split(":")[0]
            return json.dumps({"claim_id": first, "problem": "unsupported", "quote": ""})
        raise AssertionError(f"no scripted answer for prompt {prompt.id!r}")

    return answer


def verdict_script(prompt: RenderedPrompt, constraint: Constraint | None) -> Reply:
    """A verdict model for the `trained` verifier's tests: `conflict` when an evidence sentence
    it is shown says "never", `entail` otherwise; it refuses any other prompt."""
    if prompt.id != "verdict_judge":
        raise AssertionError(f"the verdict model was sent {prompt.id!r}")
    return "conflict" if any("never" in text for _, text in blocks(prompt)) else "entail"
