"""Batch research (`citeloop research --questions FILE --out DIR`): one run file per (question,
policy, seed), byte-identical whichever engine wrote it; finished runs skipped on a re-run,
runs cut off by kill -9 resumed to the bytes of an uninterrupted batch; a run that fails is
reported and the others finish."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.runtime import batch
from citeloop.runtime.batch import BatchSettings, existing_run, plan_jobs, run_batch, run_path
from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.questions import BatchQuestion, read_questions
from citeloop.runtime.recorder import CRASH_ENV
from citeloop.runtime.session import ResearchKit

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [
    BatchQuestion("leland", "Who directed the film that was shot in or around Leland, North Carolina in 1986?"),
    BatchQuestion("nolan/kalathil", "Are Christopher Nolan and Sathish Kalathil both film directors?"),
    BatchQuestion("heinkel", "Heinkel HD 23 was a type of plane that was held on the craft that were first "
                             "developed when?"),
]
SETTINGS = BatchSettings(config=ResearchConfig().model_dump(mode="json"))


def _write_questions(path: Path, questions: list[BatchQuestion]) -> Path:
    path.write_text("".join(json.dumps({"id": q.id, "question": q.question, "answer": "x"}) + "\n"
                            for q in questions), encoding="utf-8")
    return path


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.jsonl"))}


def _without_meta(data: bytes) -> bytes:
    """A run file up to its final `run_meta` line (wall-clock metadata), checking that it is one."""
    body, last = data.rstrip(b"\n").rsplit(b"\n", 1)
    assert json.loads(last)["type"] == "run_meta"
    return body + b"\n"


def _same_runs(a: dict[str, bytes], b: dict[str, bytes]) -> None:
    assert sorted(a) == sorted(b) and a
    for name in a:
        assert _without_meta(a[name]) == _without_meta(b[name]), name


def _batch(out: Path, kit: ResearchKit, engine: str = "serial", workers: int | None = None,
           policies: tuple[str, ...] = ("heuristic", "explore"), seeds: tuple[int, ...] = (0, 1)) -> batch.BatchReport:
    jobs = plan_jobs(QUESTIONS, list(policies), list(seeds), out)
    return run_batch(jobs, SETTINGS, engine, workers, kit=kit)


@pytest.fixture(scope="module")
def serial_out(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("serial")
    report = _batch(out, kit)
    assert report.counts() == {"ran": 12, "resumed": 0, "skipped": 0, "failed": 0}
    return out


def test_one_file_per_question_policy_and_seed_named_safely(serial_out: Path) -> None:
    names = sorted(_files(serial_out))
    assert len(names) == 12
    assert "heuristic/seed0/leland.jsonl" in names and "explore/seed1/heinkel.jsonl" in names
    odd = run_path(Path(""), "heuristic", 0, "nolan/kalathil")
    assert odd.as_posix() in names and odd.parent.as_posix() == "heuristic/seed0"  # the id's slash made safe
    assert odd.name.startswith("nolan_kalathil-") and odd.name != run_path(Path(""), "h", 0, "nolan_kalathil").name
    header = json.loads(_files(serial_out)["explore/seed1/leland.jsonl"].split(b"\n", 1)[0])
    assert (header["spec"]["seed"], header["spec"]["policies"]["spec"]["name"]) == (1, "explore")


def test_process_pool_writes_the_same_bytes_and_loads_the_kit_once_per_worker(serial_out: Path, kit: ResearchKit,
                                                                           tmp_path: Path) -> None:
    report = _batch(tmp_path, kit, "process", 2)
    assert report.counts()["ran"] == 12
    _same_runs(_files(serial_out), _files(tmp_path))
    pids = {r.worker["pid"] for r in report.runs}
    assert len(pids) == 2 and os.getpid() not in pids
    assert {r.kit_loads for r in report.runs} == {0}  # the workers use the kit loaded before the fork


def test_ray_writes_the_same_bytes(serial_out: Path, kit: ResearchKit, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    report = _batch(tmp_path, kit, "ray", 2)
    assert report.counts()["ran"] == 12, report.failed
    _same_runs(_files(serial_out), _files(tmp_path))
    assert {r.worker["node"] is not None for r in report.runs} == {True}
    assert {r.kit_loads for r in report.runs} == {1}  # each Ray worker built its index once, not per run


def test_a_rerun_skips_finished_runs_and_leaves_their_bytes(serial_out: Path, kit: ResearchKit) -> None:
    before = _files(serial_out)
    report = _batch(serial_out, kit)
    assert report.counts() == {"ran": 0, "resumed": 0, "skipped": 12, "failed": 0}
    assert _files(serial_out) == before
    assert {r.run_id for r in report.runs} == {json.loads(b.split(b"\n", 1)[0])["run_id"] for b in before.values()}


def test_a_failing_run_is_reported_leaves_no_file_and_the_others_finish(kit: ResearchKit, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    real = batch.run_research

    def crashing(question: str, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - run_research's signature
        if "Heinkel" in question:
            sink = kwargs["sink"]
            original = sink.write
            written = []

            def write(event):  # noqa: ANN001, ANN202
                written.append(event)
                if len(written) > 8:
                    raise RuntimeError("injected failure\nsecond line")
                original(event)

            sink.write = write
        return real(question, *args, **kwargs)

    monkeypatch.setattr(batch, "run_research", crashing)
    questions = [*QUESTIONS, BatchQuestion("stopwords", "the of and?")]
    report = run_batch(plan_jobs(questions, ["heuristic"], [0], tmp_path), SETTINGS, kit=kit)
    assert report.counts() == {"ran": 2, "resumed": 0, "skipped": 0, "failed": 2}
    errors = {r.qid: r.error for r in report.failed}
    assert errors["heinkel"] == "RuntimeError: injected failure"
    assert errors["stopwords"].startswith("QuestionError: the question 'the of and?' has no searchable words")
    assert sorted(_files(tmp_path)) == sorted(run_path(Path(""), "heuristic", 0, q.id).as_posix() for q in QUESTIONS[:2])
    monkeypatch.setattr(batch, "run_research", real)
    again = run_batch(plan_jobs(questions, ["heuristic"], [0], tmp_path), SETTINGS, kit=kit)
    assert again.counts() == {"ran": 1, "resumed": 0, "skipped": 2, "failed": 1}  # the failed run runs again


def test_the_cli_reports_failures_with_exit_1_and_json(kit: ResearchKit, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    questions = _write_questions(tmp_path / "q.jsonl", [QUESTIONS[0], BatchQuestion("bad", "the of and?")])
    code = main(["research", "--questions", str(questions), "--out", str(tmp_path / "out"), "--json"])
    captured = capsys.readouterr()
    assert code == 1
    summary = json.loads(captured.out)
    assert summary["counts"] == {"ran": 1, "resumed": 0, "skipped": 0, "failed": 1}
    assert [f["qid"] for f in summary["failed"]] == ["bad"]
    assert captured.err.strip().splitlines()[-1] == (f"error: 1 of 2 runs failed (see the summary); the others are "
                                                     f"in {tmp_path / 'out'}")
    assert "Traceback" not in captured.err
    code = main(["research", "--questions", str(questions), "--out", str(tmp_path / "out")])
    table = capsys.readouterr().out
    assert code == 1 and "failed bad (heuristic, seed 0): QuestionError" in table and "skipped" in table


def test_a_file_of_another_run_is_not_overwritten(kit: ResearchKit, tmp_path: Path) -> None:
    jobs = plan_jobs(QUESTIONS[:1], ["heuristic"], [0], tmp_path)
    assert run_batch(jobs, SETTINGS, kit=kit).counts()["ran"] == 1
    other = plan_jobs([BatchQuestion("leland", QUESTIONS[1].question)], ["heuristic"], [0], tmp_path)
    before = Path(other[0].path).read_bytes()
    report = run_batch(other, SETTINGS, kit=kit)
    assert report.counts()["failed"] == 1 and "holds a run of another question" in report.failed[0].error
    assert Path(other[0].path).read_bytes() == before


def test_a_header_cut_mid_line_starts_over(kit: ResearchKit, tmp_path: Path, serial_out: Path) -> None:
    jobs = plan_jobs(QUESTIONS[:1], ["heuristic"], [0], tmp_path)
    path = Path(jobs[0].path)
    path.parent.mkdir(parents=True)
    path.write_bytes((serial_out / "heuristic/seed0/leland.jsonl").read_bytes()[:300])
    assert existing_run(path) is None
    assert run_batch(jobs, SETTINGS, kit=kit).counts()["ran"] == 1
    assert _without_meta(path.read_bytes()) == _without_meta((serial_out / "heuristic/seed0/leland.jsonl").read_bytes())


# --------------------------------------------------------------------------- crashes, in a subprocess


def _cli(questions: Path, out: Path, **env: str) -> subprocess.Popen:
    args = [sys.executable, "-m", "citeloop.eval.cli", "research", "--questions", str(questions), "--out", str(out),
            "--policy", "heuristic", "--policy", "explore", "--seeds", "0,1", "--json"]
    return subprocess.Popen(args, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finished(out: Path) -> int:
    return sum(1 for p in out.rglob("*.jsonl") if (found := existing_run(p)) is not None and found.finished)


def test_kill_9_mid_batch_then_a_rerun_gives_the_uninterrupted_files(serial_out: Path, tmp_path: Path) -> None:
    questions = _write_questions(tmp_path / "q.jsonl", QUESTIONS)
    out = tmp_path / "out"
    proc = _cli(questions, out)
    deadline = time.monotonic() + 120
    while _finished(out) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL, "the batch ended before it could be killed"
    done_before = _finished(out)
    assert 3 <= done_before < 12
    rerun = _cli(questions, out)
    stdout, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, stderr
    counts = json.loads(stdout)["counts"]
    assert counts["skipped"] == done_before and counts["ran"] + counts["resumed"] == 12 - done_before
    _same_runs(_files(serial_out), _files(out))


def test_a_run_torn_by_a_crash_is_resumed_to_the_same_bytes(serial_out: Path, tmp_path: Path) -> None:
    questions = _write_questions(tmp_path / "q.jsonl", QUESTIONS)
    out = tmp_path / "out"
    crashed = _cli(questions, out, **{CRASH_ENV: "25"})  # dies like kill -9 after 25 events of its first run
    crashed.communicate(timeout=300)
    assert crashed.returncode == 137
    [torn] = list(out.rglob("*.jsonl"))
    assert existing_run(torn) is not None and not existing_run(torn).finished
    rerun = _cli(questions, out)
    stdout, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, stderr
    summary = json.loads(stdout)
    assert summary["counts"] == {"ran": 11, "resumed": 1, "skipped": 0, "failed": 0}
    assert [r["path"] for r in summary["per_run"] if r["status"] == "resumed"] == [str(torn)]
    _same_runs(_files(serial_out), _files(out))


def test_runs_do_not_depend_on_the_hash_seed_of_the_process_that_runs_them(tmp_path: Path) -> None:
    """Each worker process has its own string hash seed, so set order must never reach a run:
    this 2Wiki question's expansion sub-question names one of several linked entities, once
    picked in set order (runtime/hops.py)."""
    from citeloop.eval.datasets import load_2wiki

    two_wiki = load_2wiki()
    [q] = [q for q in two_wiki.questions if q.id == "7d84cc78086411ebbd5eac1f6bf848b6"]
    questions = _write_questions(tmp_path / "q.jsonl", [BatchQuestion(q.id, q.question)])
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(d.model_dump_json(exclude_none=True) + "\n" for d in two_wiki.corpus), encoding="utf-8")
    files = {}
    for seed in ("1", "2"):
        out = tmp_path / f"hash{seed}"
        done = subprocess.run([sys.executable, "-m", "citeloop.eval.cli", "research", "--questions", str(questions),
                               "--corpus", str(corpus), "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}, timeout=300)
        assert done.returncode == 0, done.stderr
        files[seed] = _files(out)
    _same_runs(files["1"], files["2"])
    assert b'"type":"subq_added"' in next(iter(files["1"].values()))  # the path that once depended on set order


# --------------------------------------------------------------------------- the question file


def test_the_question_file_reader_takes_eval_files_and_names_bad_lines(tmp_path: Path) -> None:
    good = _write_questions(tmp_path / "q.jsonl", QUESTIONS)
    assert read_questions(good) == QUESTIONS
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "Who?"}\n{"id": "a", "question": "Why?"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: duplicate question id 'a' \(first on line 1\)"):
        read_questions(bad)
    bad.write_text('{"id": "a"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: question: Field required"):
        read_questions(bad)
