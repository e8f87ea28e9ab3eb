"""Rolling branched decisions forward and scoring the outcomes, serially, in a process pool or on Ray.

A `RollJob` is one run file and, per decision, the actions to force there (the recorded
one first). `roll_job` branches the run once per (decision, action) with runtime/branch.py,
lets the run's own policy continue, and scores the finished branch (`score_outcome` of
training/outcomes.py: gold recall and answer correctness where gold has them, else the
gold-free filters score; minus search and read costs).

`roll_jobs` runs jobs with the chosen engine and returns results in job order, so the
serial, process and Ray engines give identical results. Workers load the research kit once
(a process pool forked after the parent loaded it shares the parent's copy).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from citeloop.runtime.branch import branch_run
from citeloop.runtime.replay import ReplayError
from citeloop.runtime.session import ResearchKit
from citeloop.trajectories.runfile import RunFile, read_run
from citeloop.training.outcomes import CustomScorer, Outcome, OutcomeSettings, score_outcome

ENGINES = ("serial", "process", "ray")

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


_KITS: dict[str | None, ResearchKit] = {}


def kit_for(corpus: str | None) -> ResearchKit:
    """The research kit of `corpus`, loaded once per process."""
    if corpus not in _KITS:
        _KITS[corpus] = ResearchKit.load(corpus)
    return _KITS[corpus]


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


def _roll_remote(job: RollJob, settings: OutcomeSettings) -> RollResult:
    return roll_job(job, settings)


def roll_jobs(jobs: Sequence[RollJob], settings: OutcomeSettings, engine: str = "process",
              workers: int | None = None, kit: ResearchKit | None = None,
              on_done: Callable[[RollResult], Any] | None = None) -> list[RollResult]:
    """Results of `jobs` in job order. `kit`, if given, serves `settings.corpus` in this process."""
    if engine not in ENGINES:
        raise ValueError(f"--engine {engine!r} is not one of {', '.join(ENGINES)}")
    if kit is not None:
        _KITS[settings.corpus] = kit
    workers = max(1, workers or os.cpu_count() or 1)
    done = on_done or (lambda result: None)
    if engine == "serial" or workers == 1 and engine == "process" or not jobs:
        return [_tap(roll_job(job, settings), done) for job in jobs]
    if engine == "process":
        kit_for(settings.corpus)  # load before forking, so every worker shares it
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
            return [_tap(r, done) for r in pool.map(roll_job, jobs, [settings] * len(jobs), chunksize=1)]
    return list(_ray_results(jobs, settings, workers, done))


def _tap(result: RollResult, done: Callable[[RollResult], Any]) -> RollResult:
    done(result)
    return result


def _ray_results(jobs: Sequence[RollJob], settings: OutcomeSettings, workers: int,
                 done: Callable[[RollResult], Any]) -> Iterator[RollResult]:
    try:
        import ray
    except ImportError as exc:
        raise ValueError("--engine ray needs Ray: pip install 'citeloop[ray]' (or pip install ray)") from exc
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
    try:
        remote = ray.remote(num_cpus=1)(_roll_remote)
        settings_ref = ray.put(settings)
        refs = [remote.remote(job, settings_ref) for job in jobs]
        for ref in refs:
            yield _tap(ray.get(ref), done)
    finally:
        if started:
            ray.shutdown()
