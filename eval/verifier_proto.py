"""Prototype changes to the lexical verifier, measured by `eval.verifier_eval` (not used by
the runtime). Each is a wrapper that may overturn the base verdict, so its effect can be
read in isolation: `DirectionVerifier` adds an opposite-direction conflict check
(increase/decrease, enhance/inhibit, ...) on the sentences closest to the claim."""

from __future__ import annotations

from collections.abc import Sequence

from runtime.sentences import split_sentences
from runtime.text import content_terms, term_overlap, tokenize
from runtime.verifier import EvidenceText, LexicalVerifier, VerifierConfig
from trajectories.models import VerdictRecord

# Direction cues by stem prefix; +1 up/positive, -1 down/negative.
_UP = ("increas", "higher", "enhanc", "promot", "activat", "elevat", "rais", "improv", "stimulat", "induc",
       "upregulat", "up-regulat", "augment", "accelerat", "greater", "more", "gain", "boost", "amplif", "facilitat")
_DOWN = ("decreas", "lower", "reduc", "inhibit", "suppress", "impair", "imped", "prevent", "attenuat", "diminish",
         "downregulat", "down-regulat", "declin", "block", "less", "fewer", "loss", "lose", "abolish", "slow",
         "repress", "decline", "weaken", "protect")


def _direction(text: str) -> int:
    score = 0
    for token in tokenize(text):
        if any(token.startswith(p) for p in _UP):
            score += 1
        elif any(token.startswith(p) for p in _DOWN):
            score -= 1
    return (score > 0) - (score < 0)


class DirectionVerifier:
    name = "lexical+direction"
    version = "proto-1"

    def __init__(self, config: VerifierConfig | None = None, top: int = 2, min_overlap: float = 0.5):
        self.base = LexicalVerifier(config)
        self.top = top
        self.min_overlap = min_overlap

    def check(self, claim_id: str, claim_text: str, evidence: Sequence[EvidenceText],
              others: Sequence[EvidenceText] = ()) -> VerdictRecord:
        record = self.base.check(claim_id, claim_text, evidence, others)
        if record.verdict not in ("entail", "partial"):
            return record
        claim_dir = _direction(claim_text)
        if not claim_dir:
            return record
        terms = content_terms(claim_text)
        sentences = [s for ev in evidence for s in (split_sentences(ev.text) or [ev.text])]
        ranked = sorted(sentences, key=lambda s: -term_overlap(terms, content_terms(s)))[: self.top]
        close = [s for s in ranked if term_overlap(terms, content_terms(s)) >= self.min_overlap]
        dirs = [_direction(s) for s in close]
        if dirs and all(d == -claim_dir for d in dirs):
            return record.model_copy(update={"verdict": "conflict", "checker": "direction",
                                             "reason": f"The claim goes {'up' if claim_dir > 0 else 'down'}, the "
                                                       f"closest evidence the other way: \"{close[0][:120]}\"."})
        return record
