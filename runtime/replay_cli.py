"""`citeloop replay` (check, swap, branch) and `citeloop rescore`.

Exit codes: 0 done (or an exact replay matched), 1 an exact replay diverged, 3 the file checked
is damaged or cut off (only the events before the damage were compared), 2 a request
that cannot be carried out (one `error: ...` line on stderr, nothing written).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from citeloop.trajectories.cli import CommandError

if TYPE_CHECKING:
    from citeloop.runtime.replay import ReplayCheck, ReplayRun

console = Console()


def _print_check(check: ReplayCheck, path: Path) -> None:
    for warning in check.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    if check.damaged and check.divergence is None:
        lost = f"; {check.lines_unread} lines after it were not read" if check.lines_unread else ""
        console.print(f"[red]file damaged[/red]: {check.damaged}{lost}. The {check.events_recorded} events before "
                      f"it match the replay, but the file is not a whole run ({path})")
        return
    if check.ok:
        console.print(f"[green]replay identical[/green]: {check.events_recorded} deterministic events of "
                      f"{check.run_id} ({path})")
        return
    d = check.divergence
    assert d is not None
    where = f"seq {d.seq} ({d.recorded_type} / {d.replayed_type})" if d.seq is not None else "the header"
    console.print(f"[red]replay diverged[/red] at {where}: {d.reason}")
    for key, (before, after) in d.detail.items():
        console.print(f"  {key}: recorded {json.dumps(before, ensure_ascii=False)[:300]}")
        console.print(f"  {key}: replayed {json.dumps(after, ensure_ascii=False)[:300]}")
    for problem in check.header_problems:
        console.print(f"  possible cause: {problem}")


def _print_run(result: ReplayRun, as_json: bool, what: str) -> None:
    if as_json:
        payload = {"run_id": result.header.run_id, "trajectory": str(result.path) if result.path else None,
                   "branch": result.header.spec.branch.model_dump(mode="json") if result.header.spec.branch else None,
                   "tool_calls": {"recorded": result.served, "live": result.live}, "warnings": result.warnings,
                   "diff": result.diff.model_dump(mode="json")}
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    from citeloop.trajectories.diff import render_diff

    for warning in result.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    console.print(f"[bold]{what}[/bold] -> {result.header.run_id}; tool calls: {result.served} from the record, "
                  f"{result.live} live")
    render_diff(result.diff, console)
    if result.path is not None:
        console.print(f"[bold]trajectory:[/bold] {result.path}")


def replay(
    run: Path = typer.Argument(..., help="A run file (.jsonl or .jsonl.zst)."),
    check: bool = typer.Option(False, "--check", help="Re-execute exactly; confirm an identical event stream."),
    swap: str = typer.Option(None, "--swap", help="tools=CONFIG.yaml | policy=NAME | verifier=NAME"),
    branch: int = typer.Option(None, "--branch", help="Seq of a stop/angle/read/keep/follow decision to force."),
    action: str = typer.Option(None, "--action", help="Forced choice: continue|stop, an angle index or query, a "
                                                      "follow index, or comma-separated doc ids (read) / sentence "
                                                      "ids (keep)."),
    then: str = typer.Option(None, "--then", help="Policy after the branch point (default: the run's own)."),
    corpus: Path = typer.Option(None, "--corpus", help="Where the run's corpus is, if not where the header says."),
    out: Path = typer.Option(None, "--out", help="Directory for the new trajectory (swap, branch)."),
    as_json: bool = typer.Option(False, "--json", help="JSON on stdout."),
) -> None:
    """Replay a run: exactly (--check), with one part swapped (--swap), or branched (--branch).

    --check exits 0 when the replay is identical, 1 when it diverges, 3 when the file is
    damaged or cut off (only the events before the damage could be compared).
    """
    from citeloop.runtime.branch import branch_run
    from citeloop.runtime.replay import ReplayError, check_run
    from citeloop.runtime.swap import swap_run
    from citeloop.trajectories.runfile import read_run

    modes = [m for m, on in (("--check", check), ("--swap", swap is not None), ("--branch", branch is not None)) if on]
    if len(modes) != 1:
        raise ReplayError(f"choose exactly one of --check, --swap, --branch (got {', '.join(modes) or 'none'})")
    if branch is None and (action is not None or then is not None):
        raise ReplayError("--action and --then go with --branch")
    loaded = read_run(run)
    if check:
        result = check_run(loaded)
        if as_json:
            typer.echo(result.model_dump_json(indent=2))
        else:
            _print_check(result, run)
        if result.divergence is not None:
            raise CommandError("", 1)  # the report above says why
        if result.damaged:
            raise CommandError("", 3)
        return
    if swap is not None:
        _print_run(swap_run(loaded, swap, out, corpus), as_json, f"swap {swap}")
        return
    if action is None:
        raise ReplayError("--branch needs --action CHOICE")
    _print_run(branch_run(loaded, branch, action, then, out, corpus), as_json, f"branch at seq {branch} -> {action}")


def rescore(
    runs: list[Path] = typer.Argument(..., help="Run files to rescore."),
    scorer: str = typer.Option(..., "--scorer", help="lexical (the one built-in scorer: it runs offline), "
                                                    "trained:ENDPOINT (the trained verdict model behind the lexical "
                                                    "pre-stage), or a module:attr path to a run scorer or verifier. "
                                                    "The judge verifier needs a run: use research --verifier judge."),
    as_json: bool = typer.Option(False, "--json", help="JSON on stdout."),
) -> None:
    """Re-score saved runs offline (no tool calls): verdict counts before/after, claims that changed."""
    from rich.table import Table

    from citeloop.runtime.rescore import resolve_scorer
    from citeloop.trajectories.runfile import read_run

    resolved = resolve_scorer(scorer)
    results = [resolved.rescore(read_run(path)) for path in runs]
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in results], indent=2, ensure_ascii=False))
        return
    for path, r in zip(runs, results):
        console.print(f"[bold]{r.run_id}[/bold] ({path}) scorer {r.scorer}: before {r.before} -> after {r.after}")
        if r.changed:
            table = Table("claim", "before", "after", "reason")
            for c in r.changed:
                table.add_row(c.claim_id, c.before or "-", c.after, c.reason)
            console.print(table)
        else:
            console.print("no verdict changed")


def register(app: typer.Typer) -> None:
    app.command("replay")(replay)
    app.command("rescore")(rescore)
