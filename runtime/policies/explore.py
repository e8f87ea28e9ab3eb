"""Seeded epsilon-exploration around the heuristic, for diverse training trajectories.

With probability epsilon a decision deviates from the heuristic choice to another valid
candidate. The random stream is seeded from the run seed and the decision kind, so the
same seed gives the same deviations.
"""

from __future__ import annotations

import random

from citeloop.runtime.policies.base import AngleCandidate, Choice
from citeloop.runtime.policies.heuristic import HeuristicAngle, HeuristicFollow, HeuristicRead, HeuristicStop
from citeloop.trajectories.events import FollowCandidate, FollowState, AngleState, KeepCandidate, PolicyRef, ReadState, StopSignals

REF = PolicyRef(name="explore", version="1")


class _Explorer:
    def __init__(self, seed: int, kind: str, epsilon: float) -> None:
        self.rng = random.Random(f"{seed}:{kind}")
        self.epsilon = epsilon

    def deviate(self) -> bool:
        return self.rng.random() < self.epsilon


class ExploreStop(_Explorer):
    ref = REF

    def __init__(self, seed: int, epsilon: float) -> None:
        super().__init__(seed, "stop", epsilon)
        self.base = HeuristicStop()

    def decide_stop(self, s: StopSignals) -> Choice:
        choice = self.base.decide_stop(s)
        if s.open_subqs and self.deviate():
            flipped = "stop" if choice.value == "continue" else "continue"
            return Choice(flipped, f"explore: flipped heuristic '{choice.value}' ({choice.reason})")
        return choice


class ExploreAngle(_Explorer):
    ref = REF

    def __init__(self, seed: int, epsilon: float) -> None:
        super().__init__(seed, "angle", epsilon)
        self.base = HeuristicAngle()

    def choose_angle(self, state: AngleState, candidates: list[AngleCandidate]) -> Choice:
        choice = self.base.choose_angle(state, candidates)
        others = [i for i in range(len(candidates)) if i != choice.value]
        if others and self.deviate():
            pick = self.rng.choice(others)
            return Choice(pick, f"explore: angle {candidates[pick].angle} instead of {candidates[choice.value].angle}")  # type: ignore[index]
        return choice


class ExploreRead(_Explorer):
    ref = REF

    def __init__(self, seed: int, epsilon: float, base: HeuristicRead) -> None:
        super().__init__(seed, "read", epsilon)
        self.base = base

    def choose_reads(self, state: ReadState, relevance: dict[str, float], limit: int) -> Choice:
        choice = self.base.choose_reads(state, relevance, limit)
        unread = [h.doc_id for h in state.hits if h.doc_id not in set(state.already_read)]
        if unread and limit > 0 and self.deviate():
            size = min(limit, len(choice.value) or 1, len(unread))  # type: ignore[arg-type]
            pick = sorted(self.rng.sample(unread, size), key=unread.index)
            return Choice(pick, f"explore: read {pick} instead of {choice.value}")
        return choice

    def choose_keep(self, candidates: list[KeepCandidate], limit: int) -> Choice:
        choice = self.base.choose_keep(candidates, limit)
        if candidates and self.deviate():
            size = min(limit, max(1, len(choice.value)), len(candidates))  # type: ignore[arg-type]
            pick = [c.sid for c in sorted(self.rng.sample(candidates, size), key=candidates.index)]
            return Choice(pick, f"explore: keep {pick} instead of {choice.value}")
        return choice


class ExploreFollow(_Explorer):
    ref = REF

    def __init__(self, seed: int, epsilon: float) -> None:
        super().__init__(seed, "follow", epsilon)
        self.base = HeuristicFollow()

    def choose_follow(self, state: FollowState, candidates: list[FollowCandidate]) -> Choice:
        choice = self.base.choose_follow(state, candidates)
        others = [i for i in range(len(candidates)) if i != choice.value]
        if others and self.deviate():
            pick = self.rng.choice(others)
            return Choice(pick, f"explore: follow {' / '.join(candidates[pick].names)} instead")
        return choice
