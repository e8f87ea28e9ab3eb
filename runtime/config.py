"""Research configuration: every budget and threshold the runtime uses, as one pydantic model.

Loaded from YAML (configs/research/*.yaml) or built from defaults. Unknown keys are an
error that names the key and its section, never silently ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeloop.runtime.registry import read_yaml_mapping, set_dotted
from citeloop.runtime.tools import RetryPolicy
from citeloop.runtime.verifier import VerifierConfig
from citeloop.trajectories.errors import ErrorWording, validation_message
from citeloop.trajectories.header import content_digest


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Budget(Section):
    """Two-level budget (seed 4.1): global limits plus a cap per sub-question."""

    max_searches: int = Field(10, ge=1)
    """Searches in the whole run."""
    max_reads: int = Field(12, ge=1)
    """Document reads in the whole run."""
    per_subq_searches: int = Field(3, ge=1)
    """Searches spent on any one sub-question."""
    per_subq_reads: int = Field(5, ge=1)
    max_rounds: int = Field(5, ge=1)
    """Hard cap on loop rounds."""


class StopRule(Section):
    """The three-signal stop rule of seed 4.3."""

    min_rounds: int = Field(2, ge=1)
    decay_eps: float = Field(0.10, ge=0)
    """Gain over the last two rounds at most this share of the initial deficit counts as flat."""
    coverage_target: float = Field(0.85, ge=0, le=1)


class DeadEndRule(Section):
    """Seed 4.4: a sub-question is a dead end only when all three conditions hold."""

    min_angles: int = Field(2, ge=1)
    """Distinct query angles tried."""
    min_relevant_hits: int = Field(1, ge=0)
    """At least this many searches returned a hit that looked relevant."""


class SearchSettings(Section):
    k: int = Field(10, ge=1, le=50)
    """Hits per search."""


class ReadSettings(Section):
    reads_per_search: int = Field(3, ge=1)
    min_hit_relevance: float = Field(0.2, ge=0, le=1)
    """Share of the query's key terms a hit's title+snippet must cover to be worth reading."""
    cards_per_doc: int = Field(3, ge=1)
    min_card_relevance: float = Field(0.25, ge=0, le=1)
    context_sentences: int = Field(1, ge=0)
    """Neighbouring sentences kept on each side of a quote."""
    answer_sentence_bonus: float = Field(0.25, ge=0, le=1)
    """Added to the relevance of a sentence read for the answer hop that can state the answer
    (a date, a number, a place after in/at/near/from/to, or a name next to the relation's
    words), so it becomes a card beside the sentences that only name the subject."""


class LedgerSettings(Section):
    near_duplicate_jaccard: float = Field(0.8, gt=0, le=1)
    """MinHash Jaccard estimate at or above which two documents are mirrors."""
    minhash_permutations: int = Field(64, ge=16)
    shingle_words: int = Field(3, ge=1)


class PlannerSettings(Section):
    max_hops: int = Field(4, ge=1, le=6)
    sources_needed: int = Field(1, ge=1)
    """Independent sources a sub-question needs before it counts as answered."""
    answer_sources_needed: int = Field(1, ge=1)
    """Sources the final hop of a chain (the one that answers the question) needs."""
    expansion_ratio: float = Field(1 / 3, ge=0, le=1)
    """Expansion sub-questions are capped at this share of the original ones (seed 4.2)."""
    single_hop_terms: int = Field(1, ge=0)
    """A question with a named entity and at most this many other content words ("Who directed
    Angel Eyes?", "When was Puneet Sira born?") is planned as one sub-question; a longer one
    reads its entity, then the name that entity's evidence leads to."""


class ExploreSettings(Section):
    epsilon: float = Field(0.2, ge=0, le=1)
    """Probability that the explore policy deviates from the heuristic choice."""


class ResearchConfig(Section):
    budget: Budget = Budget()
    stop: StopRule = StopRule()
    dead_end: DeadEndRule = DeadEndRule()
    search: SearchSettings = SearchSettings()
    read: ReadSettings = ReadSettings()
    ledger: LedgerSettings = LedgerSettings()
    planner: PlannerSettings = PlannerSettings()
    explore: ExploreSettings = ExploreSettings()
    verifier: VerifierConfig = VerifierConfig()
    retry: RetryPolicy = RetryPolicy()

    def digest(self) -> str:
        return content_digest(self.model_dump(mode="json"))


class ConfigError(ValueError):
    """A config file or value is wrong; the message says where and what."""


def load_config(path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> ResearchConfig:
    data: dict[str, Any] = {}
    where = "defaults"
    if path is not None:
        where = str(path)
        data = read_yaml_mapping(path, ConfigError)
    for dotted, value in (overrides or {}).items():
        set_dotted(data, dotted, value, ConfigError)
    if overrides:
        where += f" with {', '.join(overrides)} set"
    try:
        return ResearchConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {validation_message(exc, _WORDING)}") from exc


def _valid_keys(section: str) -> list[str]:
    model: Any = ResearchConfig
    for part in filter(None, section.split(".")):
        field = model.model_fields.get(part)
        if field is None or not isinstance(field.annotation, type) or not issubclass(field.annotation, BaseModel):
            return []
        model = field.annotation
    return sorted(model.model_fields)


_WORDING = ErrorWording(other="{loc}: {msg}", unknown="unknown config key{s} {keys}{place}{valid}",
                        group_unknown=True, top_level="at top level", valid_keys=_valid_keys)
"""One phrase per section of unknown keys (with the valid ones), then one per other error."""
