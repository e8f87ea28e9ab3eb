"""`citeloop schema`: print (or write) the JSON Schema of the run file format."""

from __future__ import annotations

from pathlib import Path

import typer

from trajectories.schema_export import schema_text


def schema(out: Path = typer.Option(None, "--out", help="Write the schema to this file instead of stdout.")) -> None:
    """Print the JSON Schema of run files (header and events)."""
    text = schema_text()
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}")


def register(app: typer.Typer) -> None:
    app.command("schema")(schema)
