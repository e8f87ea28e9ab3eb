"""`citeloop store ingest --workers N`: shards of run files ingested by worker processes give the
same tables as one process, one manifest; duplicates across shards, runs replacing an earlier
ingest's and blobs shared by shards resolve as in a serial ingest; re-ingests stay idempotent
and incremental."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from citeloop.eval.cli import main
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.store import TABLES, Store, ingest
from citeloop.trajectories.store_parallel import split_shards, start_method

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [
    "Who directed the film that was shot in or around Leland, North Carolina in 1986?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
    "Heinkel HD 23 was a type of plane that was held on the craft that were first developed when?",
]


@pytest.fixture(scope="module")
def runs_dir(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Nine runs in three folders (one compressed), so that shards split them."""
    folder = tmp_path_factory.mktemp("parallel-runs")
    for i, (policy, planner, seed) in enumerate((("heuristic", "rule", 0), ("naive", "naive", 0),
                                                 ("explore", "rule", 4))):
        for question in QUESTIONS:
            run_research(question, kit, policy_spec=policy, planner=planner, seed=seed, out_dir=folder / f"d{i}",
                         compress=i == 2)
    return folder


def _tables(store: Store) -> dict[str, pl.DataFrame]:
    out = {}
    for table in TABLES:
        df = store.read(table)
        if table == "runs":
            df = df.drop("part").sort("run_id")
        elif table == "blobs":
            df = df.sort("digest")
        else:
            df = df.sort(["run_id", "seq"] + (["claim_id"] if table == "claims" else []))
        out[table] = df
    return out


def _same_tables(a: Store, b: Store) -> None:
    one, other = _tables(a), _tables(b)
    for table in TABLES:
        assert one[table].equals(other[table]), table


@pytest.fixture(scope="module")
def serial_store(runs_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("serial") / "s"
    report = ingest(runs_dir, root)
    assert (report.runs_added, report.workers, report.start_method) == (9, 1, None)
    return Store.open(root)


def test_shards_are_contiguous_and_cover_every_file(runs_dir: Path) -> None:
    paths = sorted(str(p) for p in runs_dir.rglob("*.jsonl*"))
    shards = split_shards(paths, 3)
    assert [p for s in shards for p in s] == paths and len(shards) == 3
    assert split_shards(paths[:2], 5) == [[paths[0]], [paths[1]]]


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_give_the_same_tables_as_one_process(runs_dir: Path, serial_store: Store, tmp_path: Path,
                                                     workers: int) -> None:
    report = ingest(runs_dir, tmp_path / "s", workers=workers)
    assert (report.runs_added, report.workers, report.duplicates, report.skipped) == (9, workers, [], [])
    # This process has run polars queries already: a forked worker would hang on its thread pool.
    assert report.start_method == start_method() == "spawn"
    store = Store.open(tmp_path / "s")
    _same_tables(serial_store, store)
    assert store.counts()["blobs"] == store.read("blobs")["digest"].n_unique(), "a blob is stored twice"
    assert len(store.parts("events")) == workers
    again = ingest(runs_dir, tmp_path / "s", workers=workers)
    assert (again.files_unchanged, again.runs_added, again.runs_replaced) == (9, 0, 0)
    assert Store.open(tmp_path / "s").manifest == store.manifest


def test_duplicates_across_shards_and_replaced_runs_resolve_as_in_one_process(runs_dir: Path, tmp_path: Path) -> None:
    plain = sorted((runs_dir / "d0").glob("*.jsonl"))
    source = tmp_path / "runs"
    shutil.copytree(runs_dir / "d0", source / "b")
    data = plain[0].read_bytes()
    (source / "a").mkdir()
    (source / "a" / plain[0].name).write_bytes(data[: len(data) // 2])  # a torn copy, first shard
    (source / "c").mkdir()
    (source / "c" / plain[0].name).write_bytes(data[: len(data) // 3])  # another, last shard
    stores, reports = {}, {}
    for workers in (1, 3):
        root = tmp_path / f"s{workers}"
        assert ingest(source / "b", root, workers=workers).runs_added == 3  # an earlier ingest: the complete runs
        report = ingest(source, root, workers=workers)  # then both torn copies, in the first and the last shard
        reports[workers] = (report.runs_added, report.runs_replaced, report.files_unchanged, sorted(report.duplicates))
        stores[workers] = Store.open(root)
    assert reports[3] == reports[1]
    assert reports[1][2] == 3 and reports[1][3] == [str((source / "c" / plain[0].name).absolute())]
    _same_tables(stores[1], stores[3])
    assert stores[3].manifest["files"][str((source / "c" / plain[0].name).absolute())]["status"] == "duplicate"
    # Now the torn copy is all there is of that run in a new store, and a changed complete file replaces it.
    for workers in (1, 3):
        root = tmp_path / f"t{workers}"
        ingest(source / "a", root, workers=workers)
        report = ingest(source / "b", root, workers=workers)
        assert (report.runs_added, report.runs_replaced) == (2, 1)
        stores[workers] = Store.open(root)
        assert stores[workers].read("runs")["torn"].to_list() == [False] * 3
    _same_tables(stores[1], stores[3])


def test_an_ingest_adds_only_the_new_files(runs_dir: Path, serial_store: Store, tmp_path: Path) -> None:
    ingest(runs_dir / "d0", tmp_path / "s", workers=2)
    report = ingest(runs_dir, tmp_path / "s", workers=2)
    assert (report.runs_added, report.files_unchanged) == (6, 3)
    _same_tables(serial_store, Store.open(tmp_path / "s"))


def test_the_command_line_forks_its_workers_and_says_so(runs_dir: Path, serial_store: Store, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "citeloop.eval.cli", "store", "ingest", str(runs_dir), "--store",
                           str(tmp_path / "s"), "--workers", "2", "--json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["runs_added"], report["workers"], report["start_method"]) == (9, 2, "fork")
    _same_tables(serial_store, Store.open(tmp_path / "s"))


def test_workers_0_is_bad_input(runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store", "ingest", str(runs_dir), "--store", str(tmp_path / "s"), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "--workers" in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()
