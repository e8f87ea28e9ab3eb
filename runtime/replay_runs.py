"""Re-executed runs: running a rebuilt run into memory on recorded or live tools, and writing it.

A swap (`runtime.swap`) or a branch (`runtime.branch`) rebuilds a run's components
(`runtime.rebuild`), re-executes it with `execute`, and returns a `ReplayRun`: the new run,
its diff against the source and how its tool calls were answered. Calls the source run made
are answered from its record (`recorded_tools`); new ones go live against the corpus its
header names (`LiveCorpus`, which checks the recorded fingerprint; resume uses it too).
`write_run` writes a finished run file. This module owns those pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from citeloop.runtime.engine import ResearchEngine
from citeloop.runtime.rebuild import Components, ReplayError, no_sleep
from citeloop.runtime.recorded_tools import LazyTool, RecordedReadTool, RecordedSearchTool, ToolRecord
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.session import ResearchKit
from citeloop.runtime.tools import CorpusReadTool, CorpusSearchTool
from citeloop.trajectories.diff import RunDiff
from citeloop.trajectories.events import BaseEvent
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.runfile import FileSink, MemorySink


def execute(header: RunHeader, comps: Components, search_tool, read_tool,  # noqa: ANN001 - tool protocols
            sleep: Callable[[float], None] = no_sleep) -> list[BaseEvent]:
    """Run the engine for `header` into memory; returns every event, run_meta included."""
    plan = comps.planner.plan(header.spec.question)
    sink = MemorySink()
    sink.write_header(header)
    engine = ResearchEngine(comps.config, comps.planner, comps.policies, comps.verifier, search_tool, read_tool,
                            comps.cutoff, sleep=sleep, claim_stage=comps.claim_stage,
                            screen=comps.screen)
    engine.run(header, plan, Recorder(header, sink))
    return sink.events


# --------------------------------------------------------------------------- tools


class LiveCorpus:
    """The corpus a run's header names, loaded on first use and checked against its fingerprint."""

    def __init__(self, source: str, fingerprint: str | None, override: Path | None = None,
                 kit: ResearchKit | None = None) -> None:
        self.source = str(override) if override is not None else source
        self.fingerprint = fingerprint
        # A caller that already holds the corpus (many branch rollouts, tests) passes it in.
        self._kit = kit if kit is not None and kit.corpus.fingerprint == fingerprint else None

    def kit(self) -> ResearchKit:
        if self._kit is None:
            if self.source != "embedded" and not Path(self.source).exists():
                raise ReplayError(f"the run's corpus {self.source} is not on this machine; pass --corpus PATH "
                                  "to the same corpus")
            kit = ResearchKit.load(None if self.source == "embedded" else self.source)
            if self.fingerprint is not None and kit.corpus.fingerprint != self.fingerprint:
                raise ReplayError(f"corpus {self.source} has fingerprint {kit.corpus.fingerprint[:16]}, but the run "
                                  f"used {self.fingerprint[:16]}; live tool calls would see other documents "
                                  "(use --swap tools=CONFIG to replay against a different corpus)")
            self._kit = kit
        return self._kit

    def tools(self) -> tuple[LazyTool, LazyTool]:
        return (LazyTool(lambda: CorpusSearchTool(self.kit().corpus, self.kit().index), "search"),
                LazyTool(lambda: CorpusReadTool(self.kit().corpus), "read"))


def recorded_tools(events: Sequence[BaseEvent], live: LiveCorpus | None) -> tuple[RecordedSearchTool, RecordedReadTool]:
    record = ToolRecord.from_events(events)
    if live is None:
        return RecordedSearchTool(record), RecordedReadTool(record)
    search, read = live.tools()
    return RecordedSearchTool(record, search), RecordedReadTool(record, read)


# --------------------------------------------------------------------------- runs


@dataclass
class ReplayRun:
    """A re-executed run (swap or branch), its diff against the source run, and how tools answered."""

    header: RunHeader
    events: list[BaseEvent]
    path: Path | None
    diff: RunDiff
    served: int = 0
    """Tool calls answered from the record."""
    live: int = 0
    """Tool calls answered by live tools."""
    warnings: list[str] = field(default_factory=list)


def write_run(out_dir: Path, header: RunHeader, events: Sequence[BaseEvent]) -> Path:
    """Write a finished in-memory run as `out_dir/<run id>.jsonl` (written only once it is whole)."""
    path = Path(out_dir) / f"{header.run_id}.jsonl"
    sink = FileSink(path)
    sink.write_header(header)
    for e in events:
        sink.write(e)
    sink.close()
    return path
