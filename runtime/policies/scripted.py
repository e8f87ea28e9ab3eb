"""Scripted policies: play back recorded decisions, force one, then hand over.

Replay and counterfactual branches are built from this. A script is the list of choices
a run made for one decision kind, in order. `forced` overrides the choice at given
positions. When the script runs out, the `then` policy decides. A recorded choice that is
not valid among the current candidates means the re-execution diverged: that is an error
naming the position, never a silent substitute.
"""

from __future__ import annotations

from typing import Any

from runtime.policies.base import AngleCandidate, Choice
from trajectories.events import AngleState, KeepCandidate, PolicyRef, ReadState, StopSignals


class ScriptDivergence(RuntimeError):
    def __init__(self, kind: str, position: int, recorded: Any, valid: Any) -> None:
        self.kind, self.position, self.recorded, self.valid = kind, position, recorded, valid
        super().__init__(f"{kind} decision #{position}: recorded choice {recorded!r} is not valid here (valid: {valid!r})")


class _Script:
    def __init__(self, kind: str, choices: list[Any], forced: dict[int, Any] | None, then: Any) -> None:
        self.kind = kind
        self.choices = list(choices)
        self.forced = dict(forced or {})
        self.then = then
        self.position = 0
        self.ref = PolicyRef(name="scripted", version="1")

    def _next(self) -> tuple[bool, Any, str]:
        """(scripted?, value, reason) for the current position; advances it."""
        i = self.position
        self.position += 1
        if i in self.forced:
            return True, self.forced[i], f"forced at {self.kind} decision #{i}"
        if i < len(self.choices):
            return True, self.choices[i], f"recorded {self.kind} decision #{i}"
        return False, None, ""

    def _handover(self) -> None:
        self.ref = self.then.ref


class ScriptedStop(_Script):
    def __init__(self, choices: list[str], then: Any, forced: dict[int, str] | None = None) -> None:
        super().__init__("stop", choices, forced, then)

    def decide_stop(self, s: StopSignals) -> Choice:
        scripted, value, reason = self._next()
        if not scripted:
            self._handover()
            return self.then.decide_stop(s)
        if value not in ("continue", "stop"):
            raise ScriptDivergence(self.kind, self.position - 1, value, ["continue", "stop"])
        return Choice(value, reason)


class ScriptedAngle(_Script):
    def __init__(self, choices: list[str], then: Any, forced: dict[int, str] | None = None) -> None:
        """Choices are recorded queries (strings), so a replay matches by content, not position."""
        super().__init__("angle", choices, forced, then)

    def choose_angle(self, state: AngleState, candidates: list[AngleCandidate]) -> Choice:
        scripted, value, reason = self._next()
        if not scripted:
            self._handover()
            return self.then.choose_angle(state, candidates)
        queries = [c.query for c in candidates]
        if value not in queries:
            raise ScriptDivergence(self.kind, self.position - 1, value, queries)
        return Choice(queries.index(value), reason)


class ScriptedRead(_Script):
    """One script for both read kinds: `reads` (doc ids) and `keeps` (sentence ids)."""

    def __init__(
        self,
        reads: list[list[str]],
        keeps: list[list[str]],
        then: Any,
        forced_reads: dict[int, list[str]] | None = None,
        forced_keeps: dict[int, list[str]] | None = None,
    ) -> None:
        super().__init__("read", reads, forced_reads, then)
        self.keeps = _Script("keep", keeps, forced_keeps, then)

    def choose_reads(self, state: ReadState, relevance: dict[str, float], limit: int) -> Choice:
        scripted, value, reason = self._next()
        if not scripted:
            self._handover()
            return self.then.choose_reads(state, relevance, limit)
        valid = [h.doc_id for h in state.hits]
        if any(v not in valid for v in value):
            raise ScriptDivergence(self.kind, self.position - 1, value, valid)
        return Choice(list(value), reason)

    def choose_keep(self, candidates: list[KeepCandidate], limit: int) -> Choice:
        scripted, value, reason = self.keeps._next()
        if not scripted:
            self._handover()
            return self.then.choose_keep(candidates, limit)
        valid = [c.sid for c in candidates]
        if any(v not in valid for v in value):
            raise ScriptDivergence("keep", self.keeps.position - 1, value, valid)
        return Choice(list(value), reason)
