"""Prototype changes to the lexical verifier, measured by `eval.verifier_eval` (not used by
the runtime). Each is a wrapper that may overturn the base verdict, so its effect can be
read in isolation: `DirectionVerifier` adds an opposite-direction conflict check
(increase/decrease, enhance/inhibit, ...) on the sentences closest to the claim."""

from __future__ import annotations

from collections.abc import Sequence

from citeloop.runtime.sentences import split_sentences
from citeloop.runtime.text import content_terms, term_overlap, tokenize
from citeloop.runtime.verifier import EvidenceText, LexicalVerifier, VerifierConfig
from citeloop.trajectories.models import VerdictRecord

# Direction cues by stem prefix; +1 up/positive, -1 down/negative.
_UP = ("increas", "higher", "enhanc", "promot", "activat", "elevat", "rais", "improv", "stimulat", "induc",
       "upregulat", "up-regulat", "augment", "accelerat", "greater", "more", "gain", "boost", "amplif", "facilitat")
_DOWN = ("decreas", "lower", "reduc", "inhibit", "suppress", "impair", "imped", "prevent", "attenuat", "diminish",
         "downregulat", "down-regulat", "declin", "block", "less", "fewer", "loss", "lose", "abolish", "slow",
         "repress", "decline", "weaken", "protect")


def _cues(text: str) -> dict[str, int]:
    cues = {}
    for token in tokenize(text):
        if any(token.startswith(p) for p in _UP):
            cues[token] = 1
        elif any(token.startswith(p) for p in _DOWN):
            cues[token] = -1
    return cues


def _direction(cues: dict[str, int], exclude: dict[str, int]) -> int:
    """Net direction of the cues not shared with the other text: shared words ("activation
    of X") are the topic, the differing ones say which way the effect goes."""
    score = sum(v for k, v in cues.items() if k not in exclude)
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
        claim_cues = _cues(claim_text)
        if not claim_cues:
            return record
        terms = content_terms(claim_text)
        sentences = [s for ev in evidence for s in (split_sentences(ev.text) or [ev.text])]
        ranked = sorted(sentences, key=lambda s: -term_overlap(terms, content_terms(s)))[: self.top]
        close = [s for s in ranked if term_overlap(terms, content_terms(s)) >= self.min_overlap]
        opposite = []
        for sentence in close:
            cues = _cues(sentence)
            claim_dir, sentence_dir = _direction(claim_cues, cues), _direction(cues, claim_cues)
            opposite.append(bool(claim_dir) and sentence_dir == -claim_dir)
        if opposite and all(opposite):
            return record.model_copy(update={"verdict": "conflict", "checker": "direction",
                                             "reason": "The claim and the closest evidence state opposite "
                                                       f"directions of the effect: \"{close[0][:120]}\"."})
        return record
