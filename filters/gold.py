"""Gold evidence units and the metrics that match a run against them, plus gold files.

A unit is `(doc id, sentence index)`; index -1 stands for the whole document (paragraph-
or title-level gold). A run's units are derived from its trajectory events: what it read
(retrieved), what became evidence cards, and what its report cites. `run_sentence_units`
keeps sentence granularity and `unit_hits` matches it against gold of any level, so one
code path serves sentence-, paragraph- and title-level data sets.

A gold file (JSONL, one question per line: `{"question", "level", "units": [[doc, i], ...],
"answers": [...]}`, answers optional)
carries gold evidence to layers that may not import eval's data-set loaders; `citeloop gold`
writes one from any evaluation set, and `citeloop export pairs --gold` reads it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from citeloop.trajectories.events import BaseEvent
from citeloop.trajectories.jsonl import read_json_lines

Unit = tuple[str, int]
"""(doc id, sentence index); sentence index -1 means the whole document (paragraph level)."""

LEVELS = ("sentence", "paragraph", "title")


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
        elif e.type == "report_written":
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


# --------------------------------------------------------------------------- gold files


class GoldFileError(ValueError):
    """A gold file that cannot be read; the message names the file, line and problem."""


def question_key(question: str) -> str:
    """The normalised form questions are matched (and split) by: whitespace collapsed, casefolded."""
    return re.sub(r"\s+", " ", question.strip()).casefold()


@dataclass(frozen=True)
class GoldEntry:
    units: frozenset[Unit]
    level: str
    answers: tuple[str, ...] = ()
    """The gold short answer and its aliases, where the data set has them."""


class GoldSet:
    """Gold units by question (matched on `question_key`)."""

    def __init__(self, entries: dict[str, GoldEntry], source: str = "") -> None:
        self.entries = entries
        self.source = source

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, question: str) -> GoldEntry | None:
        return self.entries.get(question_key(question))

    def recall(self, question: str, events: list[BaseEvent]) -> float | None:
        """Gold recall of what the run read, or None when the question has no gold here."""
        entry = self.get(question)
        if entry is None or not entry.units:
            return None
        return gold_recall(run_sentence_units(events).retrieved, entry.units)

    def write(self, path: Path) -> None:
        with Path(path).open("w", encoding="utf-8") as f:
            for key, entry in self.entries.items():
                units = sorted([d, i] for d, i in entry.units)
                row = {"question": key, "level": entry.level, "units": units}
                if entry.answers:
                    row["answers"] = list(entry.answers)
                f.write(json.dumps(row, ensure_ascii=False) + "\n")

    @classmethod
    def read(cls, path: Path) -> GoldSet:
        path = Path(path)
        if not path.is_file():
            raise GoldFileError(f"gold file {path} does not exist (write one with `citeloop gold`)")
        entries: dict[str, GoldEntry] = {}
        rows = read_json_lines(path.read_text(encoding="utf-8").splitlines(), str(path), GoldFileError,
                               invalid="not JSON ({msg})", not_object=None)
        for n, row in rows:
            where = f"{path}:{n}"
            if not isinstance(row, dict) or not isinstance(row.get("question"), str) or not row["question"].strip():
                raise GoldFileError(f"{where}: needs a non-empty string 'question'")
            level = row.get("level", "sentence")
            if level not in LEVELS:
                raise GoldFileError(f"{where}: level {level!r} is not one of {', '.join(LEVELS)}")
            units = row.get("units")
            if not isinstance(units, list) or not all(
                    isinstance(u, list) and len(u) == 2 and isinstance(u[0], str) and isinstance(u[1], int)
                    and not isinstance(u[1], bool) for u in units):
                raise GoldFileError(f"{where}: 'units' must be a list of [doc id, sentence index] pairs")
            answers = row.get("answers", [])
            if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
                raise GoldFileError(f"{where}: 'answers' must be a list of strings")
            entries[question_key(row["question"])] = GoldEntry(frozenset((d, i) for d, i in units), level,
                                                               tuple(answers))
        if not entries:
            raise GoldFileError(f"gold file {path} holds no questions")
        return cls(entries, str(path))
