"""Batch research: every question of a question file under every policy and seed, one run file
each, resumable, on any engine (`citeloop research --questions FILE --out DIR`).

This module owns:

- the batch's layout: `DIR/POLICY/seedS/QID.jsonl` (`run_path`; the policy and the id made
  file-safe by `questions.safe_name`), one file per (question, policy, seed);
- what a file already there means (`existing_run`): finished (its last line is `run_meta`):
  skipped; cut off by a crash: resumed in place through `runtime.resume`; cut off before its
  header line was complete: started again; a run of another question, policy or seed: that
  run fails, and the file is left alone;
- the per-run worker, `research_one`, which `trajectories.engines.run_jobs` runs serially, in
  forked processes or on Ray; every worker process loads the research kit once
  (`session.kit_for`), and a process pool forked after the batch loaded it shares that copy;
- the batch report: per run its status (`ran`, `resumed`, `skipped`, `failed`), run id, error
  line and seconds, and who ran it (host, pid, Ray node id, how many kits that process had
  loaded). That stays out of the run file, so a run file is the same whichever engine wrote
  it: byte-identical up to its final `run_meta` line (wall-clock metadata, as for any run).

A run that raises is recorded as failed, with its error line, and the batch goes on. A fresh
run that fails leaves no file, so the next batch runs it again; a resume that fails leaves
the file as it was (the error says why: usually the code no longer reproduces the run).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.questions import BatchQuestion, safe_name
from citeloop.runtime.resume import resume_run
from citeloop.runtime.session import KIT_KIND, ResearchKit, kit_for, run_research, share_kit
from citeloop.trajectories.engines import builds, check_engine, once_per_process, run_jobs, worker_identity
from citeloop.trajectories.runfile import FileSink

STATUSES = ("ran", "resumed", "skipped", "failed")


class BatchError(ValueError):
    """Batch input that cannot be used (seeds, policies, output directory)."""


@dataclass(frozen=True)
class BatchSettings:
    """What every run of a batch shares; sent to each worker process once."""

    config: dict[str, Any]
    """The resolved research config, as JSON."""
    corpus: str | None = None
    """The corpus file (absolute, so workers anywhere find it); None: the embedded corpus."""
    planner: str = "rule"


@dataclass(frozen=True)
class BatchJob:
    qid: str
    question: str
    policy: str
    seed: int
    path: str
    """The run file (absolute)."""


@dataclass
class RunRecord:
    """What became of one (question, policy, seed)."""

    qid: str
    policy: str
    seed: int
    path: str
    status: str = "failed"
    run_id: str | None = None
    error: str | None = None
    """`ExceptionType: message`, one line, for a failed run."""
    seconds: float = 0.0
    worker: dict[str, Any] = field(default_factory=dict)
    """host, pid and Ray node id of the process that ran it."""
    kit_loads: int = 0
    """Research kits (corpus + BM25 index) that process had loaded itself when the run ended: 1
    for a worker that loaded its own once, 0 for one forked from the process that loaded it."""


@dataclass
class BatchReport:
    runs: list[RunRecord]
    engine: str
    workers: int | None
    seconds: float
    """From the engine being up to the last run done."""
    start_seconds: float = 0.0
    """Starting the engine (Ray's `init`), before the first run: not in `seconds`."""

    def counts(self) -> dict[str, int]:
        counted = Counter(r.status for r in self.runs)
        return {status: counted[status] for status in STATUSES}

    @property
    def failed(self) -> list[RunRecord]:
        return [r for r in self.runs if r.status == "failed"]

    def runs_per_s(self) -> float | None:
        """Runs researched (fresh or resumed) per second of the batch."""
        worked = sum(r.status in ("ran", "resumed") for r in self.runs)
        return round(worked / self.seconds, 3) if self.seconds > 0 and worked else None

    def to_dict(self) -> dict[str, Any]:
        processes = {(r.worker.get("host"), r.worker.get("pid")) for r in self.runs if r.worker}
        nodes = {r.worker.get("node") or r.worker.get("host") for r in self.runs if r.worker}
        return {"engine": self.engine, "workers": self.workers, "runs": len(self.runs), "counts": self.counts(),
                "seconds": round(self.seconds, 3), "start_seconds": round(self.start_seconds, 3),
                "runs_per_s": self.runs_per_s(),
                "worker_processes": len(processes), "nodes": len(nodes),
                "failed": [{"qid": r.qid, "policy": r.policy, "seed": r.seed, "error": r.error} for r in self.failed],
                "per_run": [asdict(r) for r in self.runs]}


# --------------------------------------------------------------------------- planning


def parse_seeds(text: str) -> list[int]:
    """`0,1,2` -> [0, 1, 2]; anything else is a BatchError."""
    parts = [p.strip() for p in text.split(",")]
    try:
        seeds = [int(p) for p in parts]
    except ValueError:
        raise BatchError(f"--seeds {text!r}: give whole numbers separated by commas, e.g. 0,1,2") from None
    if len(set(seeds)) != len(seeds):
        raise BatchError(f"--seeds {text!r}: a seed is listed twice")
    return seeds


def run_path(out: Path, policy: str, seed: int, qid: str) -> Path:
    """Where the batch keeps one run: `OUT/POLICY/seedS/QID.jsonl`."""
    return Path(out) / safe_name(policy) / f"seed{seed}" / f"{safe_name(qid)}.jsonl"


def plan_jobs(questions: Sequence[BatchQuestion], policies: Sequence[str], seeds: Sequence[int],
              out: Path) -> list[BatchJob]:
    """One job per (policy, seed, question), in that order; paths absolute."""
    if len(set(policies)) != len(policies):
        raise BatchError(f"a policy is given twice in {', '.join(policies)}")
    out = Path(out).absolute()
    return [BatchJob(q.id, q.question, policy, seed, str(run_path(out, policy, seed, q.id)))
            for policy in policies for seed in seeds for q in questions]


# --------------------------------------------------------------------------- one run


@dataclass(frozen=True)
class ExistingRun:
    run_id: str
    finished: bool
    question: str
    seed: int
    policy: str | None


def existing_run(path: Path) -> ExistingRun | None:
    """What the file at `path` holds; None when there is none, or only a header cut off mid-line."""
    if not path.exists():
        return None
    data = path.read_bytes()
    head, newline, rest = data.partition(b"\n")
    try:
        header = json.loads(head)
    except ValueError:
        if not newline:
            return None  # the process died writing line 1: nothing to resume
        raise BatchError(f"{path}: line 1 is not a run header; not a run file of this batch") from None
    if not isinstance(header, dict) or header.get("type") != "run_header":
        raise BatchError(f"{path}: line 1 is not a run header; not a run file of this batch")
    spec = header.get("spec", {})
    last = rest.rstrip(b"\n").rpartition(b"\n")[2]
    finished = data.endswith(b"\n") and b'"type":"run_meta"' in last
    policy = spec.get("policies", {}).get("spec", {}).get("name")
    return ExistingRun(header.get("run_id", ""), finished, spec.get("question", ""), spec.get("seed", -1), policy)


def _config(settings: BatchSettings) -> ResearchConfig:
    key = json.dumps(settings.config, sort_keys=True)
    return once_per_process(("batch-config", key), lambda: ResearchConfig.model_validate(settings.config))


def _fresh_run(settings: BatchSettings, job: BatchJob, kit: ResearchKit) -> str:
    path = Path(job.path)
    sink = FileSink(path)
    try:
        result, _ = run_research(job.question, kit, _config(settings), policy_spec=job.policy, seed=job.seed,
                                 out_dir=None, sink=sink, planner=settings.planner)
    except Exception:
        sink.close()
        path.unlink(missing_ok=True)  # a run that raised is run again by the next batch
        raise
    return result.run_id


def _error_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


def research_one(settings: BatchSettings, job: BatchJob) -> RunRecord:
    """Run, resume or skip one job; never raises for the run's own errors (they are recorded)."""
    t0 = time.perf_counter()
    record = RunRecord(job.qid, job.policy, job.seed, job.path, worker=worker_identity())
    try:
        kit = kit_for(settings.corpus)
        found = existing_run(Path(job.path))
        if found is None:
            record.run_id, record.status = _fresh_run(settings, job, kit), "ran"
        else:
            asked = " ".join(job.question.split())
            if (found.question, found.seed, found.policy) != (asked, job.seed, job.policy):
                raise BatchError(f"{job.path} holds a run of another question, seed or policy "
                                 f"({found.question[:60]!r}, seed {found.seed}, {found.policy}); move it away")
            record.run_id = found.run_id
            if found.finished:
                record.status = "skipped"
            else:
                resume_run(job.path, kit=kit)
                record.status = "resumed"
    except Exception as exc:  # noqa: BLE001 - one run's failure is recorded, never the batch's end
        record.status, record.error = "failed", _error_line(exc)
    record.seconds = round(time.perf_counter() - t0, 4)
    record.kit_loads = builds(KIT_KIND)
    return record


# --------------------------------------------------------------------------- the batch


def run_batch(jobs: Sequence[BatchJob], settings: BatchSettings, engine: str = "serial",
              workers: int | None = None, kit: ResearchKit | None = None,
              on_done: Callable[[RunRecord], Any] | None = None) -> BatchReport:
    """Every job on `engine`; records in job order. `kit`, if given, serves `settings.corpus` here."""
    check_engine(engine, workers)
    if kit is not None:
        share_kit(settings.corpus, kit)
    if engine != "ray" and jobs:
        kit_for(settings.corpus)  # serial: used here; process: loaded before forking, shared by the workers
    done = on_done or (lambda record: None)
    clock = [time.perf_counter()] * 2

    def ready() -> None:
        clock[1] = time.perf_counter()

    # A question's runs (its other seeds and policies) side by side: they analyse the same pages.
    records = run_jobs(research_one, jobs, settings, engine, workers, on_done=lambda _, record: done(record),
                       on_ready=ready, together=lambda job: job.qid)
    return BatchReport(records, engine, workers, time.perf_counter() - clock[1], clock[1] - clock[0])


__all__ = ["BatchError", "BatchJob", "BatchReport", "BatchSettings", "ExistingRun", "RunRecord", "STATUSES",
           "existing_run", "parse_seeds", "plan_jobs", "research_one", "run_batch", "run_path"]
