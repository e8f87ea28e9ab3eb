"""Rolling branched decisions forward and scoring the outcomes, serially, in a process pool or on Ray.

A `RollJob` is one run file and, per decision, the actions to force there (the recorded
one first). `roll_job` branches the run once per (decision, action) with runtime/branch.py,
lets the run's own policy continue, and scores the finished branch (`score_outcome` of
training/outcomes.py: gold recall and answer correctness where gold has them, else the
gold-free filters score; minus search and read costs).

`roll_jobs` runs jobs with the chosen engine (`trajectories.engines.run_jobs`) and returns
results in job order, so the serial, process and Ray engines give identical results. Workers
load the research kit once (`runtime.session.kit_for`; a process pool forked after the parent
loaded it shares the parent's copy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeloop.runtime.branch import branch_run
from citeloop.runtime.replay import ReplayError
from citeloop.runtime.session import ResearchKit, kit_for, share_kit
from citeloop.trajectories.engines import check_engine, run_jobs
from citeloop.trajectories.runfile import RunFile, read_run
from citeloop.training.outcomes import CustomScorer, Outcome, OutcomeSettings, score_outcome

# The outcome scores live in training/outcomes.py; re-exported for the callers that import them from here.
__all__ = ["CustomScorer", "Outcome", "OutcomeSettings", "RollJob", "RollResult", "roll_job", "roll_jobs",
           "score_outcome"]


@dataclass(frozen=True)
class RollJob:
    path: str
    decisions: tuple[tuple[int, tuple[str, ...]], ...]
    """(decision seq, actions to force there as `branch_run` action strings)."""


@dataclass
class RollResult:
    path: str
    outcomes: dict[tuple[int, str], Outcome] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    """Decision seq -> why it could not be branched."""
    rollouts: int = 0


def run_kit(run: RunFile, corpus: str | None) -> ResearchKit | None:
    """The kit live branch calls need: `corpus` when given, else the corpus the run's header names
    (None when that file is gone: the branch then says which corpus is missing)."""
    source = corpus if corpus is not None else run.header.spec.corpus_source
    if source == "embedded":
        return kit_for(None)
    if corpus is None and not Path(source).exists():
        return None
    return kit_for(source)


def roll_job(job: RollJob, settings: OutcomeSettings) -> RollResult:
    """Branch and score every (decision, action) of one run."""
    run = read_run(job.path)
    kit = run_kit(run, settings.corpus)
    result = RollResult(job.path)
    for seq, actions in job.decisions:
        try:
            for action in actions:
                branch = branch_run(run, seq, action, kit=kit)
                result.rollouts += 1
                result.outcomes[(seq, action)] = score_outcome(branch.header, branch.events, settings)
        except (ReplayError, ValueError) as exc:
            result.errors[seq] = str(exc)
    return result


def _roll(settings: OutcomeSettings, job: RollJob) -> RollResult:
    return roll_job(job, settings)


def roll_jobs(jobs: Sequence[RollJob], settings: OutcomeSettings, engine: str = "process",
              workers: int | None = None, kit: ResearchKit | None = None,
              on_done: Callable[[RollResult], Any] | None = None) -> list[RollResult]:
    """Results of `jobs` in job order. `kit`, if given, serves `settings.corpus` in this process."""
    check_engine(engine)
    if kit is not None:
        share_kit(settings.corpus, kit)
    if engine == "process" and jobs:
        kit_for(settings.corpus)  # load before forking, so every worker shares it
    done = on_done or (lambda result: None)
    return run_jobs(_roll, jobs, settings, engine, workers, on_done=lambda _, result: done(result))
