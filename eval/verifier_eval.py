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
stricter reading. Reports accuracy, macro-F1, per-class P/R/F1 and the confusion matrix,
next to the majority-class baseline (always predict the most frequent gold label).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citeloop.eval.datasets import SCIFACT_NEI, EvalSet
from citeloop.runtime.verifier import EvidenceText, Verifier, resolve_verifier

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


@dataclass(frozen=True)
class Pair:
    claim_id: str
    claim: str
    doc_id: str
    gold: str
    verdict: str
    checker: str
    support: float


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


def verify_pairs(eval_set: EvalSet, verifier: Verifier, limit: int | None = None,
                 on_pair: Callable[[], None] | None = None) -> list[Pair]:
    pairs = []
    for q in eval_set.questions[:limit]:
        for doc_id, label in q.doc_labels.items():
            doc = eval_set.corpus.get(doc_id)
            if doc is None:
                continue
            evidence = [EvidenceText(card_id=f"{doc_id}#s{i}", text=s) for i, s in enumerate(doc.sentence_list())]
            record = verifier.check(f"{q.id}@{doc_id}", q.question, evidence)
            pairs.append(Pair(q.id, q.question, doc_id, label, record.verdict, record.checker, record.support))
            if on_pair:
                on_pair()
    return pairs


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
                      on_pair: Callable[[], None] | None = None) -> dict:
    """Verifier accuracy on a claim set (SciFact or WiCE); see the module docstring."""
    if eval_set.name not in VERDICT_MAPS:
        raise ValueError(f"no label mapping for {eval_set.name!r}; verification needs scifact or wice")
    if isinstance(verifier, str):
        verifier = resolve_verifier(verifier)
    mapping, labels = VERDICT_MAPS[eval_set.name], LABELS[eval_set.name]
    pairs = verify_pairs(eval_set, verifier, limit, on_pair)
    result = {
        "verifier": {"name": verifier.name, "version": verifier.version},
        "claims": len({p.claim_id for p in pairs}),
        "pairs": len(pairs),
        "mapping": mapping,
        "verdicts": dict(Counter(p.verdict for p in pairs).most_common()),
        **score_pairs(pairs, mapping, labels),
        "failures": failure_analysis(pairs, mapping),
    }
    if eval_set.name == "scifact":
        strict = score_pairs(pairs, PARTIAL_AS_NEI, labels)
        result["partial_as_nei"] = {k: strict[k] for k in ("accuracy", "macro_f1", "per_class", "confusion")}
    return result


def pair_count(eval_set: EvalSet, limit: int | None = None) -> int:
    return sum(len(q.doc_labels) for q in eval_set.questions[:limit])
