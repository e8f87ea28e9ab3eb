"""Gold-evidence loaders for the runtime benchmark, and HotpotQA's supporting-fact score.

The unit metrics (what a run retrieved, carded and cited, against gold units) live in
filters/gold.py, so the training layer can score branch outcomes by gold recall; they are
re-exported here for eval's callers. `sp_metrics` is HotpotQA's official supporting-fact
score.

`load_hotpotqa` / `load_musique` give the benchmarks' `GoldQuestion` view (frozen gold sets) of
the questions `eval.datasets` reads, so each file is parsed in one place. Their files ship with
citeloop in eval/data/multihop (`citeloop.eval.datasets.BUILTIN_DATA_DIR`).
"""

from __future__ import annotations

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
from citeloop.eval.datasets import (
    BUILTIN_DATA_DIR,
    HOTPOTQA_FILE,
    MUSIQUE_FILE,
    EvalQuestion,
    hotpotqa_questions,
    musique_questions,
)
from citeloop.runtime.corpus import Corpus


@dataclass(frozen=True)
class GoldQuestion:
    qid: str
    question: str
    answer: str
    gold: frozenset[Unit]
    level: str
    """`sentence` or `paragraph`."""

    @classmethod
    def of(cls, question: EvalQuestion, level: str) -> GoldQuestion:
        return cls(question.id, question.question, question.answer or "", frozenset(question.gold), level)


def load_hotpotqa(path: Path, corpus: Corpus) -> list[GoldQuestion]:
    """The questions of a HotpotQA file (`eval.datasets.hotpotqa_questions`) as `GoldQuestion`s."""
    return [GoldQuestion.of(q, "sentence") for q in hotpotqa_questions(path, corpus)]


def load_musique(path: Path, corpus: Corpus) -> list[GoldQuestion]:
    """The questions of a MuSiQue file (`eval.datasets.musique_questions`) as `GoldQuestion`s."""
    return [GoldQuestion.of(q, "paragraph") for q in musique_questions(path, corpus)]


def shared_multihop(data: Path | None, corpus: Corpus) -> list[GoldQuestion]:
    """The benchmarks' 200 shared questions: HotpotQA-100, then MuSiQue-100. `data` holds
    `multihop/`; None means the copy shipped in eval/data (`BUILTIN_DATA_DIR`)."""
    data = Path(data) if data is not None else BUILTIN_DATA_DIR
    return [*load_hotpotqa(data / "multihop" / HOTPOTQA_FILE, corpus),
            *load_musique(data / "multihop" / MUSIQUE_FILE, corpus)]


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
