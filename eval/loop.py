"""`citeloop loop`: the whole training cycle in one command, from research to a trained-vs-rules report.

Stages (each timed, each writing under `out/`):

1. **split**: the questions of the configured data sets, split by question (sha256 of the
   normalised text, as every export splits) into training and evaluation questions;
2. **research**: every training question in each configured environment (policy, seed,
   config overrides) -> `runs/`;
3. **filter**: the quality gates of a filter config (filters/gates.py) keep the good runs
   and a share of failure-and-recovery runs;
4. **pairs**: the kept runs' decisions branched and scored (gold recall + answer where the
   data set has gold, minus search and read costs), giving step-level preference pairs ->
   `pairs/` (a TRL DPO dataset) and, when a stage is SFT, best-of-K rows -> `best-of-k/`;
5. **train**: one train config (configs/train/*.yaml) or several in order, from the base model
   (prepared first when missing), each stage from the model the one before wrote: an `sft`
   stage trains on the best-of-K rows, a `dpo` stage on the pairs -> `model/` (merged HF
   folder, summary.json, loss.png; earlier stages in `stage-N-KIND/`);
6. **serve + eval**: the trained model served by vLLM (or the transformers server); the
   evaluation questions researched by the rule policies and by `llm:<kind>=<endpoint>` with
   the same budget, each data set over its own corpus and with its own settings;
7. **report** (eval/loop_report.py): `report.json`, `report.md` and `report.png`, with the
   trained policy's paired differences from the heuristic and their 95 % bootstrap intervals.

Nothing from the evaluation questions reaches training; the report says how many of each.
With `calibration_share`, a hashed share of the training questions gives no training rows: their
runs only fit the calibrated thresholds (stage 6), out of the model's sample.
Every data set, training or evaluation, is researched over its own corpus (2Wiki's beside the
HotpotQA+MuSiQue corpus); a training run is branched over the corpus its header names.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citeloop.eval.bench_runtime import kit_for
from citeloop.eval.datasets import EvalSet, load_eval_set
from citeloop.eval.harness import PolicyRun, run_eval
from citeloop.eval.loop_config import LoopConfig, LoopError, claim_out_dir
from citeloop.eval.loop_report import write_report
from citeloop.filters.cli import score_files
from citeloop.filters.gates import load_filter_config, select
from citeloop.filters.gold import GoldEntry, GoldSet, question_key
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.policies.actions import DEFERRAL_KINDS
from citeloop.runtime.policies.llm import SCORING_OPTION
from citeloop.runtime.session import ResearchKit, run_research, share_kit
from citeloop.training.hfdata import PAIR_COLUMNS, pairs_card, sft_card, write_dataset
from citeloop.training.outcomes import OutcomeSettings
from citeloop.training.pairs import ExportError, emit_pairs, roll_decisions
from citeloop.training.sft import split_of
from citeloop.trajectories.runfile import read_run


def _research_config(eval_set: EvalSet, *layers: dict[str, Any]) -> ResearchConfig:
    """A data set's own settings (2wiki: its read budget), then each layer of section overrides
    in order (the loop's research config, an environment's)."""
    merged: dict[str, Any] = {}
    for dotted, value in eval_set.config_overrides.items():
        section, _, key = dotted.partition(".")
        merged.setdefault(section, {})[key] = value
    for layer in layers:
        for section, values in json.loads(json.dumps(layer)).items():
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
    stages: list[tuple[Path, Any]] = []
    if not reuse_model:  # (--reuse-model evaluates the run in `out` again, e.g. with another serve engine)
        stages = train_stage_configs(config)  # a wrong train or filter config fails before any work
        if config.filter is not None:
            load_filter_config(config.filter)
        claim_out_dir(config, out)  # a variant never replaces another config's run
    out.mkdir(parents=True, exist_ok=True)
    clock = _Clock(log)
    train_sets, eval_sets = split_sets(config)
    n_train = sum(len(s.questions) for s in train_sets)
    n_eval = sum(len(s.questions) for s in eval_sets)
    log(f"[loop] {n_train} training and {n_eval} evaluation questions")
    clock.lap("split")
    kits = _set_kits([*train_sets, *eval_sets], ResearchKit.load())  # one kit per corpus, for every stage
    if reuse_model:
        trained, summary, counts = _reused(config, out)
    else:
        trained, summary, counts = _train_stages(config, stages, out, kits, train_sets, clock, log)
    evaluation, captured, calibration = _evaluate(config, out, kits, train_sets, eval_sets, clock)
    oracle = _oracle(config, out, kits, eval_sets, evaluation) if config.eval.oracle else None
    if oracle is not None:
        clock.lap("oracle")
    return write_report(config, out, evaluation, captured, trained, summary, clock.timings,
                        {"train": n_train, "eval": n_eval, **counts}, oracle, calibration)


def _reused(config: LoopConfig, out: Path) -> tuple[Any, dict[str, Any], dict[str, int]]:
    from citeloop.training.trainers import read_summary

    if not (out / "model" / "summary.json").is_file() or not (out / "pairs" / "export.json").is_file():
        raise LoopError(f"--reuse-model: {out} holds no trained model and pairs from an earlier loop run")
    summary = json.loads((out / "pairs" / "export.json").read_text(encoding="utf-8"))
    earlier = out / "report.json"
    if earlier.is_file():
        counts = json.loads(earlier.read_text(encoding="utf-8"))["questions"]
        return read_summary(out / "model"), summary, {"runs": counts.get("runs", 0), "kept": counts.get("kept", 0)}
    # The earlier run stopped before its report (e.g. after training): count its runs again.
    paths = sorted((out / "runs").rglob("*.jsonl"))
    return read_summary(out / "model"), summary, {"runs": len(paths), "kept": len(_kept(config, paths))}


def train_stage_configs(config: LoopConfig) -> list[tuple[Path, Any]]:
    """Each train stage's config file and its config (with the loop's train_overrides), checked:
    at least one, each sft or dpo."""
    from citeloop.training.train_config import load_train_config

    paths = config.train if isinstance(config.train, list) else [config.train]
    if not paths:
        raise LoopError("train: name at least one train config")
    stages = [(path, load_train_config(path, dict(config.train_overrides))) for path in paths]
    for path, tc in stages:
        if tc.kind not in ("sft", "dpo"):
            raise LoopError(f"train: {path} is a {tc.kind} config; the loop trains sft (best-of-K rows) and dpo "
                            "(pairs) stages; run GRPO with `citeloop train grpo`")
    return stages


def _train_stages(config: LoopConfig, stages: list[tuple[Path, Any]], out: Path, set_kits: dict[str, ResearchKit],
                  train_sets: list[EvalSet], clock: _Clock, log: Log) -> tuple[Any, dict[str, Any], dict[str, int]]:
    """Research, filter, pairs (and best-of-K rows), (prepare), train every stage; returns the
    last stage's training summary, the pairs summary and run counts."""
    from citeloop.training.base_model import build_tiny_model, prepare_base_model
    from citeloop.training.best_of_k import BEST_OF_K_COLUMNS, best_of_k_rows, repeat_changed
    from citeloop.training.train_config import load_train_config
    from citeloop.training.trainers import train

    runs_dir = out / "runs"
    paths = []
    for env in config.environments:
        for s in train_sets:
            rc = _research_config(s, config.research_config, env.config)
            for q in s.questions:
                _, path = run_research(q.question, set_kits[s.corpus.fingerprint], rc, policy_spec=env.policy,
                                       seed=env.seed,
                                       out_dir=runs_dir / f"{env.policy}-s{env.seed}")
                paths.append(path)
    clock.lap("research")

    kept = _kept(config, paths)
    log(f"[loop] kept {len(kept)} of {len(paths)} runs")
    if config.calibration_share:
        kept, held = calibration_split(kept, config.calibration_share)
        log(f"[loop] {len(held)} of them are of calibration questions: they fit thresholds, not the model")
    clock.lap("filter")

    # Every training question trains: the held-out questions are the evaluation set, so the
    # datasets get no test split of their own (the same hash would only pick evaluation questions).
    p = config.pairs
    train_kit, settings = _rollout_kit(config, train_sets, set_kits)
    try:
        rolled = roll_decisions(kept, p.decision, p.alternatives, settings, kit=train_kit, per_kind=p.per_kind,
                                engine=p.engine, read_options=p.read_options)
    except ExportError as exc:
        raise LoopError(f"pairs: {exc}") from exc
    pairs = emit_pairs(rolled, p.min_margin, 0.0, p.use_gold, settings)
    summary = pairs.summary(f"citeloop loop --config ({config.name})", 0.0, "gold recall, else filters score")
    write_dataset(out / "pairs", pairs.rows, PAIR_COLUMNS, pairs_card(summary), summary, overwrite=True)
    log(f"[loop] {len(pairs.all_rows())} pairs")
    data = {"dpo": out / "pairs"}
    if any(tc.kind == "sft" for _, tc in stages):
        best = repeat_changed(best_of_k_rows(rolled, 0.0), p.change_repeat)
        best_rows = [r for rows in best.rows.values() for r in rows]
        best_summary = best.summary(f"citeloop loop --config ({config.name}): best-of-K", 0.0)
        write_dataset(out / "best-of-k", best.rows, BEST_OF_K_COLUMNS, sft_card(best_summary), best_summary,
                      overwrite=True)
        summary["best_of_k"] = {"rows": best_summary["rows"], "counts": best_summary["counts"],
                                "changed": sum(1 for r in best_rows if not r["best_is_recorded"]),
                                "change_repeat": p.change_repeat}
        changed = summary["best_of_k"]["changed"]
        log(f"[loop] {len(best_rows)} best-of-K rows ({changed} change the action)" if p.change_repeat == 1 else
            f"[loop] {len(best_rows)} best-of-K rows ({changed // p.change_repeat} change the action, each written "
            f"{p.change_repeat} times)")
        data["sft"] = out / "best-of-k"
        if not best_rows:
            raise LoopError(f"no best-of-K rows from {len(kept)} kept runs; add environments")
    if any(tc.kind == "dpo" for _, tc in stages) and not pairs.all_rows():
        raise LoopError(f"no preference pairs from {len(kept)} kept runs; add environments or lower the margin")
    clock.lap("pairs")

    if not (config.base_model / "config.json").is_file():
        if config.prepare == "none":
            raise LoopError(f"base model {config.base_model} is missing and prepare is none")
        (prepare_base_model if config.prepare == "smollm2" else build_tiny_model)(config.base_model)
        clock.lap("prepare")

    def step_line(step: int, total: int, logs: dict[str, float]) -> None:
        loss = logs.get("loss")
        log(f"[loop] train step {step}/{total}" + (f" loss {loss:.4f}" if loss is not None else ""))

    model, trained, summaries = config.base_model, None, []
    for i, (path, tc) in enumerate(stages, start=1):
        output = out / "model" if i == len(stages) else out / f"stage-{i}-{tc.kind}"
        stage = load_train_config(path, {**config.train_overrides, "model": str(model), "dataset": str(data[tc.kind]),
                                         "output": str(output), "overwrite": True})
        log(f"[loop] train stage {i}/{len(stages)}: {tc.kind} from {model}")
        trained = train(stage, on_step=step_line)
        summaries.append(trained.model_dump(mode="json") if hasattr(trained, "model_dump") else trained)
        model = output
        clock.lap("train" if len(stages) == 1 else f"train-{i}-{tc.kind}")
    summary["stages"] = summaries
    return trained, summary, {"runs": len(paths), "kept": len(kept)}


def _kept(config: LoopConfig, paths: list[Path]) -> list[Path]:
    """The runs the filter config keeps (all of them without one)."""
    if config.filter is None:
        return paths
    filter_config = load_filter_config(config.filter)
    decisions = select(score_files(paths, filter_config.scoring), filter_config)
    return [d.path for d in decisions if d.kept and d.path is not None]


def is_calibration_question(question: str, share: float) -> bool:
    """Is `question` one of the `share` of training questions kept for fitting thresholds? By a
    hash of the normalised question salted apart from the train/evaluation split's."""
    digest = hashlib.sha256(("calibration:" + question_key(question)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def calibration_split(paths: list[Path], share: float) -> tuple[list[Path], list[Path]]:
    """(runs that train the model, runs of calibration questions that only fit its thresholds)."""
    fit: list[Path] = []
    held: list[Path] = []
    for path in paths:
        (held if is_calibration_question(read_run(path).header.spec.question, share) else fit).append(path)
    return fit, held


def _set_kits(sets: list[EvalSet], kit: ResearchKit) -> dict[str, ResearchKit]:
    """Corpus fingerprint -> the research kit of each set's corpus (`kit` for the embedded one),
    one index built per corpus however many sets share it."""
    kits: dict[str, ResearchKit] = {}
    for s in sets:
        if s.corpus.fingerprint not in kits:
            kits[s.corpus.fingerprint] = kit_for(s, kit)
    return kits


def _rollout_kit(config: LoopConfig, train_sets: list[EvalSet],
                 set_kits: dict[str, ResearchKit]) -> tuple[ResearchKit | None, OutcomeSettings]:
    """The kit the training runs are branched over and the outcome settings they are scored with.
    Training sets on one corpus: that corpus's kit. On several (e.g. 2Wiki's own corpus beside
    HotpotQA and MuSiQue's): no one kit; each run branches over the corpus its header names, every
    set's kit shared in this process first, so rollouts (and the workers forked for them) reuse
    the loaded indexes instead of building them again."""
    gold = gold_of(train_sets) if config.pairs.use_gold else None
    used = {s.corpus.fingerprint: set_kits[s.corpus.fingerprint] for s in train_sets if s.questions}
    if len(used) <= 1:
        train_kit = next(iter(used.values()), None)  # None: no training question, nothing to branch
        corpus = None if train_kit is None or train_kit.corpus.source == "embedded" else train_kit.corpus.source
        return train_kit, OutcomeSettings(search_cost=config.pairs.search_cost, corpus=corpus, gold=gold)
    for set_kit in used.values():
        share_kit(None if set_kit.corpus.source == "embedded" else set_kit.corpus.source, set_kit)
    return None, OutcomeSettings(search_cost=config.pairs.search_cost, corpus=None, gold=gold)


def _calibrations(config: LoopConfig, out: Path, set_kits: dict[str, ResearchKit], train_sets: list[EvalSet],
                  endpoint: str, clock: _Clock) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """The thresholds `calibrate_stop` and `calibrate_choice` ask for, fitted on the kept training
    runs (eval/loop_calibration.py), as endpoint options per trained kind, and their figures."""
    from citeloop.eval.loop_calibration import CalibrationError, calibrate_choice, calibrate_stop

    kinds = [k for k in config.eval.trained_kinds
             if (k == "stop" and config.eval.calibrate_stop) or (k in DEFERRAL_KINDS and config.eval.calibrate_choice)]
    if not kinds:
        return {}, {}
    train_kit, settings = _rollout_kit(config, train_sets, set_kits)
    kept = _kept(config, sorted((out / "runs").rglob("*.jsonl")))
    if config.calibration_share:
        kept = calibration_split(kept, config.calibration_share)[1]
    options: dict[str, str] = {}
    fitted: dict[str, dict[str, Any]] = {}
    for kind in kinds:
        try:
            c = (calibrate_stop(kept, settings, train_kit, config.pairs.engine, endpoint) if kind == "stop" else
                 calibrate_choice(kind, kept, settings, train_kit, config.pairs.engine, endpoint,
                                  config.pairs.alternatives, config.pairs.read_options))
        except CalibrationError as exc:
            raise LoopError(str(exc)) from exc
        if kind == "stop":
            options[kind] = f"&stop_margin={c['threshold']}"
            clock.log(f"[loop] stop threshold {c['threshold']:.3f} fitted on {c['decisions']} training decisions "
                      f"(training score {c['teacher']['score']} -> {c['fitted']['score']})")
        else:
            options[kind] = f"&defer_margin={c['threshold']}"
            clock.log(f"[loop] {kind} deferral threshold {c['threshold']:.3f} fitted on {c['decisions']} training "
                      f"decisions (training score {c['teacher']['score']} -> {c['fitted']['score']}, "
                      f"{c['fitted']['changed']} decisions changed)")
        fitted[kind] = c
    clock.lap("calibrate")
    return options, fitted


def _evaluate(config: LoopConfig, out: Path, set_kits: dict[str, ResearchKit], train_sets: list[EvalSet],
              eval_sets: list[EvalSet],
              clock: _Clock) -> tuple[dict[str, Any], dict[str, list[list[Any]]], dict[str, dict[str, Any]]]:
    """Serve the trained model; (with `calibrate_stop` / `calibrate_choice`, fit its thresholds on
    the training runs;) the baselines and the trained policy on the evaluation questions, each set over its
    own corpus and settings."""
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
        # Choices by whole-option likelihood on either server (vLLM's constrained decoding would
        # pick the likeliest first token: issue 24); read and keep sets keep their regex.
        options, calibration = _calibrations(config, out, set_kits, train_sets, server.endpoint, clock)
        spec = "llm:" + ",".join(f"{kind}={server.endpoint}{SCORING_OPTION}{options.get(kind, '')}"
                                 for kind in config.eval.trained_kinds)
        runs = [*policies, PolicyRun("trained", "rule", spec)]
        for s in eval_sets:
            if not s.questions:
                continue
            rc = _research_config(s, config.research_config)
            evaluation[s.name] = run_eval(
                s, set_kits[s.corpus.fingerprint], runs, rc, runs_out=out / "eval-runs" / s.name,
                on_run=lambda name, events: captured.setdefault(name, []).append(events))
    clock.lap("eval")
    return evaluation, captured, calibration


def _oracle(config: LoopConfig, out: Path, set_kits: dict[str, ResearchKit], eval_sets: list[EvalSet],
            evaluation: dict[str, Any]) -> dict[str, Any]:
    """The headroom oracles of the trained kinds (stop, follow, read) on the heuristic's evaluation
    runs, and the oracle as a point of the recall-vs-searches chart (stop: the heuristic's recall
    at the oracle's searches). Read is branched with `pairs.read_options`, the options its policy has."""
    from citeloop.training.headroom import measure_headroom

    kinds = [k for k in config.eval.trained_kinds if k in ("stop", "follow", "read")]
    if not kinds or "heuristic" not in config.eval.baselines:
        return {"skipped": "the oracle needs the heuristic baseline and a stop, follow or read kind"}
    per_set: dict[str, Any] = {}
    searches = recall = questions = 0.0
    for s in eval_sets:
        if s.name not in evaluation:
            continue
        paths = sorted((out / "eval-runs" / s.name / "heuristic").glob("*.jsonl"))
        set_kit = set_kits[s.corpus.fingerprint]
        corpus = None if set_kit.corpus.source == "embedded" else set_kit.corpus.source
        result = measure_headroom(paths, gold_of([s]), ",".join(kinds), None, kit=set_kit, corpus=corpus,
                                  settings=OutcomeSettings(), engine="process", read_options=config.pairs.read_options)
        stop, follow = result.stop_oracle(), result.follow_oracle()
        per_set[s.name] = {"stop": stop, "follow": follow, "kinds": result.by_kind()}
        if "read" in kinds:
            per_set[s.name]["read"] = result.all_gold_oracle("read")
        heuristic = evaluation[s.name]["policies"]["heuristic"]
        n = heuristic["questions"]
        questions += n
        searches += heuristic["searches_per_q"] * n - (stop["searches_saved"] if "stop" in kinds else 0)
        recall += (heuristic["retrieved_recall"] or 0.0) * n
    point = ({"searches_per_q": round(searches / questions, 4), "retrieved_recall": round(recall / questions, 4)}
             if questions else None)
    return {"kinds": kinds, "sets": per_set, "point": point}
