"""The store ingest's benchmark helpers and entry points: the floor measured in a fresh
interpreter decodes the same events as the floor in this process, and `ingest` finds the run
files once (no second look-up of each file before the clock starts)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citeloop.eval.bench_scale import fresh_floor, ingest_floor
from citeloop.trajectories import store as store_module
from citeloop.trajectories.store import Store, ingest

GOLDEN = Path(__file__).parent / "golden" / "leland_heuristic.jsonl"


def _events_in(path: Path) -> int:
    return len(path.read_bytes().rstrip(b"\n").split(b"\n")) - 1  # every line but the header


def test_the_fresh_process_floor_reads_the_same_events(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(GOLDEN, runs / "a.jsonl")
    shutil.copy(GOLDEN, runs / "b.jsonl")
    want = 2 * _events_in(GOLDEN)
    here, _ = ingest_floor(sorted(runs.rglob("*.jsonl")), tmp_path / "here.parquet")
    fresh, seconds = fresh_floor(runs, tmp_path / "fresh.parquet")
    assert here == fresh == want
    assert seconds > 0 and (tmp_path / "fresh.parquet").stat().st_size > 0


def test_ingest_looks_each_file_up_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(GOLDEN, runs / "a.jsonl")

    def again(source: object) -> list[Path]:
        raise AssertionError(f"the files were looked up again: {source!r}")

    monkeypatch.setattr(store_module, "source_paths", again)
    report = ingest(runs, tmp_path / "s")
    assert report.runs_added == 1 and report.events == _events_in(GOLDEN)
    assert Store.open(tmp_path / "s").counts()["events"] == _events_in(GOLDEN)
