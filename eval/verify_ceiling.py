"""How far a verdict model behind the lexical pre-stage could take the verifier: the ceiling
of issue 23's design, measured before any model is trained.

    python -m citeloop.eval.verify_ceiling [--data DIR] [--sets scifact,wice] [--out bench-out/verify-ceiling.json]

The trained judge (`citeloop.runtime.llm.trained_verifier`) is asked only in the lexical
verifier's gray zone (`in_gray_zone`, with the band of `configs/verify/claims.yaml`), and its
answer replaces the lexical verdict there. For each set and part (tuning / validation, the
fixed split of `citeloop.eval.verify_baselines.claim_split`), on the lexical verdicts of every
(claim, document) pair, this prints the macro-F1 of:

- **lexical**: the lexical verifier alone (as `bench_verifier` measures it);
- **perfect judge in the gray zone**: every gray-zone pair given its gold label; what any
  model asked only there can reach at best;
- **perfect judge, any third**: the gold label on the lexical errors, up to a third of the
  pairs: the best any gate that asks the model on at most a third of checks could do.
  (Which errors it picks does not matter for accuracy; for macro-F1 the rarest gold labels
  are corrected first, an upper bound in practice, not a proof);
- **the accuracy a judge needs in the gray zone** for macro-F1 60 (`needed_zone_accuracy`),
  beside the lexical verdicts' own accuracy there.

with the gray zone's share of pairs and how many lexical errors stand inside it; and the same
for an **error gate** in place of the band: a third of the pairs, those whose cell (lexical
verdict, deciding check, support, document overlap) had the most lexical errors on the tuning
part (`fit_error_gate`; fitted there, so only its validation rows are held out). A model is
not needed; the numbers tell whether the targets (macro-F1 >= 60 on both validation parts,
the model asked on at most a third of checks) are within this design's reach. Prints a table
and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from citeloop.eval.datasets import claims_data_dir, load_eval_set
from citeloop.eval.verifier_eval import (
    LABELS,
    VERDICT_MAPS,
    Pair,
    claim_format,
    claims_config,
    classification_scores,
    verify_pairs,
)
from citeloop.runtime.llm.trained_verifier import in_gray_zone
from citeloop.runtime.verifier import LexicalVerifier, VerifierConfig
from citeloop.trajectories.models import VerdictRecord

SETS = ("scifact", "wice")
PARTS = ("tune", "validation")
ASKED_SHARE = 1 / 3
"""Issue 23: the model is asked on at most a third of checks."""
TARGET = 0.60
"""Issue 23: macro-F1 with the trained judge on both validation parts."""


def in_zone(pair: Pair, config: VerifierConfig) -> bool:
    """Would the trained judge be asked about this pair (its lexical verdict in the gray zone)?"""
    record = VerdictRecord(claim_id=pair.claim_id, verdict=pair.verdict, checker=pair.checker,  # type: ignore[arg-type]
                           reason="", support=pair.support)
    return in_gray_zone(record, config)


def with_gold_where(gold: Sequence[str], predicted: Sequence[str], asked: Sequence[bool]) -> list[str]:
    """The predictions with every asked pair's replaced by its gold label (a perfect judge)."""
    return [g if a else p for g, p, a in zip(gold, predicted, asked)]


def best_third(gold: Sequence[str], predicted: Sequence[str], share: float = ASKED_SHARE) -> list[bool]:
    """Which pairs a perfect judge limited to `share` of them should be asked: lexical errors,
    those whose gold label is rarest first (a correction there moves macro-F1 most)."""
    budget = int(share * len(gold))
    frequency = Counter(gold)
    errors = sorted((i for i, (g, p) in enumerate(zip(gold, predicted)) if g != p),
                    key=lambda i: (frequency[gold[i]], i))
    chosen = set(errors[:budget])
    return [i in chosen for i in range(len(gold))]


GATE_PRIOR = 5.0
"""Pseudo-pairs at the overall error rate added to each cell of the error gate: a cell seen
twice does not claim a 100 % error rate."""


def gate_cell(pair: Pair) -> tuple[str, str, int, int]:
    """What the error gate knows of a pair at run time: the lexical verdict, the check that
    decided it, the support in tenths and the document-wide overlap in fifths."""
    return pair.verdict, pair.checker, min(int(pair.support * 10), 9), min(int(pair.overlap * 5), 4)


def fit_error_gate(pairs: Sequence[Pair], gold_of: dict[str, str]) -> dict:
    """Each cell's share of lexical errors among the tuning pairs (`gate_cell`), shrunk
    towards the overall share by `GATE_PRIOR` pseudo-pairs. `gold_of` maps a verdict to the
    set's label (`VERDICT_MAPS`)."""
    errors = [gold_of[p.verdict] != p.gold for p in pairs]
    overall = sum(errors) / len(errors) if errors else 0.0
    seen: dict[tuple, list[int]] = {}
    for p, wrong in zip(pairs, errors):
        seen.setdefault(gate_cell(p), []).append(wrong)
    return {"overall": overall,
            "cells": {cell: (sum(w) + GATE_PRIOR * overall) / (len(w) + GATE_PRIOR) for cell, w in seen.items()}}


def error_gate(pairs: Sequence[Pair], gate: dict, share: float = ASKED_SHARE) -> list[bool]:
    """The pairs the gate asks a judge about: the `share` whose cells had the most lexical
    errors on the tuning part (a cell not seen there counts at the overall rate)."""
    risk = [gate["cells"].get(gate_cell(p), gate["overall"]) for p in pairs]
    chosen = set(sorted(range(len(pairs)), key=lambda i: (-risk[i], i))[: int(share * len(pairs))])
    return [i in chosen for i in range(len(pairs))]


def needed_zone_accuracy(gold: Sequence[str], lexical: Sequence[str], zone: Sequence[bool], labels: Sequence[str],
                         target: float = TARGET, draws: int = 20) -> float | None:
    """The least accuracy on the gray-zone pairs at which a judge reaches `target` macro-F1:
    a judge that gives the gold label on a random share q of the zone's pairs and leaves the
    lexical verdict on the rest (mean over `draws` draws; q in steps of 0.05). Its accuracy
    in the zone counts the lexical verdicts it leaves that were right. None: not even a
    perfect judge reaches the target."""
    inside = [i for i, z in enumerate(zone) if z]
    if not inside:
        return None
    right = sum(gold[i] == lexical[i] for i in inside) / len(inside)
    for step in range(21):
        q = step / 20
        scores = []
        for draw in range(draws):
            rng = random.Random(draw)
            asked = set(rng.sample(inside, round(q * len(inside))))
            predicted = with_gold_where(gold, lexical, [i in asked for i in range(len(gold))])
            scores.append(classification_scores(gold, predicted, labels)["macro_f1"])
        if sum(scores) / draws >= target:
            return round(q + (1 - q) * right, 4)
    return None


def ceiling(pairs: Sequence[Pair], fmt: str, config: VerifierConfig, gate: dict | None = None) -> dict:
    """The figures of one set and part (module docstring); with `gate` (`fit_error_gate` on
    the tuning part), those of a judge asked where the gate expects lexical errors."""
    mapping, labels = VERDICT_MAPS[fmt], LABELS[fmt]
    gold = [p.gold for p in pairs]
    lexical = [mapping[p.verdict] for p in pairs]
    zone = [in_zone(p, config) for p in pairs]
    third = best_third(gold, lexical)
    errors = [g != p for g, p in zip(gold, lexical)]
    gated = error_gate(pairs, gate) if gate is not None else None

    def f1(predicted: Sequence[str]) -> float:
        return classification_scores(gold, predicted, labels)["macro_f1"]

    return {
        "pairs": len(pairs),
        "lexical": f1(lexical),
        "gray_zone_share": round(sum(zone) / len(pairs), 4) if pairs else None,
        "lexical_errors": sum(errors),
        "errors_in_gray_zone": sum(e and z for e, z in zip(errors, zone)),
        "perfect_judge_in_gray_zone": f1(with_gold_where(gold, lexical, zone)),
        "perfect_judge_any_third": f1(with_gold_where(gold, lexical, third)),
        "lexical_accuracy_in_zone": round(sum(not e for e, z in zip(errors, zone) if z) / sum(zone), 4)
        if any(zone) else None,
        "zone_accuracy_for_target": needed_zone_accuracy(gold, lexical, zone, labels),
        **({} if gated is None else {
            "error_gate_share": round(sum(gated) / len(pairs), 4),
            "errors_in_error_gate": sum(e and g for e, g in zip(errors, gated)),
            "perfect_judge_in_error_gate": f1(with_gold_where(gold, lexical, gated)),
            "lexical_accuracy_in_error_gate": round(sum(not e for e, g in zip(errors, gated) if g) / sum(gated), 4)
            if any(gated) else None,
            "error_gate_accuracy_for_target": needed_zone_accuracy(gold, lexical, gated, labels),
        }),
    }


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m citeloop.eval.verify_ceiling", description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="folder holding scifact/ and wice/ (default: the shared data)")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--out", type=Path, default=Path("bench-out/verify-ceiling.json"))
    args = ap.parse_args(argv)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        print(f"error: unknown set {unknown[0]!r}; choose from {', '.join(SETS)}", file=sys.stderr)
        return 2
    try:
        loaded = {name: load_eval_set(name, claims_data_dir(name, args.data)) for name in sets}
    except (OSError, ValueError) as exc:  # DatasetError and JSON errors are ValueErrors
        print(f"error: {exc}", file=sys.stderr)
        return 2
    config = claims_config()
    verifier = LexicalVerifier(config)
    results: dict[str, dict] = {}
    for name, eval_set in loaded.items():
        fmt = claim_format(eval_set)
        by_part = {part: verify_pairs(eval_set, verifier, split=part) for part in PARTS}  # type: ignore[arg-type]
        gate = fit_error_gate(by_part["tune"], VERDICT_MAPS[fmt])  # fitted on the tuning part only
        for part, pairs in by_part.items():
            results[f"{name}/{part}"] = ceiling(pairs, fmt, config, gate)
    print(f"{'set / part':<22}{'pairs':>6}{'lexical':>9}{'zone %':>8}{'errors':>8}{'in zone':>9}"
          f"{'judge@zone':>12}{'judge@third':>13}{'lex acc@zone':>14}{'acc for 60':>12}")
    for key, r in results.items():
        print(f"{key:<22}{r['pairs']:>6}{100 * r['lexical']:>9.1f}{100 * r['gray_zone_share']:>8.1f}"
              f"{r['lexical_errors']:>8}{r['errors_in_gray_zone']:>9}{100 * r['perfect_judge_in_gray_zone']:>12.1f}"
              f"{100 * r['perfect_judge_any_third']:>13.1f}{_pct(r['lexical_accuracy_in_zone']):>14}"
              f"{_pct(r['zone_accuracy_for_target']):>12}")
    print(f"{'error gate (fitted on tune)':<28}{'asked %':>8}{'errors in':>11}{'judge@gate':>12}"
          f"{'lex acc@gate':>14}{'acc for 60':>12}")
    for key, r in results.items():
        print(f"{key:<28}{100 * r['error_gate_share']:>8.1f}{r['errors_in_error_gate']:>11}"
              f"{100 * r['perfect_judge_in_error_gate']:>12.1f}{_pct(r['lexical_accuracy_in_error_gate']):>14}"
              f"{_pct(r['error_gate_accuracy_for_target']):>12}")
    print("(macro-F1 in %; judge@zone: a perfect judge asked only in the gray zone "
          f"{list(config.model_gray_zone)}; judge@third: a perfect judge asked on the best third of pairs; "
          "lex acc@zone: the lexical verdicts right in the zone; acc for 60: the accuracy in the zone a judge "
          "needs for macro-F1 60; the error gate asks a third of pairs, those whose verdict, check, support "
          "and overlap had the most lexical errors on the tuning part: its tuning rows are fitted, its "
          "validation rows held out)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"gray_zone": list(config.model_gray_zone), "results": results}, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
