"""The `judge` verifier: seed 002's check in the verifier slot.

The lexical verifier is the deterministic pre-stage and decides every claim it can. Only
when it says `undecidable` (the gray zone) does the check fire: one extraction call copies
evidence sentences verbatim, and the verdict is decided in code from what was copied
(`citeloop.runtime.llm.judge`). Each check is counted in the run's `run_meta.checks["judge"]`
(`ran`, `fired`), so the firing rate is measured on every run.

The model is called only with a recorder attached (the engine attaches the run's), so no
call ever goes unrecorded. Card-against-card conflict marking at ingest uses `prestage`
alone: the model judges claims, not pairs of evidence cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeloop.runtime.llm.client import ChatClient
from citeloop.runtime.llm.judge import EXTRACT_PROMPT, EvidenceSentence, judge_claim
from citeloop.runtime.llm.prompts import PromptLibrary
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.sentences import split_sentences
from citeloop.runtime.verifier import EvidenceText, LexicalVerifier, VerifierConfig
from citeloop.trajectories.events import PartFallback
from citeloop.trajectories.models import VerdictRecord


def evidence_sentences(evidence: Sequence[EvidenceText]) -> list[EvidenceSentence]:
    """Bound evidence cut into sentences, each id `{card_id}#{n}`: what a quote can point at."""
    return [EvidenceSentence(sid=f"{ev.card_id}#{n}", text=sentence)
            for ev in evidence for n, sentence in enumerate(split_sentences(ev.text) or [ev.text])]


class ModelBackedVerifier:
    """What a verifier with a model behind its lexical pre-stage holds: the pre-stage, the
    client, the prompts, the run's recorder (attached by the engine) and the header's record
    of the client. The `judge` and `trained` verifiers build on it."""

    def __init__(self, client: ChatClient, config: VerifierConfig | None = None,
                 library: PromptLibrary | None = None) -> None:
        self.config = config or VerifierConfig()
        self.prestage = LexicalVerifier(self.config)
        self.client = client
        self.library = library or PromptLibrary()
        self.recorder: Recorder | None = None
        self.ref_args: dict[str, Any] = {}
        """What the run header records about the client (set by `citeloop.runtime.llm.parts.build_parts`)."""


class JudgeVerifier(ModelBackedVerifier):
    name = "judge"
    version = "1"
    prompt_ids = (EXTRACT_PROMPT,)

    def __init__(self, client: ChatClient, config: VerifierConfig | None = None,
                 library: PromptLibrary | None = None) -> None:
        super().__init__(client, config, library)

    def attach(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def check(self, claim_id: str, claim_text: str, evidence: Sequence[EvidenceText],
              others: Sequence[EvidenceText] = ()) -> VerdictRecord:
        record = self.prestage.check(claim_id, claim_text, evidence, others)
        fires = record.verdict == "undecidable" and any(ev.text.strip() for ev in evidence)
        if self.recorder is None:
            return record
        self.recorder.check("judge", fires)
        if not fires:
            return record
        result = judge_claim(claim_id, claim_text, evidence_sentences(evidence), record, self.client,
                             config=self.config, library=self.library, recorder=self.recorder)
        if result.fallback and result.extraction is not None:
            seqs = [result.model_call_seq] if result.model_call_seq is not None else []
            self.recorder.emit(PartFallback, parent=result.model_call_seq, part="judge",
                               fallback="deterministic verdict", reason=result.extraction.reason,
                               model_call_seqs=seqs)
        return result.record
