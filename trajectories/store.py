"""The trajectory store: many run files compacted into Parquet tables, queried with polars.

`citeloop store ingest RUNS_DIR --store STORE` reads run files (`*.jsonl`, `*.jsonl.zst`,
searched recursively) and appends them to the tables `runs`, `events`, `blobs`,
`decisions`, `tool_calls` and `claims`, one Parquet part per table per ingest chunk
(`STORE/<table>/part-NNNNN.parquet`), listed in `STORE/manifest.json`. Ingest is
incremental and idempotent; a torn file is stored up to its last good event. One writer at
a time.

This module owns `Store` (opening and creating a store, reading its tables, the primitives
that write a part and save the manifest) and the public names (`ingest`, `Store`,
`StoreError`, `TABLES`). The rest, one job a module:

- `store_manifest`: what `manifest.json` holds; reading, checking and saving it.
- `store_decode`: reading one run file: its header, and its event lines decoded fast (by
  msgspec structs derived from the pydantic event models) into what the tables need.
- `store_header`: the header's msgspec struct, derived from `RunHeader` (pydantic reads
  only the headers the struct cannot vouch for).
- `store_tables`: the tables' columns and polars schemas, and the builders of their rows.
- `store_ingest`: the ingest pipeline (threads reading, decoding, building and writing),
  which file stands for each run, and the `IngestReport`. Its size limits (`CHUNK_BYTES`,
  `BATCH_BYTES`, `FETCH_BATCH`) live there, where the pipeline reads them.
- `store_parallel`: `--workers N`: shards of files through that pipeline in worker
  processes, merged into one manifest.
- `store_queries`: the common questions as polars queries (`citeloop store stats`).

Typical queries (functions in `trajectories.store_queries`, used by `citeloop store stats`)::

    import polars as pl
    from citeloop.trajectories.store import Store
    store = Store.open("store")

    # decisions by kind and policy
    (store.scan("decisions").group_by("kind", "policy", "policy_version")
         .agg(n=pl.len(), runs=pl.col("run_id").n_unique(), mean_candidates=pl.col("n_candidates").mean())
         .sort("kind", "policy").collect())

    # searches per sub-question: every (run, sub-question) seen in events, with its searches
    subqs = store.scan("events").filter(pl.col("subq").is_not_null()).select("run_id", "subq").unique()
    searches = (store.scan("tool_calls").filter(pl.col("tool") == "search")
                    .group_by("run_id", "subq").agg(searches=pl.len()))
    (subqs.join(searches, on=["run_id", "subq"], how="left").fill_null(0)
          .group_by("searches").agg(subquestions=pl.len()).sort("searches").collect())

    # verdict distribution of drafted claims (final verdict; null: the run stopped before it)
    (store.scan("claims").group_by("verdict")
         .agg(n=pl.len(), dropped=pl.col("dropped").sum(), rewritten=pl.col("rewritten").sum())
         .with_columns(share=pl.col("n") / pl.col("n").sum()).sort("n", descending=True).collect())

    # decision payloads are in `events` too: e.g. the stop signals of every stop decision
    (store.scan("events").filter(pl.col("type") == "stop_decision")
         .select("run_id", "seq", pl.col("payload").str.json_path_match("$.state.coverage").cast(pl.Float64))
         .collect())
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl

from citeloop.trajectories.store_ingest import IngestReport, ingest_into, run_files, source_paths
from citeloop.trajectories.store_manifest import (
    MANIFEST,
    STORE_FORMAT,
    STORE_VERSION,
    StoreError,
    empty_manifest,
    load_manifest,
    save_manifest,
)
from citeloop.trajectories.store_parallel import ingest_parallel
from citeloop.trajectories.store_tables import TABLE_SCHEMAS, TABLES

__all__ = ["MANIFEST", "STORE_FORMAT", "STORE_VERSION", "TABLES", "TABLE_SCHEMAS", "IngestReport", "Store",
           "StoreError", "ingest", "run_files"]


class Store:
    """A directory of Parquet parts plus `manifest.json`. Open with `open` or `create`."""

    def __init__(self, root: Path, manifest: dict[str, Any]) -> None:
        self.root = Path(root)
        self.manifest = manifest

    # ---------------------------------------------------------------- opening

    @classmethod
    def open(cls, root: str | Path) -> Store:
        root = Path(root)
        return cls(root, load_manifest(root))

    @classmethod
    def create(cls, root: str | Path) -> Store:
        """Open the store at `root`, making an empty one if `root` is missing or an empty directory."""
        root = Path(root)
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            return cls.open(root)
        # Nothing is written until the first ingest saves its manifest.
        return cls(root, empty_manifest(TABLES))

    # ---------------------------------------------------------------- reading

    def part_path(self, table: str, part: int) -> Path:
        return self.root / table / f"part-{part:05d}.parquet"

    def parts(self, table: str) -> list[Path]:
        if table not in TABLES:
            raise StoreError(f"unknown table {table!r}; tables: {', '.join(TABLES)}")
        return [self.part_path(table, p) for p in self.manifest["tables"].get(table, [])]

    def scan(self, table: str) -> pl.LazyFrame:
        """All rows of `table` as a LazyFrame (only parts the manifest names)."""
        paths = self.parts(table)
        if not paths:
            return pl.LazyFrame(schema=TABLE_SCHEMAS[table])
        schema: dict[str, pl.DataType] = {}
        for p in paths:  # the runs table gains count_/metric_ columns as outcomes evolve
            for name, dtype in pl.read_parquet_schema(p).items():
                schema.setdefault(name, dtype)
        return pl.scan_parquet(paths, schema=schema, missing_columns="insert")

    def read(self, table: str) -> pl.DataFrame:
        return self.scan(table).collect()

    def counts(self) -> dict[str, int]:
        return {t: int(self.scan(t).select(pl.len()).collect().item()) for t in TABLES}

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for t in TABLES for p in self.parts(t))

    # ---------------------------------------------------------------- writing

    def _save_manifest(self) -> None:
        save_manifest(self.root, self.manifest)

    def write_part(self, table: str, part: int, df: pl.DataFrame) -> None:
        """Write one part atomically and list it in the manifest (saved by the caller)."""
        path = self.part_path(table, part)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".parquet.tmp")
        df.write_parquet(tmp, compression="zstd", statistics=True)
        os.replace(tmp, path)
        listed = self.manifest["tables"].setdefault(table, [])
        if part not in listed:
            listed.append(part)

    def new_part(self) -> int:
        part = self.manifest["next_part"]
        self.manifest["next_part"] = part + 1
        return part

    def ingest(self, source: str | Path | list[Path], validate: bool = False, workers: int = 1) -> IngestReport:
        """Add new and changed run files under `source` (a directory, a file, or a list of files);
        `workers` > 1 spreads them over that many processes (`store_parallel`)."""
        return self.ingest_files(source_paths(source), validate, workers)

    def ingest_files(self, paths: list[Path], validate: bool = False, workers: int = 1) -> IngestReport:
        """`ingest` of run files already found (`run_files`): each is read as given."""
        if workers < 1:
            raise StoreError(f"--workers {workers}: give at least 1")
        if workers > 1 and len(paths) > 1:
            return ingest_parallel(self, paths, validate, workers)
        return ingest_into(self, paths, validate)


def ingest(source: str | Path, store: str | Path, validate: bool = False, workers: int = 1) -> IngestReport:
    """`citeloop store ingest`: compact run files under `source` into the store at `store`."""
    paths = run_files(Path(source))  # fail on a bad source before a store directory is made
    # The files are found once: handing them to `Store.ingest` would look each up again.
    return Store.create(store).ingest_files(paths, validate=validate, workers=workers)
