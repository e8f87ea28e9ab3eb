"""Running independent jobs serially, in a process pool or on Ray, with results in job order.

This module owns the engine choice (`ENGINES`, `check_engine`), the plumbing of each engine,
how Ray is reached (`RAY_ADDRESS`), the state a worker process keeps between jobs
(`once_per_process`), who ran a job (`worker_identity`), and `paused_gc` for bulk work in a
process. Batch research
(`runtime.batch`), the evaluation harness, branch rollouts (`training.rollouts`) and the
store's parallel ingest all run through `run_jobs`; it sits in the lowest layer because the
store uses it too.

A job is `work(shared, job)`: `work` is a module-level function (pickled by reference),
`shared` what every job needs (settings, a corpus), sent to each worker process once
rather than with every job, `job` the job's own arguments. Results come back in job order
whatever the engine, so serial, process and Ray runs of the same jobs give the same list;
`on_done(index, result)` sees each result as it arrives (for progress).

- `serial`: in this process.
- `process`: a `ProcessPoolExecutor` of `workers` processes. `fork` (the default) lets the
  workers share what this process loaded before the pool started (a research kit remembered
  with `once_per_process` is loaded once, here); `spawn` starts clean interpreters, for work
  that uses polars (its thread pool does not survive a fork).
- `ray`: with `RAY_ADDRESS` set, connect to that cluster (`ray start --head` somewhere, every
  node with citeloop installed and the files the jobs read and write on a shared path) and
  keep at most `workers` jobs in flight when `workers` is given; without it, start a local
  Ray instance of `workers` CPUs. Each job takes one CPU. A Ray instance this module started
  is shut down at the end; one already initialised is left as it was.
"""

from __future__ import annotations

import gc
import os
import socket
import sys
import uuid
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any, TypeVar

ENGINES = ("serial", "process", "ray")
RAY_ADDRESS_ENV = "RAY_ADDRESS"

S = TypeVar("S")
J = TypeVar("J")
R = TypeVar("R")

_KEPT: dict[Hashable, Any] = {}
_BUILDS: Counter[str] = Counter()
_SHARED: dict[str, Any] = {}
"""What `shared` each `run_jobs` call sent, by its token, in this (worker) process."""


class EngineError(ValueError):
    """An engine that cannot run here: unknown name, bad worker count, Ray not installed."""


def check_engine(engine: str, workers: int | None = None) -> None:
    """Refuse an unknown engine or a worker count under 1, before anything runs."""
    if engine not in ENGINES:
        raise EngineError(f"--engine {engine!r} is not one of {', '.join(ENGINES)}")
    if workers is not None and workers < 1:
        raise EngineError(f"--workers {workers}: give at least 1")


def once_per_process(key: tuple[str, Hashable], build: Callable[[], R]) -> R:
    """The value kept under `key` in this process, built by `build` the first time.

    `key[0]` names the kind of value (e.g. `research-kit`): `builds(kind)` counts how often
    this process built one, which is how a run reports that its worker loaded its corpus
    index once and not per run. A forked worker inherits what its parent kept."""
    if key not in _KEPT:
        _KEPT[key] = build()
        _BUILDS[key[0]] += 1
    return _KEPT[key]


def remember(key: tuple[str, Hashable], value: Any) -> None:
    """Keep `value` under `key` in this process (a kit the caller loaded already)."""
    _KEPT[key] = value


def builds(kind: str) -> int:
    """How many values of `kind` this process has built with `once_per_process`."""
    return _BUILDS[kind]


def worker_identity() -> dict[str, Any]:
    """Who is running the current job: host name, process id and, on Ray, the node id."""
    node = None
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        node = ray.get_runtime_context().get_node_id()
    return {"host": socket.gethostname(), "pid": os.getpid(), "node": node}


def default_workers(engine: str, workers: int | None) -> int:
    """`workers` as given, else 1 for `serial` and the CPU count for the others."""
    if workers is not None:
        return workers
    return 1 if engine == "serial" else max(1, os.cpu_count() or 1)


def run_jobs(work: Callable[[S, J], R], jobs: Sequence[J], shared: S, engine: str = "serial",
             workers: int | None = None, on_done: Callable[[int, R], Any] | None = None,
             start_method: str = "fork", on_ready: Callable[[], Any] | None = None,
             together: Callable[[J], Hashable] | None = None) -> list[R]:
    """`work(shared, job)` for every job, on `engine`; the results in job order. `on_ready()`
    is called once the engine is up (Ray connected or started), before the first job.
    `together(job)`: jobs with the same key are handed out side by side, keys in order of
    first appearance (the runs of one question share the text analysis a process keeps, so
    a pool worker runs the later ones warm); the results and `on_done`'s indices are still
    those of `jobs`."""
    check_engine(engine, workers)
    done = on_done or (lambda index, result: None)
    ready = on_ready or (lambda: None)
    results: list[Any] = [None] * len(jobs)
    order = side_by_side(jobs, together) if together else range(len(jobs))
    jobs = [jobs[i] for i in order]

    def finish(position: int, result: R) -> None:
        results[order[position]] = result
        done(order[position], result)

    if engine == "serial" or not jobs:
        ready()
        for i, job in enumerate(jobs):
            finish(i, work(shared, job))
    elif engine == "process":
        ready()
        _in_pool(work, jobs, shared, default_workers(engine, workers), start_method, finish)
    else:
        _on_ray(work, jobs, shared, workers, finish, ready)
    return results


def side_by_side(jobs: Sequence[J], key: Callable[[J], Hashable]) -> list[int]:
    """The jobs' indices with equal keys next to each other, keys in order of first
    appearance, jobs of one key in their own order."""
    first: dict[Hashable, int] = {}
    keys = [key(job) for job in jobs]
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    return sorted(range(len(jobs)), key=lambda i: first[keys[i]])


# --------------------------------------------------------------------------- process pool


def _receive(token: str, shared: Any) -> None:
    """Pool initializer: keep this call's `shared` (inherited under fork, pickled once under spawn)."""
    _SHARED[token] = shared


MAX_CHUNK = 8
"""Jobs sent to a pool worker at once: fewer, larger messages for short jobs (a research run
takes about 10 ms), small enough that progress stays smooth and the workers stay balanced."""


def chunk_size(jobs: int, workers: int) -> int:
    """Jobs per pool task: about a sixteenth of each worker's share, at most `MAX_CHUNK`."""
    return max(1, min(MAX_CHUNK, jobs // (16 * max(1, workers))))


def _pooled(work: Callable[[Any, Any], Any], token: str, jobs: list[Any]) -> list[Any]:
    return [work(_SHARED[token], job) for job in jobs]


def _in_pool(work: Callable[[S, J], R], jobs: Sequence[J], shared: S, workers: int, start_method: str,
             finish: Callable[[int, R], None]) -> None:
    token = uuid.uuid4().hex
    size = chunk_size(len(jobs), workers)
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=get_context(start_method),
                             initializer=_receive, initargs=(token, shared)) as pool:
        pending = {pool.submit(_pooled, work, token, list(jobs[i:i + size])): i for i in range(0, len(jobs), size)}
        # as_completed waits on every future once; `wait` in a loop would wait on each pending
        # future again after every result (quadratic in the jobs, on the parent's core).
        for future in as_completed(pending):
            first = pending[future]
            for offset, result in enumerate(future.result()):
                finish(first + offset, result)


# --------------------------------------------------------------------------- Ray


def _ray_call(work: Callable[[Any, Any], Any], token: str, boxed: list[Any], job: Any) -> Any:
    """On a Ray worker: `shared` arrives boxed (Ray leaves a reference inside a list alone), so
    it is fetched and deserialised once per worker process, not once per job."""
    if token not in _SHARED:
        import ray

        _SHARED[token] = ray.get(boxed[0])
    return work(_SHARED[token], job)


def connect_ray(workers: int | None) -> bool:
    """Connect to the cluster at `RAY_ADDRESS`, or start a local instance of `workers` CPUs.
    True when this call started (and so must shut down) Ray."""
    try:
        import ray
    except ImportError as exc:
        raise EngineError("--engine ray needs Ray: pip install 'citeloop[ray]' (or pip install ray)") from exc
    if ray.is_initialized():
        return False
    quiet = {"log_to_driver": False, "logging_level": "WARNING",
             "runtime_env": {"env_vars": {"OMP_NUM_THREADS": "1"}}}
    address = os.environ.get(RAY_ADDRESS_ENV)
    if address:
        ray.init(address=address, **quiet)
    else:  # "local": never attach to some other Ray instance running on this machine
        ray.init(address="local", num_cpus=default_workers("ray", workers), include_dashboard=False, **quiet)
    return True


def _on_ray(work: Callable[[S, J], R], jobs: Sequence[J], shared: S, workers: int | None,
            finish: Callable[[int, R], None], ready: Callable[[], Any]) -> None:
    import ray

    started = connect_ray(workers)
    ready()
    try:
        remote = ray.remote(num_cpus=1)(_ray_call)
        token, boxed = uuid.uuid4().hex, [ray.put(shared)]
        # On a cluster, `workers` (when given) caps the jobs in flight; locally the instance's
        # CPUs already do.
        limit = workers if workers is not None else len(jobs)
        queued = iter(enumerate(jobs))
        in_flight: dict[Any, int] = {}

        def submit() -> None:
            while len(in_flight) < limit:
                nxt = next(queued, None)
                if nxt is None:
                    return
                in_flight[remote.remote(work, token, boxed, nxt[1])] = nxt[0]

        submit()
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                finish(in_flight.pop(ref), ray.get(ref))
            submit()
    finally:
        if started:
            ray.shutdown()


__all__ = ["ENGINES", "RAY_ADDRESS_ENV", "EngineError", "builds", "check_engine", "connect_ray", "default_workers",
           "once_per_process", "remember", "run_jobs", "worker_identity"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Cyclic garbage collection off while bulk work makes many long-lived objects and no
    cycles (an ingest, loading a corpus's stored analysis): collections would only walk them
    again and again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
