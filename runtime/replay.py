"""Replay: re-execute a recorded run from its header, exactly or with one part swapped.

A run header names every component (config, planner, policy spec, verifier, seed,
question); `build_components` rebuilds them. The run's own events are its tool cache
(`runtime.recorded_tools`), so `check_run` needs no corpus: it re-runs the engine on the
recorded responses and compares the deterministic lines (all but `run_meta`) with the
file, naming the first event that differs and why. Swaps (`runtime.swap`), branches
(`runtime.branch`) and resume (`runtime.resume`) build on the same pieces.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.engine import HARD_LIMIT, ResearchEngine
from citeloop.runtime.llm.parts import MODEL_PART_VERSIONS, LLMPartsError, RunParts, parts_from_header
from citeloop.runtime.planner import Planner, PlanValidationError, QuestionError, resolve_planner
from citeloop.runtime.policies import PolicySet, resolve_policies
from citeloop.runtime.policies.scripted import ScriptDivergence, ScriptedAngle, ScriptedRead, ScriptedStop
from citeloop.runtime.recorded_tools import NOT_RECORDED, LazyTool, RecordedReadTool, RecordedSearchTool, ToolRecord
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.session import ResearchKit, package_versions
from citeloop.runtime.tools import CorpusReadTool, CorpusSearchTool
from citeloop.runtime.verifier import Verifier, resolve_verifier
from citeloop.trajectories.diff import RunDiff
from citeloop.trajectories.events import DECISION_TYPES, NONDETERMINISTIC_TYPES, BaseEvent, event_to_dict
from citeloop.trajectories.header import RunHeader, RunSpec
from citeloop.trajectories.runfile import FileSink, MemorySink, RunFile


class ReplayError(ValueError):
    """A replay request that cannot be carried out; the message says what to change."""


def _no_sleep(_: float) -> None:
    """Recorded transient failures need no real backoff to be replayed."""


# --------------------------------------------------------------------------- components


@dataclass
class Components:
    config: ResearchConfig
    planner: Planner
    policies: PolicySet
    verifier: Verifier
    cutoff: str | None
    claim_stage: Any = None
    """The model-backed claim stage (writer, critic), or None for the rule-based one."""
    screen: Any = None
    """The injection filter's model check, or None for rules only."""


def policy_spec_of(header: RunHeader) -> str:
    ref = header.spec.policies.get("spec")
    if ref is None:
        raise ReplayError(f"{header.run_id}: header names no policy spec (spec.policies.spec)")
    return ref.name


def config_from_spec(spec: RunSpec) -> ResearchConfig:
    try:
        return ResearchConfig.model_validate(spec.config)
    except ValidationError as exc:
        raise ReplayError(f"the header's config no longer loads: {exc.errors()[0]['msg']} "
                          f"at {'.'.join(map(str, exc.errors()[0]['loc']))}") from exc


def corpus_cutoff(header: RunHeader, events: Sequence[BaseEvent]) -> str | None:
    """The header's cut-off; a v1 header lacks it, and then the report recorded it."""
    if header.spec.corpus_cutoff is not None:
        return header.spec.corpus_cutoff
    report = next((e for e in events if e.type == "report"), None)
    return report.report.corpus_cutoff if report is not None else None  # type: ignore[attr-defined]


def make_verifier(name: str, config: ResearchConfig) -> Verifier:
    try:
        return resolve_verifier(name, config.verifier)
    except ValueError as exc:
        raise ReplayError(str(exc)) from exc


def scripted_policies(events: Sequence[BaseEvent], until_seq: int, then: PolicySet,
                      forced: tuple[str, Any] | None = None) -> PolicySet:
    """Policies that play back the recorded decisions before `until_seq` (with their recorded
    policy refs and reasons), force `forced = (decision type, value)` next, then hand over to
    `then`. Hard-limit stops are left out: the engine made them without asking a policy."""
    lists: dict[str, tuple[list[Any], list[Any], list[str]]] = {t: ([], [], []) for t in DECISION_TYPES}
    for e in events:
        if e.seq >= until_seq or e.type not in DECISION_TYPES:
            continue
        if e.type == "stop_decision" and e.policy == HARD_LIMIT:  # type: ignore[attr-defined]
            continue
        value = e.candidates[e.choice] if e.type == "angle_decision" else e.choice  # type: ignore[attr-defined]
        choices, refs, reasons = lists[e.type]
        choices.append(value)
        refs.append(e.policy)  # type: ignore[attr-defined]
        reasons.append(e.reason)  # type: ignore[attr-defined]
    force: dict[str, dict[int, Any]] = {t: {} for t in DECISION_TYPES}
    if forced is not None:
        kind, value = forced
        force[kind][len(lists[kind][0])] = value
    s, a, r, k = (lists[t] for t in ("stop_decision", "angle_decision", "read_decision", "keep_decision"))
    return PolicySet(
        stop=ScriptedStop(s[0], then.stop, force["stop_decision"], refs=s[1], reasons=s[2]),
        angle=ScriptedAngle(a[0], then.angle, force["angle_decision"], refs=a[1], reasons=a[2]),
        read=ScriptedRead(r[0], k[0], then.read, force["read_decision"], force["keep_decision"],
                          read_refs=r[1], read_reasons=r[2], keep_refs=k[1], keep_reasons=k[2]),
        spec=then.spec,
    )


def branch_policies(header: RunHeader, events: Sequence[BaseEvent], config: ResearchConfig) -> PolicySet:
    """A branch run's own policies: its recorded prefix, the forced choice, its continuation."""
    branch = header.spec.branch
    assert branch is not None
    at = next((e for e in events if e.seq == branch.branch_seq), None)
    if at is None or at.type not in DECISION_TYPES:
        raise ReplayError(f"{header.run_id} is a branch at seq {branch.branch_seq}, but the file does not reach "
                          "that decision; re-run the branch from its parent instead")
    value = at.candidates[branch.forced_choice] if at.type == "angle_decision" else branch.forced_choice  # type: ignore[attr-defined]
    then = resolve_policies(branch.continuation_policy, config, header.spec.seed, recorded=events)
    return scripted_policies(events, branch.branch_seq, then, (at.type, value))


def build_components(header: RunHeader, events: Sequence[BaseEvent], *, config: ResearchConfig | None = None,
                     policies: PolicySet | None = None, policy_spec: str | None = None,
                     verifier_name: str | None = None) -> Components:
    """Every component of the run, rebuilt from its header; keyword arguments swap one."""
    spec = header.spec
    config = config or config_from_spec(spec)
    parts = model_parts(header, events, config, verifier_name)
    if policies is None:
        if policy_spec is None and spec.branch is not None:
            policies = branch_policies(header, events, config)
        else:
            # An llm policy answers the requests the run recorded from its model_call events.
            policies = resolve_policies(policy_spec or policy_spec_of(header), config, spec.seed, recorded=events)
    return Components(config, parts.planner, policies, parts.verifier, corpus_cutoff(header, events),
                      parts.claim_stage, parts.screen)


def model_parts(header: RunHeader, events: Sequence[BaseEvent], config: ResearchConfig,
                verifier_name: str | None = None) -> RunParts:
    """Planner, verifier and claim stage from the header; model-backed ones answer from the
    run's recorded `model_call` replies (a swapped-in `judge` verifier needs the run to have
    recorded a model)."""
    spec = header.spec
    name = verifier_name or spec.verifier.name
    try:
        return parts_from_header(config, spec.planner, name, spec.verifier, spec.policies, events)
    except (LLMPartsError, PlanValidationError) as exc:
        raise ReplayError(str(exc)) from exc
    except ValueError as exc:  # an unknown verifier name
        raise ReplayError(str(exc)) from exc


def execute(header: RunHeader, comps: Components, search_tool, read_tool,  # noqa: ANN001 - tool protocols
            sleep: Callable[[float], None] = _no_sleep) -> list[BaseEvent]:
    """Run the engine for `header` into memory; returns every event, run_meta included."""
    plan = comps.planner.plan(header.spec.question)
    sink = MemorySink()
    sink.write_header(header)
    engine = ResearchEngine(comps.config, comps.planner, comps.policies, comps.verifier, search_tool, read_tool,
                            comps.cutoff, sleep=sleep, claim_stage=comps.claim_stage,
                            screen=comps.screen)
    engine.run(header, plan, Recorder(header, sink))
    return sink.events


# --------------------------------------------------------------------------- live corpus


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


# --------------------------------------------------------------------------- exact check


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
                            sleep=_no_sleep, claim_stage=comps.claim_stage, screen=comps.screen)
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


# --------------------------------------------------------------------------- re-executed runs


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
