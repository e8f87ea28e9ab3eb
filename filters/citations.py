"""Sentence-level scorers: citation correctness, ALCE citation recall/precision, unsupported claims.

Definitions (METRICS.md, seed 001 section 11; ALCE: Gao et al. 2023, `eval.py`
`compute_autoais`):

- Citation correctness: over the report's sentences that carry >= 1 citation, the share
  the judge finds entailed by all their cited evidence together. `partial` counts 0 here;
  `partial_rate` is the share judged `partial`. None when no sentence carries a citation.
- ALCE citation recall, per sentence: 1 when it has >= 1 citation, every citation id is
  valid, and the concatenation of its first `at_most_citations` (3) cited texts entails
  it; else 0. ALCE averages over all sentences of the answer; here the answer's sentences
  are those that cite or make a factual assertion (headings, gap notes and assumptions
  are report structure, not answer text), so an uncited assertion scores 0.
- ALCE citation precision: over the scored citations (the first 3 of each sentence whose
  ids are all valid; sentences with an invalid id or no citation add none), the share that
  are not irrelevant. When the sentence is not entailed by its scored citations, all of
  them count as irrelevant; with one citation, it counts 1 exactly when it entails; with
  several, a citation is irrelevant when it alone does not entail the sentence and the
  other scored citations together do.
- Unsupported-claim rate: over sentences that make a factual assertion
  (`filters.assertions`), the share with no bound evidence (no valid citation).

Every scorer returns None, never 0, when its denominator is empty.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from citeloop.filters.sentences import ReportSentence
from citeloop.filters.view import RunView


def cited(view: RunView) -> list[ReportSentence]:
    return [s for s in view.sentences if s.citations]


def _share(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def verdict_counts(view: RunView) -> dict[str, int]:
    """Judge verdicts over the cited sentences."""
    counts = Counter(view.sentence_verdict(s) for s in cited(view))
    return {v: counts[v] for v in sorted(counts)}  # type: ignore[misc]


def citation_correctness(view: RunView) -> float | None:
    sentences = cited(view)
    return _share(sum(view.sentence_verdict(s) == "entail" for s in sentences), len(sentences))


def partial_rate(view: RunView) -> float | None:
    sentences = cited(view)
    return _share(sum(view.sentence_verdict(s) == "partial" for s in sentences), len(sentences))


# --------------------------------------------------------------------------- ALCE


@dataclass(frozen=True)
class AlceSentence:
    recall: int
    """1 when the sentence is supported by its scored citations."""
    precise: int
    """Scored citations that are not irrelevant."""
    scored: int
    """Citations that enter the precision denominator."""


def alce_sentence(view: RunView, s: ReportSentence) -> AlceSentence:
    entails = lambda ids: view.verdict(s.text, ids) == "entail"
    refs = list(s.citations)
    if not refs or not all(view.valid(c) for c in refs):
        # ALCE: no citation, or a citation out of range: recall 0, nothing scored for precision.
        return AlceSentence(recall=0, precise=0, scored=0)
    refs = refs[: view.at_most_citations]
    joint = int(entails(refs))
    if not joint or len(refs) == 1:
        return AlceSentence(recall=joint, precise=joint * len(refs), scored=len(refs))
    precise = 0
    for i, ref in enumerate(refs):
        if entails([ref]):
            precise += 1
        elif not entails(refs[:i] + refs[i + 1:]):
            precise += 1  # not entailing alone, but needed: the others without it fail
    return AlceSentence(recall=1, precise=precise, scored=len(refs))


def alce_sentences(view: RunView) -> list[tuple[ReportSentence, AlceSentence]]:
    """ALCE's answer sentences (those that cite or assert) with their scores."""
    return [(s, alce_sentence(view, s)) for s in view.sentences if s.citations or s.needs_evidence]


def citation_recall_alce(view: RunView) -> float | None:
    scored = alce_sentences(view)
    return _share(sum(a.recall for _, a in scored), len(scored))


def citation_precision_alce(view: RunView) -> float | None:
    scored = alce_sentences(view)
    return _share(sum(a.precise for _, a in scored), sum(a.scored for _, a in scored))


# --------------------------------------------------------------------------- unsupported claims


def assertions(view: RunView) -> list[ReportSentence]:
    return [s for s in view.sentences if s.needs_evidence]


def bound(view: RunView, s: ReportSentence) -> bool:
    """The sentence has bound evidence: at least one citation that names a real card."""
    return any(view.valid(c) for c in s.citations)


def unsupported_claim_rate(view: RunView) -> float | None:
    claims = assertions(view)
    return _share(sum(not bound(view, s) for s in claims), len(claims))


def invalid_citations(view: RunView) -> int:
    return sum(not view.valid(c) for s in view.sentences for c in s.citations)
