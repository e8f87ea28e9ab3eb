"""The Parquet store: tables against the run files they came from, incremental ingest,
torn and changed files, the query functions on a hand-checked store, and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import get_args

import msgspec
import polars as pl
import pytest
from pydantic_core import to_jsonable_python

from citeloop.eval.cli import main
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories import store_decode
from citeloop.trajectories.events import (
    DECISION_TYPES,
    ClaimDrafted,
    ClaimDropped,
    ClaimRewritten,
    Event,
    VerdictReached,
    event_to_dict,
)
from citeloop.trajectories.header import SCHEMA_VERSION
from citeloop.trajectories.models import Claim, VerdictRecord
from citeloop.trajectories.runfile import FileSink, RunFile, decompress_run_bytes, dumps_line, read_run
from citeloop.trajectories.store import TABLES, Store, StoreError, ingest
from citeloop.trajectories.store_queries import (
    check_firing,
    decisions_by_kind_and_policy,
    render_stats,
    searches_per_subquestion,
    stats,
    summarize_distribution,
    verdict_distribution,
)

GOLDEN = Path(__file__).parent / "golden" / "leland_heuristic.jsonl"
QUESTIONS = [
    "Who directed the film that was shot in or around Leland, North Carolina in 1986?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
    "Heinkel HD 23 was a type of plane that was held on the craft that were first developed when?",
]
# (policy spec, planner, seed, compressed)
SETUPS = [("heuristic", "rule", 0, False), ("naive", "naive", 0, False), ("explore", "rule", 3, True)]


@pytest.fixture(scope="module")
def runs_dir(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("store-runs")
    for question in QUESTIONS:
        for policy, planner, seed, compress in SETUPS:
            run_research(question, kit, policy_spec=policy, planner=planner, seed=seed, out_dir=folder,
                         compress=compress)
    folder.joinpath("sub").mkdir()  # searched recursively; other files are ignored
    folder.joinpath("notes.txt").write_text("not a run", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def runs(runs_dir: Path) -> dict[str, RunFile]:
    loaded = [read_run(p) for p in sorted(runs_dir.iterdir()) if p.name.endswith((".jsonl", ".jsonl.zst"))]
    return {r.run_id: r for r in loaded}


@pytest.fixture(scope="module")
def store(runs_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Store:
    path = tmp_path_factory.mktemp("store") / "s"
    report = ingest(runs_dir, path)
    assert (report.runs_added, report.skipped, report.runs_torn) == (len(QUESTIONS) * len(SETUPS), [], 0)
    return Store.open(path)


def _copy_runs(runs_dir: Path, dest: Path, n: int | None = None) -> list[Path]:
    dest.mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in runs_dir.iterdir() if p.name.endswith(".jsonl"))[:n]
    return [Path(shutil.copy(p, dest / p.name)) for p in files]


def _tables(store: Store) -> dict[str, pl.DataFrame]:
    return {t: store.read(t).sort(*(["run_id", "seq"] if t not in ("runs", "blobs") else
                                   ["run_id"] if t == "runs" else ["digest"])) for t in TABLES}


# --------------------------------------------------------------------------- an independent oracle


def _expected(run: RunFile) -> dict[str, list[dict]]:
    """The rows each table should hold for one run, computed from pydantic events."""
    out: dict[str, list[dict]] = {"decisions": [], "tool_calls": [], "claims": []}
    current_round = None
    angle_of: dict[int, str] = {}
    claims: dict[str, dict] = {}
    for e in run.events:
        if e.type in ("angle_decision", "stop_decision"):
            current_round = e.state.round
        elif e.type == "query_issued":
            current_round = e.round
            angle_of[e.seq] = e.angle
        if e.type in DECISION_TYPES:
            out["decisions"].append({
                "seq": e.seq, "parent_seq": e.parent_seq, "subq": e.subq, "kind": e.type.removesuffix("_decision"),
                "policy": e.policy.name, "policy_version": e.policy.version, "choice": e.choice,
                "n_candidates": len(e.candidates), "reason": e.reason, "round": current_round,
            })
        elif e.type == "search_result":
            out["tool_calls"].append({
                "seq": e.seq, "tool": "search", "query": e.query, "doc_id": None, "status": e.response.status,
                "attempts": len(e.attempts), "attempt_statuses": list(e.attempts), "n_hits": len(e.response.hits),
                "angle": angle_of.get(e.parent_seq), "round": current_round, "subq": e.subq,
            })
        elif e.type == "document_read":
            out["tool_calls"].append({
                "seq": e.seq, "tool": "read", "query": None, "doc_id": e.doc_id, "status": e.status,
                "attempts": len(e.attempts), "attempt_statuses": list(e.attempts), "n_hits": None,
                "angle": None, "round": current_round, "subq": e.subq,
            })
        elif e.type == "claim_drafted":
            c = e.claim
            claims[c.claim_id] = {"claim_id": c.claim_id, "seq": e.seq, "subq": e.subq, "text": c.text,
                                  "final_text": c.text, "card_ids": list(c.card_ids), "verdict": None,
                                  "checker": None, "n_checks": 0, "rewritten": False, "dropped": False}
        elif e.type == "verdict_reached":
            c = claims[e.record.claim_id]
            c.update(verdict=e.record.verdict, checker=e.record.checker, n_checks=c["n_checks"] + 1)
        elif e.type == "claim_rewritten":
            claims[e.claim_id].update(final_text=e.new_text, rewritten=True)
        elif e.type == "claim_dropped":
            claims[e.claim_id]["dropped"] = True
    for c in claims.values():
        c["weakened"] = c["rewritten"] and not c["dropped"]
    out["claims"] = list(claims.values())
    return out


def _rows(store: Store, table: str, run_id: str, columns: list[str]) -> list[dict]:
    return store.scan(table).filter(pl.col("run_id") == run_id).sort("seq").select(columns).collect().to_dicts()


# --------------------------------------------------------------------------- tables


def test_tables_hold_exactly_what_the_run_files_say(store: Store, runs: dict[str, RunFile]) -> None:
    counts = store.counts()
    assert counts["runs"] == len(runs)
    assert counts["events"] == sum(len(r.events) for r in runs.values())
    assert counts["blobs"] == len({d for r in runs.values() for d in r.blobs()})
    for run_id, run in runs.items():
        want = _expected(run)
        for table, rows in want.items():
            columns = list(rows[0]) if rows else ["seq"]
            got = _rows(store, table, run_id, columns)
            if table == "decisions":
                for row in got:
                    row["choice"] = json.loads(row["choice"])
            assert got == rows, f"{table} of {run_id}"
        assert {t: len(r) for t, r in want.items()} == {
            t: store.scan(t).filter(pl.col("run_id") == run_id).select(pl.len()).collect().item() for t in want}


def test_event_payloads_rebuild_every_event(store: Store, runs: dict[str, RunFile]) -> None:
    blobs = dict(store.read("blobs").iter_rows())
    for run_id, run in runs.items():
        rows = _rows(store, "events", run_id, ["run_id", "seq", "parent_seq", "subq", "type", "payload"])
        assert len(rows) == len(run.events)
        for row, event in zip(rows, run.events):
            payload = json.loads(row.pop("payload"))
            if row["type"] == "text_blob":
                assert set(payload) == {"digest"}, "text lives in the blobs table, not in the payload"
                payload["text"] = blobs[payload["digest"]]
            assert {**row, **payload} == event_to_dict(event)


def test_runs_table_has_header_facts_and_outcome(store: Store, runs: dict[str, RunFile]) -> None:
    table = {r["run_id"]: r for r in store.read("runs").to_dicts()}
    for run_id, run in runs.items():
        row, spec = table[run_id], run.header.spec
        finished = run.of_type("run_finished")[0].outcome
        assert (row["question"], row["seed"], row["policy"], row["planner"]) == (
            spec.question, spec.seed, spec.policies["spec"].name, spec.planner.name)
        assert (row["verifier"], row["corpus_fingerprint"], row["config_digest"]) == (
            spec.verifier.name, spec.corpus_fingerprint, spec.config_digest)
        assert (row["n_events"], row["finished"], row["torn"], row["problem"]) == (len(run.events), True, False, None)
        assert (row["status"], row["stop_reason"]) == (finished.status, finished.stop_reason)
        assert all(row[f"count_{k}"] == v for k, v in finished.counts.items())
        assert all(row[f"metric_{k}"] == v for k, v in finished.metrics.items())
        text, _ = decompress_run_bytes(Path(row["file"]).read_bytes(), compressed=row["file"].endswith(".zst"))
        assert row["schema_version"] == json.loads(text.split(b"\n")[0])["schema_version"]
        assert row["wall_ms"] == run.of_type("run_meta")[0].wall_ms


def test_validated_ingest_gives_the_same_tables(store: Store, runs_dir: Path, tmp_path: Path) -> None:
    ingest(runs_dir, tmp_path / "v", validate=True)
    fast, slow = _tables(store), _tables(Store.open(tmp_path / "v"))
    for table in TABLES:
        drop = ["file", "part"] if table == "runs" else []
        assert fast[table].drop(drop).equals(slow[table].drop(drop)), table


def test_lines_in_another_key_order_still_get_a_clean_payload(runs: dict[str, RunFile], tmp_path: Path) -> None:
    run = next(iter(runs.values()))
    lines = [dumps_line(run.header)]
    for e in run.events:
        d = event_to_dict(e)
        lines.append(json.dumps(dict(reversed(list(d.items()))), ensure_ascii=False) + "\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "reordered.jsonl").write_text("".join(lines), encoding="utf-8")
    ingest(tmp_path / "runs", tmp_path / "s")
    store = Store.open(tmp_path / "s")
    rows = _rows(store, "events", run.run_id, ["type", "payload"])
    for row, e in zip(rows, run.events):
        want = {k: v for k, v in event_to_dict(e).items() if k not in ("run_id", "seq", "parent_seq", "subq", "type")}
        if e.type == "text_blob":
            want.pop("text")
        assert json.loads(row["payload"]) == want
    assert _rows(store, "decisions", run.run_id, ["choice"]) == [
        {"choice": json.dumps(e.choice, separators=(",", ":"))} for e in run.events if e.type in DECISION_TYPES]


# --------------------------------------------------------------------------- incremental ingest


def test_ingesting_twice_adds_nothing(runs_dir: Path, tmp_path: Path) -> None:
    first = ingest(runs_dir, tmp_path / "s")
    before = _tables(Store.open(tmp_path / "s"))
    manifest = (tmp_path / "s" / "manifest.json").read_text(encoding="utf-8")
    again = ingest(runs_dir, tmp_path / "s")
    assert (again.runs_added, again.runs_replaced, again.events, again.parts) == (0, 0, 0, [])
    assert again.files_unchanged == first.files_seen
    assert (tmp_path / "s" / "manifest.json").read_text(encoding="utf-8") == manifest
    after = _tables(Store.open(tmp_path / "s"))
    assert all(before[t].equals(after[t]) for t in TABLES)


def test_a_new_file_adds_just_its_run(runs_dir: Path, tmp_path: Path) -> None:
    files = _copy_runs(runs_dir, tmp_path / "runs")
    files[-1].rename(tmp_path / files[-1].name)
    ingest(tmp_path / "runs", tmp_path / "s")
    (tmp_path / files[-1].name).rename(files[-1])
    report = ingest(tmp_path / "runs", tmp_path / "s")
    assert (report.runs_added, report.files_unchanged, len(report.parts)) == (1, len(files) - 1, 1)
    store = Store.open(tmp_path / "s")
    assert store.counts()["runs"] == len(files)
    assert store.read("runs")["run_id"].n_unique() == len(files)


def test_a_changed_file_replaces_its_rows(runs_dir: Path, runs: dict[str, RunFile], tmp_path: Path) -> None:
    files = _copy_runs(runs_dir, tmp_path / "runs", 2)
    ingest(tmp_path / "runs", tmp_path / "s")
    target = files[0]
    run = read_run(target)
    # The same run, cut back to its first 10 events (as a crashed run would be, then tidied).
    target.write_bytes(b"".join(target.read_bytes().split(b"\n")[i] + b"\n" for i in range(11)))
    report = ingest(tmp_path / "runs", tmp_path / "s")
    assert (report.runs_added, report.runs_replaced, report.events) == (0, 1, 10)
    store = Store.open(tmp_path / "s")
    other = read_run(files[1])
    assert store.counts()["runs"] == 2
    assert store.counts()["events"] == 10 + len(other.events)
    row = store.scan("runs").filter(pl.col("run_id") == run.run_id).collect().row(0, named=True)
    assert (row["n_events"], row["finished"], row["torn"]) == (10, False, False)
    decisions = store.scan("decisions").filter(pl.col("run_id") == run.run_id)
    assert decisions.select(pl.col("seq").max()).collect().item() < 10
    # Parts the manifest no longer names are not read, and the next ingest removes them.
    stray = store.part_path("events", 99)
    shutil.copy(store.parts("events")[0], stray)
    assert Store.open(tmp_path / "s").counts()["events"] == 10 + len(other.events)
    ingest(tmp_path / "runs", tmp_path / "s")
    assert not stray.exists()


def test_a_torn_file_is_stored_up_to_its_last_good_event(runs_dir: Path, tmp_path: Path) -> None:
    files = _copy_runs(runs_dir, tmp_path / "runs", 4)
    data = files[0].read_bytes()
    files[0].write_bytes(data[: len(data) // 2])  # mid-line, like a crash
    for path, line, damage in [(files[1], 6, lambda b: b[:-3] + b"x}"),  # not JSON
                               (files[2], 3, lambda b: b[:30] + b"\xff" + b[31:]),  # not UTF-8
                               (files[3], 8, lambda b: b.replace(b'"type":"', b'"type":"x', 1))]:  # no such event
        lines = path.read_bytes().split(b"\n")
        path.write_bytes(b"\n".join(lines[:line] + [damage(lines[line])] + lines[line + 1:]))
    report = ingest(tmp_path / "runs", tmp_path / "s")
    assert report.runs_torn == 4
    store = Store.open(tmp_path / "s")
    for path in files:
        run = read_run(path)
        assert run.torn
        row = store.scan("runs").filter(pl.col("run_id") == run.run_id).collect().row(0, named=True)
        assert (row["torn"], row["n_events"], row["problem"], row["finished"]) == (True, len(run.events), run.problem,
                                                                                  False)
        assert _rows(store, "events", run.run_id, ["seq"]) == [{"seq": i} for i in range(len(run.events))]


def test_damage_the_fast_decode_skips_is_still_caught(runs_dir: Path, tmp_path: Path) -> None:
    """The fast decode leaves two checks to the bulk split of a chunk's lines (bytes are UTF-8,
    one event a line); files failing them are cut by the exact reader, the others kept whole."""
    files = _copy_runs(runs_dir, tmp_path / "runs", 5)

    def damage(path: Path, fn) -> None:
        lines = path.read_bytes().split(b"\n")
        path.write_bytes(b"\n".join(fn(lines)))

    def bad_utf8(lines: list[bytes]) -> list[bytes]:  # inside a field the fast decode skips
        i = next(i for i, line in enumerate(lines) if b'"type":"card_created"' in line)
        at = lines[i].index(b'"quote":"') + 12
        return lines[:i] + [lines[i][:at] + b"\xff" + lines[i][at + 1 :]] + lines[i + 1 :]

    damage(files[0], bad_utf8)
    damage(files[1], lambda lines: lines[:5] + [lines[5] + b"," + lines[6]] + lines[7:])  # two events, one line
    damage(files[2], lambda lines: lines[:4] + [b""] + lines[4:])  # a blank line
    damage(files[3], lambda lines: lines[:3] + [lines[3] + b"\r"] + lines[4:])  # CRLF: fine JSON
    report = ingest(tmp_path / "runs", tmp_path / "s")
    assert (report.runs_added, report.runs_torn, report.skipped) == (5, 3, [])
    store = Store.open(tmp_path / "s")
    for path in files:
        run = read_run(path)
        row = store.scan("runs").filter(pl.col("run_id") == run.run_id).collect().row(0, named=True)
        assert (row["torn"], row["n_events"], row["problem"]) == (run.torn, len(run.events), run.problem)
        rows = _rows(store, "events", run.run_id, ["seq", "payload"])
        assert [r["seq"] for r in rows] == list(range(len(run.events)))
        for r, e in zip(rows, run.events):
            want = {k: v for k, v in event_to_dict(e).items() if k not in ("run_id", "seq", "parent_seq", "subq",
                                                                           "type", "text")}
            assert json.loads(r["payload"]) == want
    assert [read_run(p).torn for p in files] == [True, True, True, False, False]


@pytest.mark.parametrize("limit", ["CHUNK_BYTES", "BATCH_BYTES"])
def test_small_chunks_and_batches_give_the_same_tables(store: Store, runs_dir: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch, limit: str) -> None:
    """One chunk (one part) per file, or one batch (rows built while the next file is read)
    per file, files fetched two at a time: the same rows as one batch in one chunk."""
    monkeypatch.setattr(f"citeloop.trajectories.store_ingest.{limit}", 1)
    monkeypatch.setattr("citeloop.trajectories.store_ingest.FETCH_BATCH", 2)
    report = ingest(runs_dir, tmp_path / "s")
    assert report.runs_added == len(QUESTIONS) * len(SETUPS)
    small = Store.open(tmp_path / "s")
    assert len(small.parts("events")) == len(report.parts) == (report.runs_added if limit == "CHUNK_BYTES" else 1)
    one, many = _tables(store), _tables(small)
    for table in TABLES:
        drop = ["file", "part"] if table == "runs" else []
        assert one[table].drop(drop).equals(many[table].drop(drop)), table
    assert ingest(runs_dir, tmp_path / "s").files_unchanged == report.files_seen


def test_a_torn_zst_file_and_a_duplicate_run(runs_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    zst = next(p for p in sorted(runs_dir.iterdir()) if p.name.endswith(".zst"))
    run = read_run(zst)
    plain = tmp_path / "runs" / f"{run.run_id}.jsonl"
    sink = FileSink(plain)
    sink.write_header(run.header)
    for e in run.events:
        sink.write(e)
    sink.close()
    data = zst.read_bytes()
    cut = tmp_path / "runs" / "copy" / zst.name
    cut.parent.mkdir()
    cut.write_bytes(data[: len(data) * 2 // 3])
    report = ingest(tmp_path / "runs", tmp_path / "s")
    assert (report.runs_added, report.duplicates) == (1, [str(cut.absolute())]), "the complete copy wins"
    store = Store.open(tmp_path / "s")
    assert store.read("runs")["torn"].to_list() == [False]
    assert store.counts()["events"] == len(run.events)
    assert ingest(tmp_path / "runs", tmp_path / "s").files_unchanged == 2


@pytest.mark.parametrize("limit", ["CHUNK_BYTES", "BATCH_BYTES"])
def test_duplicate_runs_resolve_across_chunks_and_batches(runs_dir: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, limit: str) -> None:
    """Each file its own chunk (or batch): a torn copy read before the complete file is
    replaced by it, one read after it is dropped; the run is stored once, complete."""
    monkeypatch.setattr(f"citeloop.trajectories.store_ingest.{limit}", 1)
    [plain] = _copy_runs(runs_dir, tmp_path / "runs" / "b", 1)
    run = read_run(plain)
    data = plain.read_bytes()
    cuts = [tmp_path / "runs" / name / plain.name for name in ("a", "c")]  # sorted around b/
    for cut, keep in zip(cuts, (len(data) * 2 // 3, len(data) // 3)):
        cut.parent.mkdir()
        cut.write_bytes(data[:keep])
    report = ingest(tmp_path / "runs", tmp_path / "s")
    assert (report.runs_added, report.runs_replaced, report.runs_torn, report.events) == (1, 0, 0, len(run.events))
    assert sorted(report.duplicates) == sorted(str(c.absolute()) for c in cuts)
    store = Store.open(tmp_path / "s")
    assert store.read("runs").select("file", "torn").rows() == [(str(plain.absolute()), False)]
    assert _rows(store, "events", run.run_id, ["seq"]) == [{"seq": i} for i in range(len(run.events))]
    assert store.counts()["decisions"] == sum(e.type in DECISION_TYPES for e in run.events)
    statuses = {Path(k).parent.name: v["status"] for k, v in store.manifest["files"].items()}
    assert statuses == {"a": "duplicate", "b": "ingested", "c": "duplicate"}
    assert ingest(tmp_path / "runs", tmp_path / "s").files_unchanged == 3


def test_unreadable_files_are_skipped_and_reported(runs_dir: Path, tmp_path: Path) -> None:
    _copy_runs(runs_dir, tmp_path / "runs", 1)
    (tmp_path / "runs" / "junk.jsonl").write_text("this is not json\n", encoding="utf-8")
    report = ingest(tmp_path / "runs", tmp_path / "s")
    assert report.runs_added == 1
    assert [Path(f).name for f, _ in report.skipped] == ["junk.jsonl"]
    assert "line 1 is not valid JSON" in report.skipped[0][1]


# --------------------------------------------------------------------------- queries on a hand-made store


def _tiny_store(root: Path) -> Store:
    store = Store.create(root)
    part = store.new_part()
    decisions = pl.DataFrame(
        {"run_id": ["r1", "r1", "r1", "r2", "r2"], "seq": [1, 4, 9, 2, 5], "parent_seq": [None, 3, None, None, 4],
         "subq": ["sq1", "sq1", None, "sq1", "sq1"], "kind": ["angle", "read", "stop", "angle", "read"],
         "policy": ["heuristic", "heuristic", "heuristic", "explore", "explore"],
         "policy_version": ["1"] * 5, "choice": ["0", '["d1"]', '"stop"', "2", '["d2","d3"]'],
         "n_candidates": [5, 10, 2, 5, 9], "reason": ["r"] * 5, "round": [1, 1, 1, 1, 1]},
        schema_overrides={"n_candidates": pl.Int32})
    tool_calls = pl.DataFrame(
        {"run_id": ["r1", "r1", "r1", "r2", "r2"], "seq": [3, 6, 7, 4, 8], "subq": ["sq1", "sq1", "sq2", "sq1", "sq1"],
         "tool": ["search", "search", "search", "search", "read"]})
    events = pl.DataFrame(
        {"run_id": ["r1"] * 4 + ["r2"] * 3, "seq": [0, 1, 2, 3, 0, 1, 2],
         "subq": [None, "sq1", "sq2", "sq3", None, "sq1", "sq2"], "type": ["x"] * 7, "payload": ["{}"] * 7})
    claims = pl.DataFrame(
        {"run_id": ["r1", "r1", "r1", "r2"], "claim_id": ["c1", "c2", "c3", "c1"],
         "verdict": ["entail", "partial", "entail", None], "dropped": [False, True, False, False],
         "rewritten": [False, True, True, False]})
    runs = pl.DataFrame({"run_id": ["r1", "r2"], "question": ["q", "q"], "finished": [True, False],
                         "torn": [False, True]})
    for table, df in {"decisions": decisions, "tool_calls": tool_calls, "events": events, "claims": claims,
                      "runs": runs}.items():
        store.write_part(table, part, df)
    store._save_manifest()
    return Store.open(root)


def test_query_functions_on_a_hand_checked_store(tmp_path: Path) -> None:
    store = _tiny_store(tmp_path / "tiny")
    assert decisions_by_kind_and_policy(store).to_dicts() == [
        {"kind": "angle", "policy": "explore", "policy_version": "1", "n": 1, "runs": 1, "mean_candidates": 5.0},
        {"kind": "angle", "policy": "heuristic", "policy_version": "1", "n": 1, "runs": 1, "mean_candidates": 5.0},
        {"kind": "read", "policy": "explore", "policy_version": "1", "n": 1, "runs": 1, "mean_candidates": 9.0},
        {"kind": "read", "policy": "heuristic", "policy_version": "1", "n": 1, "runs": 1, "mean_candidates": 10.0},
        {"kind": "stop", "policy": "heuristic", "policy_version": "1", "n": 1, "runs": 1, "mean_candidates": 2.0},
    ]
    # r1: sq1 2 searches, sq2 1, sq3 0; r2: sq1 1 search (its read is not a search), sq2 0.
    dist = searches_per_subquestion(store)
    assert dist.select("searches", "subquestions").to_dicts() == [
        {"searches": 0, "subquestions": 2}, {"searches": 1, "subquestions": 2}, {"searches": 2, "subquestions": 1}]
    assert summarize_distribution(dist) == {"n": 5, "mean": 0.8, "median": 1, "p90": 2, "max": 2}
    assert verdict_distribution(store).to_dicts() == [
        {"verdict": "entail", "n": 2, "dropped": 0, "rewritten": 1, "share": 0.5},
        {"verdict": "partial", "n": 1, "dropped": 1, "rewritten": 1, "share": 0.25},
        {"verdict": None, "n": 1, "dropped": 0, "rewritten": 0, "share": 0.25},
    ]
    s = stats(store)
    assert s["rows"] == {"runs": 2, "events": 7, "blobs": 0, "decisions": 5, "tool_calls": 5, "claims": 4}
    assert s["runs"] == {"runs": 2, "finished": 1, "torn": 1, "questions": 1}
    assert s["checks"] == []  # no run_meta events: no checks recorded


def test_check_firing_counts_runs_and_flags_a_check_that_fires_on_most(tmp_path: Path) -> None:
    store = Store.create(tmp_path / "checks")
    metas = [{"checks": {"audit": {"ran": 3, "fired": 0}, "judge": {"ran": 2, "fired": 1}}},
             {"checks": {"audit": {"ran": 2, "fired": 1}, "judge": {"ran": 4, "fired": 2}, "critic": {"ran": 0,
                                                                                                 "fired": 0}}},
             {"checks": {"audit": {"ran": 1, "fired": 0}}},
             {}]
    events = pl.DataFrame({"run_id": ["r1", "r2", "r3", "r4", "r1"], "seq": [9, 9, 9, 9, 0],
                           "subq": [None] * 5, "type": ["run_meta"] * 4 + ["plan_created"],
                           "payload": [json.dumps(m) for m in metas] + ['{"checks": {"audit": {"ran": 9, "fired": 9}}}']},
                          schema_overrides={"subq": pl.String})
    store.write_part("events", store.new_part(), events)
    store._save_manifest()
    rows = {r["check"]: r for r in check_firing(Store.open(tmp_path / "checks")).to_dicts()}
    assert set(rows) == {"audit", "judge"}  # critic never ran; a non-run_meta payload is not read
    assert rows["audit"] == {"check": "audit", "runs": 3, "runs_fired": 1, "share_of_runs": 0.3333, "ran": 6,
                             "fired": 1, "fire_rate": 0.1667, "most_runs": False}
    assert rows["judge"]["runs_fired"] == 2 and rows["judge"]["most_runs"] and rows["judge"]["fire_rate"] == 0.5
    text = render_stats({**stats(Store.open(tmp_path / "checks")), "checks": list(rows.values())})
    assert "fires on most runs" in text and text.count("fires on most runs") == 1


def test_claims_follow_rewrites_and_drops(runs: dict[str, RunFile], tmp_path: Path) -> None:
    run = next(r for r in runs.values() if r.header.spec.policies["spec"].name == "heuristic")
    header, n = run.header, 0
    events = []

    def add(cls: type, **fields: object) -> None:
        nonlocal n
        events.append(cls(run_id=header.run_id, seq=n, subq="sq1", **fields))
        n += 1

    def verdict(cid: str, v: str) -> VerdictRecord:
        return VerdictRecord(claim_id=cid, verdict=v, checker="lexical", reason="r", support=0.6)

    add(ClaimDrafted, claim=Claim(claim_id="c1", subq="sq1", text="old", card_ids=["k1"]))
    add(VerdictReached, record=verdict("c1", "partial"), pass_=1)
    add(ClaimRewritten, claim_id="c1", old_text="old", new_text="new", reason="partial")
    add(VerdictReached, record=verdict("c1", "entail"), pass_=2)
    add(ClaimDrafted, claim=Claim(claim_id="c2", subq="sq1", text="t2", card_ids=["k2", "k3"]))
    add(VerdictReached, record=verdict("c2", "irrelevant"), pass_=1)
    add(ClaimDropped, claim_id="c2", verdict="irrelevant", reason="gone")
    add(ClaimDrafted, claim=Claim(claim_id="c3", subq="sq1", text="t3", card_ids=[]))
    (tmp_path / "runs").mkdir()
    sink = FileSink(tmp_path / "runs" / "made.jsonl")
    sink.write_header(header)
    for e in events:
        sink.write(e)
    sink.close()
    ingest(tmp_path / "runs", tmp_path / "s")
    got = Store.open(tmp_path / "s").read("claims").drop("run_id", "support").to_dicts()
    assert got == [
        {"claim_id": "c1", "seq": 0, "subq": "sq1", "text": "old", "final_text": "new", "card_ids": ["k1"],
         "verdict": "entail", "checker": "lexical", "n_checks": 2, "rewritten": True, "weakened": True,
         "dropped": False, "drop_reason": None},
        {"claim_id": "c2", "seq": 4, "subq": "sq1", "text": "t2", "final_text": "t2", "card_ids": ["k2", "k3"],
         "verdict": "irrelevant", "checker": "lexical", "n_checks": 1, "rewritten": False, "weakened": False,
         "dropped": True, "drop_reason": "gone"},
        {"claim_id": "c3", "seq": 7, "subq": "sq1", "text": "t3", "final_text": "t3", "card_ids": [],
         "verdict": None, "checker": None, "n_checks": 0, "rewritten": False, "weakened": False,
         "dropped": False, "drop_reason": None},
    ]


# --------------------------------------------------------------------------- the fast decoder


def test_every_event_type_is_known_to_the_decoder() -> None:
    union = {cls.model_fields["type"].default for cls in get_args(Event)}
    assert sorted(store_decode.LINE_TYPES.values()) == sorted(union)
    assert set(store_decode.NEEDED) <= union
    assert set(store_decode.BASE_NEED) == {"run_id", "seq", "parent_seq", "subq"}


def test_the_decoder_refuses_fields_the_models_do_not_have() -> None:
    with pytest.raises(TypeError, match="VerdictRecord has no field 'score'"):
        store_decode.derive_line_types({"verdict_reached": {"record": {"score": store_decode.VALUE}}})
    with pytest.raises(TypeError, match="not a list to count"):
        store_decode.derive_line_types({"query_issued": {"query": store_decode.COUNT}})
    with pytest.raises(TypeError, match="no event type nope"):
        store_decode.derive_line_types({"nope": {}})
    with pytest.raises(TypeError, match="cannot decode as a value"):
        store_decode.derive_line_types({"claim_drafted": {"claim": store_decode.VALUE}})


def _same_fields(decoded: object, model: object, need: dict, where: str) -> None:
    """Each field `need` names has the same value in the fast decode as in the pydantic model."""
    for name, take in need.items():
        got, want = getattr(decoded, name), getattr(model, name)
        if take == store_decode.RAW:
            assert json.loads(bytes(got)) == to_jsonable_python(want), f"{where}.{name}"
        elif take == store_decode.COUNT:
            assert len(got) == len(want), f"{where}.{name}"
        elif isinstance(take, dict):
            _same_fields(got, want, take, f"{where}.{name}")
        else:
            assert got == want and type(got) is type(want), f"{where}.{name}: {got!r} != {want!r}"


def test_the_fast_decode_agrees_with_pydantic(runs_dir: Path, tmp_path: Path) -> None:
    """Every event of the golden run, the fixture runs and a hand-made rewrite and drop:
    each field the tables take decodes to the value the pydantic event holds."""
    header = read_run(GOLDEN).header
    made = [ClaimRewritten(run_id=header.run_id, seq=0, subq="sq1", claim_id="c1", old_text="a", new_text="b",
                           reason="partial"),
            ClaimDropped(run_id=header.run_id, seq=1, claim_id="c1", verdict="conflict", reason="gone")]
    made_file = tmp_path / "made.jsonl"
    made_file.write_text(dumps_line(header) + "".join(dumps_line(e) for e in made), encoding="utf-8")
    paths = [GOLDEN, made_file, *sorted(p for p in runs_dir.iterdir() if p.name.endswith((".jsonl", ".jsonl.zst")))]
    seen: set[str] = set()
    for path in paths:
        data, _ = decompress_run_bytes(path.read_bytes(), compressed=path.name.endswith(".zst"))
        events = read_run(path).events
        decoded = store_decode.decode_lines(data[data.index(b"\n") + 1 :])
        assert len(decoded) == len(events)
        for d, e in zip(decoded, events):
            assert store_decode.LINE_TYPES[type(d)] == e.type
            need = store_decode.BASE_NEED | store_decode.NEEDED.get(e.type, {})
            _same_fields(d, e, need, f"{path.name}:{e.seq}:{e.type}")
            seen.add(e.type)
    assert set(store_decode.NEEDED) <= seen, "every type the tables read was compared"


FIXTURES = Path(__file__).parent / "fixtures"
COMMITTED = [FIXTURES / "run_v1.jsonl", FIXTURES / "run_v2.jsonl", FIXTURES / "run_v3.jsonl",
             FIXTURES / "run_old_header.jsonl", GOLDEN]


@pytest.mark.parametrize("path", COMMITTED, ids=[p.stem for p in COMMITTED])
@pytest.mark.parametrize("validate", [False, True], ids=["fast", "validated"])
def test_every_committed_fixture_is_ingested_under_the_current_tags(path: Path, validate: bool,
                                                                     tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(path, folder / path.name)
    report = ingest(folder, tmp_path / "s", validate=validate)
    assert (report.runs_added, report.skipped, report.runs_torn) == (1, [], 0)
    store = Store.open(tmp_path / "s")
    run = read_run(path)
    events = store.read("events").sort("seq")
    assert events["type"].to_list() == [e.type for e in run.events]  # old tags stored as the new ones
    written = json.loads(path.read_text(encoding="utf-8").splitlines()[0]).get("schema_version")
    assert store.read("runs")["schema_version"].to_list() == [written]
    want = _expected(run)["claims"]
    got = _rows(store, "claims", run.run_id, list(want[0]) if want else ["claim_id"])
    assert got == want


def test_the_fast_decode_reads_old_tags_only_in_old_files() -> None:
    body = b"".join(FIXTURES.joinpath("run_v3.jsonl").read_bytes().splitlines(keepends=True)[1:])
    decoded = store_decode.decode_lines(body, 3)
    assert store_decode.line_types(decoded, 3) == [e.type for e in read_run(FIXTURES / "run_v3.jsonl").events]
    assert "hard_limit" in store_decode.line_types(decoded, 3), "v3's hard-limit stop reads as a hard_limit event"
    with pytest.raises(msgspec.ValidationError):
        store_decode.decode_lines(body, SCHEMA_VERSION)


# --------------------------------------------------------------------------- CLI


def test_cli_ingest_and_stats(runs_dir: Path, runs: dict[str, RunFile], tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s"
    assert main(["store", "ingest", str(runs_dir), "--store", str(store)]) == 0
    assert f"{len(runs)} runs added" in capsys.readouterr().out
    assert main(["store", "ingest", str(runs_dir), "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["files_unchanged"] == len(runs)
    assert main(["store", "stats", "--store", str(store), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["rows"]["runs"] == len(runs)
    assert s["rows"]["decisions"] == sum(e.type in DECISION_TYPES for r in runs.values() for e in r.events)
    kinds = {(d["kind"], d["policy"]) for d in s["decisions_by_kind_and_policy"]}
    assert {("angle", "heuristic"), ("read", "naive"), ("keep", "explore"), ("stop", "explore")} <= kinds
    assert sum(v["n"] for v in s["verdicts"]) == sum(len(r.of_type("claim_drafted")) for r in runs.values())
    assert main(["store", "stats", "--store", str(store)]) == 0
    text = capsys.readouterr().out
    assert "searches per sub-question" in text and "verdict" in text


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert err.startswith("error: ") and "Traceback" not in err, err
    return err


def test_cli_bad_input_exits_2(runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such directory" in _fails(["store", "ingest", str(tmp_path / "nope"), "--store", str(tmp_path / "s")],
                                         capsys)
    (tmp_path / "empty").mkdir()
    assert "no run files" in _fails(["store", "ingest", str(tmp_path / "empty"), "--store", str(tmp_path / "s")],
                                    capsys)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "a.jsonl").write_text("{}\n", encoding="utf-8")
    assert "no readable run files" in _fails(["store", "ingest", str(tmp_path / "junk"), "--store",
                                              str(tmp_path / "s")], capsys)
    assert not (tmp_path / "s").exists(), "nothing is written when nothing could be read"
    assert "not a citeloop store" in _fails(["store", "ingest", str(runs_dir), "--store", str(tmp_path / "junk")],
                                            capsys)
    assert "not a citeloop store" in _fails(["store", "stats", "--store", str(runs_dir)], capsys)
    assert "no store here" in _fails(["store", "stats", "--store", str(tmp_path / "nope")], capsys)
    with pytest.raises(StoreError, match="unknown table"):
        Store.create(tmp_path / "t").scan("nope")
