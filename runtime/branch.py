"""Counterfactual branches: replay a run up to one decision, force another choice there,
continue with a given policy.

Decisions before the branch point are played back from the parent's record with their
recorded policy refs and reasons, and tool calls are answered from the parent's record, so
the branch's events before `branch_seq` equal the parent's apart from `run_id`. The
branch decision records the forced choice (policy `scripted`); after it the continuation
policy decides and tools the record cannot answer run live against the corpus named in
the header. The branch header records `spec.branch` and so gets its own run id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citeloop.runtime.policies import resolve_policies
from citeloop.runtime.policies.scripted import ScriptDivergence
from citeloop.runtime.rebuild import (
    ReplayError,
    build_components,
    config_from_spec,
    policy_spec_of,
    script_value,
    scripted_policies,
)
from citeloop.runtime.replay_runs import LiveCorpus, ReplayRun, execute, recorded_tools, write_run
from citeloop.runtime.session import ResearchKit, package_versions, run_id_for
from citeloop.trajectories.diff import diff_runs
from citeloop.trajectories.events import DECISION_TYPES, BaseEvent
from citeloop.trajectories.header import BranchOrigin, ComponentRef, RunHeader
from citeloop.trajectories.runfile import RunFile


def _ids(action: str) -> list[str]:
    return [part.strip() for part in action.split(",") if part.strip()]


def parse_action(event: BaseEvent, action: str) -> tuple[Any, Any]:
    """(value the scripted policy is forced to, value the decision event will record as `choice`).

    They differ only for angles and follows: the script matches queries (names), the event
    records an index.
    """
    action = action.strip()
    kind = event.type
    if kind == "stop_decision":
        if action not in ("continue", "stop"):
            raise ReplayError(f"--action {action!r} is not valid for a stop decision: use continue or stop")
        return action, action
    if kind == "angle_decision":
        candidates: list[str] = event.candidates  # type: ignore[attr-defined]
        listing = "; ".join(f"{i}: {q!r}" for i, q in enumerate(candidates))
        if action.lstrip("-").isdigit():
            index = int(action)
            if not 0 <= index < len(candidates):
                raise ReplayError(f"--action {index} is out of range for this angle decision; candidates: {listing}")
        elif action in candidates:
            index = candidates.index(action)
        else:
            raise ReplayError(f"--action {action!r} is neither a candidate index nor a candidate query; "
                              f"candidates: {listing}")
        return candidates[index], index
    if kind == "follow_decision":
        options = [" / ".join(c.names) for c in event.candidates]  # type: ignore[attr-defined]
        listing = "; ".join(f"{i}: {o!r}" for i, o in enumerate(options))
        if not action.isdigit() or not 0 <= int(action) < len(options):
            raise ReplayError(f"--action {action!r} is not a candidate index of this follow decision; "
                              f"candidates: {listing}")
        index = int(action)
        return list(event.candidates[index].names), index  # type: ignore[attr-defined]
    ids = _ids(action)
    if len(set(ids)) != len(ids):
        raise ReplayError(f"--action {action!r} names an id twice")
    if kind == "read_decision":
        valid = list(event.candidates)  # type: ignore[attr-defined]
        reads_left = event.state.reads_left  # type: ignore[attr-defined]
        if len(ids) > reads_left:
            raise ReplayError(f"--action names {len(ids)} documents, but only {reads_left} read(s) were left here")
    else:
        valid = [c.sid for c in event.candidates]  # type: ignore[attr-defined]
    unknown = [i for i in ids if i not in valid]
    if unknown:
        raise ReplayError(f"--action names {unknown}, which are not candidates of this {kind}; "
                          f"candidates: {', '.join(valid) or '(none)'}")
    return ids, ids


def decision_at(run: RunFile, seq: int) -> BaseEvent:
    """The decision event at `seq`, or a clear error saying which seqs are decisions."""
    decisions = [e for e in run.events if e.type in DECISION_TYPES]
    some = ", ".join(f"{e.seq} ({e.type})" for e in decisions[:8]) + (" ..." if len(decisions) > 8 else "")
    event = next((e for e in run.events if e.seq == seq), None)
    if event is None:
        raise ReplayError(f"{run.run_id} has no event at seq {seq} (it has {len(run.events)} events); "
                          f"decisions: {some}")
    if event.type == "hard_limit":
        raise ReplayError(f"seq {seq} is a hard-limit stop: the engine stopped without asking a policy, so there "
                          f"is no choice to force; decisions: {some}")
    if event.type not in DECISION_TYPES:
        raise ReplayError(f"seq {seq} is a {event.type} event, not a stop/angle/read/keep/follow decision; decisions: {some}")
    return event


def branch_run(run: RunFile, seq: int, action: str, then: str | None = None, out_dir: Path | None = None,
               corpus: Path | None = None, kit: ResearchKit | None = None) -> ReplayRun:
    """Branch `run` at decision `seq` with `action` forced, continuing with `then` (default: its own policy).

    `kit`, when it holds the run's corpus, serves live calls without loading it again."""
    event = decision_at(run, seq)
    forced, recorded_choice = parse_action(event, action)
    spec = run.header.spec
    config = config_from_spec(spec)
    then_spec = then or policy_spec_of(run.header)
    policies = scripted_policies(run.events, seq, resolve_policies(then_spec, config, spec.seed), (event.type, forced))
    comps = build_components(run.header, run.events, config=config, policies=policies)
    origin = BranchOrigin(parent_run_id=run.run_id, branch_seq=seq, decision_type=event.type,
                          forced_choice=recorded_choice, continuation_policy=then_spec)
    new_spec = spec.model_copy(update={"policies": {"spec": ComponentRef(name=then_spec, version="1")},
                                       "branch": origin, "packages": package_versions()})
    header = RunHeader(run_id=run_id_for(new_spec), spec=new_spec)
    live = LiveCorpus(spec.corpus_source, spec.corpus_fingerprint, corpus, kit)
    search, read = recorded_tools(run.events, live)
    try:
        events = execute(header, comps, search, read)
    except ScriptDivergence as exc:
        raise ReplayError(f"replaying {run.run_id} up to seq {seq} diverged before the branch point: {exc}") from exc
    path = write_run(out_dir, header, events) if out_dir is not None else None
    warnings = []
    if forced == script_value(event, event.choice):  # type: ignore[attr-defined]
        warnings.append(f"the forced choice equals the recorded one at seq {seq}; the branch follows the parent "
                        "until the continuation policy decides differently")
    return ReplayRun(header=header, events=events, path=path, diff=diff_runs(run.header, run.events, header, events),
                     served=search.served + read.served, live=search.live_calls + read.live_calls, warnings=warnings)
