"""Rollout rewards for RL (GRPO): parse a completion's action, branch the run there, score the outcome.

`RolloutReward` has TRL's reward-function signature `(prompts, completions, **columns) ->
list[float]` and reads the columns `citeloop export rl` writes (`decision`, `n_candidates`,
`run_path`, `seq`). For each completion it parses the action line
(runtime/policies/actions.py), forces that action at the recorded decision with
runtime/branch.py, lets the run's own policy continue, and returns the outcome score of
training/rollouts.py (gold recall where the gold file has the question, else the filters
score, minus a cost per search). A completion that does not parse, or names an action the
branch cannot take, gets `penalty`; every reward is recorded in `records` (and appended to
`log_path` as JSONL when given) with its status: `scored`, `unparsable` or `invalid`.
Outcomes are cached by (run, decision, action), since GRPO samples the same action often.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeloop.filters.gold import GoldSet
from citeloop.runtime.branch import branch_run
from citeloop.runtime.policies.actions import parse_action
from citeloop.runtime.replay import ReplayError
from citeloop.training.pairs import action_string, event_at
from citeloop.training.rollouts import OutcomeSettings, run_kit, score_outcome
from citeloop.trajectories.runfile import RunFile, read_run

DEFAULT_PENALTY = -1.0


def completion_text(completion: Any) -> str:
    """The text of a TRL completion: a string, or a conversational list ending in the assistant message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    return ""


@dataclass
class RolloutReward:
    settings: OutcomeSettings = field(default_factory=OutcomeSettings)
    penalty: float = DEFAULT_PENALTY
    log_path: Path | None = None
    records: list[dict[str, Any]] = field(default_factory=list)
    _runs: dict[str, RunFile] = field(default_factory=dict, repr=False)
    _cache: dict[tuple[str, int, str], float] = field(default_factory=dict, repr=False)

    __name__ = "rollout_reward"

    @classmethod
    def from_settings(cls, corpus: str | None = None, search_cost: float = 0.01, gold: str | Path | None = None,
                      penalty: float = DEFAULT_PENALTY, log_path: str | Path | None = None) -> RolloutReward:
        gold_set = GoldSet.read(Path(gold)) if gold is not None else None
        return cls(OutcomeSettings(search_cost=search_cost, gold=gold_set, corpus=corpus), penalty,
                   Path(log_path) if log_path else None)

    def _run(self, path: str) -> RunFile:
        if path not in self._runs:
            self._runs[path] = read_run(path)
        return self._runs[path]

    def score(self, completion: Any, decision: str, n_candidates: int, run_path: str, seq: int) -> dict[str, Any]:
        """The reward of one completion, with what happened."""
        text = completion_text(completion)
        record: dict[str, Any] = {"run_path": run_path, "seq": seq, "decision": decision, "completion": text}
        action = parse_action(decision, text, n_candidates)
        if action is None:
            return {**record, "status": "unparsable", "reward": self.penalty}
        run = self._run(run_path)
        branch = action_string(event_at(run, seq), action)
        key = (run_path, seq, branch)
        if key not in self._cache:
            try:
                rolled = branch_run(run, seq, branch, kit=run_kit(run, self.settings.corpus))
            except (ReplayError, ValueError) as exc:
                return {**record, "action": branch, "status": "invalid", "reason": str(exc), "reward": self.penalty}
            self._cache[key] = score_outcome(rolled.header, rolled.events, self.settings).score
        return {**record, "action": branch, "status": "scored", "reward": self._cache[key]}

    def __call__(self, prompts: list[Any], completions: list[Any], decision: list[str], n_candidates: list[int],
                 run_path: list[str], seq: list[int], **columns: Any) -> list[float]:
        out = []
        for i, completion in enumerate(completions):
            record = self.score(completion, decision[i], n_candidates[i], run_path[i], seq[i])
            self.records.append(record)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.append(float(record["reward"]))
        return out

    def status_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.records:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        return counts
