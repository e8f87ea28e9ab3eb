"""Which recorded decisions become training examples: enumeration, tags, dedup, balance, mix.

Seed 001 section 20.3 names the traps this guards against. Training only on smooth states
teaches nothing about recovery, so every decision is tagged with the failure-and-recovery
situations it was taken in, and a capped sample takes tagged decisions first:

| tag                  | the decision was taken ...                                        |
|----------------------|-------------------------------------------------------------------|
| `irrelevant_results` | after a search round of its sub-question that yielded no card, or |
|                      | (read) when no result names the sub-question's entity             |
| `contradiction`      | after the ledger marked a conflict between evidence cards         |
| `budget_low`         | with at most one search or one read left                          |
| `tool_failure`       | after a search or read call of the run failed                     |

Identical states (the same rendered prompt) are kept once, decision kinds are balanced by
`per_kind` (tagged first, then a seeded hash order), and the environment mix of what was
selected (corpora, policies, seeds) is counted for the dataset card.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeloop.filters.gold import question_key
from citeloop.runtime.policies.actions import EVENT_TYPE, KIND_OF_EVENT
from citeloop.runtime.policies.prompts import Message, RunContext, recorded_action, render_prompt, single_action
from citeloop.training.sft import ExportError, decision_kinds
from citeloop.trajectories.events import DECISION_TYPES, Event
from citeloop.trajectories.header import content_digest
from citeloop.trajectories.runfile import RunFile, read_run

TAGS = ("irrelevant_results", "contradiction", "budget_low", "tool_failure")


@dataclass(frozen=True)
class DecisionRef:
    """One recorded decision chosen for export, with what the exporters need to render it."""

    path: str
    run_id: str
    seq: int
    kind: str
    question: str
    prompt: tuple[Message, ...]
    tags: tuple[str, ...]


@dataclass
class Selection:
    decisions: list[DecisionRef] = field(default_factory=list)
    runs: dict[str, RunFile] = field(default_factory=dict)
    """Path -> run file, for every run a selected decision comes from."""
    available: Counter = field(default_factory=Counter)
    """Distinct decisions found, by kind (before the per-kind cap)."""
    duplicates: int = 0
    """Decisions dropped because an earlier one rendered the same state."""
    skipped: Counter = field(default_factory=Counter)
    skipped_runs: list[dict[str, str]] = field(default_factory=list)

    def tag_counts(self) -> dict[str, int]:
        counts = Counter(t for d in self.decisions for t in d.tags)
        return {t: counts.get(t, 0) for t in TAGS}

    def mix(self) -> dict[str, Any]:
        """The environments the selected decisions come from (seed 20.3: mix them, and say so)."""
        specs = [self.runs[d.path].header.spec for d in self.decisions]
        policies = Counter(s.policies["spec"].name if "spec" in s.policies else "" for s in specs)
        return {"corpora": dict(Counter(s.corpus_source for s in specs)), "policies": dict(policies),
                "seeds": len({s.seed for s in specs}), "questions": len({question_key(s.question) for s in specs})}


def _failed_call(e: Event) -> bool:
    if e.type == "search_result":
        return e.response.status != "ok"  # type: ignore[union-attr]
    return e.type == "document_read" and e.status != "ok"  # type: ignore[union-attr]


class _Tagger:
    """Walks a run's events in order and knows, at each decision, which recovery tags apply."""

    def __init__(self) -> None:
        self.conflict = False
        self.failure = False
        self.searches_left: int | None = None
        self.reads_left: int | None = None
        self.round_cards: dict[str, int] = {}
        """Sub-question -> cards created since its latest search."""

    def see(self, e: Event) -> None:
        t = e.type
        if t == "conflict_marked":
            self.conflict = True
        elif _failed_call(e):
            self.failure = True
        elif t == "stop_decision":
            s = e.state  # type: ignore[union-attr]
            self.searches_left = s.searches_max - s.searches_used
            self.reads_left = s.reads_max - s.reads_used
        elif t == "search_result" and e.subq is not None:
            self.round_cards[e.subq] = 0
        elif t == "card_created" and e.subq is not None:
            self.round_cards[e.subq] = self.round_cards.get(e.subq, 0) + 1

    def _irrelevant(self, e: Event) -> bool:
        if e.type == "read_decision":
            return bool(e.candidates) and not e.state.named  # type: ignore[union-attr]
        if e.type == "angle_decision":
            return self.round_cards.get(e.subq or "") == 0
        if e.type == "stop_decision":
            return e.state.round > 1 and e.state.recent_new_cards[-1:] == [0]  # type: ignore[union-attr]
        return False

    def tags(self, e: Event) -> tuple[str, ...]:
        out = []
        if self._irrelevant(e):
            out.append("irrelevant_results")
        if self.conflict:
            out.append("contradiction")
        low = [self.searches_left, self.reads_left]
        if e.type == "read_decision":
            low.append(e.state.reads_left)  # type: ignore[union-attr]
        if e.type == "stop_decision":
            s = e.state  # type: ignore[union-attr]
            low += [s.searches_max - s.searches_used, s.reads_max - s.reads_used]
        if any(v is not None and v <= 1 for v in low):
            out.append("budget_low")
        if self.failure:
            out.append("tool_failure")
        return tuple(out)


def run_decisions(run: RunFile, path: str, kinds: Iterable[str], skipped: Counter) -> list[DecisionRef]:
    """The policy decisions of the wanted kinds in one run, rendered and tagged, in event order."""
    wanted = {EVENT_TYPE[k] for k in kinds}
    ctx, tagger, out = RunContext.of(run), _Tagger(), []
    for event in run.events:
        if event.type in DECISION_TYPES and event.type in wanted:
            kind = KIND_OF_EVENT[event.type]
            if single_action(event):
                skipped[f"{kind}: only one possible action"] += 1
            else:
                try:
                    recorded_action(event)
                    prompt, _ = render_prompt(event, ctx)
                except ValueError:
                    skipped[f"{kind}: recorded choice is not among its candidates"] += 1
                else:
                    out.append(DecisionRef(path, run.run_id, event.seq, kind, run.header.spec.question,
                                           tuple(prompt), tagger.tags(event)))
        tagger.see(event)
    return out


def _order(ref: DecisionRef, seed: int) -> tuple[int, str]:
    """Tagged decisions first, then a seeded hash order (stable across runs of the exporter)."""
    h = hashlib.sha256(f"{seed}|{ref.run_id}|{ref.seq}".encode()).hexdigest()
    return (0 if ref.tags else 1, h)


def select_decisions(paths: Iterable[Path], decision: str = "all", per_kind: int | None = None,
                     seed: int = 0) -> Selection:
    """Enumerate, tag and deduplicate the decisions in `paths`; cap each kind at `per_kind`."""
    if per_kind is not None and per_kind < 1:
        raise ExportError(f"--per-kind {per_kind}: give at least 1 (or leave it out for no cap)")
    kinds = decision_kinds(decision)
    selection, loaded = Selection(), {}
    seen: set[str] = set()
    by_kind: dict[str, list[DecisionRef]] = {k: [] for k in kinds}
    for path in paths:
        run = read_run(path)
        if not run.finished:
            why = run.problem or "no run_finished event"
            selection.skipped_runs.append({"path": str(path), "reason": f"unfinished run ({why})"})
            continue
        loaded[str(path)] = run
        for ref in run_decisions(run, str(path), kinds, selection.skipped):
            key = content_digest([ref.kind, list(ref.prompt)])
            if key in seen:
                selection.duplicates += 1
                continue
            seen.add(key)
            by_kind[ref.kind].append(ref)
    for kind, refs in by_kind.items():
        selection.available[kind] = len(refs)
        if per_kind is not None and len(refs) > per_kind:
            keep = {(r.path, r.seq) for r in sorted(refs, key=lambda r: _order(r, seed))[:per_kind]}
            refs = [r for r in refs if (r.path, r.seq) in keep]
        selection.decisions.extend(refs)
    order = {p: i for i, p in enumerate(loaded)}
    selection.decisions.sort(key=lambda r: (order[r.path], r.seq))
    selection.runs = {p: loaded[p] for p in {d.path for d in selection.decisions}}
    return selection
