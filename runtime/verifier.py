"""The deterministic claim verifier: decides a claim's relation to its evidence in code.

Owns the verdict rules of seed 001 section 7 (entail / partial / conflict / irrelevant,
plus `undecidable`), the number rule of sections 10.3 and 17.5, the reverse check of
section 7.4, and the rule-based weakening of a `partial` claim. The claim is aligned to
the few evidence sentences that state it (`citeloop.runtime.alignment`), never to the
pooled document; polarity, direction words and numbers are read on those sentences only
(`citeloop.runtime.opposition`, with scoped negation from `citeloop.runtime.polarity`),
and the share of the claim the aligned sentences state decides the rest. Following seed
002, this is the cheap deterministic pre-stage: when it cannot tell (the gray zone) it
says `undecidable` instead of guessing, and a later model call may decide.
Also owns the `Verifier` protocol and its registry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from citeloop.runtime.alignment import Alignment, align, may_reach
from citeloop.runtime.numbers import extract_numbers, numbers_match
from citeloop.runtime.opposition import may_oppose, opposition
from citeloop.runtime.polarity import is_negated
from citeloop.runtime.subjects import same_subject, subject_of
from citeloop.runtime.text import STOPWORDS, content_terms, term_overlap
from citeloop.trajectories.models import EvidenceCard, Verdict, VerdictRecord
from citeloop.runtime.registry import load_object

__all__ = [
    "VerifierConfig", "EvidenceText", "Verifier", "LexicalVerifier", "weaken", "opposition",
    "is_negated", "VERIFIERS", "resolve_verifier",
]


class VerifierConfig(BaseModel):
    """The lexical verifier's cut-offs. Support is the share of the claim's content terms
    its aligned sentences state. These defaults are the research runtime's: a claim drafted
    from a quote, or written by a model from evidence, should state nothing its evidence
    does not, so `entail` asks for nearly every term. Claim sets written by people
    (SciFact, WiCE) paraphrase their evidence; their cut-offs, tuned on the tuning part of
    those sets only, are `configs/verify/claims.yaml` (`citeloop.eval.verify_tuning`)."""

    model_config = ConfigDict(extra="forbid")

    entail_support: float = 0.85
    """Support at or above which the claim is entailed."""
    partial_support: float = 0.5
    """Support at or above which the claim is partially supported."""
    irrelevant_below: float = 0.25
    """Support below which the evidence is irrelevant. Between this and `partial_support`
    is the gray zone, reported as `undecidable`."""
    counter_overlap: float = 0.7
    """Overlap an unbound text needs with the claim before the reverse check may use it
    as counter-evidence (high, so that only texts about the same fact qualify)."""
    conflict_overlap: float = 0.5
    """Overlap an aligned sentence needs with the claim before its polarity, direction
    words or numbers can contradict the claim."""
    max_sentences: int = Field(3, ge=1)
    """Most evidence sentences a claim is aligned to (`citeloop.runtime.alignment`)."""
    min_gain: int = Field(2, ge=1)
    """Claim terms a further sentence must add before it joins the alignment."""
    model_gray_zone: tuple[float, float] = (0.25, 0.5)
    """Support band [low, high) in which the `trained` verifier asks its verdict model about a
    lexical verdict other than `conflict` (`citeloop.runtime.llm.trained_verifier`); by
    default the lexical gray zone. Claim sets set their own (`configs/verify/claims.yaml`)."""

    @model_validator(mode="after")
    def _ordered(self) -> VerifierConfig:
        if not 0 <= self.irrelevant_below <= self.partial_support <= self.entail_support <= 1:
            raise ValueError("need 0 <= irrelevant_below <= partial_support <= entail_support <= 1")
        low, high = self.model_gray_zone
        if not 0 <= low <= high <= 1:
            raise ValueError("need 0 <= model_gray_zone low <= high <= 1")
        return self


class EvidenceText(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    card_id: str
    """The evidence card this text comes from."""
    text: str
    """The text to check against, normally the card's verbatim quote."""
    title: str = ""
    """The page the text comes from: what a sentence that opens with a pronoun is about
    (`citeloop.runtime.subjects`); empty when unknown."""

    @classmethod
    def from_card(cls, card: EvidenceCard) -> EvidenceText:
        return cls(card_id=card.card_id, text=card.quote, title=card.title)


@runtime_checkable
class Verifier(Protocol):
    name: str
    version: str

    def check(self, claim_id: str, claim_text: str, evidence: Sequence[EvidenceText],
              others: Sequence[EvidenceText] = ()) -> VerdictRecord: ...


# --------------------------------------------------------------------------- helpers


def support_verdict(support: float, numbers_missing: bool, config: VerifierConfig) -> Verdict:
    """The verdict of a claim no aligned sentence contradicts, from its coverage: the bands
    of `VerifierConfig`, and a claim number absent from the aligned sentences caps an
    otherwise entailed claim at `partial` (seed 10.3: a number must appear verbatim)."""
    if support >= config.partial_support:
        return "entail" if support >= config.entail_support and not numbers_missing else "partial"
    return "irrelevant" if support < config.irrelevant_below else "undecidable"


def _record(claim_id: str, verdict: Verdict, checker: str, reason: str, support: float = 0.0,
            **lists: list[str]) -> VerdictRecord:
    return VerdictRecord(claim_id=claim_id, verdict=verdict, checker=checker, reason=reason,
                         support=round(support, 4), **lists)


# --------------------------------------------------------------------------- verifier


class LexicalVerifier:
    """Alignment verifier: the claim against the few evidence sentences that state it, with
    scoped negation, direction, number and reverse checks on those sentences. Model-free."""

    name = "lexical"
    version = "2"

    def __init__(self, config: VerifierConfig | None = None):
        self.config = config or VerifierConfig()

    def align(self, claim_text: str, evidence: Sequence[EvidenceText]) -> Alignment:
        return align(claim_text, [(ev.card_id, ev.text) for ev in evidence],
                     self.config.max_sentences, self.config.min_gain)

    def check(self, claim_id: str, claim_text: str, evidence: Sequence[EvidenceText],
              others: Sequence[EvidenceText] = ()) -> VerdictRecord:
        evidence = [ev for ev in evidence if ev.text.strip()]
        if not evidence:
            return _record(claim_id, "undecidable", "no_evidence",
                           "The claim is bound to no evidence text, so nothing can support it.")
        alignment = self.align(claim_text, evidence)
        if not alignment.terms:
            return _record(claim_id, "undecidable", "no_content",
                           "The claim has no content terms to look for in the evidence.")
        record = self._check_bound(claim_id, claim_text, alignment)
        # Seed 7.4: the reverse check can only overturn a claim the evidence supports; an
        # already conflicting claim just gains the extra counter cards.
        if record.verdict in ("entail", "partial", "conflict"):
            record = self._reverse(record, claim_text, evidence, others)
        return record

    def _check_bound(self, claim_id: str, claim_text: str, alignment: Alignment) -> VerdictRecord:
        cfg = self.config
        support = alignment.coverage
        best = alignment.best
        missing_numbers = numbers_match(claim_text, alignment.text)
        lists = {"missing_terms": alignment.missing, "missing_numbers": missing_numbers}
        cards = sorted({s.card_id for s in alignment.sentences})
        found = (f"{support:.0%} of claim terms stated by {len(alignment.sentences)} aligned sentence(s)"
                 f"{' in ' + ', '.join(cards) if cards else ''}"
                 f" (best single: {best.overlap if best else 0:.0%})")

        opposed = self._opposed(claim_text, alignment)
        if opposed:
            return _record(claim_id, "conflict", opposed[0], opposed[1], support, **lists)

        verdict = support_verdict(support, bool(missing_numbers), cfg)
        if missing_numbers and verdict == "partial":
            return _record(claim_id, "partial", "number",
                           f"{found}, but the number(s) {', '.join(missing_numbers)} appear in no "
                           f"aligned sentence.", support, **lists)
        detail = {"entail": "the evidence states the claim",
                  "partial": f"missing: {', '.join(alignment.missing)}",
                  "irrelevant": "the evidence is about something else",
                  "undecidable": "too close to call by term overlap alone"}[verdict]
        return _record(claim_id, verdict, "lexical", f"{found}; {detail}.", support, **lists)

    def _opposed(self, claim_text: str, alignment: Alignment) -> tuple[str, str] | None:
        """(checker, reason) of the first aligned sentence that states enough of the claim
        and contradicts it; None when none does."""
        for sentence in alignment.sentences:
            if sentence.overlap >= self.config.conflict_overlap:
                opposed = opposition(alignment.claim, claim_text, sentence)
                if opposed:
                    return opposed
        return None

    def conflict(self, claim_text: str, evidence: EvidenceText, claim_title: str = "") -> str | None:
        """Why one text contradicts the claim, or None: `check` of the claim bound to
        `evidence` alone says `conflict` exactly when this gives a reason, and that reason.
        The ledger asks it of every pair of cards of a sub-question and needs no more. A text
        about another subject than the claim's (`claim_title`: the claim's page) never does."""
        if not same_subject(subject_of(claim_text, claim_title), subject_of(evidence.text, evidence.title)):
            return None
        if not evidence.text.strip() or not may_oppose(claim_text, evidence.text) \
                or not may_reach(claim_text, evidence.text, self.config.conflict_overlap):
            return None
        alignment = align(claim_text, [(evidence.card_id, evidence.text)], self.config.max_sentences,
                          self.config.min_gain)
        if not alignment.terms:
            return None
        opposed = self._opposed(claim_text, alignment)
        return opposed[1] if opposed else None

    def _reverse(self, record: VerdictRecord, claim_text: str, evidence: list[EvidenceText],
                 others: Sequence[EvidenceText]) -> VerdictRecord:
        bound = {ev.card_id for ev in evidence}
        subject = subject_of(claim_text, next((ev.title for ev in evidence if ev.title), ""))
        counters: list[str] = []
        reasons: list[str] = []
        for other in others:
            # Only sentences about the same subject count: two films by one director, or two
            # brothers, share most words and differ in their years (`citeloop.runtime.subjects`).
            if other.card_id in bound or other.card_id in counters or not other.text.strip() \
                    or not same_subject(subject, subject_of(other.text, other.title)) \
                    or not may_oppose(claim_text, other.text) \
                    or not may_reach(claim_text, other.text, self.config.counter_overlap):
                continue
            # Only sentences about the same fact count; a text that merely does not
            # mention the claim is never counter-evidence (seed 7.6).
            alignment = self.align(claim_text, [other])
            for sentence in alignment.candidates:
                if sentence.overlap < self.config.counter_overlap:
                    continue
                opposed = opposition(alignment.claim, claim_text, sentence)
                if opposed:
                    counters.append(other.card_id)
                    reasons.append(f"{other.card_id} ({opposed[0]})")
                    break
        if not counters:
            return record
        if record.verdict == "conflict":
            return record.model_copy(update={"counter_card_ids": counters})
        return record.model_copy(update={
            "verdict": "conflict", "checker": "reverse", "counter_card_ids": counters,
            "reason": f"Bound evidence gives {record.verdict}, but other evidence contradicts "
                      f"the claim: {'; '.join(reasons)}.",
        })


def conflict_reason(verifier: Verifier, claim_id: str, claim_text: str, evidence: EvidenceText,
                    claim_title: str = "") -> str | None:
    """Why `evidence` alone contradicts the claim, by `verifier`'s check; None when it does
    not. The lexical verifier answers without building the verdict record (its own class
    only: a subclass may check otherwise)."""
    if type(verifier) is LexicalVerifier:
        return verifier.conflict(claim_text, evidence, claim_title)
    record = verifier.check(claim_id, claim_text, [evidence])
    return record.reason if record.verdict == "conflict" else None


# --------------------------------------------------------------------------- weakening

_PARENTHETICAL = re.compile(r"\s*(?:\([^()]*\)|（[^（）]*）|\[[^\[\]]*\])")
_CLAUSE_SPLIT = re.compile(r"(,\s+|;\s*|\s+which\s+|\s+who\s+|，|；)")
# Words that only make sense with the number after them ("in 1986", "about 5 million").
_NUMBER_LEAD = re.compile(r"(?:\b(?:in|on|at|by|of|from|to|about|around|approximately|"
                          r"nearly|almost|over|under|than|since|until|for|some|roughly)\s+)$",
                          re.IGNORECASE)


_COUNTED_NOUN = re.compile(r"\s+([a-z][a-z\-]*)\b")


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"([,;])\s*(?=[,;.!?]|$)", "", text)  # separators left dangling
    return text.strip(" ,;")


def _remove_numbers(text: str, missing: list[str]) -> str:
    # Right to left so earlier spans stay valid while later ones are cut.
    for m in reversed([m for m in extract_numbers(text) if m.raw in missing]):
        start, end = m.span
        lead = _NUMBER_LEAD.search(text[:start])
        if lead:
            start = lead.start()
        # A unitless number counts something named by the next word ("7.8 million
        # francs"); a leftover "francs" would be nonsense. With a unit, the unit was it.
        counted = _COUNTED_NOUN.match(text, end) if m.unit is None else None
        if counted and counted.group(1).lower() not in STOPWORDS:
            end = counted.end()
        text = text[:start] + text[end:]
    return text


def weaken(claim_text: str, evidence: Sequence[EvidenceText],
           min_clause_support: float = 0.5) -> str | None:
    """Rewrite a `partial` claim into a weaker form its evidence supports, or None.

    Seed 7.3: "in condition A, B" written as "B" is the typical partial claim, so the
    rewrite only removes material (parentheticals, unsupported clauses, numbers absent
    from the evidence) and never adds any. The caller re-checks the result; the rewrite
    is a proposal, not a verdict.
    """
    evidence_text = "\n".join(ev.text for ev in evidence)
    union = set(content_terms(evidence_text))
    text = _PARENTHETICAL.sub("", claim_text)
    text = _remove_numbers(text, numbers_match(text, evidence_text))

    pieces = _CLAUSE_SPLIT.split(text)  # [clause, sep, clause, sep, ...]
    kept: list[str] = []
    dropped = False
    for i in range(0, len(pieces), 2):
        clause = pieces[i]
        if term_overlap(content_terms(clause), union) < min_clause_support:
            dropped = True
            continue
        if kept:
            # An aside dropped from between two kept clauses ("X, designed by Y, was Z")
            # leaves no separator behind.
            kept.append(" " if dropped else pieces[i - 1])
        kept.append(clause)
        dropped = False
    ending = claim_text.rstrip()[-1:] if claim_text.rstrip()[-1:] in ".!?。" else ""
    result = _tidy("".join(kept).rstrip(".!?。 ")) + ending if kept else ""
    if result:
        result = result[0].upper() + result[1:]
    if len(content_terms(result)) < 3 or _tidy(result) == _tidy(claim_text):
        return None
    return result


# --------------------------------------------------------------------------- registry

VERIFIERS: dict[str, type] = {"lexical": LexicalVerifier}


def resolve_verifier(name: str, config: VerifierConfig | None = None) -> Verifier:
    """A verifier instance from a registry name (built with `config`) or a `module:attr` path."""
    if name in VERIFIERS:
        return VERIFIERS[name](config)
    valid = ", ".join(sorted(VERIFIERS))
    target = load_object(name, ValueError, "verifier", valid)
    verifier = target() if isinstance(target, type) else target
    if not isinstance(verifier, Verifier):
        raise ValueError(f"{name!r} is not a verifier (needs name, version, check()); valid names: {valid}")
    return verifier
