"""`citeloop research --questions FILE --out DIR`: batch research from the command line.

This module owns the batch's side of the command: checking its options before anything
runs, the progress bar (runs done, runs/s, ETA), the summary table or `--json` report, and
the exit code: 0 when every run ran, resumed or was already finished; 1 when any run
failed (each failure is listed with its question id and error line, and the other runs
still finish); bad input (a missing or malformed question file, bad seeds, an unknown
engine or policy) is the usual one `error:` line and exit 2, before anything is written.
The batch itself is `runtime.batch`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table
from rich.text import Text

from citeloop.trajectories.cli import CommandError


class RateColumn(ProgressColumn):
    """Runs per second so far."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("– runs/s" if speed is None else f"{speed:.1f} runs/s")


def run_batch_command(questions: Path, out: Path | None, policies: Sequence[str], seeds: str, planner: str,
                      config: Path | None, corpus: Path | None, engine: str, workers: int | None,
                      as_json: bool) -> None:
    """Check the options, run the batch with a progress bar, print its summary."""
    from citeloop.runtime.batch import BatchError, BatchSettings, parse_seeds, plan_jobs, run_batch
    from citeloop.runtime.config import load_config
    from citeloop.runtime.policies import PolicyError, resolve_policies
    from citeloop.runtime.questions import QuestionFileError, read_questions
    from citeloop.trajectories.engines import EngineError, check_engine

    if out is None:
        raise CommandError("--questions needs --out DIR: the batch writes DIR/POLICY/seedS/QUESTION_ID.jsonl")
    if out.exists() and not out.is_dir():
        raise CommandError(f"--out {out}: is an existing file, not a directory")
    if planner not in ("rule", "naive"):
        raise CommandError(f"--questions runs rule-based research: --planner rule or naive, not {planner!r}")
    try:
        check_engine(engine, workers)
        if engine == "serial" and workers not in (None, 1):
            raise EngineError("--workers goes with --engine process or ray (serial runs one at a time)")
        seed_list = parse_seeds(seeds)
        asked = read_questions(questions)
        cfg = load_config(config)
        for policy in policies:  # a bad policy fails here, before anything is written
            resolve_policies(policy, cfg, seed_list[0])
        jobs = plan_jobs(asked, policies, seed_list, out)
    except (EngineError, BatchError, QuestionFileError, PolicyError) as exc:
        raise CommandError(str(exc)) from exc
    if corpus is not None:
        from citeloop.runtime.corpus import load_corpus

        load_corpus(corpus)  # a bad corpus is bad input (exit 2), not one failure per run
    settings = BatchSettings(config=cfg.model_dump(mode="json"), planner=planner,
                             corpus=None if corpus is None else str(corpus.absolute()))
    err = Console(stderr=True)
    with Progress(TextColumn("researching"), BarColumn(), MofNCompleteColumn(), RateColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=True) as progress:
        bar = progress.add_task("runs", total=len(jobs))
        report = run_batch(jobs, settings, engine, workers, on_done=lambda _: progress.advance(bar))
    summary = report.to_dict()
    summary.update(questions=str(questions), out=str(out), policies=list(policies), seeds=seed_list)
    if as_json:
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        _print_summary(summary, Console())
    if report.failed:
        raise CommandError(f"{len(report.failed)} of {len(jobs)} runs failed (see the summary); the others are in {out}",
                           exit_code=1)


def _print_summary(summary: dict, console: Console) -> None:
    from citeloop.runtime.batch import STATUSES

    table = Table(title=f"batch: {summary['runs']} runs ({len(summary['policies'])} policies x "
                        f"{len(summary['seeds'])} seeds) on {summary['engine']}")
    for column in ("policy", "seed", *STATUSES):
        table.add_column(column, justify="left" if column == "policy" else "right")
    groups: dict[tuple[str, int], dict[str, int]] = {}
    for run in summary["per_run"]:
        counts = groups.setdefault((run["policy"], run["seed"]), dict.fromkeys(STATUSES, 0))
        counts[run["status"]] += 1
    for (policy, seed), counts in groups.items():
        table.add_row(policy, str(seed), *(str(counts[k]) for k in STATUSES))
    console.print(table)
    rate, start = summary["runs_per_s"], summary["start_seconds"]
    started = f" (+ {start:.1f} s starting {summary['engine']})" if start >= 0.05 else ""
    console.print(f"{summary['seconds']:.1f} s{started}, {'–' if rate is None else f'{rate:.2f}'} runs/s, "
                  f"{_plural(summary['worker_processes'], 'worker process', 'es')} on {_plural(summary['nodes'], 'node')}; "
                  f"run files in {summary['out']}")
    for failed in summary["failed"]:
        console.print(f"[red]failed[/red] {failed['qid']} ({failed['policy']}, seed {failed['seed']}): "
                      f"{failed['error']}")


def _plural(n: int, noun: str, suffix: str = "s") -> str:
    return f"{n} {noun}{'' if n == 1 else suffix}"
