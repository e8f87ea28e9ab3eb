"""`citeloop loop --config configs/loop/NAME.yaml`: research, filter, pairs, train, serve, evaluate, report."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

# The loop (research, training, serving) is imported inside the command.


def loop_command(
    config: Path = typer.Option(..., "--config", help="Loop config (configs/loop/*.yaml)."),
    out: Path = typer.Option(None, "--out", help="Output directory (default: the config's `out`)."),
    as_json: bool = typer.Option(False, "--json", help="Print report.json on stdout."),
    reuse_model: bool = typer.Option(False, "--reuse-model", help="Evaluate the model an earlier run left in "
                                     "OUT/model (skip research, pairs and training)."),
    engine: str = typer.Option(None, "--serve-engine", help="Override serve.engine: vllm | hf."),
    settings: list[str] = typer.Option([], "--set", help="KEY=VALUE for a loop config key, dotted for nested "
                                       "(repeat; e.g. pairs.change_repeat=8; give a variant its own --out)."),
    train_set: list[str] = typer.Option([], "--train-set", help="KEY=VALUE for every train stage, as `citeloop "
                                        "train --set` (repeat; e.g. batch_size=16 on a GPU)."),
) -> None:
    """The whole cycle: trained policy vs the rules it started from, on questions it never saw."""
    from citeloop.eval.loop import LoopError, run_loop
    from citeloop.eval.loop_config import load_loop_config
    from citeloop.runtime.registry import parse_settings
    from citeloop.training.train_config import parse_overrides

    loop_config = load_loop_config(config, parse_settings(settings, "--set", LoopError))
    if train_set:
        overrides = {**loop_config.train_overrides, **parse_overrides(train_set, "--train-set")}
        loop_config = loop_config.model_copy(update={"train_overrides": overrides})
    if out is not None:
        loop_config = loop_config.model_copy(update={"out": out})
    if engine is not None:
        if engine not in ("vllm", "hf"):
            raise LoopError(f"--serve-engine {engine!r} is not one of vllm, hf")
        loop_config = loop_config.model_copy(update={"serve": loop_config.serve.model_copy(update={"engine": engine})})
    err = Console(stderr=True)
    report = run_loop(loop_config, log=lambda line: err.print(line, markup=False), reuse_model=reuse_model)
    if as_json:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False, default=str))
        return
    print_report(report)
    Console().print(f"wrote {loop_config.out}/report.json, report.md, report.png")


def print_report(report: dict) -> None:
    """The loop report's policy table and the trained policy's paired differences, as tables."""
    from citeloop.eval.loop_report import interval_text, targets_text

    table = Table("policy", "questions", "gold recall", "all gold", "answer", "searches/q", "reads/q",
                  "fallback rate", "latency s")
    for name, r in report["policies"].items():
        table.add_row(name, str(r["questions"]), str(r["retrieved_recall"]), str(r["all_gold_retrieved"]),
                      str(r["answer_correct"]), str(r["searches_per_q"]), str(r["reads_per_q"]),
                      str(r["fallback_rate"]), str(r["latency_median_s"]))
    Console().print(table)
    diff = Table("set", "gold recall", "all gold", "searches/q", "targets met",
                 title="trained - heuristic (95 % interval)")
    for set_name, c in report["trained_vs_heuristic"].items():
        diff.add_row(set_name, interval_text(c["retrieved_recall"]), interval_text(c["all_gold_retrieved"]),
                     interval_text(c["searches"], 1.0), targets_text(c))
    Console().print(diff)


def register(app: typer.Typer) -> None:
    app.command("loop")(loop_command)
