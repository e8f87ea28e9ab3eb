"""The `citeloop` console script: one typer app assembled from each layer's commands.

Each layer owns its command module (`trajectories.cli`, `runtime.cli`, ...); this top
layer only mounts them, so no lower layer imports upward. Known user errors print one
specific line to stderr and exit with code 2; nothing is half-written.
"""

from __future__ import annotations

import sys

import click
import typer

from citeloop.eval import eval_cli, loop_cli, view_cli
from citeloop.eval.datasets import DatasetError
from citeloop.eval.loop import LoopError
from citeloop.filters import cli as filters_cli
from citeloop.filters.gold import GoldFileError
from citeloop.runtime import cli as runtime_cli
from citeloop.runtime.config import ConfigError
from citeloop.runtime.corpus import CorpusError
from citeloop.runtime.planner import PlanValidationError, QuestionError
from citeloop.runtime.policies import PolicyError
from citeloop.training import cli as training_cli
from citeloop.training import serve_cli
from citeloop.training import train_cli
from citeloop.trajectories import cli as trajectories_cli
from citeloop.trajectories.runfile import RunFileError

USER_ERRORS = (ConfigError, CorpusError, PlanValidationError, QuestionError, PolicyError, RunFileError,
               DatasetError, filters_cli.FilterError, GoldFileError, LoopError)

app = typer.Typer(add_completion=False, no_args_is_help=True, help="citeloop: research with replayable trajectories.")
trajectories_cli.register(app)
runtime_cli.register(app)
eval_cli.register(app)
filters_cli.register(app)
view_cli.register(app)
loop_cli.register(app)
training_cli.register(app)
serve_cli.register(app)
train_cli.register(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI in-process; returns the exit code (testable without a subprocess)."""
    try:
        # Without standalone mode click returns a command's `typer.Exit` code instead of raising it.
        result = app(args=argv if argv is not None else sys.argv[1:], standalone_mode=False)
    except USER_ERRORS as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        return 1
    return result if isinstance(result, int) else 0


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
