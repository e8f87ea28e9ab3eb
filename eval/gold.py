"""Gold-evidence questions from the multihop data sets, and retrieval metrics against them.

HotpotQA gives sentence-level gold (`[title, sentence index]`); MuSiQue gives paragraph
level gold (`is_supporting` paragraphs). Both map onto the embedded corpus by title (and
text for MuSiQue, whose titles repeat). A run's units are derived from its trajectory
events: what it read (retrieved), what became evidence cards, and what its report cites.
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
