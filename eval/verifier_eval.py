"""Claim verification accuracy: the verifier's verdict against SciFact and WiCE gold labels.

Each (claim, document, gold label) pair of an `EvalSet` with `doc_labels` is checked: the
verifier sees the claim and the document's sentences (one `EvidenceText` per sentence, ids
`{doc}#s{i}`), and its verdict is mapped onto the data set's labels:

| verdict      | SciFact          | WiCE                |
|--------------|------------------|---------------------|
| entail       | SUPPORT          | supported           |
| partial      | SUPPORT          | partially_supported |
| conflict     | CONTRADICT       | not_supported       |
| irrelevant   | NOT_ENOUGH_INFO  | not_supported       |
| undecidable  | NOT_ENOUGH_INFO  | not_supported       |

SciFact has no partial label; `partial` (most of the claim's terms stated, something
missing) maps to SUPPORT by default, and `PARTIAL_AS_NEI` is reported beside it as the
stricter reading. A claim file in either format (`EvalSet.claim_format`) is scored with
that format's mapping.

Reports accuracy, macro-F1, per-class P/R/F1 and the confusion matrix, next to the two
baselines of `citeloop.eval.verify_baselines` computed in the same run (the pooled overlap
rule with two cut-offs tuned on the tuning part, and the majority label), each with a
bootstrap 95 % interval of the verifier's macro-F1 difference; and every pair's verdict
(`per_claim`). `split` scores only the claims of one part of the fixed tuning / validation
split. A verifier named by a string is built with the claim-set cut-offs of
`configs/verify/claims.yaml` (`claims_config`), tuned on the tuning part.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from citeloop.eval.datasets import SCIFACT_NEI, DatasetError, EvalQuestion, EvalSet
from citeloop.eval.verify_baselines import Split, bootstrap_difference, claim_split, fit_overlap_baseline
from citeloop.runtime.corpus import Document
from citeloop.runtime.text import content_terms, term_overlap
from citeloop.runtime.llm.parts import make_verifier
from citeloop.runtime.registry import read_yaml_mapping
from citeloop.runtime.verifier import EvidenceText, Verifier, VerifierConfig
from citeloop.trajectories.errors import ErrorWording, validation_message

CLAIMS_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "verify" / "claims.yaml"
"""The verifier's cut-offs for claim sets (tuned on the tuning part; see the file)."""

SCIFACT_LABELS = ("SUPPORT", "CONTRADICT", SCIFACT_NEI)
WICE_LABELS = ("supported", "partially_supported", "not_supported")

VERDICT_MAPS: dict[str, dict[str, str]] = {
    "scifact": {"entail": "SUPPORT", "partial": "SUPPORT", "conflict": "CONTRADICT",
                "irrelevant": SCIFACT_NEI, "undecidable": SCIFACT_NEI},
    "wice": {"entail": "supported", "partial": "partially_supported", "conflict": "not_supported",
             "irrelevant": "not_supported", "undecidable": "not_supported"},
}
PARTIAL_AS_NEI = {**VERDICT_MAPS["scifact"], "partial": SCIFACT_NEI}
LABELS = {"scifact": SCIFACT_LABELS, "wice": WICE_LABELS}


def claims_config(path: Path | None = None) -> VerifierConfig:
    """The verifier config for claim sets: `path`, else `CLAIMS_CONFIG`."""
    path = Path(path) if path is not None else CLAIMS_CONFIG
    data = read_yaml_mapping(path, DatasetError)
    try:
        return VerifierConfig.model_validate(data)
    except ValidationError as exc:
        raise DatasetError(f"{path}: {validation_message(exc, ErrorWording())}") from exc


@dataclass(frozen=True)
class Pair:
    claim_id: str
    claim: str
    doc_id: str
    gold: str
    verdict: str
    checker: str
    support: float
    overlap: float = 0.0
    """Share of the claim's terms found anywhere in the document (the overlap baseline's input)."""


def classification_scores(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict:
    """Accuracy, macro-F1 over `labels`, per-class P/R/F1 and the confusion matrix
    (`confusion[gold][predicted]`). A class never predicted has precision 0; macro-F1
    averages over all `labels`, as scikit-learn's `f1_score(average="macro", labels=...)`."""
    if len(gold) != len(predicted):
        raise ValueError("gold and predicted differ in length")
    confusion = {g: {p: 0 for p in labels} for g in labels}
    for g, p in zip(gold, predicted):
        confusion[g][p] += 1
    per_class = {}
    for label in labels:
        tp = confusion[label][label]
        predicted_n = sum(confusion[g][label] for g in labels)
        gold_n = sum(confusion[label].values())
        prec = tp / predicted_n if predicted_n else 0.0
        rec = tp / gold_n if gold_n else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per_class[label] = {"precision": round(prec, 4), "recall": round(rec, 4), "f1": round(f1, 4),
                            "support": gold_n}
    n = len(gold)
    return {
        "n": n,
        "accuracy": round(sum(g == p for g, p in zip(gold, predicted)) / n, 4) if n else None,
        "macro_f1": round(sum(c["f1"] for c in per_class.values()) / len(labels), 4) if n else None,
        "per_class": per_class,
        "confusion": confusion,
    }


def majority_baseline(gold: Sequence[str], labels: Sequence[str]) -> dict:
    counts = Counter(gold)
    # Ties go to the label listed first, so the baseline is deterministic.
    majority = max(labels, key=lambda lab: (counts[lab], -labels.index(lab)))
    return {"label": majority, **classification_scores(gold, [majority] * len(gold), labels)}


def claim_format(eval_set: EvalSet) -> str:
    fmt = eval_set.claim_format or eval_set.name
    if fmt not in VERDICT_MAPS:
        raise ValueError(f"no label mapping for {eval_set.name!r}; verification needs a SciFact- or WiCE-format "
                         f"claim set")
    return fmt


def scored_questions(eval_set: EvalSet, limit: int | None = None, split: Split | None = None) -> list[EvalQuestion]:
    """The first `limit` claims, then those of `split` only (all when None)."""
    fmt = eval_set.claim_format or eval_set.name
    return [q for q in eval_set.questions[:limit] if split is None or claim_split(fmt, q.id) == split]


def _documents(eval_set: EvalSet, q: EvalQuestion) -> Iterator[tuple[str, str, Document]]:
    """(doc id, gold label, document) for each of the claim's documents the corpus holds."""
    for doc_id, label in q.doc_labels.items():
        doc = eval_set.corpus.get(doc_id)
        if doc is not None:
            yield doc_id, label, doc


def _overlap(claim: str, text: str) -> float:
    return term_overlap(content_terms(claim), content_terms(text))


def verify_pairs(eval_set: EvalSet, verifier: Verifier, limit: int | None = None,
                 on_pair: Callable[[], None] | None = None, split: Split | None = None) -> list[Pair]:
    pairs = []
    for q in scored_questions(eval_set, limit, split):
        for doc_id, label, doc in _documents(eval_set, q):
            evidence = [EvidenceText(card_id=f"{doc_id}#s{i}", text=s) for i, s in enumerate(doc.sentence_list())]
            record = verifier.check(f"{q.id}@{doc_id}", q.question, evidence)
            pairs.append(Pair(q.id, q.question, doc_id, label, record.verdict, record.checker, record.support,
                              _overlap(q.question, doc.text)))
            if on_pair:
                on_pair()
    return pairs


def overlap_baseline(eval_set: EvalSet, pairs: Sequence[Pair]) -> dict:
    """The overlap baseline fitted on the set's tuning part (all of it, whatever `limit` or
    `split` the verifier is scored on) and applied to `pairs`; fitted on `pairs` themselves
    when the set has no tuning claims (a tiny file), which the result says."""
    fmt = claim_format(eval_set)
    tuning = [(label, _overlap(q.question, doc.text)) for q in eval_set.questions if claim_split(fmt, q.id) == "tune"
              for _, label, doc in _documents(eval_set, q)]
    source = "tuning part"
    if not tuning:
        tuning, source = [(p.gold, p.overlap) for p in pairs], "the scored pairs (the set has no tuning claims)"
    fitted = fit_overlap_baseline(fmt, [g for g, _ in tuning], [o for _, o in tuning], LABELS[fmt])
    predicted = [fitted.predict(p.overlap) for p in pairs]
    scores = classification_scores([p.gold for p in pairs], predicted, LABELS[fmt])
    return {"cutoffs": [fitted.lower, fitted.upper], "bands": list(fitted.labels), "tuned_on": source,
            "tuned_pairs": fitted.tuned_on, **scores, "predicted": predicted}


def score_pairs(pairs: Sequence[Pair], mapping: dict[str, str], labels: Sequence[str]) -> dict:
    gold = [p.gold for p in pairs]
    predicted = [mapping[p.verdict] for p in pairs]
    scores = classification_scores(gold, predicted, labels)
    baseline = majority_baseline(gold, labels)
    scores["majority"] = {"label": baseline["label"], "accuracy": baseline["accuracy"],
                          "macro_f1": baseline["macro_f1"]}
    scores["macro_f1_gain_points"] = round(100 * (scores["macro_f1"] - baseline["macro_f1"]), 2) if pairs else None
    return scores


def failure_analysis(pairs: Sequence[Pair], mapping: dict[str, str], examples: int = 3) -> list[dict]:
    """The most frequent (gold -> predicted) errors, with the deciding check and examples."""
    errors: dict[tuple[str, str], list[Pair]] = {}
    for p in pairs:
        predicted = mapping[p.verdict]
        if predicted != p.gold:
            errors.setdefault((p.gold, predicted), []).append(p)
    out = []
    for (gold, predicted), items in sorted(errors.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append({
            "gold": gold, "predicted": predicted, "count": len(items),
            "by_verdict": dict(Counter(f"{p.verdict}/{p.checker}" for p in items).most_common()),
            "mean_support": round(sum(p.support for p in items) / len(items), 3),
            "examples": [{"claim_id": p.claim_id, "doc_id": p.doc_id, "claim": p.claim[:160],
                          "verdict": p.verdict, "checker": p.checker, "support": p.support}
                         for p in items[:examples]],
        })
    return out


def evaluate_verifier(eval_set: EvalSet, verifier: Verifier | str = "lexical", limit: int | None = None,
                      on_pair: Callable[[], None] | None = None, split: Split | None = None,
                      config: VerifierConfig | None = None) -> dict:
    """Verifier accuracy on a claim set (SciFact or WiCE format); see the module docstring.
    A verifier given by name is built with `config` (default: `claims_config()`)."""
    fmt = claim_format(eval_set)
    if isinstance(verifier, str):
        verifier = make_verifier(verifier, config or claims_config())
    mapping, labels = VERDICT_MAPS[fmt], LABELS[fmt]
    t0 = time.perf_counter()
    pairs = verify_pairs(eval_set, verifier, limit, on_pair, split)
    seconds = time.perf_counter() - t0
    result = {
        "verifier": {"name": verifier.name, "version": verifier.version},
        "format": fmt,
        "split": split or "all",
        "claims": len({p.claim_id for p in pairs}),
        "pairs": len(pairs),
        "verify_seconds": round(seconds, 3),
        "seconds_per_check": round(seconds / len(pairs), 5) if pairs else None,
        "mapping": mapping,
        "verdicts": dict(Counter(p.verdict for p in pairs).most_common()),
        **score_pairs(pairs, mapping, labels),
        "failures": failure_analysis(pairs, mapping),
    }
    if fmt == "scifact":
        strict = score_pairs(pairs, PARTIAL_AS_NEI, labels)
        result["partial_as_nei"] = {k: strict[k] for k in ("accuracy", "macro_f1", "per_class", "confusion")}
    if pairs:
        result.update(_against_baselines(eval_set, pairs, mapping, labels))
    checks = getattr(verifier, "checks", None)
    if checks is not None:
        result["checks"] = checks()
    return result


def _against_baselines(eval_set: EvalSet, pairs: Sequence[Pair], mapping: dict[str, str],
                       labels: Sequence[str]) -> dict:
    gold = [p.gold for p in pairs]
    ours = [mapping[p.verdict] for p in pairs]
    overlap = overlap_baseline(eval_set, pairs)
    majority = majority_baseline(gold, labels)
    claim_ids = [p.claim_id for p in pairs]
    fmt = claim_format(eval_set)
    return {
        "baselines": {
            "overlap": {k: v for k, v in overlap.items() if k != "predicted"},
            "majority": {k: majority[k] for k in ("label", "accuracy", "macro_f1", "per_class")},
        },
        "vs_baselines": {
            "overlap": bootstrap_difference(claim_ids, gold, ours, overlap["predicted"], labels),
            "majority": bootstrap_difference(claim_ids, gold, ours, [majority["label"]] * len(gold), labels),
        },
        "per_claim": [{"claim_id": p.claim_id, "doc_id": p.doc_id, "split": claim_split(fmt, p.claim_id),
                       "gold": p.gold, "verdict": p.verdict, "checker": p.checker, "predicted": pred,
                       "support": p.support, "overlap": round(p.overlap, 4), "overlap_baseline": base}
                      for p, pred, base in zip(pairs, ours, overlap["predicted"])],
    }


def pair_count(eval_set: EvalSet, limit: int | None = None, split: Split | None = None) -> int:
    return sum(len(q.doc_labels) for q in scored_questions(eval_set, limit, split))
