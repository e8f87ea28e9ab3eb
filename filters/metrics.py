"""Per-run scores: the scorer registry, `RunScore`, `score_run` and the aggregate over runs.

Scorers are plain callables `(RunView) -> value`, registered by name in `SCORERS`;
`resolve_scorer` takes a name or a `module:attr` path. "Not computed" is None, never 0.
`score_run` computes every registered scorer, the failure-and-recovery signals and the
diagnosis for one run, from a `RunFile` or from a list of events (plus header):

    score = score_run(read_run("runs/run-abc.jsonl"))
    score = score_run(sink.events, header=sink.header)        # an in-memory run

Definitions: filters/citations.py (citation correctness, ALCE, unsupported claims),
filters/intermediate.py (coverage and the per-layer metrics), filters/diagnosis.py.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from citeloop.filters import answers, citations, intermediate
from citeloop.filters.diagnosis import DiagnosisConfig, diagnose
from citeloop.filters.errors import UnknownNameError
from citeloop.filters.judge import CitationJudge, load_object
from citeloop.filters.recovery import failure_modes
from citeloop.filters.view import RunView
from citeloop.trajectories.events import BaseEvent
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.runfile import RunFile

Scorer = Callable[[RunView], Any]

SCORERS: dict[str, Scorer] = {
    # core (seed 001 section 11)
    "citation_correctness": citations.citation_correctness,
    "partial_rate": citations.partial_rate,
    "citation_recall_alce": citations.citation_recall_alce,
    "citation_precision_alce": citations.citation_precision_alce,
    "coverage": answers.question_coverage,
    "plan_coverage": answers.plan_coverage,
    "answer_stated": answers.answer_stated,
    "run_score": answers.run_score,
    "unsupported_claim_rate": citations.unsupported_claim_rate,
    "verdict_counts": citations.verdict_counts,
    # intermediate (seed 11.5)
    "duplicate_rate": intermediate.duplicate_rate,
    "independent_sources_per_claim": intermediate.independent_sources_per_claim,
    "primary_evidence_ratio": intermediate.primary_evidence_ratio,
    "rewrite_rate": intermediate.rewrite_rate,
    "drop_rate": intermediate.drop_rate,
    "conflicts": intermediate.conflicts,
    "disagreements": intermediate.disagreements,
    "searches": intermediate.searches,
    "reads": intermediate.reads,
    "model_calls": intermediate.model_calls,
    "tokens": intermediate.tokens,
    "tool_errors": intermediate.tool_errors,
    "distinct_sources": intermediate.distinct_sources,
    "searches_per_subq": intermediate.searches_per_subq,
    "dead_ends": intermediate.dead_ends,
    "not_found": intermediate.not_found,
}


def resolve_scorer(name: str) -> Scorer:
    """A scorer by registry name or `module:attr` path; unknown names list the valid ones."""
    scorer = load_object(name, SCORERS, "scorer")  # type: ignore[arg-type]
    if not callable(scorer):
        raise UnknownNameError(f"{name!r} is not callable; a scorer is a callable (RunView) -> value")
    return scorer  # type: ignore[return-value]


class ScoreConfig(BaseModel):
    """How runs are scored (section `scoring` of a filter config)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: str = "lexical"
    """Citation judge: a registry name (`lexical`) or a `module:attr` path."""
    at_most_citations: int = Field(3, ge=1)
    """ALCE scores at most this many citations per sentence (its default is 3)."""
    budget_share: float = Field(0.8, ge=0, le=1)
    """Budget used at the last stop decision from which a run counts as `budget_nearly_spent`."""
    diagnosis: DiagnosisConfig = DiagnosisConfig()


class RunScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: str
    question: str
    finished: bool
    """The run has a `run_finished` event (a torn file is scored up to where it stops)."""
    planner: str | None = None
    policy: str | None = None
    judge: str
    # ---------------------------------------------------------------- core
    citation_correctness: float | None
    """Share of cited sentences whose cited evidence entails them (partial counts 0)."""
    partial_rate: float | None
    """Share of cited sentences judged `partial`."""
    citation_recall_alce: float | None
    citation_precision_alce: float | None
    coverage: float | None
    """What the question asks, covered: half for a stated answer, half for `plan_coverage`."""
    plan_coverage: float | None = None
    """Share of the plan's expected claims the report states with bound evidence."""
    answer_stated: bool | None = None
    """The report states a short answer bound to claims it keeps."""
    run_score: float | None = None
    """A gold-free run score (filters/answers.py); nothing ranks by it until its agreement with gold is measured."""
    unsupported_claim_rate: float | None
    """Share of factual assertions without bound evidence."""
    answer_in_report: bool | None = None
    """Whether a gold answer appears in a kept claim; None without a gold answer."""
    answer: str | None = None
    """The short answer the report states, if any."""
    answer_correct: bool | None = None
    """A gold answer or alias stands, as whole words, in the stated answer after normalisation
    (METRICS.md's "answer correct"); None without gold."""
    answer_em: bool | None = None
    """The stated answer equals the gold answer or an alias after normalisation; None without gold."""
    answer_f1: float | None = None
    """Token F1 of the stated answer against the best gold alias; None without gold."""
    verdict_counts: dict[str, int] = Field(default_factory=dict)
    """Judge verdicts over the cited sentences."""
    sentences: int = 0
    cited_sentences: int = 0
    assertion_sentences: int = 0
    unsupported_sentences: int = 0
    invalid_citations: int = 0
    """Citations naming no card of the run."""
    expected_claims: int = 0
    covered_claims: int = 0
    # ---------------------------------------------------------------- intermediate
    duplicate_rate: float | None = None
    independent_sources_per_claim: float | None = None
    primary_evidence_ratio: float | None = None
    rewrite_rate: float | None = None
    drop_rate: float | None = None
    conflicts: int = 0
    disagreements: int | None = None
    searches: int = 0
    reads: int = 0
    model_calls: int | None = None
    tokens: int | None = None
    tool_errors: int = 0
    distinct_sources: int = 0
    searches_per_subq: dict[str, int] = Field(default_factory=dict)
    dead_ends: int = 0
    not_found: int = 0
    # ---------------------------------------------------------------- judgement
    failure_modes: list[str] = Field(default_factory=list)
    """Failure-and-recovery kinds in the run (seed 20.3; see filters/recovery.py)."""
    diagnosis: list[str] = Field(default_factory=list)
    """One message per diagnosis rule that fired, naming the layer to fix (seed 11.4)."""
    diagnosis_codes: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
    """Values of additional scorers asked for by name."""


def _is_number(annotation: Any) -> bool:
    """int, float or bool, optionally with None (`float | None`)."""
    args = getattr(annotation, "__args__", None) if not isinstance(annotation, type) else None
    members = [a for a in (args or (annotation,)) if a is not type(None)]
    return bool(members) and all(a in (int, float, bool) for a in members)


NUMERIC_FIELDS: tuple[str, ...] = tuple(
    name for name, f in RunScore.model_fields.items() if name != "finished" and _is_number(f.annotation))
"""RunScore fields with a number (or None) as value: what gates and aggregates read."""


def answer_in_report(view: RunView, gold: Sequence[str]) -> bool | None:
    """Does a gold answer appear in a kept claim? (The looser, older signal; see `answer_correct`.)"""
    gold_answers = [a for a in map(answers.normalise_answer, gold) if a]
    if not gold_answers or view.report is None:
        return None
    claims = [answers.normalise_answer(c.text) for section in view.report.sections for c in section.claims]
    return any(re.search(rf"\b{re.escape(a)}\b", c) for a in gold_answers for c in claims)


def score_run(run: RunFile | Sequence[BaseEvent], header: RunHeader | None = None, judge: str | CitationJudge | None = None,
              config: ScoreConfig | None = None, gold_answers: str | Sequence[str] | None = None,
              scorers: Sequence[str | Scorer] = ()) -> RunScore:
    """Score one run from its file or its events. `judge` overrides `config.judge`."""
    config = config or ScoreConfig()
    view = RunView.build(run, header=header, judge=judge if judge is not None else config.judge,
                         at_most_citations=config.at_most_citations)
    values = {name: scorer(view) for name, scorer in SCORERS.items()}
    findings = diagnose(values, config.diagnosis)
    spec = view.header.spec if view.header is not None else None
    assertions = citations.assertions(view)
    expected = intermediate.expected_claims(view)
    stated = intermediate.stated_subqs(view)
    extra = {}
    for s in scorers:
        fn = resolve_scorer(s) if isinstance(s, str) else s
        extra[s if isinstance(s, str) else getattr(fn, "__name__", repr(fn))] = fn(view)
    if isinstance(gold_answers, str):
        gold_answers = [gold_answers]
    return RunScore(
        run_id=view.run_id,
        question=view.question,
        finished=view.outcome is not None,
        planner=spec.planner.name if spec else None,
        policy=spec.policies["spec"].name if spec and "spec" in spec.policies else None,
        judge=view.judge.name,
        answer_in_report=answer_in_report(view, gold_answers) if gold_answers else None,
        answer=answers.stated_answer(view),
        **_answer_against_gold(view, gold_answers),
        sentences=len(view.sentences),
        cited_sentences=len(citations.cited(view)),
        assertion_sentences=len(assertions),
        unsupported_sentences=sum(not citations.bound(view, s) for s in assertions),
        invalid_citations=citations.invalid_citations(view),
        expected_claims=len(expected),
        covered_claims=sum(sid in stated for sid, _ in expected),
        failure_modes=failure_modes(view, config.budget_share),
        diagnosis=[str(f) for f in findings],
        diagnosis_codes=[f.code for f in findings],
        extra=extra,
        **values,
    )


def _answer_against_gold(view: RunView, gold: Sequence[str] | None) -> dict[str, Any]:
    match = answers.answer_match(answers.stated_answer(view), gold or [])
    if match is None:
        return {"answer_correct": None, "answer_em": None, "answer_f1": None}
    return {"answer_correct": match.correct, "answer_em": bool(match.em), "answer_f1": round(match.f1, 4)}


# --------------------------------------------------------------------------- aggregate


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def aggregate(scores: Sequence[RunScore]) -> dict[str, Any]:
    """Mean of every numeric metric over the runs that computed it (None-aware)."""
    out: dict[str, Any] = {"runs": len(scores), "metrics": {}}
    for name in NUMERIC_FIELDS:
        present = [float(getattr(s, name)) for s in scores if getattr(s, name) is not None]
        out["metrics"][name] = {"mean": _mean(present), "n": len(present)}
    per_subq = [n for s in scores for n in s.searches_per_subq.values()]
    out["searches_per_subq"] = {"mean": _mean([float(n) for n in per_subq]), "max": max(per_subq, default=None),
                                "histogram": dict(sorted(Counter(per_subq).items()))}
    verdicts: Counter[str] = Counter()
    for s in scores:
        verdicts.update(s.verdict_counts)
    out["verdict_counts"] = dict(sorted(verdicts.items()))
    out["diagnosis"] = dict(Counter(c for s in scores for c in s.diagnosis_codes).most_common())
    out["failure_modes"] = dict(Counter(m for s in scores for m in s.failure_modes).most_common())
    return out
