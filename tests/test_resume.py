"""Resume: a run cut off anywhere (mid-line, after a line, in the loop, after the report)
continues from its last complete event and ends as the uninterrupted run; a real crash in
a subprocess (the recorder's test hook) too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.runtime.recorder import CRASH_ENV
from citeloop.runtime.replay import ReplayError
from citeloop.runtime.resume import resume_run
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import deterministic_lines, read_run

LELAND = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
NOLAN = "Are Christopher Nolan and Sathish Kalathil both film directors?"


@pytest.fixture(scope="module")
def complete(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("complete")
    paths = {}
    for name, question, policy, seed in (("heuristic", LELAND, "heuristic", 0), ("explore", NOLAN, "explore", 5)):
        _, path = run_research(question, kit, policy_spec=policy, seed=seed, out_dir=out / name)
        assert path is not None
        paths[name] = path
    return paths


def _line_ends(data: bytes) -> list[int]:
    """Byte offset just after each line."""
    return [i + 1 for i, b in enumerate(data) if b == ord("\n")]


def _cut_points(path: Path) -> dict[str, int]:
    data = path.read_bytes()
    ends = _line_ends(data)
    run = read_run(path)
    line_of = {e.type: e.seq + 1 for e in reversed(run.events)}  # first line of each type (0 = header)
    report_line = next(e.seq for e in run.events if e.type == "report_written") + 1
    finished_line = next(e.seq for e in run.events if e.type == "run_finished") + 1
    blob_line = line_of["text_blob"]
    return {
        "header-only": ends[0],
        "mid-line-in-loop": ends[8] + (ends[9] - ends[8]) // 2,
        "after-a-line-in-loop": ends[15],
        "mid-text-blob": ends[blob_line - 1] + 40,
        "mid-claims": ends[line_of["verdict_reached"] - 1] + 5,
        "after-report": ends[report_line],
        "after-run-finished": ends[finished_line],
        "mid-run-meta": ends[finished_line] + 10,
    }


@pytest.mark.parametrize("policy", ["heuristic", "explore"])
def test_resume_from_every_kind_of_cut_equals_the_uninterrupted_run(
        kit: ResearchKit, complete: dict[str, Path], tmp_path: Path, policy: str) -> None:
    original = complete[policy]
    expected = deterministic_lines(original)
    data = original.read_bytes()
    for label, cut in _cut_points(original).items():
        torn = tmp_path / label / original.name
        torn.parent.mkdir()
        torn.write_bytes(data[:cut])
        before = read_run(torn)
        assert before.torn == label.startswith("mid"), label
        outcome = resume_run(torn, kit=kit)
        assert outcome.result is not None, label
        assert outcome.kept == len(before.events), label
        assert deterministic_lines(torn) == expected, f"resumed from a cut {label} differs"
        resumed = read_run(torn)
        assert not resumed.torn and resumed.events[-1].type == "run_meta", label
        assert outcome.kept + outcome.appended == len(resumed.events), label
        digests = [e.digest for e in resumed.events if e.type == "text_blob"]
        assert len(digests) == len(set(digests)), f"{label}: a text blob was written twice"


def test_resume_of_a_complete_run_changes_nothing(kit: ResearchKit, complete: dict[str, Path], tmp_path: Path) -> None:
    path = tmp_path / complete["heuristic"].name
    path.write_bytes(complete["heuristic"].read_bytes())
    outcome = resume_run(path, kit=kit)
    assert outcome.result is None and outcome.appended == 0
    assert path.read_bytes() == complete["heuristic"].read_bytes()


def test_resume_that_cannot_reproduce_the_prefix_leaves_the_file_alone(
        kit: ResearchKit, complete: dict[str, Path], tmp_path: Path) -> None:
    lines = complete["heuristic"].read_text(encoding="utf-8").splitlines(keepends=True)
    angle = next(i for i, line in enumerate(lines) if '"type":"angle_decision"' in line)
    lines[angle] = lines[angle].replace('"reason":"', '"reason":"edited: ', 1)
    path = tmp_path / complete["heuristic"].name
    path.write_text("".join(lines[: angle + 3]) + lines[angle + 3][:10], encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(ReplayError, match=f"seq {angle - 1}"):
        resume_run(path, kit=kit)
    assert path.read_bytes() == before


def test_killed_subprocess_resumes_to_the_uninterrupted_run(complete: dict[str, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    env = {**os.environ, CRASH_ENV: "27"}
    proc = subprocess.run([sys.executable, "-c", "import sys; from eval.cli import main; sys.exit(main())",
                           "research", LELAND, "--out", str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 137, proc.stderr
    [path] = list(tmp_path.glob("run-*.jsonl"))
    assert path.name == complete["heuristic"].name
    killed = read_run(path)
    assert len(killed.events) == 27 and not killed.finished
    assert main(["research", "--resume", str(path), "--json"]) == 0
    assert '"appended_events"' in capsys.readouterr().out
    assert deterministic_lines(path) == deterministic_lines(complete["heuristic"])


def test_resume_cli_refuses_a_question_and_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["research", "--resume", str(tmp_path / "gone.jsonl")]) == 2
    assert "no such run file" in capsys.readouterr().err
    assert main(["research", LELAND, "--resume", str(tmp_path / "gone.jsonl")]) == 2
    assert "drop question" in capsys.readouterr().err
    assert main(["research", "--resume", str(tmp_path / "gone.jsonl"), "--policy", "naive"]) == 2
    assert "drop --policy" in capsys.readouterr().err
