"""Per-decision SFT rows from run files: one row per decision a policy took.

A row is TRL's conversational prompt/completion pair (prompt: system + user messages from
runtime/policies/prompts.py; completion: one assistant message holding the action line of
runtime/policies/actions.py) plus provenance columns. Decisions that allowed one action only
(one candidate, no read left) are skipped; hard-limit stops are no decisions at all. Splits are by question: a deterministic hash of
the normalised question puts all of its rows in `train` or in `test`. Identical
(prompt, completion) rows are kept once.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeloop.filters.gold import question_key
from citeloop.runtime.policies.actions import EVENT_TYPE, KIND_OF_EVENT, KINDS, format_action
from citeloop.runtime.policies.prompts import (
    RunContext,
    candidate_count,
    recorded_action,
    render_prompt,
    single_action,
)
from citeloop.trajectories.events import DECISION_TYPES
from citeloop.trajectories.header import content_digest
from citeloop.trajectories.runfile import RunFile, read_run

class ExportError(ValueError):
    """A user error of `citeloop export` (bad option, nothing to export, existing output)."""


def decision_kinds(decision: str) -> tuple[str, ...]:
    """`all`, one kind, or kinds separated by commas (`stop,follow`)."""
    if decision == "all":
        return KINDS
    kinds = tuple(k.strip() for k in decision.split(","))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ExportError(f"--decision {decision!r} is not one of {', '.join(KINDS)}, all (or kinds separated by "
                          "commas)")
    return kinds


def split_of(question: str, test_share: float) -> str:
    """`test` for a stable `test_share` of questions (by hash of the normalised question), else `train`."""
    digest = hashlib.sha256(question_key(question).encode("utf-8")).digest()
    return "test" if int.from_bytes(digest[:8], "big") / 2**64 < test_share else "train"


def counts_by_kind(rows: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, int]]:
    """Rows per decision kind and split."""
    out: dict[str, dict[str, int]] = {}
    for split, split_rows in rows.items():
        for row in split_rows:
            out.setdefault(row["decision"], {"train": 0, "test": 0})[split] += 1
    return dict(sorted(out.items()))


@dataclass
class SftExport:
    """Rows by split, and what was left out and why."""

    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {"train": [], "test": []})
    runs: list[dict[str, Any]] = field(default_factory=list)
    """Source runs used: run id, path, question, corpus, policy spec, seed, decisions."""
    skipped_runs: list[dict[str, str]] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    """Decisions left out, by reason."""
    duplicates: int = 0

    def counts(self) -> dict[str, dict[str, int]]:
        return counts_by_kind(self.rows)

    def summary(self, command: str, test_share: float) -> dict[str, Any]:
        """Counts, source runs and what was left out: the dataset card's facts (and `--json` output)."""
        by_prompt: dict[str, set[str]] = {}
        for rows in self.rows.values():
            for row in rows:
                by_prompt.setdefault(content_digest(row["prompt"]), set()).add(row["completion"][0]["content"])
        return {
            "command": command,
            "test_share": test_share,
            "rows": {split: len(rows) for split, rows in self.rows.items()},
            "counts": self.counts(),
            "questions": {split: len({question_key(r["question"]) for r in rows}) for split, rows in self.rows.items()},
            "duplicates": self.duplicates,
            "conflicting_prompts": sum(1 for completions in by_prompt.values() if len(completions) > 1),
            "templates": sorted({f"{r['template_id']}@v{r['template_version']}"
                                 for rows in self.rows.values() for r in rows}),
            "skipped_decisions": dict(sorted(self.skipped.items())),
            "skipped_runs": self.skipped_runs,
            "runs": self.runs,
        }


def decision_row(event: Any, run: RunFile, ctx: RunContext) -> dict[str, Any]:
    """One SFT row for one decision event (ValueError if its recorded choice names no candidate)."""
    kind = KIND_OF_EVENT[event.type]
    prompt, template = render_prompt(event, ctx)
    n = candidate_count(event)
    spec = run.header.spec
    return {
        "prompt": prompt,
        "completion": [{"role": "assistant", "content": format_action(kind, recorded_action(event), n)}],
        "decision": kind,
        "n_candidates": n,
        "run_id": run.run_id,
        "seq": event.seq,
        "subq": event.subq,
        "question": spec.question,
        "policy_name": event.policy.name,
        "policy_version": event.policy.version,
        "run_policy": spec.policies["spec"].name if "spec" in spec.policies else "",
        "corpus": spec.corpus_source,
        "seed": spec.seed,
        "template_id": template.id,
        "template_version": template.version,
    }


def run_rows(run: RunFile, kinds: Iterable[str], skipped: Counter) -> list[dict[str, Any]]:
    wanted = {EVENT_TYPE[k] for k in kinds}
    ctx = RunContext.of(run)
    rows = []
    for event in run.events:
        if event.type not in DECISION_TYPES or event.type not in wanted:
            continue
        if single_action(event):
            skipped[f"{KIND_OF_EVENT[event.type]}: only one possible action"] += 1
            continue
        try:
            rows.append(decision_row(event, run, ctx))
        except ValueError:
            skipped[f"{KIND_OF_EVENT[event.type]}: recorded choice is not among its candidates"] += 1
    return rows


def export_sft(paths: Iterable[Path], decision: str = "all", test_share: float = 0.1) -> SftExport:
    """SFT rows from the run files at `paths`, split by question and deduplicated."""
    if not 0.0 <= test_share <= 1.0:
        raise ExportError(f"--test-share {test_share} is not between 0 and 1")
    kinds = decision_kinds(decision)
    result = SftExport()
    seen: set[str] = set()
    for path in paths:
        run = read_run(path)
        if not run.finished:
            why = run.problem or "no run_finished event"
            result.skipped_runs.append({"path": str(path), "reason": f"unfinished run ({why})"})
            continue
        rows = run_rows(run, kinds, result.skipped)
        spec = run.header.spec
        result.runs.append({"run_id": run.run_id, "path": str(path), "question": spec.question,
                            "corpus": spec.corpus_source,
                            "policy": spec.policies["spec"].name if "spec" in spec.policies else "",
                            "seed": spec.seed, "decisions": len(rows)})
        split = split_of(spec.question, test_share)
        for row in rows:
            key = content_digest([row["prompt"], row["completion"]])
            if key in seen:
                result.duplicates += 1
                continue
            seen.add(key)
            result.rows[split].append(row)
    return result
