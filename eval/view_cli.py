"""`citeloop view`: write one self-contained HTML page for a run, a replay diff or an evaluation.

    citeloop view RUN [--out FILE.html] [--open]
    citeloop view A --diff B [--out FILE.html]
    citeloop view --eval EVAL_JSON [--runs DIR] [--out FILE.html]

The page needs no server and fetches nothing (see `eval.viewer`). Exit codes: 0 written,
2 bad input (one `error: ...` line on stderr, nothing written).
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from citeloop.trajectories.cli import CommandError

if TYPE_CHECKING:
    from citeloop.trajectories.runfile import RunFile

# The page builders are imported inside `view`, so `citeloop --help` does not load them.


def _default_out(source: Path, suffix: str = "") -> Path:
    name = source.name
    for ext in (".jsonl.zst", ".jsonl", ".json"):
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    return source.with_name(f"{name}{suffix}.html")


def _runs_in(directory: Path) -> list[RunFile]:
    from citeloop.eval.viewer import ViewerError
    from citeloop.trajectories.runfile import RunFileError, read_run

    if not directory.is_dir():
        raise ViewerError(f"{directory}: not a directory of run files")
    runs = []
    for path in sorted([*directory.glob("*.jsonl"), *directory.glob("*.jsonl.zst")]):
        try:
            runs.append(read_run(path))
        except RunFileError:
            continue  # not every .jsonl beside an eval is a run file
    return runs


def view(
    run: Path = typer.Argument(None, help="A run file (.jsonl or .jsonl.zst)."),
    diff: Path = typer.Option(None, "--diff", help="A second run of the same question: show the replay diff A -> B."),
    eval_json: Path = typer.Option(None, "--eval", help="An eval.json written by `citeloop eval` (instead of RUN)."),
    runs: Path = typer.Option(None, "--runs", help="With --eval: a directory of run files to embed for drill-down."),
    out: Path = typer.Option(None, "--out", help="The HTML file to write (default: beside the input)."),
    open_page: bool = typer.Option(False, "--open", help="Open the page in the default browser."),
) -> None:
    """Write a static HTML viewer: report with clickable citations, timeline, decisions, events."""
    from citeloop.eval.viewer import ViewerError, diff_page, eval_page, load_eval_json, run_page
    from citeloop.trajectories.diff import DiffError
    from citeloop.trajectories.runfile import RunFileError, read_run

    try:
        if eval_json is not None:
            if run is not None or diff is not None:
                raise ViewerError("--eval shows an evaluation; give either RUN [--diff B] or --eval EVAL_JSON")
            page = eval_page(load_eval_json(eval_json), _runs_in(runs) if runs is not None else [])
            target = out or eval_json.with_name(f"{eval_json.stem}.html")
        elif run is None:
            raise ViewerError("give a run file (citeloop view RUN), two runs (RUN --diff B) or --eval EVAL_JSON")
        elif runs is not None:
            raise ViewerError("--runs goes with --eval")
        elif diff is not None:
            page = diff_page(read_run(run), read_run(diff))
            target = out or _default_out(run, "-diff")
        else:
            page = run_page(read_run(run))
            target = out or _default_out(run)
        if target.suffix.lower() not in (".html", ".htm"):
            raise ViewerError(f"--out {target}: the page is HTML; give a .html file name")
    except (ViewerError, RunFileError, DiffError) as exc:
        raise CommandError(str(exc), 2) from exc
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    typer.echo(f"wrote {target} ({len(page.encode('utf-8')) / 1024:.0f} KiB)")
    if open_page:
        webbrowser.open(target.resolve().as_uri())


def register(app: typer.Typer) -> None:
    app.command("view")(view)
