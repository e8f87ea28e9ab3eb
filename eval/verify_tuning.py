"""Tuning the lexical verifier's cut-offs, on the tuning part of the claim sets only.

The verifier runs once per candidate `conflict_overlap` with its support bands opened
(every cut-off 0), which records each pair's support, whether a claim number was missing
and whether an aligned sentence contradicted the claim; the bands are then re-applied
offline (`citeloop.runtime.verifier.support_verdict`) for every (`entail_support`,
`partial_support`) on a 0.05 grid. The objective is the mean macro-F1 over the sets'
tuning parts; ties go to the first candidate in grid order. `irrelevant_below` is not
tuned: `irrelevant` and `undecidable` map to the same gold label in SciFact and WiCE.
The validation part is never read here (`citeloop.eval.verify_baselines.claim_split`).

The trained judge's gray zone (`model_gray_zone`) is set without a model: the support band,
on the same grid, that holds the most pairs the tuned lexical verifier gets wrong (its
conflicts aside, which the judge never sees) while sending at most `MAX_FIRE_RATE` of each
set's tuning pairs to the model.
"""

from __future__ import annotations

from collections.abc import Mapping

from citeloop.eval.datasets import EvalSet
from citeloop.eval.verifier_eval import LABELS, VERDICT_MAPS, Pair, claim_format, verify_pairs
from citeloop.eval.verify_baselines import macro_f1
from citeloop.runtime.verifier import LexicalVerifier, VerifierConfig, support_verdict

CONFLICT_OVERLAPS = (0.3, 0.4, 0.5, 0.6)
BAND_GRID = tuple(i / 20 for i in range(21))
MAX_FIRE_RATE = 1 / 3
"""The trained judge may be asked about at most this share of checks (seed 002: a check that
fires often is a bug)."""

__all__ = ["tune_lexical", "tune_gray_zone", "CONFLICT_OVERLAPS", "BAND_GRID", "MAX_FIRE_RATE"]


def _verdict(pair: Pair, config: VerifierConfig) -> str:
    if pair.verdict == "conflict":
        return "conflict"
    # With the bands open, a claim number missing from the aligned sentences is the only
    # way to a `partial` (checker "number").
    return support_verdict(pair.support, pair.checker == "number", config)


def _score(pairs: Mapping[str, list[Pair]], sets: Mapping[str, EvalSet], config: VerifierConfig) -> dict[str, float]:
    scores = {}
    for name, ps in pairs.items():
        fmt = claim_format(sets[name])
        mapping = VERDICT_MAPS[fmt]
        scores[name] = macro_f1([p.gold for p in ps], [mapping[_verdict(p, config)] for p in ps], LABELS[fmt])
    return scores


def tune_lexical(sets: Mapping[str, EvalSet], base: VerifierConfig | None = None) -> dict:
    """The cut-offs with the best mean tuning-part macro-F1; see the module docstring."""
    base = base or VerifierConfig()
    best: dict | None = None
    for conflict_overlap in CONFLICT_OVERLAPS:
        opened = base.model_copy(update={"entail_support": 0.0, "partial_support": 0.0, "irrelevant_below": 0.0,
                                         "conflict_overlap": conflict_overlap})
        verifier = LexicalVerifier(opened)
        pairs = {name: verify_pairs(s, verifier, split="tune") for name, s in sets.items()}
        for partial in BAND_GRID:
            for entail in BAND_GRID:
                if entail < partial:
                    continue
                config = base.model_copy(update={
                    "entail_support": entail, "partial_support": partial, "conflict_overlap": conflict_overlap,
                    "irrelevant_below": min(base.irrelevant_below, partial)})
                scores = _score(pairs, sets, config)
                mean = sum(scores.values()) / len(scores)
                if best is None or mean > best["mean_macro_f1"] + 1e-12:
                    best = {"mean_macro_f1": mean, "tuning_macro_f1": scores,
                            "config": {k: getattr(config, k) for k in
                                       ("entail_support", "partial_support", "irrelevant_below", "conflict_overlap")}}
    assert best is not None
    best["mean_macro_f1"] = round(best["mean_macro_f1"], 4)
    best["tuning_macro_f1"] = {k: round(v, 4) for k, v in best["tuning_macro_f1"].items()}
    return best


def tune_gray_zone(sets: Mapping[str, EvalSet], config: VerifierConfig) -> dict:
    """The `model_gray_zone` of the module docstring, for the lexical verifier at `config`."""
    verifier = LexicalVerifier(config)
    pairs = {name: verify_pairs(s, verifier, split="tune") for name, s in sets.items()}
    best: dict | None = None
    for low in BAND_GRID:
        for high in BAND_GRID:
            if high <= low:
                continue
            inside = {name: [p for p in ps if p.verdict != "conflict" and low <= p.support < high]
                      for name, ps in pairs.items()}
            rates = {name: len(inside[name]) / len(ps) for name, ps in pairs.items() if ps}
            if any(rate > MAX_FIRE_RATE for rate in rates.values()):
                continue
            errors = sum(VERDICT_MAPS[claim_format(sets[name])][p.verdict] != p.gold
                         for name, ps in inside.items() for p in ps)
            if best is None or errors > best["lexical_errors_inside"]:
                best = {"model_gray_zone": [low, high], "lexical_errors_inside": errors,
                        "fire_rate": {k: round(v, 4) for k, v in rates.items()}}
    assert best is not None
    return best
