"""The decision points as Protocols (stop, angle, read with keep, follow), and the candidate
types they choose among.

Every policy sees a state and a list of candidates built by the engine, returns its choice
and a one-line reason, and identifies itself by name and version. The engine records all of
it as a decision event, so any policy can be replayed, forced or compared with another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from citeloop.trajectories.events import (
    AngleState,
    FollowCandidate,
    FollowState,
    KeepCandidate,
    PolicyRef,
    ReadState,
    StopSignals,
)


@dataclass(frozen=True)
class AngleCandidate:
    angle: str
    """Name of the angle, e.g. `base`, `entity`, `relation`, `context`, `question`, `gap_followup`."""
    query: str


@dataclass(frozen=True)
class Choice:
    """What a policy returns: the choice and why. `value` is an int, a str or a list of ids."""

    value: object
    reason: str


class StopPolicy(Protocol):
    ref: PolicyRef

    def decide_stop(self, signals: StopSignals) -> Choice: ...


class QueryAnglePolicy(Protocol):
    ref: PolicyRef

    def choose_angle(self, state: AngleState, candidates: list[AngleCandidate]) -> Choice: ...


class ReadPolicy(Protocol):
    ref: PolicyRef

    def choose_reads(self, state: ReadState, relevance: dict[str, float], limit: int) -> Choice: ...

    def choose_keep(self, candidates: list[KeepCandidate], limit: int) -> Choice: ...


class FollowPolicy(Protocol):
    """Which entity the next hop pursues (`FollowDecision`): an index into the candidates."""

    ref: PolicyRef

    def choose_follow(self, state: FollowState, candidates: list[FollowCandidate]) -> Choice: ...
