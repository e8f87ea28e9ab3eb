"""`citeloop eval`: policies side by side on a gold data set, or verifier accuracy on claims.

    citeloop eval --dataset hotpotqa --policies heuristic,naive,explore [--limit N] [--out DIR] [--json]
    citeloop eval --dataset hotpotqa --limit 5 --runs-out runs/eval   # keep every run file
    citeloop eval --dataset 2wiki --engine process --workers 2       # runs spread over 2 processes
    citeloop eval --dataset scifact --data DIR  # claim sets default to verifier accuracy
    citeloop eval --task verify --dataset claims.jsonl [--corpus corpus.jsonl] [--split validation]
    citeloop eval --dataset my_questions.jsonl --corpus my_corpus.jsonl
    citeloop gold --dataset hotpotqa --out gold/hotpotqa.jsonl

Writes `eval.json` and a PNG chart into `--out` (default `eval-out/<dataset>`). The runs
themselves are kept only with `--runs-out DIR`: `DIR/POLICY/QUESTION_ID.jsonl`, one per
question per policy (see `citeloop.eval.harness.run_file_name`).

HotpotQA, MuSiQue and 2Wiki ship with citeloop (eval/data/multihop); SciFact and WiCE do
not: pass `--data DIR` (see `citeloop.eval.datasets`). A JSONL file in SciFact's or WiCE's
claim format scores the verifier on its claims, beside the overlap and majority baselines
of the same run with bootstrap intervals of the difference; eval.json keeps every
(claim, document) verdict under `verification.per_claim`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from rich.progress import Progress

    from citeloop.eval.datasets import EvalSet

# Data sets, the research kit, charts (matplotlib) and the verifier are imported inside the
# commands, so `citeloop --help` loads none of them.


DATA_HELP = ("Data directory holding multihop/, scifact/ or wice/ (default: the copy of hotpotqa, musique and "
             "2wiki shipped with citeloop; scifact and wice are not shipped: ../shared/data beside the "
             "repository if present, else give DIR).")


def _runs_out(runs_out: Path | None, task: str) -> Path | None:
    """Check `--runs-out` before anything runs or is written."""
    from citeloop.eval.datasets import DatasetError

    if runs_out is None:
        return None
    if task == "verify":
        raise DatasetError("--runs-out keeps research runs; --task verify makes none (leave --runs-out out)")
    if runs_out.exists() and not runs_out.is_dir():
        raise DatasetError(f"--runs-out {runs_out}: is an existing file, not a directory")
    for parent in runs_out.parents:
        if parent.exists() and not parent.is_dir():
            raise DatasetError(f"--runs-out {runs_out}: {parent} is a file, not a directory")
    return runs_out


def _overrides(eval_set: EvalSet, settings: list[str]) -> dict[str, Any]:
    from citeloop.runtime.config import ConfigError
    from citeloop.runtime.registry import parse_settings

    return {**eval_set.config_overrides, **parse_settings(settings, "--set", ConfigError)}


def _progress(console: Console) -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=True)


def _fmt(value: Any, pct: bool = True) -> str:
    if value is None:
        return "–"
    return f"{value * 100:.1f}" if pct else f"{value:.2f}"


def _research_tables(payload: dict, console: Console) -> None:
    policies = payload["policies"]
    sp = payload["dataset"]["name"] == "hotpotqa"
    table = Table(title=f"{payload['dataset']['name']}: {payload['dataset']['questions']} questions, "
                        f"same budget (max {payload['budget']['max_searches']} searches, "
                        f"{payload['budget']['max_reads']} reads); recall/precision in %")
    columns = ["policy", "retr.R", "cited.R", "cited.P", "all gold", *(["SP F1", "SP EM"] if sp else []),
               "cite corr.", "coverage", "unsupp.", "answer", "ans. P", "ans. EM", "ans. F1", "srch/q", "read/q",
               "wall x"]
    for c in columns:
        table.add_column(c, justify="left" if c == "policy" else "right")
    for name, r in policies.items():
        table.add_row(name, _fmt(r.get("retrieved_recall")), _fmt(r.get("cited_recall")),
                      _fmt(r.get("cited_precision")), _fmt(r.get("all_gold_retrieved")),
                      *([_fmt(r.get("sp_f1")), _fmt(r.get("sp_em"))] if sp else []),
                      _fmt(r.get("citation_correctness")), _fmt(r.get("coverage")),
                      _fmt(r.get("unsupported_claim_rate")), _fmt(r.get("answer_correct")),
                      _fmt(r.get("answer_precision")), _fmt(r.get("answer_em")),
                      _fmt(r.get("answer_f1")),
                      _fmt(r["searches_per_q"], False),
                      _fmt(r["reads_per_q"], False), _fmt(r["wall_ratio"], False))
    base = payload["bm25_baseline"]
    table.add_row(f"BM25 top-{base['k']}", _fmt(base["doc_recall"]), "–", "–", _fmt(base["all_gold"]),
                  *(["–", "–"] if sp else []), "–", "–", "–", "–", "–", "–", "–", "1.00", "–", "–")
    console.print(table)
    types = sorted({t for r in policies.values() for t in r["by_type"]})
    if len(types) > 1:
        by_type = Table(title="all gold evidence retrieved, by question type (%)")
        by_type.add_column("type")
        by_type.add_column("n", justify="right")
        for name in policies:
            by_type.add_column(name, justify="right")
        by_type.add_column(f"BM25 top-{base['k']}", justify="right")
        for t in types:
            first = next(iter(policies.values()))["by_type"].get(t, {})
            by_type.add_row(t, str(first.get("n", "")),
                            *[_fmt(r["by_type"].get(t, {}).get("all_gold_retrieved")) for r in policies.values()],
                            _fmt(base["by_type"].get(t, {}).get("all_gold")))
        console.print(by_type)
    if any("bridge_hop_recall" in r for r in policies.values()):
        hops = Table(title="gold docs read by hop (%): named in question / bridge")
        hops.add_column("type")
        for name in policies:
            hops.add_column(name, justify="right")
        for t in types:
            hops.add_row(t, *[f"{_fmt(r['by_type'].get(t, {}).get('named_hop_recall'))} / "
                              f"{_fmt(r['by_type'].get(t, {}).get('bridge_hop_recall'))}" for r in policies.values()])
        console.print(hops)
    console.print(f"core metrics from: {payload['core_metrics_source']}")


def _verify_table(payload: dict, console: Console) -> None:
    v = payload["verification"]
    table = Table(title=f"{payload['dataset']['name']}: verifier {v['verifier']['name']} on {v['pairs']} "
                        f"(claim, document) pairs of {v['claims']} claims, split {v['split']}")
    for c in ("", "accuracy", "macro-F1", "verifier - this, macro-F1 [95% CI]"):
        table.add_column(c, justify="right" if c else "left")
    table.add_row(v["verifier"]["name"], _fmt(v["accuracy"]), _fmt(v["macro_f1"]), "")
    if "baselines" in v:
        over, maj = v["baselines"]["overlap"], v["baselines"]["majority"]
        for label, base, diff in ((f"overlap baseline (cut-offs {over['cutoffs'][0]:.3f} / {over['cutoffs'][1]:.3f})",
                                   over, v["vs_baselines"]["overlap"]),
                                  (f"majority ({maj['label']})", maj, v["vs_baselines"]["majority"])):
            low, high = diff["ci95_points"]
            table.add_row(label, _fmt(base["accuracy"]), _fmt(base["macro_f1"]),
                          f"{diff['macro_f1_points']:+.1f} [{low:+.1f}, {high:+.1f}]")
    if "partial_as_nei" in v:
        table.add_row("partial -> NEI", _fmt(v["partial_as_nei"]["accuracy"]), _fmt(v["partial_as_nei"]["macro_f1"]), "")
    console.print(table)
    labels = list(v["confusion"])
    conf = Table(title="confusion (rows gold, columns verifier)")
    conf.add_column("gold")
    for lab in labels:
        conf.add_column(lab, justify="right")
    conf.add_column("P / R / F1", justify="right")
    for g in labels:
        pc = v["per_class"][g]
        conf.add_row(g, *[str(v["confusion"][g][p]) for p in labels],
                     f"{_fmt(pc['precision'])} / {_fmt(pc['recall'])} / {_fmt(pc['f1'])}")
    console.print(conf)
    if "checks" in v:
        for name, c in v["checks"].items():
            console.print(f"check {name}: ran {c['ran']}, fired {c['fired']} ({c['fire_rate']:.1%}), "
                          f"fallbacks {c.get('fallbacks', 0)}")
    if "baselines" in v:
        console.print(f"overlap baseline cut-offs tuned on {v['baselines']['overlap']['tuned_on']} "
                      f"({v['baselines']['overlap']['tuned_pairs']} pairs); intervals: paired bootstrap over claims, "
                      f"{v['vs_baselines']['overlap']['resamples']} resamples")


def eval_command(
    dataset: str = typer.Option(..., "--dataset", help="hotpotqa | musique | 2wiki | scifact | wice | PATH to a SciFact or WiCE claim file, or to a "
                                                       "JSONL of {id, question, answer?, gold?: [{doc_id, sentence?}]}"),
    policies: str = typer.Option("heuristic,naive", help="Comma-separated: heuristic, naive, explore, llm:..., "
                                                         "module:attr. naive also uses the naive planner."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N questions (claims)."),
    out: Path = typer.Option(None, "--out", help="Output directory (default eval-out/<dataset>)."),
    as_json: bool = typer.Option(False, "--json", help="Print eval.json on stdout instead of tables."),
    config: Path = typer.Option(None, "--config", help="YAML research config (see configs/research/)."),
    settings: list[str] = typer.Option([], "--set", help="Config override SECTION.KEY=VALUE (repeatable). Order: "
                                                         "--config, then the data set's own settings (2wiki: "
                                                         "budget.max_reads=10), then --set."),
    seed: int = typer.Option(0, help="Seed for exploratory policies."),
    task: str = typer.Option("auto", help="auto | research | verify (claim sets default to verify)."),
    corpus: Path = typer.Option(None, "--corpus", help="Corpus JSONL for a user question file (default: embedded)."),
    data: Path = typer.Option(None, "--data", help=DATA_HELP),
    verifier: str = typer.Option("lexical", help="Verifier for --task verify: lexical, trained:ENDPOINT (the "
                                                   "trained verdict model behind the lexical pre-stage; ENDPOINT "
                                                   "is a YAML or fake:NAME), a registered name or module:attr."),
    split: str = typer.Option("all", help="--task verify: score the claims of one part of the fixed split only: "
                                          "all | tune | validation (see citeloop.eval.verify_baselines)."),
    verifier_config: Path = typer.Option(None, "--verifier-config", help="--task verify: the verifier's cut-offs "
                                                                          "(YAML of VerifierConfig; default "
                                                                          "configs/verify/claims.yaml, tuned on the "
                                                                          "tuning part of SciFact and WiCE)."),
    runs_out: Path = typer.Option(None, "--runs-out", help="Keep every run file the evaluation makes (research task), "
                                                           "one per question per policy, as DIR/POLICY/QUESTION_ID."
                                                           "jsonl (files of the same name are replaced), for "
                                                           "`citeloop show FILE`, `citeloop score DIR/POLICY`, "
                                                           "`citeloop view FILE` or `citeloop view --eval "
                                                           "OUT/eval.json --runs DIR/POLICY`. Default: runs are "
                                                           "scored in memory and not kept."),
    engine: str = typer.Option("serial", "--engine", help="serial | process | ray (research task; RAY_ADDRESS "
                                                          "set: that cluster, else a local instance). The "
                                                          "results are the same whichever engine."),
    workers: int = typer.Option(None, "--workers", min=1, help="Worker processes for --engine process or ray "
                                                               "(default: the CPU count)."),
) -> None:
    """Compare policies on a gold data set (same questions, same budget), or score the verifier."""
    from citeloop.eval.charts import confusion_chart, quality_cost_chart
    from citeloop.eval.datasets import DatasetError, load_eval_set
    from citeloop.eval.harness import bm25_baseline, check_policies, parse_policies, run_eval
    from citeloop.eval.verifier_eval import claims_config, evaluate_verifier, pair_count
    from citeloop.runtime.llm.parts import make_verifier
    from citeloop.runtime.config import load_config
    from citeloop.runtime.index import BM25Index
    from citeloop.runtime.session import ResearchKit
    from citeloop.trajectories.engines import EngineError, check_engine

    if split not in ("all", "tune", "validation"):
        raise DatasetError(f"--split {split!r}: expected all, tune or validation")
    eval_set = load_eval_set(dataset, data, corpus)
    if task == "auto":
        task = eval_set.tasks[0]
    if task not in eval_set.tasks:
        raise DatasetError(f"task {task!r} is not available for {eval_set.name} (available: {', '.join(eval_set.tasks)})")
    runs_out = _runs_out(runs_out, task)
    if task == "verify" and (engine != "serial" or workers is not None):
        raise DatasetError("--engine and --workers spread research runs; --task verify makes none (leave them out)")
    # A bad verifier or config fails before any work.
    checker = make_verifier(verifier, claims_config(verifier_config)) if task == "verify" else None
    eval_set = eval_set.limit(limit)
    out = out or Path("eval-out") / eval_set.name
    err = Console(stderr=True)
    console = Console()
    if not console.is_terminal:  # piped or captured: do not squeeze the tables to 80 columns
        console = Console(width=160)
    payload: dict[str, Any] = {"dataset": {"name": eval_set.name, "level": eval_set.level,
                                           "questions": len(eval_set.questions), "notes": eval_set.notes,
                                           "corpus": eval_set.corpus.source, "documents": len(eval_set.corpus),
                                           "corpus_fingerprint": eval_set.corpus.fingerprint},
                               "task": task, "seed": seed}
    t0 = time.perf_counter()
    if task == "verify":
        with _progress(err) as progress:
            part = None if split == "all" else split
            bar = progress.add_task("verifying", total=pair_count(eval_set, split=part))
            payload["verification"] = evaluate_verifier(eval_set, checker, on_pair=lambda: progress.advance(bar),
                                                        split=part)  # type: ignore[arg-type]
        chart = confusion_chart(payload["verification"]["confusion"], out / "confusion.png",
                                f"{eval_set.name}: {verifier} verifier vs gold")
    else:
        runs = parse_policies(policies)
        cfg = load_config(config, _overrides(eval_set, settings))
        check_policies(runs, cfg, seed)  # before the index and the progress bar: fail fast, write nothing
        try:
            check_engine(engine, workers)
        except EngineError as exc:
            raise DatasetError(str(exc)) from exc
        payload.update({"budget": cfg.budget.model_dump(), "config_digest": cfg.digest(),
                        "config_overrides": _overrides(eval_set, settings)})
        t_index = time.perf_counter()
        index = BM25Index.build(eval_set.corpus)
        kit = ResearchKit(corpus=eval_set.corpus, index=index, index_seconds=time.perf_counter() - t_index)
        payload["dataset"]["index_from_cache"] = index.loaded_from_cache
        with _progress(err) as progress:
            bar = progress.add_task("researching", total=len(eval_set.questions) * len(runs))
            payload.update(run_eval(eval_set, kit, runs, cfg, seed, on_step=lambda: progress.advance(bar),
                                    runs_out=runs_out, engine=engine, workers=workers))
        payload["bm25_baseline"] = bm25_baseline(eval_set, index, k=10)
        chart = quality_cost_chart(payload["policies"], out / "quality_cost.png",
                                   f"{eval_set.name}: gold recall vs searches ({len(eval_set.questions)} questions)",
                                   payload["bm25_baseline"])
    payload["chart"] = str(chart)
    payload["wall_s"] = round(time.perf_counter() - t0, 2)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "eval.json"
    target.write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    (_verify_table if task == "verify" else _research_tables)(payload, console)
    console.print(f"wrote {target} and {chart}")
    if runs_out is not None:
        kept = sum(len(r["per_question"]) for r in payload["policies"].values())
        console.print(f"kept {kept} run files in {runs_out}/POLICY/ (citeloop score {runs_out}/POLICY, "
                      f"citeloop view --eval {target} --runs {runs_out}/POLICY)")


def gold_command(
    dataset: str = typer.Option(..., "--dataset", help="hotpotqa | musique | 2wiki | scifact | wice | PATH (as eval)"),
    out: Path = typer.Option(..., "--out", help="Gold file to write (JSONL: question, level, units, answers)."),
    corpus: Path = typer.Option(None, "--corpus", help="Corpus JSONL for a user question file (default: embedded)."),
    data: Path = typer.Option(None, "--data", help=DATA_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print what was written as JSON."),
) -> None:
    """Write a data set's gold evidence as a gold file, for `citeloop export pairs --gold`.

    Works out of the box for hotpotqa, musique and 2wiki (shipped with citeloop), e.g.
    `citeloop gold --dataset hotpotqa --out gold/hotpotqa.jsonl`."""
    from citeloop.eval.datasets import DatasetError, load_eval_set
    from citeloop.filters.gold import GoldEntry, GoldSet, question_key

    eval_set = load_eval_set(dataset, data, corpus)
    entries = {question_key(q.question): GoldEntry(frozenset(q.gold), eval_set.level,
                                                   tuple(a for a in (q.answer, *q.aliases) if a))
               for q in eval_set.questions if q.gold}
    if not entries:
        raise DatasetError(f"{eval_set.name} has no question with gold evidence units")
    out.parent.mkdir(parents=True, exist_ok=True)
    GoldSet(entries).write(out)
    info = {"dataset": eval_set.name, "questions": len(entries), "level": eval_set.level, "out": str(out)}
    typer.echo(json.dumps(info) if as_json else
               f"wrote {out}: {len(entries)} questions with {eval_set.level}-level gold from {eval_set.name}")


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
    app.command("gold")(gold_command)

