"""Gold-evidence metrics: what a run retrieved, carded and cited, against gold units.

A unit is `(doc id, sentence index)`; index -1 stands for the whole document (paragraph-
or title-level gold). A run's units are derived from its trajectory events: what it read
(retrieved), what became evidence cards, and what its report cites. `run_sentence_units`
keeps sentence granularity and `unit_hits` matches it against gold of any level, so one
code path serves sentence-, paragraph- and title-level data sets. `sp_metrics` is
HotpotQA's official supporting-fact score.

`load_hotpotqa` / `load_musique` / `GoldQuestion` are the older loaders used by
`eval.bench_runtime`; `eval.datasets` holds the loaders of the evaluation harness.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from runtime.corpus import Corpus
from trajectories.events import BaseEvent

Unit = tuple[str, int]
"""(doc id, sentence index); sentence index -1 means the whole document (paragraph level)."""


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


def _unit(sid: str, level: str) -> Unit:
    doc_id, _, index = sid.rpartition("#s")
    return (doc_id, -1) if level == "paragraph" else (doc_id, int(index))


@dataclass(frozen=True)
class RunUnits:
    retrieved: frozenset[Unit]
    carded: frozenset[Unit]
    cited: frozenset[Unit]


def run_units(events: list[BaseEvent], level: str) -> RunUnits:
    retrieved: set[Unit] = set()
    carded: set[Unit] = set()
    cited: set[Unit] = set()
    for e in events:
        if e.type == "document_read" and e.status == "ok":  # type: ignore[attr-defined]
            retrieved.update(_unit(s.sid, level) for s in e.sentences)  # type: ignore[attr-defined]
        elif e.type == "card_created":
            carded.update(_unit(s, level) for s in e.card.sentence_ids)  # type: ignore[attr-defined]
        elif e.type == "report":
            report = e.report  # type: ignore[attr-defined]
            cited_cards = {c for s in report.sections for claim in s.claims for c in claim.citations}
            for card in report.evidence:
                if card.card_id in cited_cards:
                    cited.update(_unit(s, level) for s in card.sentence_ids)
    return RunUnits(frozenset(retrieved), frozenset(carded), frozenset(cited))


def recall(found: frozenset[Unit], gold: frozenset[Unit]) -> float | None:
    return len(found & gold) / len(gold) if gold else None


def precision(found: frozenset[Unit], gold: frozenset[Unit]) -> float | None:
    return len(found & gold) / len(found) if found else None


# --------------------------------------------------------------------------- any level


def run_sentence_units(events: list[BaseEvent]) -> RunUnits:
    """Sentence-level units of a run; `unit_hits` matches them against gold of any level."""
    return run_units(events, "sentence")


def search_hit_docs(events: list[BaseEvent]) -> frozenset[str]:
    """Documents that appeared in any successful search result (read or not)."""
    return frozenset(h.doc_id for e in events if e.type == "search_result"  # type: ignore[attr-defined]
                     for h in e.response.hits)  # type: ignore[attr-defined]


def unit_hits(found: frozenset[Unit], gold: frozenset[Unit]) -> frozenset[Unit]:
    """Gold units covered by `found` (sentence units): a sentence unit must be found
    itself; a whole-document unit (-1) is covered by any sentence of that document."""
    docs = {d for d, _ in found}
    return frozenset(u for u in gold if (u[0] in docs if u[1] < 0 else u in found))


def gold_recall(found: frozenset[Unit], gold: frozenset[Unit]) -> float | None:
    return len(unit_hits(found, gold)) / len(gold) if gold else None


def gold_precision(found: frozenset[Unit], gold: frozenset[Unit], level: str) -> float | None:
    """Share of found units that are gold, counted at the data set's level: sentences for
    sentence-level gold, distinct documents for paragraph- or title-level gold."""
    if level != "sentence":
        docs = {d for d, _ in found}
        gold_docs = {d for d, _ in gold}
        return len(docs & gold_docs) / len(docs) if docs else None
    if not found:
        return None
    whole = {d for d, i in gold if i < 0}
    return sum(1 for u in found if u in gold or u[0] in whole) / len(found)


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
