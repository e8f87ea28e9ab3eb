"""The ingest pipeline's own parts: the same tables with or without helper threads, `runs`
rows built batch by batch, decisions' raw `choice` made text in bulk, the manifest's bytes,
and a worker process's failure reaching the ingest."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from types import SimpleNamespace

import msgspec
import polars as pl
import pytest

from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.store import TABLES, Store, ingest
from citeloop.trajectories.store_decode import DecodedFile
from citeloop.trajectories.store_manifest import empty_manifest, load_manifest, save_manifest
from citeloop.trajectories.store_parallel import ShardJob, _run_shards
from citeloop.trajectories.store_tables import TABLE_SCHEMAS, _json_texts, concat_runs, runs_table

QUESTIONS = [
    "Who directed the film that was shot in or around Leland, North Carolina in 1986?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
]


@pytest.fixture(scope="module")
def runs_dir(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pipeline-runs")
    for question in QUESTIONS:
        for policy, planner in (("heuristic", "rule"), ("naive", "naive")):
            run_research(question, kit, policy_spec=policy, planner=planner, seed=0, out_dir=folder)
    return folder


def _tables(store: Store) -> dict[str, pl.DataFrame]:
    return {t: store.read(t).sort(*(["run_id", "seq"] if t not in ("runs", "blobs") else
                                   ["run_id"] if t == "runs" else ["digest"])) for t in TABLES}


class _NoThreads:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("the pipeline started a helper thread")


def test_without_helper_threads_the_tables_are_the_same(runs_dir: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """On one core the pipeline runs in the calling thread (no executor is made), one batch a
    file, and stores what the threaded pipeline stores."""
    threaded = ingest(runs_dir, tmp_path / "threaded")
    monkeypatch.setattr("citeloop.trajectories.store_ingest.usable_cores", lambda: 1)
    monkeypatch.setattr("citeloop.trajectories.store_ingest.ThreadPoolExecutor", _NoThreads)
    monkeypatch.setattr("citeloop.trajectories.store_ingest.BATCH_BYTES", 1)
    inline = ingest(runs_dir, tmp_path / "inline")
    assert (inline.runs_added, inline.events, len(inline.parts)) == (threaded.runs_added, threaded.events, 1)
    one, other = _tables(Store.open(tmp_path / "threaded")), _tables(Store.open(tmp_path / "inline"))
    for table in TABLES:
        assert one[table].equals(other[table]), table
    assert ingest(runs_dir, tmp_path / "inline").files_unchanged == len(QUESTIONS) * 2


def _decoded(run_id: str, counts: dict[str, int] | None, metrics: dict[str, float] | None) -> DecodedFile:
    row = {k: None for k in TABLE_SCHEMAS["runs"]} | {"run_id": run_id}
    f = DecodedFile(f"/runs/{run_id}.jsonl", "d" + run_id, b"", 10, 20, run_id, 6, row)
    if counts is not None:
        f.outcome = SimpleNamespace(status="done", stop_reason="budget", counts=counts, metrics=metrics)
    return f


def test_runs_rows_of_batches_join_with_every_outcome_column_sorted() -> None:
    first = runs_table([_decoded("a", {"searches": 2}, {"coverage": 0.5}), _decoded("b", None, None)])
    second = runs_table([_decoded("c", {"reads": 3, "searches": 1}, {})])
    df = concat_runs([first, second], part=7)
    fixed = list(TABLE_SCHEMAS["runs"])
    assert df.columns == fixed + ["count_reads", "count_searches", "metric_coverage"]
    assert df.select("run_id", "count_reads", "count_searches", "metric_coverage", "part").rows() == [
        ("a", None, 2, 0.5, 7), ("b", None, None, None, 7), ("c", 3, 1, None, 7)]
    assert df.schema["count_reads"] == pl.Int64() and df.schema["metric_coverage"] == pl.Float64()


def test_raw_choices_become_compact_json_text_in_bulk() -> None:
    raws = [msgspec.Raw(b'"continue"'), msgspec.Raw(b""), msgspec.Raw(b"null"), msgspec.Raw(b'{"a": [1, 2]}'),
            msgspec.Raw(b'["d1","d2"]'), msgspec.Raw('"caf\u00e9"'.encode()), msgspec.Raw(b"3")]
    assert _json_texts(raws).to_list() == ['"continue"', None, None, '{"a":[1,2]}', '["d1","d2"]', '"caf\u00e9"', "3"]
    assert _json_texts([msgspec.Raw(b"")]).to_list() == [None]
    assert _json_texts([]).to_list() == []


def test_the_manifest_is_compact_sorted_json(tmp_path: Path) -> None:
    manifest = empty_manifest(TABLES)
    manifest["files"] = {"/r/b.jsonl": {"digest": "x", "run_id": "b", "status": "ingested"},
                         "/r/a.jsonl": {"status": "skipped", "digest": "y", "run_id": None, "reason": "caf\u00e9"}}
    save_manifest(tmp_path, manifest)
    text = (tmp_path / "manifest.json").read_text(encoding="utf-8")
    assert text == json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert load_manifest(tmp_path) == manifest


def test_a_worker_that_fails_fails_the_ingest(tmp_path: Path, runs_dir: Path) -> None:
    """A worker's exception comes back to the process that started it, which raises it."""
    not_a_folder = tmp_path / "store"
    not_a_folder.write_text("a file where the store's table folders should go", encoding="utf-8")
    job = ShardJob(str(not_a_folder), empty_manifest(TABLES), [str(p) for p in sorted(runs_dir.glob("*.jsonl"))],
                   False, False)
    counter = multiprocessing.get_context("spawn").Value("q", 0)
    with pytest.raises(OSError):
        _run_shards([job], counter, "spawn")
