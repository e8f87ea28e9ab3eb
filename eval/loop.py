"""`citeloop loop`: the whole training cycle in one command, from research to a trained-vs-rules report.

Stages (each timed, each writing under `out/`):

1. **split**: the questions of the configured data sets, split by question (sha256 of the
   normalised text, as every export splits) into training and evaluation questions;
2. **research**: every training question in each configured environment (policy, seed,
   config overrides) -> `runs/`;
3. **filter**: the quality gates of a filter config (filters/gates.py) keep the good runs
   and a share of failure-and-recovery runs;
4. **pairs**: step-level preference pairs from the kept runs, outcomes scored by gold recall
   where the data set has gold -> `pairs/` (a TRL DPO dataset);
5. **train**: the train config (configs/train/*.yaml) on those pairs, from the base model
   (prepared first when missing) -> `model/` (merged HF folder, summary.json, loss.png);
6. **serve + eval**: the trained model served by vLLM; the evaluation questions researched
   by the rule policies and by `llm:<kind>=<endpoint>` with the same budget -> `eval.json`;
7. **report**: `report.json`, `report.md` (table) and `report.png` (quality against cost).

Nothing from the evaluation questions reaches training; the report says how many of each.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeloop.eval.charts import quality_cost_chart
from citeloop.eval.datasets import EvalSet, load_eval_set
from citeloop.eval.harness import PolicyRun, run_eval
from citeloop.filters.cli import score_files
from citeloop.filters.gates import load_filter_config, select
from citeloop.filters.gold import GoldEntry, GoldSet, question_key
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.policies.llm import llm_decision_counts
from citeloop.runtime.registry import read_yaml_mapping
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.hfdata import PAIR_COLUMNS, pairs_card, write_dataset
from citeloop.training.pairs import export_pairs
from citeloop.training.sft import split_of
from citeloop.trajectories.errors import ErrorWording, validation_message


class LoopError(ValueError):
    """A loop config or stage that cannot go on; the message says which and why."""


class Environment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    policy: str = "explore"
    seed: int = 0
    config: dict[str, Any] = Field(default_factory=dict)
    """Research config overrides, e.g. {budget: {max_searches: 4}}."""


class PairSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    decision: str = "stop"
    alternatives: int = Field(2, ge=1)
    min_margin: float = Field(0.05, ge=0.0)
    per_kind: int | None = Field(None, ge=1)
    search_cost: float = Field(0.01, ge=0.0)
    use_gold: bool = True
    engine: Literal["serial", "process", "ray"] = "process"


class ServeSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    engine: Literal["vllm", "hf"] = "vllm"
    """vllm: vLLM's OpenAI server (training/serve.py); hf: the small transformers server
    (training/hf_server.py), for machines without vLLM and for CI."""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    python: str | None = None
    """The Python with vLLM installed (default: CITELOOP_VLLM_PYTHON, else this one)."""
    timeout_s: float = Field(600.0, gt=0)


class EvalSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    baselines: list[str] = Field(default_factory=lambda: ["heuristic", "naive"])
    trained_kinds: list[Literal["stop", "angle", "read"]] = Field(default_factory=lambda: ["stop"])
    """Decision kinds the trained model takes; the others stay heuristic."""
    limit: int | None = Field(None, ge=1)
    """At most this many evaluation questions per data set."""


class LoopConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    datasets: list[str] = Field(default_factory=lambda: ["hotpotqa", "musique"])
    eval_datasets: list[str] | None = None
    """The environment-shift case (seed 001 section 20.3): train on every question of
    `datasets`, evaluate on these (e.g. train on two shared sets, evaluate on the third).
    None: each of `datasets` is split by question (`eval_share`)."""
    data: Path | None = None
    eval_share: float = Field(0.3, gt=0.0, lt=1.0)
    limit: int | None = Field(None, ge=1)
    """At most this many questions per data set (before the split)."""
    environments: list[Environment] = Field(default_factory=lambda: [Environment(policy="explore", seed=1),
                                                                     Environment(policy="heuristic")])
    research_config: dict[str, Any] = Field(default_factory=dict)
    """Research config for every run (training and evaluation), before environment overrides."""
    filter: Path | None = Path("configs/filters/default.yaml")
    """Filter config; null keeps every finished run."""
    pairs: PairSettings = Field(default_factory=PairSettings)
    base_model: Path = Path("models/base")
    prepare: Literal["smollm2", "tiny", "none"] = "smollm2"
    """How to make `base_model` when it is missing."""
    train: Path = Path("configs/train/dpo-smollm2.yaml")
    serve: ServeSettings = Field(default_factory=ServeSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)
    out: Path = Path("loop-out")


def load_loop_config(path: Path) -> LoopConfig:
    data = read_yaml_mapping(Path(path), LoopError)
    try:
        return LoopConfig.model_validate(data)
    except ValidationError as exc:
        raise LoopError(f"{path}: {validation_message(exc, ErrorWording(whole='(top)'))}") from exc


def _research_config(base: dict[str, Any], overrides: dict[str, Any]) -> ResearchConfig:
    merged = json.loads(json.dumps(base))
    for section, values in overrides.items():
        if isinstance(values, dict) and isinstance(merged.get(section), dict):
            merged[section].update(values)
        else:
            merged[section] = values
    return ResearchConfig.model_validate(merged)


def split_sets(config: LoopConfig) -> tuple[list[EvalSet], list[EvalSet]]:
    """(training sets, evaluation sets): the same data sets, questions split by hash of the
    question; or, with `eval_datasets`, all of `datasets` for training and those for evaluation.
    A question in both is refused (LoopError): a policy is never evaluated on what it trained on."""
    if config.eval_datasets is not None:
        train_sets = [load_eval_set(name, config.data).limit(config.limit) for name in config.datasets]
        eval_sets = [load_eval_set(name, config.data).limit(config.eval.limit) for name in config.eval_datasets]
        _refuse_shared(train_sets, eval_sets)
        return train_sets, eval_sets
    train_sets, eval_sets = [], []
    for name in config.datasets:
        full = load_eval_set(name, config.data).limit(config.limit)
        held = [q for q in full.questions if split_of(q.question, config.eval_share) == "test"]
        kept = [q for q in full.questions if split_of(q.question, config.eval_share) == "train"]
        train_sets.append(full.model_copy(update={"questions": kept}))
        eval_sets.append(full.model_copy(update={"questions": held}).limit(config.eval.limit))
    _refuse_shared(train_sets, eval_sets)
    return train_sets, eval_sets


def _refuse_shared(train_sets: list[EvalSet], eval_sets: list[EvalSet]) -> None:
    shared = ({question_key(q.question) for s in train_sets for q in s.questions}
              & {question_key(q.question) for s in eval_sets for q in s.questions})
    if shared:
        example = sorted(shared)[0]
        raise LoopError(f"{len(shared)} question(s) are in both the training and the evaluation split, e.g. "
                        f"{example!r}: evaluate on questions the policy never saw")


def gold_of(sets: list[EvalSet]) -> GoldSet:
    return GoldSet({question_key(q.question): GoldEntry(frozenset(q.gold), s.level,
                                                        tuple(a for a in (q.answer, *q.aliases) if a))
                    for s in sets for q in s.questions if q.gold})


def policy_stats(events_by_run: list[list[Any]]) -> dict[str, Any]:
    """Decisions the served model took vs fell back (`llm_decision_counts`), and model-call latency
    (`run_meta.latency_ms` of each `model_call` seq), over one policy's runs."""
    counts: dict[str, int] = {}
    latencies: list[float] = []
    for events in events_by_run:
        for key, n in llm_decision_counts(events).items():
            counts[key] = counts.get(key, 0) + n
        calls = {str(e.seq) for e in events if e.type == "model_call"}
        meta = next((e for e in reversed(events) if e.type == "run_meta"), None)
        if meta is not None:
            latencies += [ms / 1000 for seq, ms in meta.latency_ms.items() if seq in calls]
    latencies.sort()
    decisions = counts.get("decisions", 0)
    return {"llm_decisions": decisions, "model_answers": counts.get("model", 0),
            "fallbacks": counts.get("fallback", 0),
            "fallback_causes": {k[len("fallback_"):]: v for k, v in counts.items() if k.startswith("fallback_")},
            "fallback_rate": round(counts.get("fallback", 0) / decisions, 4) if decisions else None,
            "model_calls": len(latencies),
            "latency_median_s": round(latencies[len(latencies) // 2], 4) if latencies else None,
            "latency_p90_s": round(latencies[int(len(latencies) * 0.9)], 4) if latencies else None}


Log = Callable[[str], Any]


class _Clock:
    """Stage timings for the report."""

    def __init__(self, log: Log) -> None:
        self.log, self.timings, self.last = log, {}, time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.timings[stage] = round(now - self.last, 1)
        self.last = now
        self.log(f"[loop] {stage}: {self.timings[stage]} s")


def run_loop(config: LoopConfig, log: Log = print, reuse_model: bool = False) -> dict[str, Any]:
    """Run every stage (module docstring); returns what `report.json` holds.

    `reuse_model`: skip research, filter, pairs and training, and evaluate the model an earlier
    run of this config left in `out/model` (e.g. served by another engine)."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    clock = _Clock(log)
    train_sets, eval_sets = split_sets(config)
    n_train = sum(len(s.questions) for s in train_sets)
    n_eval = sum(len(s.questions) for s in eval_sets)
    log(f"[loop] {n_train} training and {n_eval} evaluation questions")
    clock.lap("split")
    kit = ResearchKit.load()
    if reuse_model:
        trained, summary, counts = _reused(out)
    else:
        trained, summary, counts = _train_stages(config, out, kit, train_sets, clock, log)
    evaluation, captured = _evaluate(config, out, kit, eval_sets, clock)
    return write_report(config, out, evaluation, captured, trained, summary, clock.timings,
                        {"train": n_train, "eval": n_eval, **counts})


def _reused(out: Path) -> tuple[Any, dict[str, Any], dict[str, int]]:
    from citeloop.training.trainers import read_summary

    if not (out / "model" / "summary.json").is_file() or not (out / "pairs" / "export.json").is_file():
        raise LoopError(f"--reuse-model: {out} holds no trained model and pairs from an earlier loop run")
    summary = json.loads((out / "pairs" / "export.json").read_text(encoding="utf-8"))
    earlier = out / "report.json"
    counts = json.loads(earlier.read_text(encoding="utf-8"))["questions"] if earlier.is_file() else {}
    return read_summary(out / "model"), summary, {"runs": counts.get("runs", 0), "kept": counts.get("kept", 0)}


def _train_stages(config: LoopConfig, out: Path, kit: ResearchKit, train_sets: list[EvalSet], clock: _Clock,
                  log: Log) -> tuple[Any, dict[str, Any], dict[str, int]]:
    """Research, filter, pairs, (prepare), train; returns the training summary, the pairs summary, run counts."""
    from citeloop.training.base_model import build_tiny_model, prepare_base_model
    from citeloop.training.train_config import load_train_config
    from citeloop.training.trainers import train

    runs_dir = out / "runs"
    paths = []
    for env in config.environments:
        rc = _research_config(config.research_config, env.config)
        for s in train_sets:
            for q in s.questions:
                _, path = run_research(q.question, kit, rc, policy_spec=env.policy, seed=env.seed,
                                       out_dir=runs_dir / f"{env.policy}-s{env.seed}")
                paths.append(path)
    clock.lap("research")

    if config.filter is not None:
        filter_config = load_filter_config(config.filter)
        decisions = select(score_files(paths, filter_config.scoring), filter_config)
        kept = [d.path for d in decisions if d.kept and d.path is not None]
    else:
        kept = paths
    log(f"[loop] kept {len(kept)} of {len(paths)} runs")
    clock.lap("filter")

    # Every training question trains: the held-out questions are the evaluation set, so the
    # pairs get no test split of their own (the same hash would only pick evaluation questions).
    p = config.pairs
    pairs = export_pairs(kept, decision=p.decision, alternatives_k=p.alternatives, min_margin=p.min_margin,
                         test_share=0.0, kit=kit, search_cost=p.search_cost,
                         gold=gold_of(train_sets) if p.use_gold else None, per_kind=p.per_kind, engine=p.engine)
    if not pairs.all_rows():
        raise LoopError(f"no preference pairs from {len(kept)} kept runs; add environments or lower the margin")
    summary = pairs.summary(f"citeloop loop --config ({config.name})", 0.0, "gold recall, else filters score")
    write_dataset(out / "pairs", pairs.rows, PAIR_COLUMNS, pairs_card(summary), summary, overwrite=True)
    log(f"[loop] {len(pairs.all_rows())} pairs")
    clock.lap("pairs")

    if not (config.base_model / "config.json").is_file():
        if config.prepare == "none":
            raise LoopError(f"base model {config.base_model} is missing and prepare is none")
        (prepare_base_model if config.prepare == "smollm2" else build_tiny_model)(config.base_model)
        clock.lap("prepare")
    train_config = load_train_config(config.train, {"model": str(config.base_model), "dataset": str(out / "pairs"),
                                                    "output": str(out / "model"), "overwrite": True})

    def step_line(step: int, total: int, logs: dict[str, float]) -> None:
        loss = logs.get("loss")
        log(f"[loop] train step {step}/{total}" + (f" loss {loss:.4f}" if loss is not None else ""))

    trained = train(train_config, on_step=step_line)
    clock.lap("train")
    return trained, summary, {"runs": len(paths), "kept": len(kept)}


def _evaluate(config: LoopConfig, out: Path, kit: ResearchKit, eval_sets: list[EvalSet],
              clock: _Clock) -> tuple[dict[str, Any], dict[str, list[list[Any]]]]:
    """Serve the trained model; the baselines and the trained policy on the evaluation questions."""
    from citeloop.training.hf_server import served_hf
    from citeloop.training.serve import served

    policies = [PolicyRun(name, "naive" if name == "naive" else "rule", name) for name in config.eval.baselines]
    captured: dict[str, list[list[Any]]] = {}
    evaluation: dict[str, Any] = {}
    if config.serve.engine == "hf":
        serving = served_hf(out / "model")
    else:
        serving = served(out / "model", device=config.serve.device, python=config.serve.python,
                         timeout_s=config.serve.timeout_s, log_path=out / "serve.log")
    with serving as server:
        clock.lap("serve")
        spec = "llm:" + ",".join(f"{kind}={server.endpoint}" for kind in config.eval.trained_kinds)
        runs = [*policies, PolicyRun("trained", "rule", spec)]
        rc = _research_config(config.research_config, {})
        for s in eval_sets:
            if not s.questions:
                continue
            evaluation[s.name] = run_eval(
                s, kit, runs, rc, on_run=lambda name, events: captured.setdefault(name, []).append(events))
    clock.lap("eval")
    return evaluation, captured


def write_report(config: LoopConfig, out: Path, evaluation: dict[str, Any], captured: dict[str, list[list[Any]]],
                 trained: Any, pairs_summary: dict[str, Any], timings: dict[str, float],
                 counts: dict[str, int]) -> dict[str, Any]:
    keys = ("retrieved_recall", "cited_recall", "searches_per_q", "reads_per_q", "unsupported_claim_rate",
            "citation_correctness")
    table: dict[str, dict[str, Any]] = {}
    for name in [*config.eval.baselines, "trained"]:
        per_set = [r["policies"][name] for r in evaluation.values() if name in r["policies"]]
        n = sum(p["questions"] for p in per_set)
        row: dict[str, Any] = {"questions": n}
        for k in keys:
            vals = [(p.get(k), p["questions"]) for p in per_set if p.get(k) is not None]
            row[k] = round(sum(v * w for v, w in vals) / sum(w for _, w in vals), 4) if vals else None
        row.update(policy_stats(captured.get(name, [])))
        table[name] = row
    report = {"name": config.name, "questions": counts, "timings_s": timings, "policies": table,
              "pairs": {"rows": pairs_summary["rows"], "counts": pairs_summary["counts"],
                        "gold_agreement": pairs_summary["gold_agreement"]},
              "training": trained.model_dump(mode="json") if hasattr(trained, "model_dump") else trained,
              "evaluation": evaluation}
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    lines = [f"# citeloop loop: {config.name}", "",
             f"{counts['train']} training questions ({counts['runs']} runs, {counts['kept']} kept), "
             f"{counts['eval']} evaluation questions; same budget for every policy.", "",
             "| policy | questions | gold recall (read) | cited recall | searches/q | unsupported | fallback rate "
             "| median latency s |", "|---|---|---|---|---|---|---|---|"]
    for name, r in table.items():
        lines.append(f"| {name} | {r['questions']} | {r['retrieved_recall']} | {r['cited_recall']} | "
                     f"{r['searches_per_q']} | {r['unsupported_claim_rate']} | {r['fallback_rate']} | "
                     f"{r['latency_median_s']} |")
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    quality_cost_chart(table, out / "report.png", f"citeloop loop: {config.name} (evaluation questions)")
    return report
