"""Best-of-K SFT rows: for each branched decision, the action whose branch ended best.

`citeloop export sft --source best-of-k` branches each sampled decision with its recorded
action and up to K alternatives (training/pairs.py `roll_decisions`, the same rollouts pairs
are made from), scores every branch (training/outcomes.py) and emits one SFT row per
decision whose completion is the best-scoring action. The recorded action is not assumed
right: it wins only by scoring best (ties go to it, so a row never teaches a change the
outcome does not support). Rows carry both scores and whether the recorded action won.

`repeat_changed` writes each row that changes the action several times: where most rows repeat
the recorded action, a small model learns that action everywhere (the follow runs of
docs/benchmarks.md), and the repeats give the rows that teach a change more weight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from citeloop.runtime.policies.actions import format_action
from citeloop.runtime.policies.prompts import TEMPLATES, candidate_count
from citeloop.runtime.replay import policy_spec_of
from citeloop.runtime.session import ResearchKit
from citeloop.training.hfdata import SFT_COLUMNS
from citeloop.training.outcomes import OutcomeSettings
from citeloop.training.pairs import PairExport, action_of, event_at, roll_decisions
from citeloop.training.rollouts import RollResult
from citeloop.training.sft import SftExport, split_of
from citeloop.trajectories.header import content_digest

BEST_OF_K_COLUMNS: dict[str, Any] = {
    **SFT_COLUMNS,
    "best_score": "float64",
    "recorded_score": "float64",
    "best_is_recorded": "bool",
    "outcome_basis": "string",
    "alternatives": "int64",
}


def export_best_of_k(paths: Iterable[Path], decision: str = "all", alternatives_k: int = 3, test_share: float = 0.1,
                     settings: OutcomeSettings | None = None, kit: ResearchKit | None = None,
                     per_kind: int | None = None, engine: str = "serial", workers: int | None = None, seed: int = 0,
                     on_run: Callable[[RollResult], Any] | None = None) -> SftExport:
    """One row per branched decision: its prompt and the best-scoring action (see module docstring)."""
    settings = settings or OutcomeSettings()
    rolled = roll_decisions(paths, decision, alternatives_k, settings, kit=kit, per_kind=per_kind, engine=engine,
                            workers=workers, seed=seed, on_run=on_run)
    return best_of_k_rows(rolled, test_share)


def best_of_k_rows(rolled: PairExport, test_share: float) -> SftExport:
    """The best-of-K rows of rollouts already made (`roll_decisions`): pairs and these rows can
    come from one set of rollouts (the loop trains SFT on these, then DPO on the pairs)."""
    result = SftExport(skipped=rolled.selection.skipped, skipped_runs=rolled.selection.skipped_runs)
    seen: set[str] = set()
    counted: dict[str, int] = {}
    for ref in rolled.selection.decisions:
        key = (ref.path, ref.seq)
        if key in rolled.failed:
            result.skipped[f"{ref.kind}: could not be branched"] += 1
            continue
        run = rolled.selection.runs[ref.path]
        event = event_at(run, ref.seq)
        recorded, others = rolled.actions[key]
        scored = [(a, rolled.outcomes[(ref.path, ref.seq, a)]) for a in (recorded, *others)]
        best_action, best = max(scored, key=lambda item: item[1].score)  # the first best: the recorded one on ties
        n = candidate_count(event)
        spec = run.header.spec
        row = {
            "prompt": list(ref.prompt),
            "completion": [{"role": "assistant", "content": format_action(ref.kind, action_of(event, best_action), n)}],
            "decision": ref.kind, "n_candidates": n, "run_id": run.run_id, "seq": ref.seq, "subq": event.subq,
            "question": spec.question, "policy_name": "best-of-k", "policy_version": str(len(scored)),
            "run_policy": policy_spec_of(run.header), "corpus": spec.corpus_source, "seed": spec.seed,
            "template_id": TEMPLATES[ref.kind].id, "template_version": TEMPLATES[ref.kind].version,
            "best_score": best.score, "recorded_score": scored[0][1].score,
            "best_is_recorded": best_action == recorded, "outcome_basis": best.basis, "alternatives": len(others),
        }
        digest = content_digest([row["prompt"], row["completion"]])
        if digest in seen:
            result.duplicates += 1
            continue
        seen.add(digest)
        result.rows[split_of(ref.question, test_share)].append(row)
        counted[ref.path] = counted.get(ref.path, 0) + 1
    for path, run in rolled.selection.runs.items():
        spec = run.header.spec
        result.runs.append({"run_id": run.run_id, "path": path, "question": spec.question,
                            "corpus": spec.corpus_source, "policy": policy_spec_of(run.header), "seed": spec.seed,
                            "decisions": counted.get(path, 0)})
    return result


def repeat_changed(export: SftExport, times: int) -> SftExport:
    """`export` with every row whose best action is not the recorded one written `times` times
    (in place, one after the other); rows that keep the recorded action stay single."""
    if times < 1:
        raise ValueError(f"times must be >= 1, not {times}")
    for split, rows in export.rows.items():
        export.rows[split] = [copy for row in rows for copy in [row] * (1 if row["best_is_recorded"] else times)]
    return export
