"""Gold-evidence loaders for the runtime benchmark, and HotpotQA's supporting-fact score.

The unit metrics (what a run retrieved, carded and cited, against gold units) live in
filters/gold.py, so the training layer can score branch outcomes by gold recall; they are
re-exported here for eval's callers. `sp_metrics` is HotpotQA's official supporting-fact
score.

`load_hotpotqa` / `load_musique` / `GoldQuestion` are the older loaders used by
`eval.bench_runtime`; `eval.datasets` holds the loaders of the evaluation harness. Their
files ship with citeloop in eval/data/multihop (`citeloop.eval.datasets.BUILTIN_DATA_DIR`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from citeloop.filters.gold import (  # noqa: F401  (re-exported: eval's gold metrics live in filters/gold.py)
    RunUnits,
    Unit,
    gold_precision,
    gold_recall,
    precision,
    recall,
    run_sentence_units,
    run_units,
    search_hit_docs,
    unit_hits,
)
from citeloop.eval.datasets import BUILTIN_DATA_DIR
from citeloop.runtime.corpus import Corpus


@dataclass(frozen=True)
class GoldQuestion:
    qid: str
    question: str
    answer: str
    gold: frozenset[Unit]
    level: str
    """`sentence` or `paragraph`."""


def load_hotpotqa(path: Path, corpus: Corpus) -> list[GoldQuestion]:
    by_title = {d.title: d.id for d in corpus if d.id.startswith("hotpotqa-")}
    out = []
    for row in json.loads(Path(path).read_text(encoding="utf-8")):
        gold = frozenset((by_title[t], i) for t, i in row["supporting_facts"] if t in by_title)
        out.append(GoldQuestion(row["_id"], row["question"], row["answer"], gold, "sentence"))
    return out


def load_musique(path: Path, corpus: Corpus) -> list[GoldQuestion]:
    by_content = {(d.title, d.text.strip()): d.id for d in corpus if d.id.startswith("musique-")}
    out = []
    for row in json.loads(Path(path).read_text(encoding="utf-8")):
        gold = frozenset(
            (by_content[(p["title"], p["paragraph_text"].strip())], -1)
            for p in row["paragraphs"]
            if p["is_supporting"] and (p["title"], p["paragraph_text"].strip()) in by_content
        )
        out.append(GoldQuestion(row["id"], row["question"], row["answer"], gold, "paragraph"))
    return out


def shared_multihop(data: Path | None, corpus: Corpus) -> list[GoldQuestion]:
    """The benchmarks' 200 shared questions: HotpotQA-100, then MuSiQue-100. `data` holds
    `multihop/`; None means the copy shipped in eval/data (`BUILTIN_DATA_DIR`)."""
    data = Path(data) if data is not None else BUILTIN_DATA_DIR
    return [*load_hotpotqa(data / "multihop" / "hotpotqa_100.json", corpus),
            *load_musique(data / "multihop" / "musique_100.json", corpus)]


def sp_metrics(prediction: set[tuple[str, int]], gold: set[tuple[str, int]]) -> dict[str, float]:
    """HotpotQA's official supporting-fact metrics for one example (`update_sp` in
    hotpot_evaluate_v1.py): sets of (title, sentence index); precision and recall are 0
    when their denominator is 0, F1 is 0 when P+R is 0, EM is 1 iff the sets are equal."""
    tp = len(prediction & gold)
    fp = len(prediction - gold)
    fn = len(gold - prediction)
    prec = tp / (tp + fp) if tp + fp > 0 else 0.0
    rec = tp / (tp + fn) if tp + fn > 0 else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
    em = 1.0 if fp + fn == 0 else 0.0
    return {"sp_em": em, "sp_f1": f1, "sp_prec": prec, "sp_recall": rec}
