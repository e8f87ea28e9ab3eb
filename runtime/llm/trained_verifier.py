"""The `trained` verifier: a fine-tuned verdict model behind the lexical pre-stage.

Seed 002's shape with a model that judges: the lexical verifier decides every check it can,
and only in its gray zone (`in_gray_zone`: a verdict other than `conflict`, with support in
`VerifierConfig.model_gray_zone`) is the model asked, once, with the `verdict_judge` prompt:
the claim and the sentences the lexical stage aligned it to (`citeloop.runtime.alignment`),
constrained to the prompt's five answers. The reply is parsed strictly (`parse_verdict`:
exactly one answer word; case, surrounding space and one final full stop aside). A reply it
cannot parse, a failed call or a timeout leaves the lexical verdict, recorded as a fallback
(a `part_fallback` event when a run is recording); an `undecidable` answer is the model
abstaining, and the lexical verdict stands as well.

Every check is counted (`ran`, `fired` = reached the model, `fallbacks`, `abstained`,
seconds spent in the model): in the run's `run_meta.checks` when the engine has attached its
recorder (`trained`: ran / fired; `trained_fallback`: one run per model call, fired when it
fell back), and in `checks()` for evaluations and rescoring, which have no run to record
into. The training examples are rendered by the same `verdict_prompt`, so the
model sees at inference exactly what it was trained on (`citeloop.training.verdicts`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from citeloop.runtime.llm.client import ChatClient, Constraint
from citeloop.runtime.llm.judge_verifier import ModelBackedVerifier
from citeloop.runtime.llm.prompts import DataItem, PromptLibrary, RenderedPrompt
from citeloop.runtime.llm.record import record_reply
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.verifier import EvidenceText, LexicalVerifier, VerifierConfig
from citeloop.trajectories.events import PartFallback
from citeloop.trajectories.models import Verdict, VerdictRecord

VERDICT_PROMPT = "verdict_judge"
ANSWERS: tuple[Verdict, ...] = ("entail", "partial", "conflict", "irrelevant", "undecidable")
MAX_EVIDENCE_SENTENCES = 4
"""The aligned sentences, or, when the claim aligns to none, the closest ones up to this many."""

__all__ = ["TrainedVerifier", "in_gray_zone", "parse_verdict", "verdict_prompt", "prompt_evidence", "ANSWERS"]


def in_gray_zone(record: VerdictRecord, config: VerifierConfig) -> bool:
    """Does the lexical verdict leave enough doubt to ask the model? Contradictions the
    lexical checks found, and claims with no evidence or no terms, are decided."""
    low, high = config.model_gray_zone
    return (record.verdict != "conflict" and record.checker not in ("no_evidence", "no_content")
            and low <= record.support < high)


def parse_verdict(text: str) -> Verdict | None:
    """The answer word, or None for anything else ("Entail." yes; "entail: the evidence ..." no)."""
    word = text.strip()
    word = word[:-1] if word.endswith(".") else word
    word = word.strip().casefold()
    return word if word in ANSWERS else None  # type: ignore[return-value]


def prompt_evidence(verifier: LexicalVerifier, claim: str, evidence: Sequence[EvidenceText]) -> list[tuple[str, str]]:
    """(sentence id, text) the model is shown: the lexical alignment's sentences in evidence
    order, else the closest sentences by overlap."""
    alignment = verifier.align(claim, evidence)
    chosen = list(alignment.sentences) or sorted(alignment.candidates, key=lambda s: -s.overlap)[:MAX_EVIDENCE_SENTENCES]
    return [(s.card_id, s.text) for s in alignment.candidates if any(s is c for c in chosen)]


def verdict_prompt(claim: str, sentences: Sequence[tuple[str, str]], library: PromptLibrary | None = None) -> RenderedPrompt:
    spec = (library or PromptLibrary()).get(VERDICT_PROMPT)
    return spec.render(claim=claim, evidence=[DataItem(text=text, source=sid) for sid, text in sentences])


class TrainedVerifier(ModelBackedVerifier):
    name = "trained"
    version = "1"
    prompt_ids = (VERDICT_PROMPT,)

    def __init__(self, client: ChatClient, config: VerifierConfig | None = None,
                 library: PromptLibrary | None = None) -> None:
        super().__init__(client, config, library)
        self.counts = {"ran": 0, "fired": 0, "fallbacks": 0, "abstained": 0}
        self.model_seconds = 0.0

    def attach(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def checks(self) -> dict[str, dict[str, float]]:
        """The counts so far, with the firing rate (share of checks that reached the model)."""
        c = self.counts
        return {"trained": {**c, "fire_rate": round(c["fired"] / c["ran"], 4) if c["ran"] else 0.0,
                            "model_seconds": round(self.model_seconds, 3),
                            "seconds_per_model_call": round(self.model_seconds / c["fired"], 4) if c["fired"] else None}}

    def check(self, claim_id: str, claim_text: str, evidence: Sequence[EvidenceText],
              others: Sequence[EvidenceText] = ()) -> VerdictRecord:
        record = self.prestage.check(claim_id, claim_text, evidence, others)
        fires = in_gray_zone(record, self.config)
        self.counts["ran"] += 1
        self.counts["fired"] += int(fires)
        if self.recorder is not None:
            self.recorder.check("trained", fires)
        if not fires:
            return record
        prompt = verdict_prompt(claim_text, prompt_evidence(self.prestage, claim_text, evidence), self.library)
        constraint = Constraint.choice(list(ANSWERS))
        t0 = time.perf_counter()
        reply = self.client.chat(prompt, constraint)
        self.model_seconds += time.perf_counter() - t0
        seq = None
        if self.recorder is not None:
            seq = record_reply(self.recorder, prompt, reply, self.client.sampling, constraint).seq
        answer = parse_verdict(reply.text) if reply.ok else None
        if self.recorder is not None:
            self.recorder.check("trained_fallback", answer is None)
        if answer is None:
            why = (f"model call failed ({reply.status}: {reply.error or 'no detail'})" if not reply.ok
                   else f"unparsable reply {reply.text[:60]!r}")
            return self._fallback(record, why, seq)
        if answer == "undecidable":
            self.counts["abstained"] += 1
            return record.model_copy(update={"reason": f"{record.reason} (verdict model: undecidable; the lexical "
                                                       f"verdict stands)"})
        return record.model_copy(update={
            "verdict": answer, "checker": "trained",
            "reason": f"verdict model: {answer}; lexical pre-stage: {record.verdict} ({record.reason})"})

    def _fallback(self, record: VerdictRecord, why: str, seq: int | None) -> VerdictRecord:
        self.counts["fallbacks"] += 1
        if self.recorder is not None:
            self.recorder.emit(PartFallback, parent=seq, part="judge", fallback="lexical verdict", reason=why,
                               model_call_seqs=[seq] if seq is not None else [])
        return record.model_copy(update={"reason": f"{record.reason} (verdict model fallback: {why})"})
