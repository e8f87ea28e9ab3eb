"""Decision events: what a policy saw, the candidates it chose among, what it chose and why
(stop, angle, read, keep, follow), and the hard limits that stop a run without a decision.
Part of the event union of `citeloop.trajectories.events`, which re-exports them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from citeloop.trajectories.event_base import BaseEvent, PolicyRef
from citeloop.trajectories.models import SearchHit


class AngleState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    round: int
    base_query: str
    tried_queries: list[str]
    deficit: int
    """Evidence sources still needed by this sub-question."""
    dependent: bool = False
    """The query carries an entity found by an earlier hop."""
    hops_after: int = 0
    """The longest chain of hops that wait on this one ("the country where the composer of X
    was a citizen": 2 after the composer's hop)."""


class AngleDecision(BaseEvent):
    type: Literal["angle_decision"] = "angle_decision"
    state: AngleState
    candidates: list[str]
    """Candidate queries, one per angle."""
    angles: list[str]
    """The angle name of each candidate."""
    choice: int
    """Index into candidates."""
    policy: PolicyRef
    reason: str


class ReadState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    hits: list[SearchHit]
    """The hits of the search being read from."""
    already_read: list[str]
    """Doc ids the run has read before."""
    reads_left: int
    """Reads the budget still allows for this sub-question."""
    named: list[str] = Field(default_factory=list)
    """Doc ids of hits whose title names one of the sub-question's entities."""


class ReadDecision(BaseEvent):
    type: Literal["read_decision"] = "read_decision"
    state: ReadState
    candidates: list[str]
    """Doc ids of hits that could be read."""
    choice: list[str]
    """Doc ids chosen to read, in order."""
    policy: PolicyRef
    reason: str


class KeepCandidate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    sid: str
    text: str
    relevance: float


class KeepDecision(BaseEvent):
    type: Literal["keep_decision"] = "keep_decision"
    doc_id: str
    candidates: list[KeepCandidate]
    """Sentences of the document that could become evidence cards."""
    choice: list[str]
    """Sentence ids kept as cards."""
    policy: PolicyRef
    reason: str


class StopSignals(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    round: int
    min_rounds: int
    searches_used: int
    searches_max: int
    reads_used: int
    reads_max: int
    recent_gains: list[int]
    """New independent evidence bound to open sub-questions, per round, most recent last."""
    recent_new_cards: list[int]
    """New evidence cards per round, most recent last."""
    uncovered_terms: list[str]
    """Question terms that no kept evidence mentions yet."""
    initial_deficit: int
    coverage: float
    """Weighted coverage of sub-questions by evidence."""
    coverage_target: float
    open_subqs: list[str]
    """Sub-questions that can still be searched."""
    min_rounds_met: bool
    gain_flat: bool
    coverage_met: bool
    budget_exhausted: bool
    answer_ready: bool = False
    """Every hop the answer is read from (the last hop; each compared option's) is satisfied."""


class StopDecision(BaseEvent):
    type: Literal["stop_decision"] = "stop_decision"
    state: StopSignals
    candidates: list[Literal["continue", "stop"]] = Field(default_factory=lambda: ["continue", "stop"])
    choice: Literal["continue", "stop"]
    policy: PolicyRef
    reason: str


class HardLimit(BaseEvent):
    """The run stops because it must (budget spent, last round, nothing left to search): no
    policy was asked, so this is no decision and never a dataset row. Before schema 5 these
    were `stop_decision` events by the `hard_limit` policy."""

    type: Literal["hard_limit"] = "hard_limit"
    round: int
    limit: Literal["budget", "max_rounds", "nothing_left"]
    reason: str


class FollowCandidate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    names: list[str]
    """The entity (or, for the option that searches the leaders together, entities) the next
    hop follows, best first."""
    quote: str = ""
    """The evidence sentence that names it (empty for the together option)."""
    doc_id: str = ""
    title: str = ""
    """Where that sentence comes from."""
    score: float = 0.0
    """The rule ranking's score (`citeloop.runtime.bridging.rank_bridge_candidates`)."""


class FollowState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    round: int
    hop_question: str
    """The question of the hop that resolved."""
    next_query: str
    """The next hop's query with its slot (`{sq1} director`)."""
    finds: str = ""
    """What the resolved hop looked for ("series"), when the question says."""


class FollowDecision(BaseEvent):
    """Which entity the next hop pursues, once the hop it waits on is satisfied: one of the
    names that hop's evidence mentions (each option fixes the next hop's entity and query),
    or the leaders searched together. The names not followed stay as leads, tried in turn
    should the hop dead-end."""

    type: Literal["follow_decision"] = "follow_decision"
    dep: str
    """The satisfied hop whose evidence names the candidates."""
    state: FollowState
    candidates: list[FollowCandidate]
    choice: int
    """Index into candidates."""
    policy: PolicyRef
    reason: str
