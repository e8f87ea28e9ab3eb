"""Policy registry: names -> policies for the three decision points (stop, angle, read).

`resolve_policies("heuristic")` gives all three from one family; `"stop=naive,angle=explore"`
mixes them (unnamed kinds stay heuristic). A name that is not built in may be a
`module:attr` path to a factory `(kind, config, seed) -> policy`. Unknown names fail with
the list of valid ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from runtime.config import ResearchConfig
from runtime.registry import load_object
from runtime.policies.base import AngleCandidate, Choice, QueryAnglePolicy, ReadPolicy, StopPolicy
from runtime.policies.explore import ExploreAngle, ExploreRead, ExploreStop
from runtime.policies.heuristic import HeuristicAngle, HeuristicRead, HeuristicStop
from runtime.policies.naive import NaiveAngle, NaiveRead, NaiveStop

KINDS = ("stop", "angle", "read")
Factory = Callable[[str, ResearchConfig, int], Any]


def _heuristic(kind: str, config: ResearchConfig, seed: int) -> Any:
    return {"stop": HeuristicStop, "angle": HeuristicAngle}.get(kind, lambda: HeuristicRead(config.read))()


def _naive(kind: str, config: ResearchConfig, seed: int) -> Any:
    return {"stop": NaiveStop, "angle": NaiveAngle, "read": NaiveRead}[kind]()


def _explore(kind: str, config: ResearchConfig, seed: int) -> Any:
    eps = config.explore.epsilon
    if kind == "stop":
        return ExploreStop(seed, eps)
    if kind == "angle":
        return ExploreAngle(seed, eps)
    return ExploreRead(seed, eps, HeuristicRead(config.read))


POLICY_FAMILIES: dict[str, Factory] = {"heuristic": _heuristic, "naive": _naive, "explore": _explore}


class PolicyError(ValueError):
    pass


@dataclass
class PolicySet:
    stop: StopPolicy
    angle: QueryAnglePolicy
    read: ReadPolicy
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


def _factory(name: str) -> Factory:
    if name in POLICY_FAMILIES:
        return POLICY_FAMILIES[name]
    return load_object(name, PolicyError, "policy", ", ".join(sorted(POLICY_FAMILIES)))


def resolve_policies(spec: str, config: ResearchConfig, seed: int) -> PolicySet:
    names = parse_policy_spec(spec)
    built = {kind: _factory(name)(kind, config, seed) for kind, name in names.items()}
    return PolicySet(stop=built["stop"], angle=built["angle"], read=built["read"], spec=spec)


__all__ = [
    "AngleCandidate",
    "Choice",
    "PolicyError",
    "PolicySet",
    "POLICY_FAMILIES",
    "parse_policy_spec",
    "resolve_policies",
]
