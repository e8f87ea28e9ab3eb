"""The run header: line 1 of every run file, holding everything needed to re-run it.

`schema_version` lives here and only here. Newer versions are refused with a clear
message; older ones are migrated on read (see `SCHEMA_CHANGES`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SCHEMA_VERSION = 7
SCHEMA_CHANGES: dict[int, str] = {
    1: "First version: header line, typed events, text blobs, run_meta trailer.",
    2: "Header `spec.corpus_cutoff` (so a run replays without its corpus); `spec.branch` is set by "
       "`citeloop replay --branch` and gains `decision_type`; its `forced_choice` holds the value the "
       "branch decision event records as `choice`. v1 files read with `corpus_cutoff` unknown (None).",
    3: "The report states its short answer first: `report.answer` (status, kind, text, the claims that "
       "state it, confidence, reason, candidates). v1 and v2 reports read with `answer` None.",
    4: "Every event tag is its class name in snake_case: `subq_status` -> `subq_status_changed`, "
       "`binding` -> `evidence_bound`, `verdict` -> `verdict_reached`, `rewrite` -> `claim_rewritten`, "
       "`drop` -> `claim_dropped`, `report` -> `report_written` (older files are read with the new tags). "
       "`model_call` loses `attempts` (never kept: retries are transport facts, in `run_meta.model_calls`); "
       "its `sampling` and `constraint`, `run_meta.model_calls` and `.checks`, and the header's "
       "`spec.branch.forced_choice` are typed; chat messages may carry OpenAI-style `tool_calls` and "
       "`tool_call_id` (role `tool`).",
    5: "Hard limits are `hard_limit` events (round, limit, reason), not `stop_decision` events by the "
       "`hard_limit` policy (older files are read that way); a new decision kind, `follow_decision` "
       "(which entity the next hop pursues); sub-questions gain `finds`; read decisions offer the "
       "search's unread hits only.",
    6: "`model_call` gains `option_scores` (a choice decided by whole-option likelihood: every option's "
       "total logprob) and its `constraint` may carry `scoring: sequence`; decision prompts render in "
       "template version 2 (compact) unless a policy asks for 1. v5 files read unchanged.",
    7: "An angle decision's state gains `hops_after` (the longest chain of hops waiting on the hop: "
       "the heuristic searches a hop's own words first when two or more wait). v6 files read with 0.",
}


class NewerSchemaError(ValueError):
    """The file was written by a newer citeloop than this one."""


def content_digest(value: Any) -> str:
    """sha256 of canonical JSON: the project's one content-addressing rule."""
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ComponentRef(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    """Registry name (or `module:attr` path)."""
    version: str
    args: dict[str, Any] = Field(default_factory=dict)
    """Arguments the component was built with."""


class BranchOrigin(BaseModel):
    """Where a counterfactual branch left its parent run.

    The branch run's events before `branch_seq` equal the parent's (apart from `run_id`):
    they were replayed with the parent's recorded decisions and tool responses. The event at
    `branch_seq` is the same decision with `forced_choice`; from there `continuation_policy`
    decides and tools answer live.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    parent_run_id: str
    branch_seq: int
    """Seq of the decision event in the parent that was forced."""
    decision_type: str | None = None
    """`stop_decision`, `angle_decision`, `read_decision` or `keep_decision` (None only in v1 files)."""
    forced_choice: int | list[str] | str
    """The choice forced at `branch_seq`, as the decision event records it: `continue`/`stop`
    (stop), a candidate index (angle), or a list of doc ids (read) or sentence ids (keep)."""
    continuation_policy: str
    """Policy spec that decides after the branch point, e.g. `heuristic` or `stop=naive`."""


class RunSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    question: str
    seed: int
    config: dict[str, Any]
    """The resolved research config."""
    config_digest: str
    planner: ComponentRef
    policies: dict[str, ComponentRef]
    """Policy per decision kind: `stop`, `angle`, `read`."""
    tools: dict[str, ComponentRef]
    verifier: ComponentRef
    prompt_versions: dict[str, str] = Field(default_factory=dict)
    corpus_fingerprint: str
    corpus_source: str
    """`embedded` or the path the corpus was loaded from."""
    corpus_cutoff: str | None = None
    """Latest publication date in the corpus (None: undated corpus, or a v1 file)."""
    packages: dict[str, str]
    """Versions of citeloop and the libraries that shape results."""
    branch: BranchOrigin | None = None
    """Set on runs made by `citeloop replay --branch`: the parent run and the forced decision."""


class RunHeader(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    type: Literal["run_header"] = "run_header"
    schema_version: int = SCHEMA_VERSION
    run_id: str
    spec: RunSpec

    @model_validator(mode="before")
    @classmethod
    def _check_version(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        version = data.get("schema_version", SCHEMA_VERSION)
        if not isinstance(version, int):
            raise ValueError(f"schema_version must be an integer, got {version!r}")
        if version > SCHEMA_VERSION:
            raise NewerSchemaError(
                f"run file has schema_version {version}, but this citeloop reads up to "
                f"{SCHEMA_VERSION}; upgrade citeloop to read it"
            )
        return migrate_header(data)


def migrate_header(data: dict[str, Any]) -> dict[str, Any]:
    """Bring an older header up to SCHEMA_VERSION, one step at a time."""
    version = data.get("schema_version", SCHEMA_VERSION)
    data = dict(data)
    if version < 1:
        raise ValueError(f"schema_version {version} predates citeloop's first format (1)")
    if version == 1:
        # v2 added fields with defaults; spelled out so the file's meaning is explicit:
        # a v1 header does not know its corpus cut-off, nor the kind of a branch decision.
        if isinstance(data.get("spec"), dict):
            spec = dict(data["spec"])
            spec.setdefault("corpus_cutoff", None)
            if isinstance(spec.get("branch"), dict):
                spec["branch"] = {"decision_type": None, **spec["branch"]}
            data["spec"] = spec
        version = 2
    if version == 2:
        # v3 added `Report.answer`, which defaults to None: nothing in the header changes.
        version = 3
    if version == 3:
        # v4 renamed event tags (`events.migrate_event` maps them, keyed on the version as
        # written) and typed fields whose values were already of those types: the header
        # itself is unchanged.
        version = 4
    if version == 4:
        # v5 turned hard-limit stops into `hard_limit` events (`events.migrate_event`) and
        # added fields with defaults: the header itself is unchanged.
        version = 5
    data["schema_version"] = SCHEMA_VERSION
    return data
