"""The store ingest's benchmark helpers and entry points: the floor measured in a fresh
interpreter decodes the same events as the floor in this process; `ingest` finds the run
files once (no second look-up of each file before the clock starts) and reports its CPU time;
`bench_scale --compare` runs another citeloop's ingest in the same rounds."""

from __future__ import annotations

import json
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
    fresh = fresh_floor(runs, tmp_path / "fresh.parquet")
    assert here == fresh["events"] == want and fresh["runs"] == 2
    assert fresh["seconds"] > 0 and fresh["cpu_seconds"] > 0 and (tmp_path / "fresh.parquet").stat().st_size > 0


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


def test_the_report_says_how_much_cpu_the_ingest_used(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(GOLDEN, runs / "a.jsonl")
    report = ingest(runs, tmp_path / "s")
    assert report.to_dict()["cpu_seconds"] > 0


def test_bench_scale_compares_another_citeloop_in_the_same_rounds(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from citeloop.eval import bench_scale

    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(GOLDEN, runs / "a.jsonl")
    other = tmp_path / "other" / "citeloop"  # the same code, found through PYTHONPATH
    other.mkdir(parents=True)
    tree = Path(bench_scale.__file__).resolve().parent.parent
    for package in ("runtime", "trajectories", "filters", "training", "eval"):
        (other / package).symlink_to(tree / package)
    out = tmp_path / "scale.json"
    assert bench_scale.main(["--runs", str(runs), "--repeats", "1", "--compare", str(other.parent),
                             "--out", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    events = _events_in(GOLDEN)
    assert [r["events"] for r in results["compare"]["ingest"]] == [events, events]
    assert [r["events"] for r in results["ingest"]] == [events, events]
    assert set(results["ingest_rounds"][0]) >= {"floor", "floor_fresh_process", "ingest_1", "ingest_2",
                                                "compare_1", "compare_2"}
    assert "compared code" in capsys.readouterr().out


def test_bench_scale_refuses_a_compare_path_without_citeloop(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from citeloop.eval import bench_scale

    assert bench_scale.main(["--runs", str(tmp_path), "--compare", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
