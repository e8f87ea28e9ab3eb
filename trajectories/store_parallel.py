"""Parallel ingest: shards of run files ingested by worker processes into one store
(`citeloop store ingest RUNS --store STORE --workers N`).

`ingest_parallel` splits the files (in path order) into up to `workers` contiguous shards of
about equal size. Each shard is ingested by a worker process through the ordinary pipeline
(`store_ingest._Ingest`): it reads, hashes, decodes and builds the rows of its files and
writes its own Parquet parts into the store's table folders, numbered from one counter that
all workers share. A worker never saves the manifest, and deletes rows only from parts it
wrote. The workers are forked (they start in milliseconds) unless this process has started
polars' thread pool already: a forked child would inherit the pool without its threads and
hang on its first query, so they are then spawned (clean interpreters, about a second each
to start; `start_method`). A worker runs its pipeline without helper threads when the
workers already fill the usable cores (threads would only take turns), sends its result
down a pipe, and exits without tearing down its interpreter; this process keeps cyclic
garbage collection paused while it receives and merges the results.

This process then merges the shards, in shard order, into what a serial ingest would have
decided:

- one file per run across shards (the most events, complete before torn, then by path): a
  run two shards stored keeps the winner's rows; the loser's are deleted from its part and
  its file is marked `duplicate`;
- every blob stored once: a digest a later shard wrote again is dropped from its blobs part
  (each worker already skips the digests the store held before);
- a run that replaces one stored by an earlier ingest has the old rows deleted, here, once;
- one manifest, saved once at the end (a crash before that leaves only parts the manifest
  does not name, which the next ingest deletes).

The tables then hold the same rows as after a serial ingest of the same files; only the
parts differ (at least one per shard).
"""

from __future__ import annotations

import gc
import glob
import os
import re
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from citeloop.trajectories.engines import paused_gc
from citeloop.trajectories.store_ingest import IngestReport, _Ingest, cpu_seconds, usable_cores
from citeloop.trajectories.store_manifest import StoreError

if TYPE_CHECKING:
    from citeloop.trajectories.store import Store

Rank = tuple[bool, int, str]


@dataclass(frozen=True)
class ShardJob:
    root: str
    manifest: dict[str, Any]
    """The store's manifest as the ingest found it (a worker never reads the one on disk:
    another worker may have made the folder, not yet the manifest)."""
    paths: list[str]
    validate: bool
    threads: bool
    """Whether the worker's pipeline runs helper threads (`_Ingest.threads`)."""


@dataclass
class ShardResult:
    """What one worker stored, for the merge."""

    report: IngestReport
    files: dict[str, dict[str, Any]]
    """Manifest `files` entries of the shard's paths."""
    runs: dict[str, dict[str, Any]]
    """Manifest `runs` entries of the runs it stored."""
    ingested: dict[str, tuple[Rank, int, int]]
    tables: dict[str, list[int]] = field(default_factory=dict)
    """Table -> the parts it wrote that still hold rows."""
    blob_parts: dict[int, list[str]] = field(default_factory=dict)


def split_shards(paths: list[str], n: int) -> list[list[str]]:
    """`paths` in order, cut into min(n, len(paths)) contiguous shards of about equal bytes:
    each shard takes files while at least half of the next one fits its share of what is left."""
    sizes = [os.path.getsize(p) for p in paths]
    n = max(1, min(n, len(paths)))
    shards: list[list[str]] = []
    start, remaining = 0, sum(sizes)
    for left in range(n, 1, -1):
        target = remaining / left
        end, taken = start + 1, sizes[start]
        while end < len(paths) - (left - 1) and taken + sizes[end] / 2 <= target:
            taken += sizes[end]
            end += 1
        shards.append(paths[start:end])
        start, remaining = end, remaining - taken
    shards.append(paths[start:])
    return shards


_POOL_THREAD = re.compile(r"polars-\d+|tokio-.*")


def start_method() -> str:
    """`fork` while no thread of polars' pool (`polars-N`) or of its async runtime (`tokio-*`)
    runs in this process, else `spawn`; `spawn` too where threads cannot be listed (not Linux)."""
    names = []
    for comm in glob.glob("/proc/self/task/*/comm"):
        try:
            names.append(Path(comm).read_text(encoding="utf-8").strip())
        except OSError:
            continue
    if not names:
        return "spawn"
    return "spawn" if any(_POOL_THREAD.fullmatch(name) for name in names) else "fork"


def _take_part(counter: Any) -> int:
    with counter.get_lock():
        part = counter.value
        counter.value = part + 1
    return part


def ingest_shard(counter: Any, job: ShardJob) -> ShardResult:
    """In a worker process: ingest one shard's files; write parts, not the manifest."""
    from citeloop.trajectories.store import Store

    store = Store(Path(job.root), job.manifest)
    ingest = _Ingest(store, new_part=lambda: _take_part(counter), shard=True, threads=job.threads)
    with paused_gc():
        ingest.ingest_files([Path(p) for p in job.paths], job.validate)
    manifest = store.manifest
    return ShardResult(
        ingest.report, {k: manifest["files"][k] for k in job.paths if k in manifest["files"]},
        {run_id: manifest["runs"][run_id] for run_id in ingest.ingested}, ingest.ingested,
        {t: [p for p in parts if p in ingest.written] for t, parts in manifest["tables"].items()},
        ingest.blob_parts)


def _shard_process(counter: Any, job: ShardJob, send: Connection) -> None:
    """A worker process: ingest its shard, send back what it stored (or why it failed), and
    exit at once. Tearing down the interpreter (freeing every object of the shard, joining
    polars' threads) would only keep the parent waiting: the parts are written and closed.
    For the same reason the cyclic garbage collector stays off to the end: switched back on
    after the shard, it would first walk every object the shard made (tens of milliseconds)."""
    gc.disable()
    try:
        reply: tuple[bool, Any] = (True, ingest_shard(counter, job))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
        reply = (False, exc)
    try:
        send.send(reply)
    except Exception:  # noqa: BLE001 - an exception that cannot be pickled goes back as text
        send.send((False, RuntimeError("".join(traceback.format_exception(reply[1])))))
    send.close()
    os._exit(0)


def _run_shards(jobs: list[ShardJob], counter: Any, method: str) -> list[ShardResult]:
    """One worker process per shard; their results in shard order. A worker's failure is raised here."""
    context = get_context(method)
    workers = []
    for i, job in enumerate(jobs):
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_shard_process, args=(counter, job, send), name=f"citeloop-ingest-{i}")
        process.start()
        send.close()  # the worker holds the sending end now; a dead worker leaves the pipe at EOF
        workers.append((process, receive))
    replies = []
    for process, receive in workers:
        try:
            replies.append(receive.recv())
        except EOFError:
            replies.append((False, StoreError(f"ingest worker {process.name} died without a result")))
        receive.close()
    for process, _ in workers:
        process.join()
    for ok, value in replies:
        if not ok:
            raise value
    return [value for _, value in replies]


def ingest_parallel(store: Store, paths: list[Path], validate: bool, workers: int) -> IngestReport:
    """Ingest `paths` into `store` with `workers` processes (see the module docstring)."""
    t0, cpu0 = time.perf_counter(), cpu_seconds()
    merge = _Ingest(store)
    merge._clean_orphans()
    keys = [os.path.abspath(p) for p in paths]
    shards = split_shards(keys, workers)
    method = start_method()
    counter = get_context(method).Value("q", store.manifest["next_part"])
    # A worker's helper threads (reading ahead, building rows, writing parts) use cores of
    # their own: with no core to spare for them they only add switching between threads.
    threads = usable_cores() > len(shards)
    jobs = [ShardJob(str(store.root), store.manifest, shard, validate, threads) for shard in shards]
    # The workers' results and the merged manifest are many small objects and no cycles:
    # collections meanwhile would walk this whole process for nothing, as in `ingest_into`.
    with paused_gc():
        results = _run_shards(jobs, counter, method)
        store.manifest["next_part"] = counter.value
        _merge(merge, results)
        merge.report.files_seen = len(paths)
        merge.report.workers, merge.report.start_method = len(jobs), method
        return merge.finish(len(paths), t0, cpu0)


def _merge(merge: _Ingest, results: list[ShardResult]) -> None:
    manifest, report = merge.manifest, merge.report
    for result in results:
        manifest["files"].update(result.files)
        for table, parts in result.tables.items():
            manifest["tables"].setdefault(table, []).extend(parts)
        shard = result.report
        report.files_unchanged += shard.files_unchanged
        report.skipped += shard.skipped
        report.duplicates += shard.duplicates
        report.parts += shard.parts
        for stage, seconds in shard.stage_seconds.items():
            report.stage_seconds[stage] = round(report.stage_seconds[stage] + seconds, 4)
    for table in manifest["tables"]:
        manifest["tables"][table].sort()
    # One file per run across shards, ranked as within one.
    winners: dict[str, tuple[Rank, int, int]] = {}
    entries: dict[str, dict[str, Any]] = {}
    losers: dict[int, list[str]] = {}
    for result in results:
        for run_id, won in result.ingested.items():
            entry = result.runs[run_id]
            if run_id in winners and winners[run_id][0] <= won[0]:
                loser = entry
            else:
                loser = entries.get(run_id)
                winners[run_id], entries[run_id] = won, entry
            if loser is not None:
                losers.setdefault(loser["part"], []).append(run_id)
                manifest["files"][loser["file"]]["status"] = "duplicate"
                report.duplicates.append(loser["file"])
    merge.remove_rows(losers)
    merge.ingested = winners
    merge._remove_runs({run_id for run_id in winners if run_id in merge.stored_before})  # old rows, old parts
    manifest["runs"].update(entries)
    _drop_repeated_blobs(merge, results)


def _drop_repeated_blobs(merge: _Ingest, results: list[ShardResult]) -> None:
    """Keep each blob in the first part (in shard order) that wrote it."""
    store, listed = merge.store, merge.manifest["tables"].setdefault("blobs", [])
    seen: set[str] = set()
    for result in results:
        for part, digests in sorted(result.blob_parts.items()):
            repeated = seen.intersection(digests)
            seen.update(digests)
            if not repeated:
                continue
            path = store.part_path("blobs", part)
            kept = pl.read_parquet(path).filter(~pl.col("digest").is_in(sorted(repeated)))
            if kept.height:
                store.write_part("blobs", part, kept)
            else:
                path.unlink()
                listed.remove(part)


__all__ = ["ShardJob", "ShardResult", "ingest_parallel", "ingest_shard", "split_shards", "start_method"]
