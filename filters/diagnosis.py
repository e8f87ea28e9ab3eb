"""Diagnosis: seed 001 table 11.4 (with 11.5 and the rules of 11.7) as explicit rules.

Each rule reads a run's metrics, fires on one combination, and names the layer to fix.
"High" and "low" are thresholds in `DiagnosisConfig` (configs/filters/*.yaml, section
`scoring.diagnosis`); the defaults are the seed's numbers where it gives them (11.7:
correctness < .7 low and > .8 high, coverage < .5 low, unsupported < .15 low and > .25
high, duplicates > .4, primary < .2, rewrites > .35) and stated choices where it does not.
A metric that was not computed (None) never satisfies a "high" or "low" test, except
where a rule says so: an empty report (nothing cited, nothing asserted) is the extreme
of "everything is low".

Table 11.4:
| correctness high, coverage low            | stop rule too strict or budget too small  | stop_too_strict
| ... and unsupported low                   | most dangerous: looks complete            | incomplete_but_confident
| coverage high, unsupported high           | no evidence closure in generation         | no_evidence_closure
| all three low                             | retrieval / decomposition, go upstream    | retrieval_irrelevant
| correctness low, unsupported low          | evidence bound to the wrong claims        | misaligned_citations
11.5/11.7 add: duplicate_evidence, no_primary_evidence, rewrite_high, drop_high.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class DiagnosisConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    correctness_high: float = Field(0.8, ge=0, le=1)
    """Citation correctness above this is high (seed 11.7)."""
    correctness_low: float = Field(0.7, ge=0, le=1)
    """Citation correctness below this is low (seed 11.7)."""
    coverage_low: float = Field(0.5, ge=0, le=1)
    """Coverage below this is low (seed 11.7)."""
    coverage_high: float = Field(0.8, ge=0, le=1)
    """Coverage at or above this is high (the seed gives no number; chosen)."""
    unsupported_low: float = Field(0.15, ge=0, le=1)
    """Unsupported-claim rate below this is low (seed 11.7)."""
    unsupported_high: float = Field(0.25, ge=0, le=1)
    """Unsupported-claim rate above this is high (seed 11.7)."""
    duplicate_high: float = Field(0.4, ge=0, le=1)
    """Duplicate rate above this means dedup is failing (seed 11.7)."""
    primary_low: float = Field(0.2, ge=0, le=1)
    """Primary-evidence ratio below this means primary sources are missing (seed 11.7)."""
    rewrite_high: float = Field(0.35, ge=0, le=1)
    """Rewrite rate above this means evidence is weaker than the claims (seed 11.7)."""
    drop_high: float = Field(0.5, ge=0, le=1)
    """Drop rate above this means alignment is too strict or the plan too wide (seed 11.5;
    the seed gives no number; chosen)."""


@dataclass(frozen=True)
class Finding:
    code: str
    layer: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message} -> fix: {self.layer}"


Metrics = Mapping[str, Any]


def _gt(m: Metrics, key: str, bound: float) -> bool:
    return m.get(key) is not None and m[key] > bound


def _lt(m: Metrics, key: str, bound: float) -> bool:
    return m.get(key) is not None and m[key] < bound


def _low_or_none(m: Metrics, key: str, bound: float) -> bool:
    return m.get(key) is None or m[key] < bound


def _stop_too_strict(m: Metrics, c: DiagnosisConfig) -> Finding | None:
    if not (_gt(m, "citation_correctness", c.correctness_high) and _lt(m, "coverage", c.coverage_low)):
        return None
    if _lt(m, "unsupported_claim_rate", c.unsupported_low):
        return Finding("incomplete_but_confident", "runtime stop rule and evidence budget (configs/research: stop, budget)",
                       "clean, well-cited report that leaves planned claims unstated: the most dangerous case, "
                       "a reader may take it as complete")
    return Finding("stop_too_strict", "runtime stop rule and evidence budget (configs/research: stop, budget)",
                   "correct citations but low coverage: the run stopped too early or its budget was too small; "
                   "not a generation problem")


def _no_evidence_closure(m: Metrics, c: DiagnosisConfig) -> Finding | None:
    if not _gt(m, "unsupported_claim_rate", c.unsupported_high):
        return None
    broad = m.get("coverage") is not None and m["coverage"] >= c.coverage_high
    what = "the report covers the plan but much of it is unsupported" if broad else "many assertions carry no evidence"
    return Finding("no_evidence_closure", "generation: claim writer and report (evidence closure)",
                   f"{what}: generation is not closed over the evidence ledger")


def _retrieval_irrelevant(m: Metrics, c: DiagnosisConfig) -> Finding | None:
    if not (_low_or_none(m, "citation_correctness", c.correctness_low) and _lt(m, "coverage", c.coverage_low)
            and _low_or_none(m, "unsupported_claim_rate", c.unsupported_low)):
        return None
    return Finding("retrieval_irrelevant", "retrieval and decomposition: planner, queries, search tools",
                   "correctness, coverage and unsupported claims all low: what was retrieved does not bear on "
                   "the question; go upstream, not to generation")


def _misaligned(m: Metrics, c: DiagnosisConfig) -> Finding | None:
    if not (_lt(m, "citation_correctness", c.correctness_low) and _lt(m, "unsupported_claim_rate", c.unsupported_low)):
        return None
    if _lt(m, "coverage", c.coverage_low):
        return None  # all three low: retrieval_irrelevant
    return Finding("misaligned_citations", "claims: claim-evidence alignment check (verifier, binding)",
                   "claims carry evidence but the evidence does not entail them: add or tighten the alignment check")


def _duplicates(m: Metrics, c: DiagnosisConfig) -> Finding | None:
    if not _gt(m, "duplicate_rate", c.duplicate_high):
        return None
    return Finding("duplicate_evidence", "evidence ledger: deduplication and same-source clustering",
                   "many documents read are copies of sources already held")


def _no_primary(m: Metrics, c: DiagnosisConfig) -> Finding | None:
    if not _lt(m, "primary_evidence_ratio", c.primary_low):
        return None
    return Finding("no_primary_evidence", "evidence ledger and retrieval: primary-source grading and search",
                   "little of the evidence is primary")


def _rewrites(m: Metrics, c: DiagnosisConfig) -> Finding | None:
    if not _gt(m, "rewrite_rate", c.rewrite_high):
        return None
    return Finding("rewrite_high", "evidence: primary evidence for the claims being made",
                   "many claims had to be weakened: the evidence is weaker than the claims")


def _drops(m: Metrics, c: DiagnosisConfig) -> Finding | None:
    if not _gt(m, "drop_rate", c.drop_high):
        return None
    return Finding("drop_high", "verifier strictness or planner breadth",
                   "many drafted claims were dropped: the alignment check is too strict or the plan too wide")


RULES: tuple[Callable[[Metrics, DiagnosisConfig], Finding | None], ...] = (
    _stop_too_strict, _no_evidence_closure, _retrieval_irrelevant, _misaligned,
    _duplicates, _no_primary, _rewrites, _drops,
)
"""The rules in priority order: end-to-end combinations first, then single layers."""

CODES: tuple[str, ...] = ("incomplete_but_confident", "stop_too_strict", "no_evidence_closure",
                          "retrieval_irrelevant", "misaligned_citations", "duplicate_evidence",
                          "no_primary_evidence", "rewrite_high", "drop_high")
"""Every code a finding can carry (what `allowed_diagnoses` may name)."""


def diagnose(metrics: Metrics, config: DiagnosisConfig | None = None) -> list[Finding]:
    """Every rule that fires, in priority order; empty when no layer stands out."""
    config = config or DiagnosisConfig()
    return [f for rule in RULES if (f := rule(metrics, config)) is not None]
