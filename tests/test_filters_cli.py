"""`citeloop score` and `citeloop filter` in-process: exit codes, JSON, the kept directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.runtime.session import ResearchKit, run_research

QUESTIONS = [
    "Who directed the film that was shot in or around Leland, North Carolina in 1986?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
]
CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "filters"


@pytest.fixture(scope="module")
def runs_dir(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    for question in QUESTIONS:
        run_research(question, kit, out_dir=out)
    run_research(QUESTIONS[0], kit, out_dir=out, planner="naive", policy_spec="naive", compress=True)
    return out


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, (code, captured.err)
    assert captured.err.startswith("error: "), captured.err
    assert "Traceback" not in captured.err
    return captured.err


def test_score_json_has_runs_and_a_none_aware_aggregate(runs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(runs_dir), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert len(payload["runs"]) == 3, "plain and zstd run files are both found"
    first = payload["runs"][0]
    for key in ("citation_correctness", "citation_recall_alce", "citation_precision_alce", "coverage",
                "unsupported_claim_rate", "searches_per_subq", "diagnosis", "file"):
        assert key in first
    assert payload["aggregate"]["runs"] == 3
    assert payload["aggregate"]["metrics"]["model_calls"] == {"mean": None, "n": 0}


def test_score_text_shows_coverage_next_to_citation_metrics(runs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(runs_dir.glob("*.jsonl"))
    assert main(["score", *map(str, files)]) == 0
    out = capsys.readouterr().out
    core = [line for line in out.splitlines() if "citation correctness" in line]
    assert len(core) == len(files) + 1, "one line per run and one for the mean"
    assert all("coverage" in line and "ALCE recall" in line for line in core)
    assert "mean over 2 run(s)" in out and "diagnosis" in out


def test_score_errors_exit_2(tmp_path: Path, runs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no run files" in _fails(["score", str(tmp_path)], capsys)
    assert "no such file" in _fails(["score", str(tmp_path / "nope.jsonl")], capsys)
    assert "lexical" in _fails(["score", str(runs_dir), "--judge", "oracle"], capsys)
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not a run\n", encoding="utf-8")
    _fails(["score", str(garbage)], capsys)


def test_filter_writes_kept_runs_and_manifest(runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept_dir = tmp_path / "kept"
    config = tmp_path / "gates.yaml"
    config.write_text("gates:\n  coverage: {min: 0.75}\nallowed_diagnoses: [no_primary_evidence]\n"
                      "recovery: {share: 0.0}\n", encoding="utf-8")
    assert main(["filter", str(runs_dir), "--config", str(config), "--out", str(kept_dir), "--json"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest == json.loads((kept_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["runs"] == 3 and len(manifest["kept"]) + len(manifest["dropped"]) == 3
    for entry in manifest["kept"]:
        assert (kept_dir / entry["file"]).is_file()
        assert entry["score"]["coverage"] >= 0.75 and entry["reason"].startswith("passed")
    for entry in manifest["dropped"]:
        assert entry["failed_gates"], "every dropped run says which gate it failed"
    files = {p.name for p in kept_dir.iterdir()} - {"manifest.json"}
    assert files == {e["file"] for e in manifest["kept"]}

    # A second filter into the same directory needs --overwrite, which replaces only its own output.
    _fails(["filter", str(runs_dir), "--config", str(config), "--out", str(kept_dir)], capsys)
    assert main(["filter", str(runs_dir), "--config", str(CONFIGS / "default.yaml"), "--out", str(kept_dir),
                 "--overwrite", "--link"]) == 0
    out = capsys.readouterr().out
    assert out.count("KEEP ") + out.count("DROP ") == 3
    kept = json.loads((kept_dir / "manifest.json").read_text(encoding="utf-8"))["kept"]
    assert all((kept_dir / e["file"]).is_symlink() for e in kept)


def test_filter_errors_exit_2(runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("gates:\n  coverge: {min: 0.5}\n", encoding="utf-8")
    assert "coverge" in _fails(["filter", str(runs_dir), "--config", str(bad), "--out", str(tmp_path / "k")], capsys)
    assert not (tmp_path / "k").exists(), "nothing is written for a bad config"
    empty = tmp_path / "empty"
    empty.mkdir()
    default = str(CONFIGS / "default.yaml")
    assert "no run files" in _fails(["filter", str(empty), "--config", default, "--out", str(tmp_path / "k")], capsys)
    assert "input" in _fails(["filter", str(runs_dir), "--config", default, "--out", str(runs_dir)], capsys)


def test_a_torn_run_is_scored_up_to_where_it_stops_and_dropped_by_the_filter(
        runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = sorted(runs_dir.glob("*.jsonl"))[0]
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    torn_dir = tmp_path / "torn"
    torn_dir.mkdir()
    # Cut inside `run_finished`: the report is there, the run never finished.
    assert '"run_finished"' in lines[-2]
    (torn_dir / source.name).write_text("".join(lines[:-2]) + lines[-2][:20], encoding="utf-8")
    assert main(["score", str(torn_dir), "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["finished"] is False and run["coverage"] is not None
    assert main(["filter", str(torn_dir), "--config", str(CONFIGS / "default.yaml"), "--out",
                 str(tmp_path / "kept"), "--json"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["kept"] == [] and "run not finished (torn file)" in manifest["dropped"][0]["failed_gates"]
