"""The exact replay check: re-execute a recorded run and say whether it reproduces its file.

The run's own events are its tool cache (`runtime.recorded_tools`), so `check_run` needs no
corpus: it rebuilds the components from the header (`runtime.rebuild`), re-runs the engine
on the recorded responses and compares the deterministic lines (all but `run_meta`) with the
file, naming the first event that differs and why (`Divergence`), plus what the header says
the current code would not reproduce. This module owns that check and its report
(`ReplayCheck`). Swaps and branches write re-executed runs (`runtime.replay_runs`).

`ReplayError`, `policy_spec_of`, `build_components`, `ReplayRun` and the other rebuilding and
re-execution names are re-exported here, where callers have always imported them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from citeloop.runtime.engine import ResearchEngine
from citeloop.runtime.llm.parts import MODEL_PART_VERSIONS
from citeloop.runtime.planner import PlanValidationError, QuestionError, resolve_planner
from citeloop.runtime.policies.scripted import ScriptDivergence
from citeloop.runtime.rebuild import (
    Components,
    ReplayError,
    branch_policies,
    build_components,
    config_from_spec,
    corpus_cutoff,
    make_verifier,
    model_parts,
    no_sleep,
    policy_spec_of,
    scripted_policies,
)
from citeloop.runtime.recorded_tools import NOT_RECORDED
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.replay_runs import LiveCorpus, ReplayRun, execute, recorded_tools, write_run
from citeloop.runtime.session import package_versions
from citeloop.runtime.tools import CorpusReadTool, CorpusSearchTool
from citeloop.trajectories.events import DECISION_TYPES, NONDETERMINISTIC_TYPES, BaseEvent, event_to_dict
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.runfile import MemorySink, RunFile


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Divergence(_Model):
    seq: int | None
    """Seq of the first event that differs; None when only the header does."""
    recorded_type: str | None
    replayed_type: str | None
    fields: list[str] = []
    reason: str
    detail: dict[str, list[Any]] = {}
    """Field -> [recorded value, replayed value], values cut to 300 characters."""


class ReplayCheck(_Model):
    run_id: str
    ok: bool
    events_recorded: int
    events_replayed: int
    divergence: Divergence | None
    header_problems: list[str]
    """Header facts the current code does not reproduce (config digest, component versions)."""
    warnings: list[str]
    """Differences that are not divergences (package versions, unknown tools)."""
    damaged: str | None = None
    """Why the file stops early (its first bad line), or None for a whole file. A damaged file
    is never `ok`: only the events before the damage were compared."""
    lines_unread: int = 0
    """Lines after the damaged one that were not read (events the file lost)."""


KNOWN_TOOLS = {CorpusSearchTool.name: CorpusSearchTool.version, CorpusReadTool.name: CorpusReadTool.version}


def header_findings(header: RunHeader) -> tuple[list[str], list[str]]:
    """(problems, warnings) from comparing the header with what the current code would write."""
    spec, problems, warnings = header.spec, [], []
    config = config_from_spec(spec)
    if config.digest() != spec.config_digest:
        changed = sorted(k for k in {*spec.config, *config.model_dump(mode="json")}
                         if spec.config.get(k) != config.model_dump(mode="json").get(k))
        problems.append(f"config digest differs: the header's config resolves differently now (sections {changed})")
    planner_version = MODEL_PART_VERSIONS.get(("planner", spec.planner.name)) or \
        resolve_planner(spec.planner.name, config.planner).version
    if planner_version != spec.planner.version:
        problems.append(f"planner {spec.planner.name} is version {planner_version}, header has {spec.planner.version}")
    verifier_version = MODEL_PART_VERSIONS.get(("verifier", spec.verifier.name)) or \
        make_verifier(spec.verifier.name, config).version
    if verifier_version != spec.verifier.version:
        problems.append(f"verifier {spec.verifier.name} is version {verifier_version}, header has {spec.verifier.version}")
    for kind, ref in sorted(spec.tools.items()):
        if ref.name not in KNOWN_TOOLS:
            warnings.append(f"{kind} tool {ref.name} is not a built-in tool; its recorded responses are served")
        elif KNOWN_TOOLS[ref.name] != ref.version:
            problems.append(f"{kind} tool {ref.name} is version {KNOWN_TOOLS[ref.name]}, header has {ref.version}")
    if not spec.packages:
        warnings.append("header records no package versions (a normalised file); code versions not compared")
    else:
        now = package_versions()
        changed = [f"{n} {spec.packages.get(n, '-')} -> {now.get(n, '-')}" for n in sorted({*spec.packages, *now})
                   if spec.packages.get(n) != now.get(n)]
        if changed:
            warnings.append("package versions differ from the header: " + ", ".join(changed))
    return problems, warnings


def code_change(header: RunHeader) -> str | None:
    """'the code changed since the run (citeloop A -> B)' when the header's citeloop version
    (with its source digest) is not this code's, else None."""
    recorded, now = header.spec.packages.get("citeloop"), package_versions().get("citeloop")
    if not recorded or recorded == now:
        return None
    return f"the code changed since the run (citeloop {recorded} -> {now})"


def _short(value: Any) -> Any:
    text = json.dumps(value, ensure_ascii=False)
    return value if len(text) <= 300 else text[:297] + "..."


def _explain(recorded: dict[str, Any] | None, replayed: dict[str, Any] | None) -> Divergence:
    rt = recorded["type"] if recorded else None
    pt = replayed["type"] if replayed else None
    if recorded is None:
        return Divergence(seq=replayed["seq"], recorded_type=None, replayed_type=pt,  # type: ignore[index]
                          reason=f"replay emitted more events than the file holds ({pt} first)")
    if replayed is None:
        return Divergence(seq=recorded["seq"], recorded_type=rt, replayed_type=None,
                          reason=f"replay ended before the file did (file has {rt} next)")
    fields = sorted(k for k in {*recorded, *replayed} if recorded.get(k) != replayed.get(k))
    detail = {k: [_short(recorded.get(k)), _short(replayed.get(k))] for k in fields}
    base = dict(seq=recorded["seq"], recorded_type=rt, replayed_type=pt, fields=fields, detail=detail)
    if pt == "search_result" and replayed["response"].get("error") == NOT_RECORDED:
        return Divergence(**base, reason=f"a tool response that was not recorded: search {replayed['query']!r}")
    if pt == "document_read" and replayed.get("error") == NOT_RECORDED:
        return Divergence(**base, reason=f"a tool response that was not recorded: read {replayed['doc_id']!r}")
    if rt != pt:
        return Divergence(**base, reason=f"event kind differs: the file has {rt}, the replay emitted {pt}")
    if rt in DECISION_TYPES and set(fields) <= {"choice", "policy", "reason"}:
        return Divergence(**base, reason=f"a decision that differs: recorded {recorded['choice']!r} by "
                                         f"{recorded['policy']['name']}, replay chose {replayed['choice']!r} by "
                                         f"{replayed['policy']['name']}")
    return Divergence(**base, reason=f"{rt} differs in {', '.join(fields)}")


def _comparable(events: Sequence[BaseEvent]) -> list[dict[str, Any]]:
    return [event_to_dict(e) for e in events if e.type not in NONDETERMINISTIC_TYPES]


def check_run(run: RunFile) -> ReplayCheck:
    """Re-execute `run` from its header on its recorded tool responses; compare event by event."""
    warnings: list[str] = []
    try:
        problems, warnings = header_findings(run.header)
        comps = build_components(run.header, run.events)
    except (ReplayError, PlanValidationError) as exc:
        return ReplayCheck(run_id=run.run_id, ok=False, events_recorded=len(run.events), events_replayed=0,
                           divergence=Divergence(seq=None, recorded_type=None, replayed_type=None,
                                                 reason=f"cannot rebuild the run from its header: {exc}"),
                           header_problems=[str(exc)], warnings=warnings)
    search, read = recorded_tools(run.events, live=None)
    sink = MemorySink()
    engine = ResearchEngine(comps.config, comps.planner, comps.policies, comps.verifier, search, read, comps.cutoff,
                            sleep=no_sleep, claim_stage=comps.claim_stage, screen=comps.screen)
    rec = Recorder(run.header, sink)
    stopped = None
    try:
        engine.run(run.header, comps.planner.plan(run.header.spec.question), rec)
    except (ScriptDivergence, QuestionError, PlanValidationError) as exc:
        stopped = f"replay stopped: {exc}"
    recorded, replayed = _comparable(run.events), _comparable(rec.events)
    limit = len(recorded) if run.torn else max(len(recorded), len(replayed))
    divergence = None
    for i in range(limit):
        a = recorded[i] if i < len(recorded) else None
        b = replayed[i] if i < len(replayed) else None
        if a != b:
            divergence = _explain(a, b)
            if b is None and stopped:
                divergence = divergence.model_copy(update={"reason": f"{divergence.reason}; {stopped}"})
            code = code_change(run.header)
            if code and not divergence.reason.startswith("a tool response that was not recorded"):
                divergence = divergence.model_copy(update={"reason": f"{divergence.reason} (likely cause: {code})"})
            break
    if divergence is None and problems:
        divergence = Divergence(seq=None, recorded_type=None, replayed_type=None, reason="header: " + "; ".join(problems))
    return ReplayCheck(run_id=run.run_id, ok=divergence is None and not run.torn, events_recorded=len(recorded),
                       events_replayed=len(replayed), divergence=divergence, header_problems=problems,
                       warnings=warnings, damaged=run.problem if run.torn else None, lines_unread=run.lines_unread)


__all__ = [
    # the exact check (this module)
    "Divergence", "KNOWN_TOOLS", "ReplayCheck", "check_run", "code_change", "header_findings",
    # rebuilding (runtime.rebuild)
    "Components", "ReplayError", "branch_policies", "build_components", "config_from_spec", "corpus_cutoff",
    "make_verifier", "model_parts", "policy_spec_of", "scripted_policies",
    # re-executed runs (runtime.replay_runs)
    "LiveCorpus", "ReplayRun", "execute", "recorded_tools", "write_run",
]
