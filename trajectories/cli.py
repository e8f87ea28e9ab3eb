"""`citeloop schema`: print (or write) the JSON Schema of the run file format.
`citeloop diff A B`: what changed between two runs of one question.
`citeloop store ingest|stats`: the Parquet store over many runs (trajectories.store)."""

from __future__ import annotations

from pathlib import Path

import typer

# Commands import what they use inside their bodies: `citeloop --help` loads none of it.


class CommandError(Exception):
    """Ends a command with one `error: ...` line (if any) and an exit code.

    Commands raise this rather than `typer.Exit`: the in-process `main` (`citeloop.eval.cli`)
    runs the app with `standalone_mode=False`, where click returns an Exit's code instead of
    raising it, so only an exception carries the code out. `main` prints the line.
    """

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


def schema(out: Path = typer.Option(None, "--out", help="Write the schema to this file instead of stdout.")) -> None:
    """Print the JSON Schema of run files (header and events)."""
    from citeloop.trajectories.schema_export import schema_text

    text = schema_text()
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}")


def diff(
    before: Path = typer.Argument(..., help="The first run file."),
    after: Path = typer.Argument(..., help="The second run file (same question)."),
    as_json: bool = typer.Option(False, "--json", help="Print the diff as JSON."),
) -> None:
    """Diff two runs of one question: first divergence, queries, evidence, verdicts, stop point, metrics."""
    from citeloop.trajectories.diff import DiffError, diff_runs, render_diff
    from citeloop.trajectories.runfile import RunFileError, read_run

    try:
        a, b = read_run(before), read_run(after)
        result = diff_runs(a.header, a.events, b.header, b.events)
    except (RunFileError, DiffError) as exc:
        raise CommandError(str(exc)) from exc
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    from rich.console import Console

    render_diff(result, Console())


store_app = typer.Typer(no_args_is_help=True, help="The Parquet store: compact many run files, query them with polars.")


@store_app.command("ingest")
def store_ingest(
    runs: Path = typer.Argument(..., help="A directory of run files (*.jsonl, *.jsonl.zst; searched recursively)."),
    store: Path = typer.Option(..., "--store", help="The store directory (made on first ingest)."),
    validate: bool = typer.Option(False, "--validate", help="Validate every event with pydantic (slower)."),
    as_json: bool = typer.Option(False, "--json", help="Print the ingest report as JSON."),
    workers: int = typer.Option(1, "--workers", min=1, help="Processes that read, decode and write shards of the "
                                                            "files in parallel (one manifest either way)."),
) -> None:
    """Add new and changed run files to the store; unchanged files are skipped."""
    import json

    from citeloop.trajectories.runfile import RunFileError
    from citeloop.trajectories.store import StoreError, ingest  # polars loads only for store commands

    try:
        report = ingest(runs, store, validate=validate, workers=workers)
    except (StoreError, RunFileError) as exc:
        raise CommandError(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
        return
    typer.echo(f"{store}: {report.runs_added} runs added, {report.runs_replaced} replaced "
               f"({report.events:,} events, {report.runs_torn} torn) from {report.files_seen} files; "
               f"{report.files_unchanged} unchanged, {len(report.duplicates)} duplicates, "
               f"{len(report.skipped)} unreadable; {report.seconds:.2f} s"
               + (f" ({report.workers} workers)" if report.workers > 1 else ""))
    for file, reason in report.skipped:
        typer.echo(f"skipped {file}: {reason}", err=True)


@store_app.command("stats")
def store_stats(
    store: Path = typer.Option(..., "--store", help="The store directory."),
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
) -> None:
    """Rows per table, decisions by kind and policy, searches per sub-question, verdicts."""
    import json

    from citeloop.trajectories.store import Store, StoreError
    from citeloop.trajectories.store_queries import render_stats, stats

    try:
        result = stats(Store.open(store))
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    typer.echo(json.dumps(result, indent=2) if as_json else render_stats(result))


def register(app: typer.Typer) -> None:
    app.command("schema")(schema)
    app.command("diff")(diff)
    app.add_typer(store_app, name="store")
