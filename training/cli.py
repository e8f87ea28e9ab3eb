"""`citeloop export sft|pairs|rl`: per-decision SFT sets (training/sft.py), step-level preference
pairs from branched runs (training/pairs.py) and RL decision prompts (training/rl.py).

Mounted by eval/cli.py; writes with training/hfdata.py. Known user errors end with one
`error: ...` line and exit code 2.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from citeloop.filters.cli import find_runs
from citeloop.trajectories.cli import CommandError

if TYPE_CHECKING:
    from citeloop.filters.gold import GoldSet

# The exporters (and HF datasets behind them) are imported inside the commands.

export_app = typer.Typer(no_args_is_help=True, help="Training data from trajectories (TRL conversational formats).")

# Options every export command shares.
RUNS = typer.Option(..., "--runs", help="Run files or directories of them (repeat --runs for more).")
DECISION = typer.Option("all", "--decision", help="stop | angle | read | keep | follow | all")
OUT = typer.Option(..., "--out", help="Output directory (dataset/, parquet/, README.md, export.json).")
TEST_SHARE = typer.Option(0.1, "--test-share", help="Share of questions (not rows) put in the test split.")
OVERWRITE = typer.Option(False, "--overwrite", help="Replace a non-empty --out directory.")
AS_JSON = typer.Option(False, "--json", help="Print the export summary as JSON on stdout.")
PER_KIND = typer.Option(None, "--per-kind", help="At most N decisions per kind (recovery states first).")
SEED = typer.Option(0, "--seed", help="Seed of the per-kind sampling order.")


def _command(name: str, runs: list[Path], decision: str, out: Path, test_share: float, *extra: str) -> str:
    """The command line that reproduces an export, for its dataset card."""
    args = [f"--runs {shlex.quote(str(r))}" for r in runs]
    args += [f"--decision {decision}", *extra, f"--out {shlex.quote(str(out))}", f"--test-share {test_share}"]
    return f"citeloop export {name} " + " ".join(args)


@export_app.command("sft")
def sft(
    runs: list[Path] = RUNS,
    decision: str = DECISION,
    out: Path = OUT,
    test_share: float = TEST_SHARE,
    source: str = typer.Option("recorded", "--source", help="recorded (the action each run took) | best-of-k "
                               "(branch each decision, keep the best-scoring action)"),
    gold: Path = typer.Option(None, "--gold", help="best-of-k: gold file, to score branches by gold recall."),
    alternatives: int = typer.Option(3, "--alternatives", help="best-of-k: alternatives branched per decision."),
    per_kind: int = PER_KIND,
    engine: str = typer.Option("process", "--engine", help="best-of-k: serial | process | ray"),
    workers: int = typer.Option(None, "--workers", help="best-of-k: parallel rollout workers."),
    corpus: Path = typer.Option(None, "--corpus", help="best-of-k: the runs' corpus (default: embedded)."),
    overwrite: bool = OVERWRITE,
    as_json: bool = AS_JSON,
) -> None:
    """One SFT row per policy decision: prompt = the state the policy saw, completion = its action
    (or, with --source best-of-k, the action whose branch scored best)."""
    from rich.progress import track

    from citeloop.training.hfdata import SFT_COLUMNS, sft_card
    from citeloop.training.sft import export_sft

    if source not in ("recorded", "best-of-k"):
        raise CommandError(f"--source {source!r} is not one of recorded, best-of-k")
    columns: dict = SFT_COLUMNS
    extra: list[str] = []
    if source == "best-of-k":
        from citeloop.training.best_of_k import BEST_OF_K_COLUMNS

        columns = BEST_OF_K_COLUMNS
        extra = ["--source best-of-k", f"--alternatives {alternatives}", f"--engine {engine}"]
        extra += [f"--gold {shlex.quote(str(gold))}"] if gold else []
        extra += [f"--per-kind {per_kind}"] if per_kind else []

    def export(paths: list[Path]) -> Any:
        if source == "recorded":
            progress = track(paths, description="reading runs", console=Console(stderr=True), disable=as_json)
            return export_sft(progress, decision=decision, test_share=test_share)
        from citeloop.runtime.session import ResearchKit
        from citeloop.training.best_of_k import export_best_of_k
        from citeloop.training.outcomes import OutcomeSettings

        settings = OutcomeSettings(gold=_gold(gold), corpus=str(corpus) if corpus is not None else None)
        return export_best_of_k(paths, decision, alternatives, test_share, settings, kit=ResearchKit.load(corpus),
                                per_kind=per_kind, engine=engine, workers=workers)

    summary = _export_decisions("sft", export, columns, sft_card, runs, decision, out, test_share,
                                overwrite, as_json, extra)
    if summary is None:
        return
    console = Console()
    table = Table("decision", "train", "test")
    for kind, c in summary["counts"].items():
        table.add_row(kind, str(c["train"]), str(c["test"]))
    table.add_row("all", str(summary["rows"]["train"]), str(summary["rows"]["test"]))
    console.print(table)
    console.print(f"{len(summary['runs'])} runs, {summary['duplicates']} duplicate rows dropped, "
                  f"{sum(summary['skipped_decisions'].values())} decisions skipped, "
                  f"{len(summary['skipped_runs'])} unfinished runs skipped")
    for reason, n in summary["skipped_decisions"].items():
        console.print(f"[yellow]skipped {n} decisions:[/yellow] {escape(reason)}", highlight=False)
    for run in summary["skipped_runs"][:3]:
        console.print(f"[yellow]skipped run[/yellow] {escape(run['path'])}: {escape(run['reason'])}", highlight=False)
    console.print(f"[bold]wrote[/bold] {out} (dataset/, parquet/, README.md)")


def _export_decisions(name: str, export: Callable[[list[Path]], Any], columns: dict,
                      card: Callable[[dict], str], runs: list[Path], decision: str, out: Path, test_share: float,
                      overwrite: bool, as_json: bool, extra: Sequence[str] = ()) -> dict | None:
    """What `export sft` and `export rl` share: read the runs with `export`, refuse an export with no
    rows, summarise it with the command that reproduces it, and write it. Returns the summary for the
    command to print, or None when it was printed as JSON (`as_json`)."""
    from citeloop.training.sft import ExportError

    paths = find_runs(runs)
    try:
        result = export(paths)
        if not any(result.rows.values()):
            raise ExportError(f"no {decision} decisions taken by a policy in {len(paths)} run file(s)")
        summary = result.summary(_command(name, runs, decision, out, test_share, *extra), test_share)
    except ExportError as exc:
        raise CommandError(str(exc)) from exc
    if _write(out, result.rows, columns, card(summary), summary, overwrite, as_json):
        return None
    return summary


def _write(out: Path, rows: dict, columns: dict, card: str, summary: dict, overwrite: bool, as_json: bool) -> bool:
    """Write the export (or raise CommandError); with `as_json`, print the summary and return True."""
    from citeloop.training.hfdata import write_dataset

    try:
        write_dataset(out, rows, columns, card, summary, overwrite=overwrite)
    except FileExistsError as exc:
        raise CommandError(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps({**summary, "out": str(out)}, indent=2, ensure_ascii=False))
    return as_json


def _gold(path: Path | None) -> GoldSet | None:
    from citeloop.filters.gold import GoldFileError, GoldSet

    try:
        return GoldSet.read(path) if path is not None else None
    except GoldFileError as exc:
        raise CommandError(str(exc)) from exc


@export_app.command("pairs")
def pairs(
    runs: list[Path] = RUNS,
    decision: str = DECISION,
    alternatives: int = typer.Option(2, "--alternatives", help="Alternative actions branched per decision (K)."),
    min_margin: float = typer.Option(0.05, "--min-margin", help="Least outcome-score margin for a pair (M)."),
    search_cost: float = typer.Option(0.03, "--search-cost", help="Outcome-score cost per search."),
    read_cost: float = typer.Option(0.01, "--read-cost", help="Outcome-score cost per document read."),
    gold: Path = typer.Option(None, "--gold", help="Gold file (`citeloop gold`): score outcomes by gold recall "
                              "where it has the question."),
    per_kind: int = PER_KIND,
    engine: str = typer.Option("process", "--engine", help="serial | process | ray"),
    workers: int = typer.Option(None, "--workers", help="Parallel rollout workers (default: CPU count)."),
    seed: int = SEED,
    out: Path = OUT,
    test_share: float = TEST_SHARE,
    corpus: Path = typer.Option(None, "--corpus", help="The runs' corpus (default: the embedded one)."),
    overwrite: bool = OVERWRITE,
    as_json: bool = AS_JSON,
) -> None:
    """Preference pairs: branch each decision with alternative actions, keep verified wins by a margin."""
    from rich.progress import Progress

    from citeloop.runtime.session import ResearchKit
    from citeloop.training.hfdata import PAIR_COLUMNS, pairs_card
    from citeloop.training.pairs import export_pairs
    from citeloop.training.sft import ExportError

    paths = find_runs(runs)
    gold_set = _gold(gold)
    try:
        kit = ResearchKit.load(corpus)
        with Progress(console=Console(stderr=True), disable=as_json) as progress:
            task = progress.add_task("branching runs", total=len(paths))
            result = export_pairs(paths, decision=decision, alternatives_k=alternatives, min_margin=min_margin,
                                  test_share=test_share, kit=kit, search_cost=search_cost, read_cost=read_cost, gold=gold_set,
                                  corpus=corpus, per_kind=per_kind, engine=engine, workers=workers, seed=seed,
                                  on_run=lambda _: progress.advance(task))
        if not any(result.rows.values()):
            why = (f"; {len(result.errors)} decisions could not be branched, e.g. {result.errors[0]['reason']}"
                   if result.errors else "")
            raise ExportError(f"no pair reached margin {min_margin} with a verified chosen side "
                              f"({sum(result.examined.values())} decisions branched, {result.rollouts} rollouts){why}")
        extra = [f"--alternatives {alternatives}", f"--min-margin {min_margin}", f"--search-cost {search_cost}",
                 f"--read-cost {read_cost}"]
        extra += [f"--gold {shlex.quote(str(gold))}"] if gold else []
        extra += [f"--per-kind {per_kind}", f"--seed {seed}"] if per_kind else []
        score = (f"gold evidence recall of what the branch read + 0.5 x answer correct (where {gold} has the "
                 "question and its answer), else " if gold else "")
        score += (f"the gold-free run score (filters.answers.run_score); minus {search_cost} x searches "
                  f"and {read_cost} x reads (training/outcomes.py)")
        summary = result.summary(_command("pairs", runs, decision, out, test_share, *extra), test_share, score)
    except ExportError as exc:
        raise CommandError(str(exc)) from exc
    if _write(out, result.rows, PAIR_COLUMNS, pairs_card(summary), summary, overwrite, as_json):
        return
    console = Console()
    table = Table("decision", "available", "branched", "train", "test")
    for kind, c in summary["counts"].items():
        table.add_row(kind, str(summary["available"].get(kind, 0)), str(summary["examined"].get(kind, 0)),
                      str(c["train"]), str(c["test"]))
    console.print(table)
    g = summary["gold_agreement"]
    console.print(f"{summary['rollouts']} rollouts in {summary['rollout_seconds']} s ({engine}, "
                  f"{summary['pairs_per_minute']} pairs/min); left out: {summary['left_out'] or 'nothing'}; "
                  f"{len(summary['errors'])} decisions could not be branched")
    for reason, n in Counter(e["reason"] for e in summary["errors"]).most_common(3):
        console.print(f"[yellow]not branched ({n}):[/yellow] {escape(reason)}", highlight=False)
    if g["pairs_with_gold"]:
        console.print(f"gold direction: chosen read more gold evidence in {g['agree']} of {g['pairs_with_gold']} "
                      f"pairs ({g['agreement']:.1%}); {g['tie']} ties, {g['disagree']} against")
    console.print(f"[bold]wrote[/bold] {out} (dataset/, parquet/, README.md)")


@export_app.command("rl")
def rl(
    runs: list[Path] = RUNS,
    decision: str = DECISION,
    per_kind: int = PER_KIND,
    seed: int = SEED,
    out: Path = OUT,
    test_share: float = TEST_SHARE,
    overwrite: bool = OVERWRITE,
    as_json: bool = AS_JSON,
) -> None:
    """Prompt-only decision states for GRPO; score completions with training.rewards.RolloutReward."""
    from citeloop.training.hfdata import RL_COLUMNS, rl_card
    from citeloop.training.rl import export_rl

    def export(paths: list[Path]) -> Any:
        return export_rl(paths, decision=decision, per_kind=per_kind, test_share=test_share, seed=seed)

    extra = [f"--per-kind {per_kind}", f"--seed {seed}"] if per_kind else []
    summary = _export_decisions("rl", export, RL_COLUMNS, rl_card, runs, decision, out, test_share,
                                overwrite, as_json, extra)
    if summary is None:
        return
    console = Console()
    table = Table("decision", "available", "train", "test")
    for kind, c in summary["counts"].items():
        table.add_row(kind, str(summary["available"].get(kind, 0)), str(c["train"]), str(c["test"]))
    console.print(table)
    console.print(f"state tags: {summary['state_tags']['selected']}")
    console.print(f"[bold]wrote[/bold] {out} (dataset/, parquet/, README.md)")


def register(app: typer.Typer) -> None:
    app.add_typer(export_app, name="export")
