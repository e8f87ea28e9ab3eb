"""RL prompts: one prompt-only row per sampled decision state, for GRPO with rollout rewards.

Decisions are chosen by training/sampling.py (tagged, deduplicated, balanced by kind). A
row carries the rendered state (`prompt`, the same template as SFT and pairs) and what
`citeloop.training.rewards.RolloutReward` needs to score a completion by rolling the runtime
forward: `decision`, `n_candidates`, `run_path` (absolute) and `seq`. The recorded action is
kept as `recorded_action` for reference; splits are by question.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeloop.filters.gold import question_key
from citeloop.runtime.policies.actions import format_action
from citeloop.runtime.policies.prompts import TEMPLATES, candidate_count, recorded_action
from citeloop.runtime.replay import policy_spec_of
from citeloop.training.pairs import event_at
from citeloop.training.sampling import Selection, select_decisions
from citeloop.training.sft import ExportError, counts_by_kind, split_of


@dataclass
class RlExport:
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {"train": [], "test": []})
    selection: Selection = field(default_factory=Selection)

    def counts(self) -> dict[str, dict[str, int]]:
        return counts_by_kind(self.rows)

    def summary(self, command: str, test_share: float) -> dict[str, Any]:
        rows = [r for split_rows in self.rows.values() for r in split_rows]
        per_run = Counter(r["run_path"] for r in rows)
        runs = []
        for path, run in self.selection.runs.items():
            spec = run.header.spec
            runs.append({"run_id": run.run_id, "path": path, "question": spec.question,
                         "corpus": spec.corpus_source, "policy": policy_spec_of(run.header), "seed": spec.seed,
                         "decisions": per_run[str(Path(path).resolve())]})
        return {
            "command": command, "test_share": test_share,
            "rows": {split: len(r) for split, r in self.rows.items()}, "counts": self.counts(),
            "questions": {split: len({question_key(r["question"]) for r in split_rows})
                          for split, split_rows in self.rows.items()},
            "available": dict(sorted(self.selection.available.items())),
            "duplicate_states": self.selection.duplicates,
            "state_tags": {"selected": self.selection.tag_counts()},
            "mix": self.selection.mix(),
            "skipped_decisions": dict(sorted(self.selection.skipped.items())),
            "skipped_runs": self.selection.skipped_runs,
            "runs": runs,
        }


def export_rl(paths: Iterable[Path], decision: str = "all", per_kind: int | None = None, test_share: float = 0.1,
              seed: int = 0) -> RlExport:
    """Prompt-only rows for the sampled decisions of the runs at `paths`."""
    if not 0.0 <= test_share <= 1.0:
        raise ExportError(f"--test-share {test_share} is not between 0 and 1")
    selection = select_decisions(paths, decision, per_kind, seed)
    result = RlExport(selection=selection)
    for ref in selection.decisions:
        run = selection.runs[ref.path]
        event = event_at(run, ref.seq)
        n = candidate_count(event)
        spec = run.header.spec
        result.rows[split_of(ref.question, test_share)].append({
            "prompt": list(ref.prompt), "decision": ref.kind, "n_candidates": n,
            "run_path": str(Path(ref.path).resolve()), "run_id": run.run_id, "seq": ref.seq, "subq": event.subq,
            "question": spec.question,
            "recorded_action": format_action(ref.kind, recorded_action(event), n),
            "policy_name": event.policy.name, "policy_version": event.policy.version,  # type: ignore[union-attr]
            "state_tags": list(ref.tags), "corpus": spec.corpus_source, "seed": spec.seed,
            "template_id": TEMPLATES[ref.kind].id, "template_version": TEMPLATES[ref.kind].version,
        })
    return result
