"""Resume: finish a run whose process died mid-way, so that its file ends as an
uninterrupted run's would.

The engine re-executes from the header. Tool calls are answered from the events the file
already holds and go live (against the header's corpus, which must have the recorded
fingerprint) once that record runs out. A `ResumeRecorder` checks every re-generated event
against the file up to its last complete event and appends only the events after it; the
torn tail is cut off just before the first new line is written, so a resume that cannot
reproduce the prefix leaves the file untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citeloop.runtime.engine import ResearchEngine, RunResult
from citeloop.runtime.policies.scripted import ScriptDivergence
from citeloop.runtime.recorded_tools import RecordedReadTool, RecordedSearchTool, ToolRecord
from citeloop.runtime.recorder import ResumeDivergence, ResumeRecorder
from citeloop.runtime.rebuild import ReplayError, build_components
from citeloop.runtime.replay_runs import LiveCorpus
from citeloop.runtime.session import ResearchKit
from citeloop.runtime.tools import CorpusReadTool, CorpusSearchTool
from citeloop.trajectories.runfile import FileSink, read_run, truncate_torn_tail


@dataclass
class ResumeOutcome:
    path: Path
    run_id: str
    kept: int
    """Events the file held (and the resumed run reproduced)."""
    appended: int
    """Events written by the resume (run_meta included)."""
    problem: str | None
    """Why the file had stopped, as `read_run` saw it."""
    result: RunResult | None
    """The finished run; None when the file was already complete."""


def resume_run(path: str | Path, corpus: Path | None = None, kit: ResearchKit | None = None) -> ResumeOutcome:
    """Finish the run in `path` in place; `kit`, when it holds the run's corpus, is used as is."""
    path = Path(path)
    run = read_run(path)
    if path.suffix == ".zst":
        raise ReplayError(f"{path}: resuming a compressed run file is not supported; decompress it first")
    if any(e.type == "run_meta" for e in run.events):
        if run.torn:  # only damage after the last line: cut it, nothing to re-run
            truncate_torn_tail(path, run)
        return ResumeOutcome(path, run.run_id, len(run.events), 0, run.problem, None)
    spec = run.header.spec
    kit = LiveCorpus(spec.corpus_source, spec.corpus_fingerprint, corpus, kit).kit()
    comps = build_components(run.header, run.events)
    comps.cutoff = kit.corpus.cutoff  # same fingerprint, so the corpus itself is the authority
    record = ToolRecord.from_events(run.events)
    search = RecordedSearchTool(record, CorpusSearchTool(kit.corpus, kit.index))
    read = RecordedReadTool(record, CorpusReadTool(kit.corpus))

    def open_sink() -> FileSink:
        truncate_torn_tail(path, run)
        return FileSink(path, append=True)

    rec = ResumeRecorder(run.header, open_sink, run.events)
    engine = ResearchEngine(comps.config, comps.planner, comps.policies, comps.verifier, search, read, comps.cutoff,
                            claim_stage=comps.claim_stage, screen=comps.screen)
    try:
        result = engine.run(run.header, comps.planner.plan(spec.question), rec)
    except (ResumeDivergence, ScriptDivergence) as exc:
        raise ReplayError(f"{path}: {exc}; the code or config no longer reproduces this run, re-run it instead") from exc
    return ResumeOutcome(path, run.run_id, len(run.events), rec.appended, run.problem, result)
