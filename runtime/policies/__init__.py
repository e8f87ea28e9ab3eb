"""Policy registry: names -> policies for the decision points (stop, angle, read with keep, follow).

`resolve_policies("heuristic")` gives all of them from one family; `"stop=naive,angle=explore"`
mixes them (unnamed kinds stay heuristic). A name that is not built in may be a
`module:attr` path to a factory `(kind, config, seed) -> policy`. Unknown names fail with
the list of valid ones.

`"llm:stop=URL[#MODEL][,angle=URL,read=URL]"` puts a served model (`citeloop.runtime.policies.llm`)
behind the named kinds; the others stay heuristic. Without `#MODEL` the first model the
server lists is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol, runtime_checkable

from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.registry import load_object
from citeloop.runtime.policies.base import (
    AngleCandidate,
    Choice,
    FollowPolicy,
    QueryAnglePolicy,
    ReadPolicy,
    StopPolicy,
)
from citeloop.runtime.policies.explore import ExploreAngle, ExploreFollow, ExploreRead, ExploreStop
from citeloop.runtime.policies.heuristic import HeuristicAngle, HeuristicFollow, HeuristicRead, HeuristicStop
from citeloop.runtime.policies.naive import NaiveAngle, NaiveFollow, NaiveRead, NaiveStop
from citeloop.trajectories.events import BaseEvent

if TYPE_CHECKING:
    from citeloop.runtime.recorder import Recorder

KINDS = ("stop", "angle", "read", "follow")
Factory = Callable[[str, ResearchConfig, int], Any]


def _heuristic(kind: str, config: ResearchConfig, seed: int) -> Any:
    return {"stop": HeuristicStop, "angle": HeuristicAngle, "follow": HeuristicFollow}.get(
        kind, lambda: HeuristicRead(config.read))()


def _naive(kind: str, config: ResearchConfig, seed: int) -> Any:
    return {"stop": NaiveStop, "angle": NaiveAngle, "read": NaiveRead, "follow": NaiveFollow}[kind]()


def _explore(kind: str, config: ResearchConfig, seed: int) -> Any:
    eps = config.explore.epsilon
    if kind == "stop":
        return ExploreStop(seed, eps)
    if kind == "angle":
        return ExploreAngle(seed, eps)
    if kind == "follow":
        return ExploreFollow(seed, eps)
    return ExploreRead(seed, eps, HeuristicRead(config.read))


POLICY_FAMILIES: dict[str, Factory] = {"heuristic": _heuristic, "naive": _naive, "explore": _explore}


class PolicyError(ValueError):
    pass


LLM_FORM = ("llm:KIND=URL[#MODEL][,KIND=URL[#MODEL]...] with KIND in stop, angle, read, follow and URL the server's "
            "OpenAI API root, e.g. llm:stop=http://127.0.0.1:8000/v1,read=http://127.0.0.1:8000/v1#my-model")


@runtime_checkable
class DecisionObserver(Protocol):
    """A policy that reads the run around its decisions (the LLM policy renders the question,
    sub-questions and documents, and records its model calls). The engine calls this just
    before each decision it asks of the policy."""

    def before_decision(self, recorder: Recorder, subq: str | None, doc_id: str | None = None) -> None: ...


@dataclass
class PolicySet:
    stop: StopPolicy
    angle: QueryAnglePolicy
    read: ReadPolicy
    follow: FollowPolicy
    spec: str
    """The spec string these were resolved from; recorded in the run header."""


def parse_policy_spec(spec: str) -> dict[str, str]:
    spec = spec.strip()
    if not spec:
        raise PolicyError("empty policy spec; use e.g. 'heuristic' or 'stop=naive,angle=heuristic'")
    if "=" not in spec:
        return {kind: spec for kind in KINDS}
    names = {kind: "heuristic" for kind in KINDS}
    for part in spec.split(","):
        kind, sep, name = part.partition("=")
        kind, name = kind.strip(), name.strip()
        if not sep or kind not in KINDS or not name:
            raise PolicyError(f"bad policy part {part!r}: expected KIND=NAME with KIND in {', '.join(KINDS)}")
        names[kind] = name
    return names


def parse_llm_spec(spec: str) -> dict[str, tuple[str, str | None]]:
    """`llm:stop=URL[#MODEL],...` -> kind -> (url, model or None); PolicyError naming the valid form."""
    body = spec.strip().removeprefix("llm:")
    endpoints: dict[str, tuple[str, str | None]] = {}
    for part in body.split(","):
        kind, sep, target = (x.strip() for x in part.partition("="))
        url, _, model = target.partition("#")
        if not sep or kind not in KINDS or not url.startswith(("http://", "https://")) or "#" in model:
            raise PolicyError(f"bad llm policy part {part.strip()!r} in {spec!r}; expected {LLM_FORM}")
        if kind in endpoints:
            raise PolicyError(f"llm policy spec {spec!r} names {kind} twice; expected {LLM_FORM}")
        endpoints[kind] = (url.rstrip("/"), model.strip() or None)
    return endpoints


def _llm_set(spec: str, config: ResearchConfig, recorded: Sequence[BaseEvent]) -> PolicySet:
    from citeloop.runtime.policies.llm import EndpointError, llm_policies  # imports the openai client only when used

    endpoints = parse_llm_spec(spec)
    try:
        llm = llm_policies(endpoints, config, recorded)
    except EndpointError as exc:
        raise PolicyError(str(exc)) from exc
    built = {kind: llm.get(kind) or _heuristic(kind, config, 0) for kind in KINDS}
    return PolicySet(stop=built["stop"], angle=built["angle"], read=built["read"], follow=built["follow"], spec=spec)


def _factory(name: str) -> Factory:
    if name in POLICY_FAMILIES:
        return POLICY_FAMILIES[name]
    if name == "llm" or name.startswith("llm:"):
        raise PolicyError(f"the llm policy needs its server: use {LLM_FORM}")
    return load_object(name, PolicyError, "policy", ", ".join(sorted(POLICY_FAMILIES)) + ", " + LLM_FORM)


def resolve_policies(spec: str, config: ResearchConfig, seed: int, recorded: Sequence[BaseEvent] = ()) -> PolicySet:
    """The policies `spec` names. `recorded`: the events of a run being replayed, whose
    recorded model calls answer an llm policy's identical requests."""
    if spec.strip().startswith("llm:"):
        return _llm_set(spec, config, recorded)
    names = parse_policy_spec(spec)
    built = {kind: _factory(name)(kind, config, seed) for kind, name in names.items()}
    return PolicySet(stop=built["stop"], angle=built["angle"], read=built["read"], follow=built["follow"], spec=spec)


__all__ = [
    "AngleCandidate",
    "Choice",
    "DecisionObserver",
    "LLM_FORM",
    "PolicyError",
    "PolicySet",
    "POLICY_FAMILIES",
    "parse_llm_spec",
    "parse_policy_spec",
    "resolve_policies",
]
