"""Rebuilding a recorded run's components from its header.

A run header names every component (config, planner, policy spec, verifier, seed,
question); `build_components` rebuilds them, and its keyword arguments swap one. Model-backed
parts answer from the run's recorded `model_call` replies, and `scripted_policies` plays the
recorded decisions back (branches force one choice). This module owns that rebuilding and
`ReplayError`, the error every replay request raises; the exact check (`runtime.replay`) and
re-executed runs (`runtime.replay_runs`: swaps, branches) build on it, as resume does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.llm.parts import LLMPartsError, RunParts, parts_from_header
from citeloop.runtime.planner import Planner, PlanValidationError
from citeloop.runtime.policies import PolicySet, resolve_policies
from citeloop.runtime.policies.scripted import ScriptedAngle, ScriptedFollow, ScriptedRead, ScriptedStop
from citeloop.runtime.verifier import Verifier, resolve_verifier
from citeloop.trajectories.errors import ErrorWording, validation_message
from citeloop.trajectories.events import DECISION_TYPES, BaseEvent
from citeloop.trajectories.header import RunHeader, RunSpec


class ReplayError(ValueError):
    """A replay request that cannot be carried out; the message says what to change."""


def no_sleep(_: float) -> None:
    """Recorded transient failures need no real backoff to be replayed."""


_CONFIG_WORDING = ErrorWording(other="{msg} at {loc}")


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
        raise ReplayError("the header's config no longer loads: "
                          f"{validation_message(exc, _CONFIG_WORDING, first_only=True)}") from exc


def corpus_cutoff(header: RunHeader, events: Sequence[BaseEvent]) -> str | None:
    """The header's cut-off; a v1 header lacks it, and then the report recorded it."""
    if header.spec.corpus_cutoff is not None:
        return header.spec.corpus_cutoff
    report = next((e for e in events if e.type == "report_written"), None)
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
    `then`. (Hard-limit stops are `hard_limit` events, not decisions: no policy made them.)"""
    lists: dict[str, tuple[list[Any], list[Any], list[str]]] = {t: ([], [], []) for t in DECISION_TYPES}
    for e in events:
        if e.seq >= until_seq or e.type not in DECISION_TYPES:
            continue
        value = script_value(e, e.choice)  # type: ignore[attr-defined]
        choices, refs, reasons = lists[e.type]
        choices.append(value)
        refs.append(e.policy)  # type: ignore[attr-defined]
        reasons.append(e.reason)  # type: ignore[attr-defined]
    force: dict[str, dict[int, Any]] = {t: {} for t in DECISION_TYPES}
    if forced is not None:
        kind, value = forced
        force[kind][len(lists[kind][0])] = value
    s, a, r, k, f = (lists[t] for t in ("stop_decision", "angle_decision", "read_decision", "keep_decision",
                                         "follow_decision"))
    return PolicySet(
        stop=ScriptedStop(s[0], then.stop, force["stop_decision"], refs=s[1], reasons=s[2]),
        angle=ScriptedAngle(a[0], then.angle, force["angle_decision"], refs=a[1], reasons=a[2]),
        read=ScriptedRead(r[0], k[0], then.read, force["read_decision"], force["keep_decision"],
                          read_refs=r[1], read_reasons=r[2], keep_refs=k[1], keep_reasons=k[2]),
        follow=ScriptedFollow(f[0], then.follow, force["follow_decision"], refs=f[1], reasons=f[2]),
        spec=then.spec,
    )


def script_value(event: BaseEvent, choice: Any) -> Any:
    """What a script plays back for a decision: an angle by its query and a follow by its
    names (matched by content on replay), other kinds by the recorded value."""
    if event.type == "angle_decision":
        return event.candidates[choice]  # type: ignore[attr-defined]
    if event.type == "follow_decision":
        return list(event.candidates[choice].names)  # type: ignore[attr-defined]
    return choice


def branch_policies(header: RunHeader, events: Sequence[BaseEvent], config: ResearchConfig) -> PolicySet:
    """A branch run's own policies: its recorded prefix, the forced choice, its continuation."""
    branch = header.spec.branch
    assert branch is not None
    at = next((e for e in events if e.seq == branch.branch_seq), None)
    if at is None or at.type not in DECISION_TYPES:
        raise ReplayError(f"{header.run_id} is a branch at seq {branch.branch_seq}, but the file does not reach "
                          "that decision; re-run the branch from its parent instead")
    value = script_value(at, branch.forced_choice)
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
