"""Training rows for the `trained` verifier's verdict model.

    python -m citeloop.eval.verdict_dataset --out train-out/data/verdicts [--data DIR] [--multihop N]
    citeloop train sft --config configs/train/sft-verdict-smollm2.yaml

Each row is the `verdict_judge` prompt exactly as `citeloop.runtime.llm.trained_verifier`
sends it (the claim and the sentences the lexical verifier aligned it to, at the claim-set
cut-offs of `configs/verify/claims.yaml`), answered with one verdict word. Sources:

- SciFact train claims, one row per (claim, cited abstract): SUPPORT -> entail,
  CONTRADICT -> conflict, NOT_ENOUGH_INFO -> irrelevant.
- WiCE dev claims: supported -> entail, partially_supported -> partial, not_supported ->
  irrelevant.
- HotpotQA questions over the embedded corpus, from citeloop's own data: each gold
  supporting sentence as a claim against itself (entail), against a sentence of the same
  page that is not gold (irrelevant), extended with that sentence's words (partial), with a
  controlled negation ("was" -> "was not", or a "not" taken out: conflict) and with its
  first number changed (conflict).

Splits are by claim, never by row: a SciFact or WiCE claim's rows go where the benchmark's
fixed split puts the claim (`citeloop.eval.verify_baselines.claim_split`: the tuning part
is `train`, the validation part `test`), so the benchmark's validation numbers are on
claims the model never saw; a HotpotQA question's rows go by the same hash of its id.
Each row also says whether the lexical verifier leaves it in the judge's gray zone (`gray`),
the only rows the model is asked about at inference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from citeloop.eval.datasets import EvalSet, claims_data_dir, load_eval_set
from citeloop.eval.verifier_eval import claims_config
from citeloop.eval.verify_baselines import claim_split
from citeloop.runtime.llm.trained_verifier import in_gray_zone, prompt_evidence, verdict_prompt
from citeloop.runtime.opposition import quantities
from citeloop.runtime.verifier import EvidenceText, LexicalVerifier
from citeloop.training.hfdata import MESSAGES_FEATURE, write_dataset

VERDICTS = {
    "scifact": {"SUPPORT": "entail", "CONTRADICT": "conflict", "NOT_ENOUGH_INFO": "irrelevant"},
    "wice": {"supported": "entail", "partially_supported": "partial", "not_supported": "irrelevant"},
}
COLUMNS: dict[str, Any] = {
    "prompt": MESSAGES_FEATURE, "completion": MESSAGES_FEATURE, "label": "string", "source": "string",
    "kind": "string", "claim_id": "string", "gray": "bool",
}
SPLITS = {"tune": "train", "validation": "test"}
_AUXILIARY = re.compile(r"\b(is|was|are|were|has|had|have|can|could|will|would|does|did)\b")
_NOT = re.compile(r"\s+not\b")

__all__ = ["claim_rows", "multihop_rows", "negate", "swap_number", "VERDICTS"]


def _row(verifier: LexicalVerifier, claim: str, evidence: list[EvidenceText], label: str, source: str,
         kind: str, claim_id: str) -> dict[str, Any]:
    prompt = verdict_prompt(claim, prompt_evidence(verifier, claim, evidence))
    gray = in_gray_zone(verifier.check(claim_id, claim, evidence), verifier.config)
    return {"prompt": [{"role": m.role, "content": m.content} for m in prompt.messages],
            "completion": [{"role": "assistant", "content": label}],
            "label": label, "source": source, "kind": kind, "claim_id": claim_id, "gray": gray}


def claim_rows(eval_set: EvalSet, verifier: LexicalVerifier) -> dict[str, list[dict[str, Any]]]:
    """One row per (claim, document) pair of a SciFact- or WiCE-format set, split by claim."""
    fmt = eval_set.claim_format or eval_set.name
    rows: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    for q in eval_set.questions:
        split = SPLITS[claim_split(fmt, q.id)]
        for doc_id, gold in q.doc_labels.items():
            doc = eval_set.corpus.get(doc_id)
            if doc is None:
                continue
            evidence = [EvidenceText(card_id=f"{doc_id}#s{i}", text=s) for i, s in enumerate(doc.sentence_list())]
            rows[split].append(_row(verifier, q.question, evidence, VERDICTS[fmt][gold], fmt, "gold", q.id))
    return rows


def negate(sentence: str) -> str | None:
    """The sentence denied: a "not" after its first auxiliary, or its "not" taken out; None
    when it has neither."""
    if _NOT.search(sentence):
        return _NOT.sub("", sentence, count=1)
    match = _AUXILIARY.search(sentence)
    return f"{sentence[:match.end()]} not{sentence[match.end():]}" if match else None


def swap_number(sentence: str, key: str) -> str | None:
    """The sentence with its first plain number changed by 1 to 9 (chosen by a hash of `key`),
    None when it states no plain number."""
    for mention in quantities(sentence):
        if mention.raw.isdigit():
            shift = 1 + int(hashlib.sha256(key.encode()).hexdigest()[:4], 16) % 9
            start, end = mention.span
            return f"{sentence[:start]}{int(mention.raw) + shift}{sentence[end:]}"
    return None


def multihop_rows(eval_set: EvalSet, verifier: LexicalVerifier) -> dict[str, list[dict[str, Any]]]:
    """The derived rows of the module docstring from a set with sentence-level gold."""
    rows: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    for q in eval_set.questions:
        split = SPLITS[claim_split(eval_set.name, q.id)]
        gold = set(q.gold)
        for doc_id, index in sorted(gold):
            doc = eval_set.corpus.get(doc_id)
            sentences = doc.sentence_list() if doc is not None else []
            if not 0 <= index < len(sentences):
                continue
            claim = sentences[index]
            key = f"{q.id}:{doc_id}:{index}"
            source = [EvidenceText(card_id=f"{doc_id}#s{index}", text=claim)]
            found = [("entail", "gold", claim, source)]
            others = [s for i, s in enumerate(sentences) if (doc_id, i) not in gold and s.strip()]
            if others:
                other = others[int(hashlib.sha256(key.encode()).hexdigest()[:4], 16) % len(others)]
                distractor = [EvidenceText(card_id=f"{doc_id}#d", text=other)]
                found.append(("irrelevant", "distractor", claim, distractor))
                found.append(("partial", "extended", f"{claim.rstrip('. ')}; {other[:1].lower()}{other[1:]}", source))
            for kind, changed in (("negation", negate(claim)), ("number", swap_number(claim, key))):
                if changed and changed != claim:
                    found.append(("conflict", kind, changed, source))
            for label, kind, text, evidence in found:
                rows[split].append(_row(verifier, text, evidence, label, eval_set.name, kind, q.id))
    return rows


def _card(summary: dict[str, Any]) -> str:
    lines = "\n".join(f"| {split} | {source} | {label} | {n} |" for split, by in summary["counts"].items()
                      for source, labels in by.items() for label, n in labels.items())
    return ("# citeloop verdict rows\n\nSFT rows for the `trained` verifier's verdict model: the `verdict_judge` "
            "prompt over the\nsentences the lexical verifier aligned the claim to, answered with one verdict.\n"
            "Split by claim (SciFact and WiCE: the benchmark's tuning part is train).\n\n"
            "| split | source | label | rows |\n|---|---|---|---|\n" + lines + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=None, help="directory holding scifact/ and wice/ "
                                                                 "(default: ../shared/data beside the repository)")
    parser.add_argument("--multihop", type=int, default=100, help="HotpotQA questions to derive rows from (0: none)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    verifier = LexicalVerifier(claims_config())
    rows: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    parts = [claim_rows(load_eval_set(name, claims_data_dir(name, args.data)), verifier) for name in VERDICTS]
    if args.multihop:
        parts.append(multihop_rows(load_eval_set("hotpotqa").limit(args.multihop), verifier))
    for part in parts:
        for split, found in part.items():
            rows[split].extend(found)
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for split, found in rows.items():
        for r in found:
            by = counts.setdefault(split, {}).setdefault(r["source"], {})
            by[r["label"]] = by.get(r["label"], 0) + 1
    summary = {"counts": counts, "gray": {s: sum(r["gray"] for r in found) for s, found in rows.items()},
               "multihop_questions": args.multihop}
    try:
        written = write_dataset(args.out, rows, COLUMNS, _card(summary), summary, overwrite=args.overwrite)
    except FileExistsError as exc:
        parser.error(str(exc))
    print(json.dumps({"out": str(args.out), "rows": written, **summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
