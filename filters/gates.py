"""Quality gates over scored runs, and the selection that keeps failure-and-recovery runs.

A filter config (configs/filters/*.yaml) says which runs are good enough to keep:
bounds on any numeric `RunScore` metric, a required mix of judge verdicts, the diagnoses
a kept run may carry. Seed 001 section 20.3 warns against keeping only successes, so a
share of the runs that failed the gates but contain a failure-and-recovery episode
(`filters.recovery`) is kept too, provided they pass the (looser) recovery gates. Which
ones is decided by the sha256 of the run id: deterministic, and not biased by file order.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from citeloop.filters.diagnosis import CODES
from citeloop.filters.errors import FilterConfigError
from citeloop.filters.metrics import NUMERIC_FIELDS, RunScore, ScoreConfig
from citeloop.filters.recovery import FAILURE_KINDS
from citeloop.trajectories.errors import ErrorWording, validation_message
from citeloop.trajectories.header import content_digest
from citeloop.trajectories.models import Verdict
from citeloop.runtime.registry import read_yaml_mapping


class Bound(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min: float | None = None
    """The value must be at least this."""
    max: float | None = None
    """The value must be at most this."""

    @model_validator(mode="after")
    def _some_bound(self) -> Bound:
        if self.min is None and self.max is None:
            raise ValueError("a gate needs min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self


def _check_metrics(gates: dict[str, Bound]) -> dict[str, Bound]:
    unknown = [k for k in gates if k not in NUMERIC_FIELDS]
    if unknown:
        raise ValueError(f"unknown gate metric {unknown[0]!r}; valid: {', '.join(NUMERIC_FIELDS)}")
    return gates


class RecoveryKeep(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    share: float = Field(0.2, ge=0, le=1)
    """Share to keep of the failure-and-recovery runs (see `share_of`)."""
    share_of: Literal["candidates", "kept"] = "candidates"
    """`candidates`: keep this share of the runs that failed the gates but contain a
    failure-and-recovery episode. `kept`: add such runs until they are this share of all kept runs."""
    kinds: list[Literal["irrelevant_results", "contradictions", "budget_nearly_spent"]] = Field(
        default_factory=lambda: list(FAILURE_KINDS))
    """Failure kinds that make a run a candidate."""
    gates: dict[str, Bound] = Field(default_factory=dict)
    """Gates a failure-and-recovery run must still pass (it may fail, not fabricate)."""

    @field_validator("gates")
    @classmethod
    def _metrics(cls, value: dict[str, Bound]) -> dict[str, Bound]:
        return _check_metrics(value)


class FilterConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    scoring: ScoreConfig = ScoreConfig()
    gates: dict[str, Bound] = Field(default_factory=dict)
    """Bounds on numeric RunScore metrics, e.g. `coverage: {min: 0.5}`."""
    verdicts: dict[Verdict, Bound] = Field(default_factory=dict)
    """Bounds on judge verdict counts over cited sentences, e.g. `entail: {min: 1}`."""
    allowed_diagnoses: list[str] | None = None
    """Diagnosis codes a kept run may carry; None allows any."""
    missing: Literal["fail", "pass"] = "fail"
    """What a gate does with a metric that was not computed (None)."""
    require_finished: bool = True
    """Drop runs without a `run_finished` event (torn files)."""
    recovery: RecoveryKeep = RecoveryKeep()

    @field_validator("gates")
    @classmethod
    def _metrics(cls, value: dict[str, Bound]) -> dict[str, Bound]:
        return _check_metrics(value)

    @field_validator("allowed_diagnoses")
    @classmethod
    def _codes(cls, value: list[str] | None) -> list[str] | None:
        unknown = [c for c in value or [] if c not in CODES]
        if unknown:
            raise ValueError(f"unknown diagnosis code {unknown[0]!r}; valid: {', '.join(CODES)}")
        return value

    def digest(self) -> str:
        return content_digest(self.model_dump(mode="json"))


def load_filter_config(path: str | Path) -> FilterConfig:
    path = Path(path)
    data = read_yaml_mapping(path, FilterConfigError)
    try:
        return FilterConfig.model_validate(data)
    except ValidationError as exc:
        raise FilterConfigError(f"{path}: {validation_message(exc, _WORDING)}") from exc


_WORDING = ErrorWording(unknown="unknown key '{key}'{place}", top_level="at top level")


# --------------------------------------------------------------------------- gates


def _bound_failures(name: str, value: float | None, bound: Bound, missing: str) -> list[str]:
    if value is None:
        return [] if missing == "pass" else [f"{name} not computed (None)"]
    out = []
    if bound.min is not None and value < bound.min:
        out.append(f"{name} {value:g} < min {bound.min:g}")
    if bound.max is not None and value > bound.max:
        out.append(f"{name} {value:g} > max {bound.max:g}")
    return out


def metric_failures(score: RunScore, gates: dict[str, Bound], missing: str = "fail") -> list[str]:
    failures: list[str] = []
    for name, bound in gates.items():
        value = getattr(score, name)
        failures += _bound_failures(name, None if value is None else float(value), bound, missing)
    return failures


def gate_failures(score: RunScore, config: FilterConfig) -> list[str]:
    """Every gate the run fails, as readable reasons; empty when it passes."""
    failures = []
    if config.require_finished and not score.finished:
        failures.append("run not finished (torn file)")
    failures += metric_failures(score, config.gates, config.missing)
    for verdict, bound in config.verdicts.items():
        failures += _bound_failures(f"verdict {verdict}", float(score.verdict_counts.get(verdict, 0)), bound, "fail")
    if config.allowed_diagnoses is not None:
        failures += [f"diagnosis {c} not allowed" for c in score.diagnosis_codes if c not in config.allowed_diagnoses]
    return failures


# --------------------------------------------------------------------------- selection


@dataclass
class Decision:
    score: RunScore
    path: Path | None
    kept: bool
    reason: str
    """Why kept, or why dropped."""
    failed: list[str] = field(default_factory=list)
    """The gates it failed."""


def run_hash(run_id: str) -> str:
    return hashlib.sha256(run_id.encode("utf-8")).hexdigest()


def _recovery_quota(share: float, share_of: str, candidates: int, passed: int, passed_with_failures: int) -> int:
    if share_of == "candidates":
        return math.ceil(share * candidates - 1e-9)
    if share >= 1:
        return candidates
    # Smallest n with (passed_with_failures + n) / (passed + n) >= share.
    return max(0, min(candidates, math.ceil((share * passed - passed_with_failures) / (1 - share) - 1e-9)))


def select(runs: list[tuple[RunScore, Path | None]], config: FilterConfig) -> list[Decision]:
    """Keep runs that pass the gates, plus the configured share of failure-and-recovery runs."""
    decisions: dict[int, Decision] = {}
    candidates: list[int] = []
    passed = passed_with_failures = 0
    kinds = set(config.recovery.kinds)
    for i, (score, path) in enumerate(runs):
        failed = gate_failures(score, config)
        modes = [m for m in score.failure_modes if m in kinds]
        if not failed:
            passed += 1
            passed_with_failures += bool(modes)
            why = "passed all gates" + (f" (contains failure and recovery: {', '.join(modes)})" if modes else "")
            decisions[i] = Decision(score, path, True, why)
            continue
        if modes:
            recovery_failed = metric_failures(score, config.recovery.gates, config.missing)
            if config.require_finished and not score.finished:
                recovery_failed.insert(0, "run not finished (torn file)")
            if not recovery_failed:
                candidates.append(i)
                decisions[i] = Decision(score, path, False, "", failed)
                continue
            decisions[i] = Decision(score, path, False, "failed gates; as a failure-and-recovery run it failed "
                                    + "; ".join(recovery_failed), failed)
            continue
        decisions[i] = Decision(score, path, False, "failed gates", failed)
    quota = _recovery_quota(config.recovery.share, config.recovery.share_of, len(candidates), passed,
                            passed_with_failures)
    ranked = sorted(candidates, key=lambda i: (run_hash(runs[i][0].run_id), i))
    for rank, i in enumerate(ranked):
        d = decisions[i]
        modes = ", ".join(m for m in d.score.failure_modes if m in kinds)
        if rank < quota:
            d.kept = True
            d.reason = (f"failure-and-recovery run ({modes}) kept for its share "
                        f"({quota} of {len(candidates)} candidates, share {config.recovery.share:g} of {config.recovery.share_of})")
        else:
            d.reason = (f"failed gates; failure-and-recovery candidate ({modes}) not selected "
                        f"({quota} of {len(candidates)} kept, by run-id hash)")
    return [decisions[i] for i in range(len(runs))]
