"""The `citeloop` console script: one typer app assembled from each layer's commands.

Each layer owns its command module (`citeloop.trajectories.cli`, `citeloop.runtime.cli`, ...);
this top layer only mounts them, so no lower layer imports upward. The command modules
import their heavy dependencies inside the commands, so `citeloop --help` starts fast.

Errors: `main` turns every error a user can cause (a usage error, a bad file, a bad config)
into one `error: ...` line on stderr and exit code 2. Anything else that escapes a command
is a bug in citeloop: it too is one line (exit 1), with the traceback only when
`CITELOOP_DEBUG=1` is set.
"""

from __future__ import annotations

import os
import sys

import typer

# typer 0.29 vendors its own copy of click and raises that copy's exceptions; older typer
# releases raise click's own.
try:
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # pragma: no cover - typer before 0.29
    from click.exceptions import ClickException, UsageError

from citeloop.eval import eval_cli, loop_cli, view_cli
from citeloop.filters import cli as filters_cli
from citeloop.runtime import cli as runtime_cli
from citeloop.training import cli as training_cli
from citeloop.training import headroom_cli, serve_cli, train_cli
from citeloop.trajectories import cli as trajectories_cli
from citeloop.trajectories.cli import CommandError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="citeloop: research with replayable trajectories.")
trajectories_cli.register(app)
runtime_cli.register(app)
eval_cli.register(app)
filters_cli.register(app)
view_cli.register(app)
loop_cli.register(app)
training_cli.register(app)
headroom_cli.register(app)
serve_cli.register(app)
train_cli.register(app)

# Where each user error class lives. They are looked up only once an exception escapes (its
# module is then loaded already), so start-up does not pay for importing them.
USER_ERROR_CLASSES = {
    "citeloop.runtime.config": ["ConfigError"],
    "citeloop.runtime.corpus": ["CorpusError"],
    "citeloop.runtime.planner": ["PlanValidationError", "QuestionError"],
    "citeloop.runtime.policies": ["PolicyError"],
    "citeloop.trajectories.runfile": ["RunFileError"],
    "citeloop.trajectories.diff": ["DiffError"],
    "citeloop.runtime.rebuild": ["ReplayError"],
    "citeloop.runtime.rescore": ["ScorerError"],
    "citeloop.eval.datasets": ["DatasetError"],
    "citeloop.filters.errors": ["FilterError"],
    "citeloop.filters.gold": ["GoldFileError"],
    "citeloop.eval.loop": ["LoopError"],
    "citeloop.training.train_config": ["TrainConfigError"],
    "citeloop.runtime.llm.parts": ["LLMPartsError"],
}


def _is_user_error(exc: BaseException) -> bool:
    for module, names in USER_ERROR_CLASSES.items():
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, tuple(getattr(loaded, n) for n in names)):
            return True
    return False


def _os_error_line(exc: OSError) -> str:
    """`path: reason` for a file that is missing, a directory, unreadable, ..."""
    reason = exc.strerror or type(exc).__name__
    return f"{exc.filename}: {reason.lower()}" if exc.filename else reason


def _usage_error(exc: UsageError) -> None:
    typer.echo(f"error: {exc.format_message()}", err=True)
    ctx = exc.ctx
    if ctx is not None:
        typer.echo(f"{ctx.get_usage()}\nTry '{ctx.command_path} --help' for help.", err=True)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI in-process; returns the exit code (testable without a subprocess)."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        # Without standalone mode click returns a command's `typer.Exit` code instead of raising it.
        result = app(args=args, prog_name="citeloop", standalone_mode=False)
    except UsageError as exc:
        _usage_error(exc)
        return 2
    except CommandError as exc:
        if exc.message:
            typer.echo(f"error: {exc.message}", err=True)
        return exc.exit_code
    except ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        return exc.exit_code
    except (typer.Exit, typer.Abort) as exc:
        return getattr(exc, "exit_code", 1)
    except KeyboardInterrupt:
        typer.echo("error: interrupted", err=True)
        return 130
    except OSError as exc:
        typer.echo(f"error: {_os_error_line(exc)}", err=True)
        return 2
    except Exception as exc:  # noqa: BLE001 - the last line of defence against a traceback
        if _is_user_error(exc):
            typer.echo(f"error: {exc}", err=True)
            return 2
        if os.environ.get("CITELOOP_DEBUG"):
            raise
        typer.echo(f"error: internal error ({type(exc).__name__}: {exc}); this is a bug in citeloop, "
                   "rerun with CITELOOP_DEBUG=1 for the traceback", err=True)
        return 1
    return result if isinstance(result, int) else 0


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
