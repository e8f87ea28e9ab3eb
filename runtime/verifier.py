"""The deterministic claim verifier: decides a claim's relation to its evidence in code.

Owns the verdict rules of seed 001 section 7 (entail / partial / conflict / irrelevant,
plus `undecidable`), the number rule of sections 10.3 and 17.5, the reverse check of
section 7.4, and the rule-based weakening of a `partial` claim. Following seed 002, this
is the cheap deterministic pre-stage: when it cannot tell (the gray zone) it says
`undecidable` instead of guessing, and a later model extraction call may decide.
Also owns the `Verifier` protocol and its registry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, model_validator

from citeloop.runtime.numbers import NumberMention, extract_numbers, numbers_match
from citeloop.runtime.sentences import split_sentences
from citeloop.runtime.text import STOPWORDS, content_terms, term_overlap, term_pairs, tokenize
from citeloop.trajectories.models import EvidenceCard, Verdict, VerdictRecord
from citeloop.runtime.registry import load_object

__all__ = [
    "VerifierConfig", "EvidenceText", "Verifier", "LexicalVerifier", "weaken",
    "VERIFIERS", "resolve_verifier",
]


class VerifierConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entail_support: float = 0.85
    """Support at or above which the claim is entailed."""
    partial_support: float = 0.5
    """Support at or above which the claim is partially supported; also the overlap a
    sentence needs before its negation or numbers can contradict the claim."""
    irrelevant_below: float = 0.25
    """Support below which the evidence is irrelevant. Between this and `partial_support`
    is the gray zone, reported as `undecidable`."""
    counter_overlap: float = 0.7
    """Overlap an unbound text needs with the claim before the reverse check may use it
    as counter-evidence (high, so that only texts about the same fact qualify)."""

    @model_validator(mode="after")
    def _ordered(self) -> VerifierConfig:
        if not 0 <= self.irrelevant_below <= self.partial_support <= self.entail_support <= 1:
            raise ValueError("need 0 <= irrelevant_below <= partial_support <= entail_support <= 1")
        return self


class EvidenceText(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    card_id: str
    """The evidence card this text comes from."""
    text: str
    """The text to check against, normally the card's verbatim quote."""

    @classmethod
    def from_card(cls, card: EvidenceCard) -> EvidenceText:
        return cls(card_id=card.card_id, text=card.quote)


@runtime_checkable
class Verifier(Protocol):
    name: str
    version: str

    def check(self, claim_id: str, claim_text: str, evidence: Sequence[EvidenceText],
              others: Sequence[EvidenceText] = ()) -> VerdictRecord: ...


# --------------------------------------------------------------------------- polarity

_NEGATION_WORDS = frozenset({"not", "no", "never", "neither", "nor", "none", "without",
                             "cannot", "nothing", "nobody", "nowhere"})
_CJK_NEGATION = re.compile(r"不|没有|未")
# Words that contain a negation character without negating anything: 不仅 "not only",
# 不同 "different", 未来 "future". Left in, they would raise false conflicts.
_CJK_NOT_NEGATION = re.compile(r"不仅|不但|不同|不断|不久|不少|不过|未来|未必")
_NOT_ONLY = re.compile(r"\bnot only\b", re.IGNORECASE)


def is_negated(text: str) -> bool:
    """True when the text carries a negation cue (English or Chinese)."""
    text = _NOT_ONLY.sub(" ", text)
    if any(t in _NEGATION_WORDS or t.endswith("n't") for t in tokenize(text)):
        return True
    return bool(_CJK_NEGATION.search(_CJK_NOT_NEGATION.sub(" ", text)))


# --------------------------------------------------------------------------- helpers


class _Sentence:
    """One evidence sentence with what the checks need from it, computed once."""

    def __init__(self, card_id: str, text: str, claim_terms: list[str]):
        self.card_id = card_id
        self.text = text
        self.overlap = term_overlap(claim_terms, content_terms(text))
        self.negated = is_negated(text)
        self.numbers = extract_numbers(text)


def _sentences(texts: Sequence[EvidenceText], claim_terms: list[str]) -> list[_Sentence]:
    return [_Sentence(ev.card_id, s, claim_terms)
            for ev in texts for s in (split_sentences(ev.text) or [ev.text])]


def _best(sentences: list[_Sentence]) -> _Sentence | None:
    # max() keeps the first of equals, so ties go to the earlier sentence: deterministic.
    return max(sentences, key=lambda s: s.overlap, default=None)


def _rival_numbers(missing: list[NumberMention], claim: list[NumberMention],
                   sentence: _Sentence) -> list[NumberMention]:
    """Numbers in `sentence` that could be a `missing` claim number stated differently:
    same unit (or both unitless) and equal to no claim number. A number the claim also
    states ("released in 1986") is shared context, not a rival."""
    claim_values = {m.value for m in claim}
    return [n for n in sentence.numbers
            if n.value not in claim_values and any(_kind(n) == _kind(c) for c in missing)]


def _kind(mention: NumberMention) -> str | None:
    # Years and unitless amounts are both "unitless", but a year in the evidence is no
    # rival for "7.8 million francs": without this, an undated amount in the claim would
    # conflict with every dated sentence about the same subject.
    if mention.unit is None and re.fullmatch(r"1\d{3}|20\d{2}", mention.raw):
        return "year"
    return mention.unit


def _record(claim_id: str, verdict: Verdict, checker: str, reason: str, support: float = 0.0,
            **lists: list[str]) -> VerdictRecord:
    return VerdictRecord(claim_id=claim_id, verdict=verdict, checker=checker, reason=reason,
                         support=round(support, 4), **lists)


# --------------------------------------------------------------------------- verifier


class LexicalVerifier:
    """Term-overlap verifier with negation, number and reverse checks. Model-free."""

    name = "lexical"
    version = "1"

    def __init__(self, config: VerifierConfig | None = None):
        self.config = config or VerifierConfig()

    def check(self, claim_id: str, claim_text: str, evidence: Sequence[EvidenceText],
              others: Sequence[EvidenceText] = ()) -> VerdictRecord:
        evidence = [ev for ev in evidence if ev.text.strip()]
        if not evidence:
            return _record(claim_id, "undecidable", "no_evidence",
                           "The claim is bound to no evidence text, so nothing can support it.")
        pairs = term_pairs(claim_text)
        terms = [t for t, _ in pairs]
        if not terms:
            return _record(claim_id, "undecidable", "no_content",
                           "The claim has no content terms to look for in the evidence.")

        record = self._check_bound(claim_id, claim_text, pairs, evidence)
        # Seed 7.4: the reverse check can only overturn a claim the evidence supports; an
        # already conflicting claim just gains the extra counter cards.
        if record.verdict in ("entail", "partial", "conflict"):
            record = self._reverse(record, claim_text, terms, evidence, others)
        return record

    def _check_bound(self, claim_id: str, claim_text: str, pairs: list[tuple[str, str]],
                     evidence: list[EvidenceText]) -> VerdictRecord:
        cfg = self.config
        terms = [t for t, _ in pairs]
        union = {t for ev in evidence for t in content_terms(ev.text)}
        support = term_overlap(terms, union)
        best_card = max(evidence, key=lambda ev: term_overlap(terms, content_terms(ev.text)))
        best_card_support = term_overlap(terms, content_terms(best_card.text))
        missing_terms = [surface for term, surface in pairs if term not in union]
        missing_numbers = numbers_match(claim_text, "\n".join(ev.text for ev in evidence))
        found = f"{support:.0%} of claim terms found (best single card {best_card.card_id}: {best_card_support:.0%})"
        lists = {"missing_terms": missing_terms, "missing_numbers": missing_numbers}

        sentences = _sentences(evidence, terms)
        best = _best(sentences)
        claim_negated = is_negated(claim_text)
        if best and best.overlap >= cfg.partial_support and best.negated != claim_negated:
            negated, plain = ("claim", "evidence") if claim_negated else ("evidence", "claim")
            return _record(claim_id, "conflict", "negation",
                           f"The {negated} is negated and the {plain} is not: closest sentence "
                           f"in {best.card_id} ({best.overlap:.0%} overlap) reads "
                           f"\"{best.text[:120]}\".", support, **lists)

        if missing_numbers:
            claim_numbers = extract_numbers(claim_text)
            missing = [m for m in claim_numbers if m.raw in missing_numbers]
            for sentence in sentences:
                if sentence.overlap < cfg.partial_support:
                    continue
                rivals = _rival_numbers(missing, claim_numbers, sentence)
                if rivals:
                    return _record(claim_id, "conflict", "number",
                                   f"The claim says {', '.join(missing_numbers)} but "
                                   f"{sentence.card_id} says {', '.join(r.raw for r in rivals)} "
                                   f"about the same thing.", support, **lists)
            if support >= cfg.partial_support:
                return _record(claim_id, "partial", "number",
                               f"{found}, but the number(s) {', '.join(missing_numbers)} "
                               f"appear in no evidence.", support, **lists)

        if support >= cfg.entail_support:
            verdict: Verdict = "entail"
        elif support >= cfg.partial_support:
            verdict = "partial"
        elif support < cfg.irrelevant_below:
            verdict = "irrelevant"
        else:
            verdict = "undecidable"
        detail = {"entail": "the evidence states the claim",
                  "partial": f"missing: {', '.join(missing_terms)}",
                  "irrelevant": "the evidence is about something else",
                  "undecidable": "too close to call by term overlap alone"}[verdict]
        return _record(claim_id, verdict, "lexical", f"{found}; {detail}.", support, **lists)

    def _reverse(self, record: VerdictRecord, claim_text: str, terms: list[str],
                 evidence: list[EvidenceText], others: Sequence[EvidenceText]) -> VerdictRecord:
        bound = {ev.card_id for ev in evidence}
        claim_negated = is_negated(claim_text)
        claim_numbers = extract_numbers(claim_text)
        counters: list[str] = []
        reasons: list[str] = []
        for other in others:
            if other.card_id in bound or other.card_id in counters or not other.text.strip():
                continue
            # Only sentences about the same fact count; a text that merely does not
            # mention the claim is never counter-evidence (seed 7.6).
            for sentence in _sentences([other], terms):
                if sentence.overlap < self.config.counter_overlap:
                    continue
                absent = numbers_match(claim_text, sentence.text)
                rivals = _rival_numbers([m for m in claim_numbers if m.raw in absent],
                                        claim_numbers, sentence)
                if sentence.negated != claim_negated or rivals:
                    counters.append(other.card_id)
                    why = f"gives {', '.join(r.raw for r in rivals)}" if rivals else "has the opposite polarity"
                    reasons.append(f"{other.card_id} {why}")
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
