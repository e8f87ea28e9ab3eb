"""Batch research on a real Ray cluster: a head and one more worker node (`ray start`, one CPU
each, on this machine), reached through `RAY_ADDRESS` by the `citeloop research --questions`
command line. Runs land on both nodes, every worker process builds the corpus index once, and
the run files are the bytes a serial batch writes.

About 30 s on 2 cores, so it runs by default (`-m "not ray"` leaves it out). The cluster is
private to the test: its own temp folder (so no other `ray.init()` on the machine finds it),
token authentication off (a throwaway cluster on 127.0.0.1), and in teardown its process
groups are killed, rather than `ray stop`, which would stop every Ray instance of the user on
the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeloop.runtime.batch import BatchSettings, plan_jobs, run_batch
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.questions import BatchQuestion
from citeloop.runtime.session import ResearchKit

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [
    BatchQuestion("leland", "Who directed the film that was shot in or around Leland, North Carolina in 1986?"),
    BatchQuestion("nolan", "Are Christopher Nolan and Sathish Kalathil both film directors?"),
    BatchQuestion("heinkel", "Heinkel HD 23 was a type of plane that was held on the craft that were first "
                             "developed when?"),
    BatchQuestion("maximum", "Who directed Maximum Overdrive?"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_command() -> str | None:
    """The `ray` script beside this Python (a virtual environment need not be on PATH), else on PATH."""
    beside = Path(sys.executable).with_name("ray")
    return str(beside) if beside.is_file() else shutil.which("ray")


def _ray_start(args: list[str], env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen([str(_ray_command()), "start", *args, "--disable-usage-stats"], env=env,
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, out
    return proc


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    pytest.importorskip("ray")
    if _ray_command() is None:
        pytest.skip("no `ray` command beside this Python or on PATH")
    temp = tempfile.mkdtemp(prefix="clray", dir="/tmp")  # short: Ray's socket paths must stay under 108 bytes
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    env.pop("RAY_ADDRESS", None)
    address = f"127.0.0.1:{_free_port()}"
    started: list[subprocess.Popen] = []
    try:
        started.append(_ray_start(["--head", "--node-ip-address", "127.0.0.1", "--port", address.split(":")[1],
                                   "--num-cpus", "1", "--include-dashboard=false", "--temp-dir", temp], env))
        started.append(_ray_start(["--address", address, "--node-ip-address", "127.0.0.1", "--num-cpus", "1"], env))
        yield address, env
    finally:
        for proc in started:  # the daemons `ray start` left behind are in its process group
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.5)
        shutil.rmtree(temp, ignore_errors=True)


def test_a_batch_on_a_two_node_cluster_uses_both_nodes_and_writes_serial_bytes(
        cluster: tuple[str, dict[str, str]], kit: ResearchKit, tmp_path: Path) -> None:
    address, env = cluster
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps({"id": q.id, "question": q.question}) + "\n" for q in QUESTIONS),
                         encoding="utf-8")
    on_ray = tmp_path / "ray"
    done = subprocess.run([sys.executable, "-m", "citeloop.eval.cli", "research", "--questions", str(questions),
                           "--out", str(on_ray), "--seeds", "0,1,2", "--engine", "ray", "--workers", "2", "--json"],
                          cwd=ROOT, env={**env, "RAY_ADDRESS": address}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["counts"] == {"ran": 12, "resumed": 0, "skipped": 0, "failed": 0}
    nodes = {r["worker"]["node"] for r in summary["per_run"]}
    assert len(nodes) == 2 and None not in nodes, "runs were not placed on both nodes"
    assert summary["nodes"] == 2
    assert {r["kit_loads"] for r in summary["per_run"]} == {1}, "a worker loaded the corpus index more than once"

    serial = tmp_path / "serial"
    report = run_batch(plan_jobs(QUESTIONS, ["heuristic"], [0, 1, 2], serial),
                       BatchSettings(config=ResearchConfig().model_dump(mode="json")), kit=kit)
    assert report.counts()["ran"] == 12
    for path in sorted(serial.rglob("*.jsonl")):
        mine, theirs = path.read_bytes(), (on_ray / path.relative_to(serial)).read_bytes()
        # Byte-identical up to the final run_meta line (wall-clock metadata).
        assert mine.rstrip(b"\n").rsplit(b"\n", 1)[0] == theirs.rstrip(b"\n").rsplit(b"\n", 1)[0], path
        assert json.loads(theirs.rstrip(b"\n").rsplit(b"\n", 1)[1])["type"] == "run_meta"
