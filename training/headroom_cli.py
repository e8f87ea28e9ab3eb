"""`citeloop headroom RUNS --gold FILE`: which decision kinds a trained policy could improve.

Branches every alternative of the sampled decisions (training/headroom.py) and prints, per
kind, how often some alternative beats the recorded action by the margin, the oracle's
gains, and the state tags where the rules lose; then the stop and follow oracles. `--out DIR`
writes `headroom.json` and a chart (`headroom.png`); `--json` prints the JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from citeloop.filters.cli import find_runs
from citeloop.trajectories.cli import CommandError


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def headroom_command(
    runs: list[Path] = typer.Argument(..., help="Run files or directories of them."),
    gold: Path = typer.Option(..., "--gold", help="Gold file (`citeloop gold --dataset ...`)."),
    decision: str = typer.Option("all", "--decision", help="stop | angle | read | keep | follow | all"),
    per_kind: int = typer.Option(None, "--per-kind", help="At most N decisions per kind (recovery states first)."),
    engine: str = typer.Option("process", "--engine", help="serial | process | ray"),
    workers: int = typer.Option(None, "--workers", help="Parallel rollout workers (default: CPU count)."),
    corpus: Path = typer.Option(None, "--corpus", help="The runs' corpus (default: the embedded one)."),
    search_cost: float = typer.Option(0.03, "--search-cost", help="Outcome-score cost per search."),
    read_cost: float = typer.Option(0.01, "--read-cost", help="Outcome-score cost per document read."),
    margin: float = typer.Option(0.05, "--margin", help="Least outcome-score gain that counts as a win."),
    seed: int = typer.Option(0, "--seed", help="Seed of the per-kind sampling order."),
    out: Path = typer.Option(None, "--out", help="Write headroom.json and headroom.png here."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on stdout."),
) -> None:
    """Branch every alternative of sampled decisions and report, per kind, where the rules lose."""
    from rich.progress import Progress

    from citeloop.filters.gold import GoldFileError, GoldSet
    from citeloop.runtime.session import ResearchKit
    from citeloop.training.headroom import measure_headroom
    from citeloop.training.outcomes import OutcomeSettings
    from citeloop.training.sft import KINDS, ExportError

    if margin < 0 or search_cost < 0 or read_cost < 0:
        raise CommandError("--margin, --search-cost and --read-cost must not be negative")
    paths = find_runs(runs)
    try:
        gold_set = GoldSet.read(gold)
        settings = OutcomeSettings(search_cost=search_cost, read_cost=read_cost,
                                   margins={k: margin for k in KINDS})
        kit = ResearchKit.load(corpus)
        with Progress(console=Console(stderr=True), disable=as_json) as progress:
            task = progress.add_task("branching runs", total=len(paths))
            result = measure_headroom(paths, gold_set, decision, per_kind, kit=kit, corpus=corpus, settings=settings,
                                      engine=engine, workers=workers, seed=seed,
                                      on_run=lambda _: progress.advance(task))
    except (ExportError, GoldFileError) as exc:
        raise CommandError(str(exc)) from exc
    if not result.decisions:
        raise CommandError(f"no {decision} decision in {len(paths)} run file(s) could be branched"
                           + (f": {result.errors[0]['reason']}" if result.errors else ""))
    summary = {**result.summary(), "settings": {"search_cost": search_cost, "read_cost": read_cost, "margin": margin,
                                                "decision": decision, "per_kind": per_kind, "gold": str(gold)}}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "headroom.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        chart(summary, out / "headroom.png")
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    print_summary(summary, Console())
    if out is not None:
        Console().print(f"[bold]wrote[/bold] {out}/headroom.json and headroom.png")


def print_summary(summary: dict[str, Any], console: Console) -> None:
    table = Table("kind", "decisions", "winning", "oracle gain", "recall @ = cost", "searches saved @ = recall",
                  "all-gold gain", "where the rules lose")
    for kind, k in summary["kinds"].items():
        tags = ", ".join(f"{t} {n}" for t, n in list(k["lose_tags"].items())[:3]) or "-"
        table.add_row(kind, str(k["decisions"]), _pct(k["winning_share"]), _num(k["oracle_gain"]),
                      _num(k["recall_at_equal_cost"]), _pct(k["searches_at_equal_recall"]), _pct(k["all_gold_gain"]),
                      tags)
    console.print(table)
    stop, follow = summary["stop_oracle"], summary["follow_oracle"]
    console.print(f"stop oracle: stops {stop['runs_stopped_early']} of {stop['runs']} runs early, saving "
                  f"{stop['searches_saved']} of {stop['searches']} searches ({_pct(stop['share_saved'])}) at equal recall")
    console.print(f"follow oracle: all gold read in {_pct(follow['all_gold_oracle'])} of runs "
                  f"(recorded {_pct(follow['all_gold_recorded'])}, +{follow['gain_points']} points)")
    console.print(f"{summary['rollouts']} rollouts in {summary['rollout_seconds']} s "
                  f"({summary['rollouts_per_minute']} per minute); {summary['error_count']} decisions not branched")


def chart(summary: dict[str, Any], path: Path) -> None:
    """Per kind: the share of decisions with a winning alternative, and the oracle's search saving."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = list(summary["kinds"])
    wins = [100 * (summary["kinds"][k]["winning_share"] or 0) for k in kinds]
    saved = [100 * (summary["kinds"][k]["searches_at_equal_recall"] or 0) for k in kinds]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    xs = range(len(kinds))
    ax.bar([x - 0.2 for x in xs], wins, width=0.4, label="decisions with a winning alternative")
    ax.bar([x + 0.2 for x in xs], saved, width=0.4, label="searches saved at equal recall")
    ax.set_xticks(list(xs), kinds)
    ax.set_ylabel("%")
    ax.set_title("Headroom per decision kind")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def register(app: typer.Typer) -> None:
    app.command("headroom")(headroom_command)
