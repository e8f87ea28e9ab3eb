"""Scripted policies: play back recorded decisions, force one, then hand over.

Replay and counterfactual branches are built from this. A script is the list of choices
a run made for one decision kind, in order. `forced` overrides the choice at given
positions. When the script runs out, the `then` policy decides. A recorded choice that is
not valid among the current candidates means the re-execution diverged: that is an error
naming the position, never a silent substitute.

Given the recorded `refs` and `reasons` too, a played-back decision carries the policy and
reason of the original, so a replayed prefix is event-for-event identical to the record
(replay branches rely on this).
"""

from __future__ import annotations

from typing import Any

from citeloop.runtime.policies.base import AngleCandidate, Choice
from citeloop.trajectories.events import FollowCandidate, FollowState, AngleState, KeepCandidate, PolicyRef, ReadState, StopSignals


class ScriptDivergence(RuntimeError):
    def __init__(self, kind: str, position: int, recorded: Any, valid: Any) -> None:
        self.kind, self.position, self.recorded, self.valid = kind, position, recorded, valid
        super().__init__(f"{kind} decision #{position}: recorded choice {recorded!r} is not valid here (valid: {valid!r})")


SCRIPTED = PolicyRef(name="scripted", version="1")


class _Script:
    def __init__(self, kind: str, choices: list[Any], forced: dict[int, Any] | None, then: Any,
                 refs: list[PolicyRef] | None = None, reasons: list[str] | None = None) -> None:
        self.kind = kind
        self.choices = list(choices)
        self.forced = dict(forced or {})
        self.then = then
        self.position = 0
        self.ref = SCRIPTED
        self.refs = list(refs) if refs is not None else None
        self.reasons = list(reasons) if reasons is not None else None

    def _next(self) -> tuple[bool, Any, str]:
        """(scripted?, value, reason) for the current position; advances it and sets `ref`."""
        i = self.position
        self.position += 1
        if i in self.forced:
            self.ref = SCRIPTED
            return True, self.forced[i], f"forced at {self.kind} decision #{i}"
        if i < len(self.choices):
            self.ref = self.refs[i] if self.refs is not None else SCRIPTED
            reason = self.reasons[i] if self.reasons is not None else f"recorded {self.kind} decision #{i}"
            return True, self.choices[i], reason
        return False, None, ""

    def _handover(self) -> None:
        self.ref = self.then.ref

    def before_decision(self, recorder: Any, subq: str | None, doc_id: str | None = None) -> None:
        """Pass the engine's briefing on: a `then` policy that reads the run (the LLM policy)
        must have seen the replayed prefix by the time it takes over."""
        hook = getattr(self.then, "before_decision", None)
        if hook is not None:
            hook(recorder, subq, doc_id)


class ScriptedStop(_Script):
    def __init__(self, choices: list[str], then: Any, forced: dict[int, str] | None = None,
                 refs: list[PolicyRef] | None = None, reasons: list[str] | None = None) -> None:
        super().__init__("stop", choices, forced, then, refs, reasons)

    def decide_stop(self, s: StopSignals) -> Choice:
        scripted, value, reason = self._next()
        if not scripted:
            self._handover()
            return self.then.decide_stop(s)
        if value not in ("continue", "stop"):
            raise ScriptDivergence(self.kind, self.position - 1, value, ["continue", "stop"])
        return Choice(value, reason)


class ScriptedAngle(_Script):
    def __init__(self, choices: list[str], then: Any, forced: dict[int, str] | None = None,
                 refs: list[PolicyRef] | None = None, reasons: list[str] | None = None) -> None:
        """Choices are recorded queries (strings), so a replay matches by content, not position."""
        super().__init__("angle", choices, forced, then, refs, reasons)

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
        read_refs: list[PolicyRef] | None = None,
        read_reasons: list[str] | None = None,
        keep_refs: list[PolicyRef] | None = None,
        keep_reasons: list[str] | None = None,
    ) -> None:
        super().__init__("read", reads, forced_reads, then, read_refs, read_reasons)
        self.keeps = _Script("keep", keeps, forced_keeps, then, keep_refs, keep_reasons)

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
        # The engine reads one `ref` for read and keep decisions: this object's.
        self.ref = self.keeps.ref
        if not scripted:
            self._handover()
            return self.then.choose_keep(candidates, limit)
        valid = [c.sid for c in candidates]
        if any(v not in valid for v in value):
            raise ScriptDivergence("keep", self.keeps.position - 1, value, valid)
        return Choice(list(value), reason)


class ScriptedFollow(_Script):
    def __init__(self, choices: list[list[str]], then: Any, forced: dict[int, list[str]] | None = None,
                 refs: list[PolicyRef] | None = None, reasons: list[str] | None = None) -> None:
        """Choices are the followed names (a list per decision), matched by content, not position."""
        super().__init__("follow", choices, forced, then, refs, reasons)

    def choose_follow(self, state: FollowState, candidates: list[FollowCandidate]) -> Choice:
        scripted, value, reason = self._next()
        if not scripted:
            self._handover()
            return self.then.choose_follow(state, candidates)
        options = [list(c.names) for c in candidates]
        if list(value) not in options:
            raise ScriptDivergence(self.kind, self.position - 1, value, options)
        return Choice(options.index(list(value)), reason)
