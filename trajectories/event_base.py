"""The fields every trajectory event has (`BaseEvent`) and the reference to the policy that
took a decision (`PolicyRef`); the event kinds build on these (`citeloop.trajectories.events`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class PolicyRef(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    """Registry name of the policy, e.g. `heuristic`."""
    version: str
    """Version string of the policy implementation."""


class BaseEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    run_id: str
    """Id of the run this event belongs to."""
    seq: int
    """Position in the run: 0, 1, 2, ..."""
    parent_seq: int | None = None
    """The event that caused this one, if any."""
    subq: str | None = None
    """Sub-question this event concerns, if any."""
