"""The store's `manifest.json`: what it holds, and reading, checking and saving it.

The manifest is the store's index, and the only file a reader trusts: a Parquet part not
named in it (left by a crash) is ignored by readers and deleted by the next ingest. It holds

- `format` (`citeloop-store`) and `version`: a store newer than this code reads is refused;
- `next_part`: the number of the next part (`STORE/<table>/part-NNNNN.parquet`);
- `tables`: table -> the part numbers it has;
- `files`: every run file seen (absolute path -> `digest`, `run_id`, `status`: `ingested`,
  `duplicate` (another file of the same run was preferred) or `skipped` with its `reason`);
  an unchanged file is skipped by the next ingest without being parsed;
- `runs`: run id -> `file`, `digest`, `part`, `n_events`, `torn`: where its rows are, so a
  changed file, or a new file of a run already stored, replaces that run's rows.

It is saved compact and key-sorted (msgspec writes it: it grows with every run stored), to
a temporary file first and then renamed over the old one. One writer at a time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec

MANIFEST = "manifest.json"
STORE_FORMAT = "citeloop-store"
STORE_VERSION = 1


class StoreError(ValueError):
    """The store or the input cannot be used (missing, not a store, no run files)."""


def load_manifest(root: Path) -> dict[str, Any]:
    """The manifest of the store at `root`; StoreError if there is none or it is not one this code reads."""
    if not root.exists():
        raise StoreError(f"{root}: no store here (run `citeloop store ingest RUNS_DIR --store {root}` first)")
    manifest_path = root / MANIFEST
    if not root.is_dir() or not manifest_path.is_file():
        raise StoreError(f"{root}: not a citeloop store (no {MANIFEST})")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise StoreError(f"{manifest_path}: unreadable manifest ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != STORE_FORMAT:
        raise StoreError(f"{manifest_path}: not a citeloop store manifest")
    if manifest.get("version", 0) > STORE_VERSION:
        raise StoreError(f"{root}: store version {manifest['version']} is newer than this citeloop reads "
                         f"({STORE_VERSION}); upgrade citeloop")
    return manifest


def empty_manifest(tables: tuple[str, ...]) -> dict[str, Any]:
    return {"format": STORE_FORMAT, "version": STORE_VERSION, "next_part": 0,
            "tables": {t: [] for t in tables}, "runs": {}, "files": {}}


def save_manifest(root: Path, manifest: dict[str, Any]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / (MANIFEST + ".tmp")
    # msgspec writes the same compact, key-sorted JSON as json.dumps, several times faster
    # (non-ASCII as UTF-8 rather than \u escapes: the same JSON values).
    tmp.write_bytes(msgspec.json.encode(manifest, order="sorted"))
    os.replace(tmp, root / MANIFEST)
