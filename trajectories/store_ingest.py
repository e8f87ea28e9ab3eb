"""Ingest: run files in, Parquet parts and manifest entries out (`Store.ingest`).

This module owns the pipeline (reading and hashing files, decoding them, building each
batch's rows, writing each chunk's parts), which file stands for each run, and the
manifest's `files` and `runs` entries that an ingest writes.

Ingest is incremental and idempotent. A file whose digest the manifest already records is
skipped without being parsed; a changed file, or a new file holding a run id already
stored, replaces that run's rows (deleted from the part that held them). Within one ingest,
two files of the same run resolve to the one with the most events (complete before torn,
then by path), across chunks too. Parts the manifest does not name are deleted first.

Speed. One thread reads and hashes files ahead (`FETCH_BATCH` at a time, two batches
ahead), one decodes them (`store_decode`), batch by batch (`BATCH_BYTES`), and a third
builds each batch's rows, `runs` rows included, and writes each chunk's parts (`CHUNK_BYTES`;
`store_tables`) meanwhile, two parts at a time: the work in polars, hashlib and file reads
runs without the GIL. Where there is no second core for them (one usable core, or a worker
of a parallel ingest whose siblings keep every core busy) the same steps run one after
another in the calling thread (`threads`). Cyclic garbage collection is paused during an
ingest. With several workers the files are split into shards, each ingested through this
pipeline by a worker process, and merged into one manifest (`store_parallel`). The three
limits are read from this module when an ingest runs (tests patch them).
"""

from __future__ import annotations

import hashlib
import os
import resource
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from citeloop.trajectories.store_decode import DecodedFile, FileRead, read_file
from citeloop.trajectories.engines import paused_gc
from citeloop.trajectories.store_manifest import StoreError
from citeloop.trajectories.store_tables import (
    BATCH_TABLES,
    RUN_TABLES,
    TABLES,
    Batch,
    batch_tables,
    blobs_table,
    concat_runs,
    n_rows,
    split_lines,
)

if TYPE_CHECKING:
    from citeloop.trajectories.store import Store

RUN_SUFFIXES = (".jsonl", ".jsonl.zst")
CHUNK_BYTES = 192 << 20
"""Decompressed run-file bytes per ingest chunk (one Parquet part per table)."""
BATCH_BYTES = 16 << 20
"""Decompressed run-file bytes per batch: a second thread builds the rows of one batch while
the next is read."""
FETCH_BATCH = 32
"""Files read ahead (by a second thread) while the files before them are decoded."""


@dataclass
class IngestReport:
    files_seen: int = 0
    files_unchanged: int = 0
    runs_added: int = 0
    runs_replaced: int = 0
    runs_torn: int = 0
    events: int = 0
    jsonl_bytes: int = 0
    parts: list[int] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    """Files not stored because another file of the same run was preferred."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(file, reason) for files that could not be read."""
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time (user and system) of the ingest: this process's, all its threads', and its
    workers' (`store_parallel`). Less disturbed by other work on the machine than `seconds`."""
    workers: int = 1
    """Processes that read, decoded and wrote the files (more than one: `store_parallel`)."""
    start_method: str | None = None
    """How those workers were started (`fork` or `spawn`); None: no workers, this process did it all."""
    stage_seconds: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(("read", "tables", "write"), 0.0))
    """Where the time went: reading, hashing and decoding files; building tables; writing
    Parquet. Tables and writes run in another thread than reading, so the stages can add up
    to more than `seconds`."""

    def _add(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self.stage_seconds[stage] = round(self.stage_seconds[stage] + now - since, 4)
        return now

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["skipped"] = [{"file": f, "reason": r} for f, r in self.skipped]
        out["events_per_s"] = round(self.events / self.seconds) if self.seconds else None
        return out


def run_files(source: Path) -> list[Path]:
    """Run files under a directory (recursive), or the file itself."""
    source = Path(source)
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise StoreError(f"{source}: no such directory")
    found = [p for p in source.rglob("*") if p.is_file() and p.name.endswith(RUN_SUFFIXES)]
    if not found:
        raise StoreError(f"{source}: no run files (*.jsonl, *.jsonl.zst)")
    return sorted(found, key=str)


def source_paths(source: str | Path | list[Path]) -> list[Path]:
    """The run files of `source`: a directory (searched recursively), a file, or a list of either."""
    return [p for s in ([source] if isinstance(source, (str, Path)) else source) for p in run_files(Path(s))]


def ingest_into(store: Store, paths: list[Path], validate: bool = False) -> IngestReport:
    """Add the new and changed run files among `paths` (`source_paths` has found them) to `store`."""
    with paused_gc():
        return _Ingest(store, threads=usable_cores() > 1).run(paths, validate)


def cpu_seconds() -> float:
    """CPU time of this process (every thread) and of its children that have ended."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


# --------------------------------------------------------------------------- reading files


def _fetch(keys: list[str]) -> list[tuple[bytes, str]]:
    """The bytes and sha256 of each file (reading and hashing run without the GIL)."""
    out = []
    for key in keys:
        with open(key, "rb") as handle:
            raw = handle.read()
        out.append((raw, hashlib.sha256(raw).hexdigest()))
    return out


class _Inline:
    """An executor that runs each call at once, in the calling thread: the pipeline of a
    worker process whose siblings already keep every core busy (`_Ingest.threads`)."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        done: Future[Any] = Future()
        try:
            done.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to whoever asks for the result, as a thread's would be
            done.set_exception(exc)
        return done


def _executor(threads: bool, n: int, name: str) -> ThreadPoolExecutor | _Inline:
    return ThreadPoolExecutor(n, thread_name_prefix=name) if threads else _Inline()


def _read_all(tasks: list[tuple[str, str | None]], exact: bool, threads: bool) -> Iterator[tuple[str, FileRead]]:
    """(path, what reading it gave) for every (path, digest stored for it). A thread reads
    and hashes the next batch of files while this one decodes a batch."""
    batches = [tasks[i : i + FETCH_BATCH] for i in range(0, len(tasks), FETCH_BATCH)]
    with _executor(threads, 1, "citeloop-fetch") as fetcher:
        # Two batches ahead: the fetching thread needs the GIL between its calls, and waits
        # for it while this thread decodes, so one batch ahead is not always there in time.
        ahead = deque(fetcher.submit(_fetch, [key for key, _ in b]) for b in batches[:2])
        for i, batch in enumerate(batches):
            fetched = ahead.popleft().result()
            if i + 2 < len(batches):
                ahead.append(fetcher.submit(_fetch, [key for key, _ in batches[i + 2]]))
            for (key, known), (raw, digest) in zip(batch, fetched):
                yield key, read_file(key, raw, digest, known, exact)


# --------------------------------------------------------------------------- the pipeline


class _Ingest:
    """One ingest into `store`: its report, and which file it stored for each run.

    As one shard of a parallel ingest (`store_parallel`), `new_part` hands out part numbers
    shared with the other shards, and the ingest deletes rows only from parts it wrote
    itself: the rows of an earlier ingest that one of its runs replaces are left for the
    merge, which also saves the manifest.
    """

    def __init__(self, store: Store, new_part: Callable[[], int] | None = None, shard: bool = False,
                 threads: bool = True) -> None:
        self.store = store
        self.manifest = store.manifest
        self.report = IngestReport()
        self.new_part = new_part or store.new_part
        self.shard = shard
        self.threads = threads
        """Read ahead, build rows and write parts in helper threads (False: all in this thread,
        for a worker process that has no free core to give them)."""
        self.written: set[int] = set()
        """Parts this ingest wrote."""
        self.blob_parts: dict[int, list[str]] = {}
        """Part -> digests of the blobs this ingest stored in it."""
        self.stored_before = set(self.manifest["runs"])
        self.blobs_known: set[str] | None = None
        """Blob digests in the store, once a chunk has looked them up."""
        self.ingested: dict[str, tuple[tuple[bool, int, str], int, int]] = {}
        """run id -> (rank, events, bytes) of the file stored for it by this ingest"""

    def run(self, paths: list[Path], validate: bool) -> IngestReport:
        t0, cpu0 = time.perf_counter(), cpu_seconds()
        self._clean_orphans()
        self.ingest_files(paths, validate)
        return self.finish(len(paths), t0, cpu0)

    def ingest_files(self, paths: list[Path], validate: bool) -> None:
        """Read, decode and store `paths` (the pipeline); the manifest is not saved."""
        report = self.report
        report.files_seen += len(paths)
        files_seen = self.manifest["files"]
        tasks = [(key, files_seen.get(key, {}).get("digest")) for key in map(os.path.abspath, paths)]
        # A second thread builds the rows of each batch of files (polars runs mostly without
        # the GIL) while this one reads and decodes the next batch; at the end of a chunk it
        # writes the chunk's part.
        with _executor(self.threads, 1, "citeloop-store") as worker:
            waiting: deque[Future[Any]] = deque()
            prepared: list[Future[Batch]] = []
            batch: list[DecodedFile] = []
            batch_bytes = chunk_bytes = 0
            waited = 0.0
            start = time.perf_counter()
            for i, (key, read) in enumerate(_read_all(tasks, validate, self.threads), start=1):
                if read.file is not None:
                    batch.append(read.file)
                    batch_bytes += read.file.jsonl_bytes
                    chunk_bytes += read.file.jsonl_bytes
                elif read.reason is None:
                    report.files_unchanged += 1
                else:
                    report.skipped.append((key, read.reason))
                    files_seen[key] = {"digest": read.digest, "run_id": None, "status": "skipped",
                                       "reason": read.reason}
                last = i == len(tasks)
                if batch and (batch_bytes >= BATCH_BYTES or chunk_bytes >= CHUNK_BYTES or last):
                    prepared.append(worker.submit(self._prepare_batch, batch))
                    waiting.append(prepared[-1])
                    batch, batch_bytes = [], 0
                if prepared and (chunk_bytes >= CHUNK_BYTES or last):
                    waiting.append(worker.submit(self._write_chunk, prepared))
                    prepared, chunk_bytes = [], 0
                while len(waiting) > 2:  # read at most two batches ahead of the other thread
                    since = time.perf_counter()
                    waiting.popleft().result()
                    waited += time.perf_counter() - since
            if not self.threads:  # the rows were built and written in this thread, inside the loop
                waited += report.stage_seconds["tables"] + report.stage_seconds["write"]
            report.stage_seconds["read"] = round(time.perf_counter() - start - waited, 4)
            while waiting:
                waiting.popleft().result()

    def finish(self, n_paths: int, t0: float, cpu0: float) -> IngestReport:
        """Count what was stored, refuse an ingest that could read nothing, save the manifest."""
        report = self.report
        for run_id, ((torn, _, _), n_events, n_bytes) in self.ingested.items():
            if run_id in self.stored_before:
                report.runs_replaced += 1
            else:
                report.runs_added += 1
            report.runs_torn += torn
            report.events += n_events
            report.jsonl_bytes += n_bytes
        if report.skipped and not (report.runs_added or report.runs_replaced or report.files_unchanged
                                   or report.duplicates):
            raise StoreError(f"no readable run files among {n_paths}; e.g. {report.skipped[0][1]}")
        self.store._save_manifest()
        report.seconds = round(time.perf_counter() - t0, 4)
        report.cpu_seconds = round(cpu_seconds() - cpu0, 4)
        return report

    def _prepare_batch(self, files: list[DecodedFile]) -> Batch:
        tick = time.perf_counter()
        files, lines = self._batch_lines(files)
        tables = batch_tables(files, lines)
        for f in files:
            f.raw = f.body = b""
        self.report._add("tables", tick)
        return Batch(files, tables)

    def _write_chunk(self, prepared: list[Future[Batch]]) -> None:
        """Write one part per table with the rows of these batches."""
        report, manifest = self.report, self.manifest
        tick = time.perf_counter()
        batches = [b.result() for b in prepared]
        files = [f for b in batches for f in b.files]
        # One file per run in the whole ingest: the most events, complete before torn, then
        # by path. One that beats a file of an earlier chunk replaces its rows.
        won = self.ingested
        before = dict(won)
        ranks = [(f.problem is not None, -f.n_events, f.path) for f in files]
        for f, rank in zip(files, ranks):
            if f.run_id not in won or rank < won[f.run_id][0]:
                won[f.run_id] = (rank, f.n_events, f.jsonl_bytes)
        keep = [won[f.run_id][0] == rank for f, rank in zip(files, ranks)]
        for f, kept in zip(files, keep):
            manifest["files"][f.path] = {"digest": f.digest, "run_id": f.run_id,
                                         "status": "ingested" if kept else "duplicate"}
            if not kept:
                report.duplicates.append(f.path)
        for run_id, (rank, _, _) in before.items():
            if won[run_id][0] != rank:  # stored by an earlier chunk, now replaced
                manifest["files"][rank[2]]["status"] = "duplicate"
                report.duplicates.append(rank[2])
        frames: dict[str, list[pl.DataFrame]] = {t: [] for t in BATCH_TABLES}
        start = 0
        for b in batches:
            kept = keep[start : start + len(b.files)]
            start += len(b.files)
            for table in BATCH_TABLES:
                df = b.tables[table]
                if not all(kept):
                    rows = [k for k, f in zip(kept, b.files) for _ in range(n_rows(f, table))]
                    df = df.filter(pl.Series(rows, dtype=pl.Boolean()))
                frames[table].append(df)
        files = [f for f, kept in zip(files, keep) if kept]
        if not files:
            return
        part = self.new_part()
        self.written.add(part)
        tables = {t: pl.concat(frames[t]) for t in BATCH_TABLES if t != "runs"}
        tables["runs"] = concat_runs(frames["runs"], part)
        blobs: dict[str, str | None] = {}
        for f in files:
            for digest, text in f.blobs.items():
                blobs.setdefault(digest, text)
        if self.blobs_known is None:
            self.blobs_known = self._known_digests()
        new = [d for d in blobs if d not in self.blobs_known]
        self.blobs_known.update(new)
        tables["blobs"] = blobs_table(new, [blobs[d] for d in new])
        if new:
            self.blob_parts[part] = new
        tick = report._add("tables", tick)
        # The parts are written side by side (polars writes without the GIL): the events
        # part takes most of the time, the other five together about as long as a fifth of it.
        with _executor(self.threads, 2, "citeloop-write") as writers:
            writes = [writers.submit(self.store.write_part, table, part, tables[table])
                      for table in TABLES if tables[table].height]
            for done in writes:
                done.result()
        replaced = {f.run_id for f in files if f.run_id in manifest["runs"]}
        if replaced:
            self._remove_runs(replaced)
        report._add("write", tick)
        for f in files:
            manifest["runs"][f.run_id] = {"file": f.path, "digest": f.digest, "part": part,
                                          "n_events": f.n_events, "torn": f.problem is not None}
        report.parts.append(part)

    def _batch_lines(self, files: list[DecodedFile]) -> tuple[list[DecodedFile], pl.Series]:
        """All event lines of `files` as one String column. Splitting them in bulk also checks
        that they are UTF-8 and one event a line; when it fails, each file is checked, and one
        that fails goes through the exact reader (as with `validate`)."""
        lines = split_lines(b"".join(f.body for f in files), sum(f.n_events for f in files))
        if lines is not None:
            return files, lines
        kept = []
        for f in files:
            body = bytes(f.body)
            try:
                ok = body.count(b"\n") == f.n_events and isinstance(body.decode("utf-8"), str)
            except UnicodeDecodeError:
                ok = False
            read = FileRead(f.digest, f) if ok else read_file(f.path, f.raw, f.digest, None, exact=True)
            if read.file is None:
                self.report.skipped.append((f.path, read.reason))
                self.manifest["files"][f.path] = {"digest": f.digest, "run_id": None, "status": "skipped",
                                                  "reason": read.reason}
            else:
                kept.append(read.file)
        lines = split_lines(b"".join(f.body for f in kept), sum(f.n_events for f in kept))
        if lines is None:  # pragma: no cover - every file passed the exact checks
            raise StoreError("internal error: event lines that pass the exact checks fail the bulk split")
        return kept, lines

    # ---------------------------------------------------------------- parts

    def _remove_runs(self, run_ids: set[str]) -> None:
        """Delete the rows of these runs from the parts that hold them (as a shard: only from its own parts)."""
        by_part: dict[int, list[str]] = {}
        for run_id in run_ids:
            part = self.manifest["runs"][run_id]["part"]
            if not self.shard or part in self.written:
                by_part.setdefault(part, []).append(run_id)
        self.remove_rows(by_part)

    def remove_rows(self, by_part: dict[int, list[str]]) -> None:
        """Delete the rows of the runs listed for each part from that part's tables."""
        store, manifest = self.store, self.manifest
        for part, ids in by_part.items():
            for table in RUN_TABLES:
                path = store.part_path(table, part)
                if part not in manifest["tables"].get(table, []) or not path.exists():
                    continue
                df = pl.read_parquet(path)
                kept = df.filter(~pl.col("run_id").is_in(ids))
                if kept.height == df.height:
                    continue
                if kept.height:
                    store.write_part(table, part, kept)
                else:
                    path.unlink()
                    manifest["tables"][table].remove(part)

    def _clean_orphans(self) -> None:
        """Delete the parts (and temporary files) that the manifest does not name."""
        for table in TABLES:
            folder = self.store.root / table
            if not folder.is_dir():
                continue
            listed = {self.store.part_path(table, p).name for p in self.manifest["tables"].get(table, [])}
            for p in folder.iterdir():
                if p.name not in listed and (p.suffix in (".parquet", ".tmp")):
                    p.unlink()

    def _known_digests(self) -> set[str]:
        if not self.store.parts("blobs"):
            return set()
        return set(self.store.scan("blobs").select("digest").collect()["digest"].to_list())
