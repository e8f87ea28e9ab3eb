"""What a verifier's claim-verification score is measured against: the fixed tuning /
validation split, the two trivial baselines, and a bootstrap interval of the difference.

**Split.** SciFact's train claims and WiCE's dev claims are all citeloop has, so each claim
goes, by a hash of its id, to a tuning part (70 %) or a validation part (30 %):
`sha256("{format}:{claim id}")`, first 8 hex digits as an integer, modulo 100, below 70 is
tuning. The format ("scifact" / "wice"), not the file name, is hashed, so a claim file in
either format splits exactly as the built-in set does. Cut-offs may be tuned on the tuning
part only; a claim's documents never straddle the parts.

**Overlap baseline.** The share of the claim's content terms found anywhere in the
document (pooled, `citeloop.runtime.text.term_overlap`), with two cut-offs: below the
lower one the lowest label, between them the middle one, at or above the upper one the
highest, the labels ordered by how much of the claim they imply the document states
(SciFact NOT_ENOUGH_INFO < CONTRADICT < SUPPORT, WiCE not_supported < partially_supported
< supported). The cut-offs maximise macro-F1 on the tuning part's pairs (a 0.025 grid,
ties to the lowest cut-offs).

**Majority baseline.** Always the most frequent gold label of the pairs scored.

**Interval.** A paired bootstrap over claims (all pairs of a drawn claim together, since
one claim's documents are not independent): 1000 resamples with a fixed seed, the
difference in macro-F1 between the verifier and a baseline on each, and its 2.5th and
97.5th percentiles.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from citeloop.eval.datasets import SCIFACT_NEI

Split = Literal["tune", "validation"]
TUNE_SHARE = 70
"""Percent of claims in the tuning part."""
GRID = tuple(i / 40 for i in range(41))
LABEL_ORDER: dict[str, tuple[str, str, str]] = {
    "scifact": (SCIFACT_NEI, "CONTRADICT", "SUPPORT"),
    "wice": ("not_supported", "partially_supported", "supported"),
}
"""Labels from "the document states least of the claim" to "states all of it"."""
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0

__all__ = ["Split", "claim_split", "OverlapBaseline", "fit_overlap_baseline", "macro_f1",
           "bootstrap_difference", "LABEL_ORDER"]


def claim_split(claim_format: str, claim_id: str) -> Split:
    """The part a claim belongs to; see the module docstring."""
    digest = hashlib.sha256(f"{claim_format}:{claim_id}".encode()).hexdigest()
    return "tune" if int(digest[:8], 16) % 100 < TUNE_SHARE else "validation"


@dataclass(frozen=True)
class OverlapBaseline:
    labels: tuple[str, str, str]
    """Low, middle and high label."""
    lower: float
    upper: float
    tuned_on: int
    """Pairs the cut-offs were tuned on."""

    def predict(self, overlap: float) -> str:
        low, middle, high = self.labels
        return high if overlap >= self.upper else middle if overlap >= self.lower else low


def macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    """Macro-F1 over `labels` (a class never predicted scores 0), as
    `verifier_eval.classification_scores` computes it, without the rest of its report."""
    f1s = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(gold, predicted))
        predicted_n = sum(p == label for p in predicted)
        gold_n = sum(g == label for g in gold)
        prec = tp / predicted_n if predicted_n else 0.0
        rec = tp / gold_n if gold_n else 0.0
        f1s.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return sum(f1s) / len(labels)


def fit_overlap_baseline(claim_format: str, gold: Sequence[str], overlaps: Sequence[float],
                         labels: Sequence[str]) -> OverlapBaseline:
    """The two cut-offs that maximise macro-F1 of `overlaps` against `gold` (the tuning pairs)."""
    order = LABEL_ORDER[claim_format]
    best: tuple[float, float, float] | None = None
    for lower in GRID:
        for upper in GRID:
            if upper < lower:
                continue
            low, middle, high = order
            predicted = [high if o >= upper else middle if o >= lower else low for o in overlaps]
            score = macro_f1(gold, predicted, labels)
            if best is None or score > best[0]:
                best = (score, lower, upper)
    assert best is not None
    return OverlapBaseline(labels=order, lower=best[1], upper=best[2], tuned_on=len(gold))


def bootstrap_difference(claim_ids: Sequence[str], gold: Sequence[str], ours: Sequence[str],
                         theirs: Sequence[str], labels: Sequence[str],
                         resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> dict:
    """Macro-F1 of `ours` minus that of `theirs` on the pairs given, with a 95 % paired
    bootstrap interval over claims (in points)."""
    by_claim: dict[str, list[int]] = {}
    for i, claim_id in enumerate(claim_ids):
        by_claim.setdefault(claim_id, []).append(i)
    claims = list(by_claim)
    rng = random.Random(seed)
    diffs = []
    for _ in range(resamples):
        rows = [i for c in rng.choices(claims, k=len(claims)) for i in by_claim[c]]
        g = [gold[i] for i in rows]
        diffs.append(macro_f1(g, [ours[i] for i in rows], labels) - macro_f1(g, [theirs[i] for i in rows], labels))
    diffs.sort()
    point = macro_f1(gold, ours, labels) - macro_f1(gold, theirs, labels)
    low, high = diffs[int(0.025 * resamples)], diffs[min(resamples - 1, int(0.975 * resamples))]
    return {"macro_f1_points": round(100 * point, 2), "ci95_points": [round(100 * low, 2), round(100 * high, 2)],
            "resamples": resamples, "claims": len(claims)}
