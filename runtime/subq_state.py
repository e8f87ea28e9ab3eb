"""The state of one sub-question during a run: its status, the query it searches with (its
dependencies' slots filled in), the entities it is about, and what it has spent."""

from __future__ import annotations

from dataclasses import dataclass, field

from citeloop.trajectories.models import SubQuestion


@dataclass
class SubQuestionState:
    sq: SubQuestion
    status: str
    query: str | None
    entities: list[str]
    queries: list[str] = field(default_factory=list)
    angles: list[str] = field(default_factory=list)
    searches: int = 0
    reads: int = 0
    relevant_searches: int = 0
    tool_errors: list[str] = field(default_factory=list)
    leads: list[str] = field(default_factory=list)
    """Bridge candidates not yet followed, best first: when the hop fails with the entity it
    follows, the next one becomes its entity (a new angle within the same budget)."""
