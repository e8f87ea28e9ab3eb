"""The evaluation harness: every policy on the same questions, with the same budget, in one run.

For each question and each policy the runtime researches the question with a memory sink;
the harness then scores the run against gold (evidence recall of what was retrieved,
carded and cited; cited-evidence precision; "all gold found"; HotpotQA's supporting-fact
P/R/F1/EM on the cited sentences), next to the core metrics of `citeloop.filters.metrics.score_run`
(citation correctness, coverage, unsupported-claim rate, ALCE citation recall/precision,
whether the gold answer appears in the report) and its diagnosis, and its cost (searches, reads,
model calls, tokens, wall time). A single-shot BM25 baseline (top 10 for the question
alone) is computed directly with the index.

`naive` means seed 003's loop: the naive planner with naive policies. Every other policy
name runs with the rule planner.

The runs go through `trajectories.engines.run_jobs` (serially, in forked processes or on
Ray; `--engine`, `--workers`), with the same results whichever engine. Runs are captured in
memory; with `runs_out` every run is also kept as a run file,
`runs_out/POLICY/QUESTION_ID.jsonl` (`run_file_name`: names made file-safe, deterministic),
so `citeloop show`, `citeloop score runs_out/POLICY` and `citeloop view` open them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeloop.eval.datasets import EvalQuestion, EvalSet, Unit
from citeloop.eval.gold import (gold_precision, gold_recall, run_sentence_units, search_hit_docs, sp_metrics,
                       unit_hits)
from citeloop.filters.metrics import RunScore, score_run
from citeloop.filters.metrics import aggregate as aggregate_scores
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.index import BM25Index
from citeloop.runtime.policies import PolicyError, resolve_policies
from citeloop.runtime.questions import safe_name
from citeloop.runtime.corpus import Corpus
from citeloop.runtime.session import ResearchKit, kit_for, run_research, share_kit
from citeloop.runtime.text import fold_accents
from citeloop.trajectories.engines import check_engine, run_jobs
from citeloop.trajectories.runfile import FileSink, MemorySink

CORE_METRICS = ("citation_correctness", "coverage", "plan_coverage", "unsupported_claim_rate", "partial_rate",
                "citation_recall_alce", "citation_precision_alce", "answer_in_report", "answer_stated",
                "answer_correct", "answer_em", "answer_f1", "run_score")


@dataclass(frozen=True)
class PolicyRun:
    name: str
    """As given on the command line."""
    planner: str
    policy_spec: str


def parse_policies(spec: str) -> list[PolicyRun]:
    """`heuristic,naive,explore,llm:...` -> runs; `naive` also switches the planner."""
    names = [p.strip() for p in spec.split(",") if p.strip()]
    if not names:
        raise PolicyError("give at least one policy, e.g. --policies heuristic,naive")
    if len(set(names)) != len(names):
        raise PolicyError(f"policy listed twice in {spec!r}")
    return [PolicyRun(n, "naive", "naive") if n == "naive" else PolicyRun(n, "rule", n) for n in names]


def check_policies(runs: Sequence[PolicyRun], config: ResearchConfig, seed: int) -> None:
    """Resolve every policy before any run starts: a bad name fails before anything is written."""
    for run in runs:
        resolve_policies(run.policy_spec, config, seed)


# --------------------------------------------------------------------------- kept run files


def run_file_name(policy: str, qid: str) -> Path:
    """Where `runs_out` keeps one policy's run of one question: `POLICY/QUESTION_ID.jsonl`."""
    return Path(safe_name(policy)) / f"{safe_name(qid)}.jsonl"


def keep_run(sink: MemorySink, path: Path) -> None:
    """Write a captured run as a run file, the bytes a `FileSink` would have written."""
    if sink.header is None:
        raise ValueError("the run wrote no header")
    out = FileSink(path)
    try:
        out.write_header(sink.header)
        for event in sink.events:
            out.write(event)
    finally:
        out.close()


# --------------------------------------------------------------------------- core metrics


def core_metrics(score: RunScore) -> dict[str, Any]:
    """The seed's core metrics and the ALCE pair from filters' `RunScore`, beside the gold
    metrics (ALCE's shortcut guard: high evidence recall is no credit when citations do
    not support the sentences, and vice versa)."""
    return {name: getattr(score, name) for name in CORE_METRICS}


# --------------------------------------------------------------------------- per question


def _title_units(units: frozenset[Unit], kit: ResearchKit) -> set[tuple[str, int]]:
    out = set()
    for doc_id, index in units:
        doc = kit.corpus.get(doc_id)
        if doc is not None and index >= 0:
            out.add((doc.title, index))
    return out


def score_question(q: EvalQuestion, events: list, kit: ResearchKit, level: str, sp: bool) -> dict[str, Any]:
    units = run_sentence_units(events)
    gold = frozenset(q.gold)
    row: dict[str, Any] = {
        "retrieved_recall": gold_recall(units.retrieved, gold),
        "carded_recall": gold_recall(units.carded, gold),
        "cited_recall": gold_recall(units.cited, gold),
        "cited_precision": gold_precision(units.cited, gold, level),
        "all_gold_retrieved": (float(unit_hits(units.retrieved, gold) == gold) if gold else None),
        "all_gold_cited": (float(unit_hits(units.cited, gold) == gold) if gold else None),
        "search_hit_recall": (len(q.gold_docs & search_hit_docs(events)) / len(q.gold_docs) if gold else None),
    }
    if sp:
        row.update(sp_metrics(_title_units(units.cited, kit), _title_units(gold, kit)))
    if level == "title" and gold:
        row.update(_hop_recall(q, units.retrieved, kit))
    return row


_PARENS = re.compile(r"\s*\([^()]*\)")


def _hop_recall(q: EvalQuestion, retrieved: frozenset[Unit], kit: ResearchKit) -> dict[str, float | None]:
    """Title-level gold split by hop: documents whose title the question names (the first
    hop) and the rest (bridge entities the run had to discover), each with its read rate."""
    question = fold_accents(q.question).lower()
    read = {d for d, _ in retrieved}
    named, bridge = [], []
    for doc_id in sorted(q.gold_docs):
        doc = kit.corpus.get(doc_id)
        title = fold_accents(_PARENS.sub("", doc.title if doc else "")).lower().strip()
        (named if title and title in question else bridge).append(doc_id in read)
    return {"named_hop_recall": sum(named) / len(named) if named else None,
            "bridge_hop_recall": sum(bridge) / len(bridge) if bridge else None}


def bm25_baseline(eval_set: EvalSet, index: BM25Index, k: int = 10) -> dict[str, Any]:
    """Single-shot retrieval: the question alone, top `k`; gold documents found."""
    rows = []
    for q in eval_set.questions:
        if not q.gold:
            continue
        top = {doc_id for doc_id, _ in index.search(q.question, k)}
        found = len(q.gold_docs & top)
        rows.append({"type": q.type, "doc_recall": found / len(q.gold_docs), "all_gold": float(found == len(q.gold_docs))})
    return {"k": k, "questions": len(rows), "doc_recall": _mean([r["doc_recall"] for r in rows]),
            "all_gold": _mean([r["all_gold"] for r in rows]),
            "by_type": {t: {"n": len(rs), "doc_recall": _mean([r["doc_recall"] for r in rs]),
                            "all_gold": _mean([r["all_gold"] for r in rs])}
                        for t, rs in _group(rows).items()}}


# --------------------------------------------------------------------------- aggregation


def _mean(values: Sequence[float | None]) -> float | None:
    real = [v for v in values if v is not None]
    return round(sum(real) / len(real), 4) if real else None


def _group(rows: list[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["type"] or "all", []).append(r)
    return dict(sorted(groups.items()))


QUALITY = ("retrieved_recall", "carded_recall", "cited_recall", "cited_precision", "all_gold_retrieved",
           "all_gold_cited", "search_hit_recall", "named_hop_recall", "bridge_hop_recall", "sp_em", "sp_f1", "sp_prec",
           "sp_recall", *CORE_METRICS)
COST = ("searches", "reads", "model_calls", "tokens")


def aggregate(rows: list[dict], scores: Sequence[RunScore] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": len(rows)}
    for key in QUALITY:
        if any(key in r for r in rows):
            out[key] = _mean([r.get(key) for r in rows])
    if any(r.get("answer_correct") is not None for r in rows):
        # Of the answers stated where gold has one, the share that is right: a guess costs here.
        out["answer_precision"] = _mean([float(bool(r["answer_correct"])) for r in rows
                                         if r.get("answer_correct") is not None and r.get("answer_stated")])
    for key in COST:
        out[f"{key}_per_q"] = _mean([r[key] for r in rows])
    out["wall_s"] = round(sum(r["wall_s"] for r in rows), 3)
    out["by_type"] = {t: {"n": len(rs), **{k: _mean([r.get(k) for r in rs])
                                           for k in ("retrieved_recall", "cited_recall", "all_gold_retrieved",
                                                     "named_hop_recall", "bridge_hop_recall", "answer_correct",
                                                     "answer_em", "answer_f1")
                                           if any(k in r for r in rs)}}
                      for t, rs in _group(rows).items()}
    if scores:
        summary = aggregate_scores(scores)
        out["diagnosis"] = summary["diagnosis"]
        out["failure_modes"] = summary["failure_modes"]
        out["verdict_counts"] = summary["verdict_counts"]
    return out


# --------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class EvalShared:
    """What every (policy, question) run of an evaluation shares; sent to each worker once."""

    corpus: Corpus
    config: ResearchConfig
    seed: int
    level: str
    sp: bool
    runs_out: str | None
    """Absolute, so a worker with another working directory writes where the caller asked."""
    keep_events: bool
    """Send each run's events back (for `on_run`)."""


@dataclass(frozen=True)
class EvalJob:
    policy: PolicyRun
    question: EvalQuestion


@dataclass(frozen=True)
class EvalOutcome:
    row: dict[str, Any]
    score: RunScore
    events: list | None


def eval_one(shared: EvalShared, job: EvalJob) -> EvalOutcome:
    """Research one question under one policy and score it (a `run_jobs` job)."""
    kit = kit_for(shared.corpus)
    q, run = job.question, job.policy
    sink = MemorySink()
    t0 = time.perf_counter()
    result, _ = run_research(q.question, kit, shared.config, policy_spec=run.policy_spec, seed=shared.seed,
                             out_dir=None, sink=sink, planner=run.planner)
    wall = time.perf_counter() - t0
    counts = result.outcome.counts
    score = score_run(sink.events, header=sink.header, gold_answers=[a for a in (q.answer, *q.aliases) if a] or None)
    row = {
        "qid": q.id, "type": q.type, "run_id": result.run_id, "stop_reason": result.outcome.stop_reason,
        "answer": score.answer, "gold_answer": q.answer,
        **score_question(q, sink.events, kit, shared.level, shared.sp), **core_metrics(score),
        "diagnosis": score.diagnosis_codes,
        "searches": counts.get("searches", 0), "reads": counts.get("reads", 0),
        "model_calls": score.model_calls, "tokens": score.tokens,
        "wall_s": round(wall, 4),
    }
    if shared.runs_out is not None:
        keep_run(sink, Path(shared.runs_out) / run_file_name(run.name, q.id))
    return EvalOutcome(row, score, sink.events if shared.keep_events else None)


def run_eval(eval_set: EvalSet, kit: ResearchKit, policies: Sequence[PolicyRun], config: ResearchConfig,
             seed: int = 0, on_step: Callable[[], None] | None = None,
             on_run: Callable[[str, list], Any] | None = None,
             runs_out: Path | None = None, engine: str = "serial", workers: int | None = None) -> dict[str, Any]:
    """Run every policy over every question of `eval_set`; per-policy aggregates and rows.

    `on_run(policy name, events)` sees each run's events (e.g. to count model fallbacks), in
    policy then question order. `runs_out`: keep every run as `runs_out/POLICY/QUESTION_ID.jsonl`
    (files of the same name are replaced); each row then names its `run_file`. `engine` and
    `workers`: how the runs are spread (`trajectories.engines`); the results are the same
    whichever engine, bar the wall-clock fields (`wall_s`, `wall_ratio`)."""
    check_policies(policies, config, seed)
    check_engine(engine, workers)
    share_kit(kit.corpus, kit)  # serial and forked workers use the caller's kit; Ray workers build their own
    shared = EvalShared(kit.corpus, config, seed, eval_set.level, eval_set.name == "hotpotqa",
                        None if runs_out is None else str(Path(runs_out).absolute()), on_run is not None)
    jobs = [EvalJob(run, q) for run in policies for q in eval_set.questions]
    step = on_step or (lambda: None)
    # Each question's runs side by side (one per policy): they analyse the same pages.
    outcomes = run_jobs(eval_one, jobs, shared, engine, workers, on_done=lambda _, outcome: step(),
                        together=lambda job: job.question.id)
    results: dict[str, Any] = {}
    for i, run in enumerate(policies):
        done = outcomes[i * len(eval_set.questions):(i + 1) * len(eval_set.questions)]
        rows = [o.row for o in done]
        for q, row, o in zip(eval_set.questions, rows, done):
            if runs_out is not None:
                row["run_file"] = str(Path(runs_out) / run_file_name(run.name, q.id))
            if on_run:
                on_run(run.name, o.events)
        results[run.name] = {"planner": run.planner, "policy": run.policy_spec,
                             **aggregate(rows, [o.score for o in done]), "per_question": rows}
    first = results[policies[0].name]["wall_s"] if policies else 0
    for r in results.values():
        r["wall_ratio"] = round(r["wall_s"] / first, 3) if first else None
    out: dict[str, Any] = {"policies": results, "core_metrics_source": "citeloop.filters.metrics.score_run"}
    if runs_out is not None:
        out["runs_out"] = str(runs_out)
    return out
