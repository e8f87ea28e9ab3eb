"""Every command given bad input says so in one `error:` line and exits 2; none shows a traceback.

Drives `citeloop.eval.cli.main` in-process, the way the console script runs it, with bad
arguments, missing files, directories where files belong and unreadable YAML.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citeloop.eval import cli
from citeloop.eval.cli import main

GOLDEN = Path(__file__).parent / "golden" / "leland_heuristic.jsonl"


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "empty").mkdir()
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("budget:\n  max_reads: [1, 2\n", encoding="utf-8")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00budget")
    run = tmp_path / "run.jsonl"
    shutil.copy(GOLDEN, run)
    questions = tmp_path / "questions.jsonl"
    questions.write_text('{"id": "q1", "question": "Who directed Maximum Overdrive?"}\n', encoding="utf-8")
    bad_questions = tmp_path / "bad-questions.jsonl"
    bad_questions.write_text('{"id": "q1", "question": "Who directed Maximum Overdrive?"}\n{"id": "q2", "question"\n',
                             encoding="utf-8")
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "loop-config.json").write_text('{"name": "another"}', encoding="utf-8")
    loop_bad_train = tmp_path / "loop-bad-train.yaml"
    loop_bad_train.write_text(f"name: bad\ntrain: {tmp_path / 'missing-train.yaml'}\nout: {tmp_path / 'loop'}\n",
                              encoding="utf-8")
    return {"LOOP": str(Path(__file__).resolve().parents[1] / "configs" / "loop" / "tiny.yaml"),
            "LOOP_BAD_TRAIN": str(loop_bad_train), "DIR": str(tmp_path / "empty"), "MISSING": str(tmp_path / "missing.jsonl"), "BAD_YAML": str(bad_yaml),
            "BINARY": str(binary), "RUN": str(run), "OUT": str(tmp_path / "out"), "QUESTIONS": str(questions),
            "BAD_QUESTIONS": str(bad_questions), "TAKEN": str(taken)}


# (arguments, words the error line must contain). Upper-case words are replaced by `files`.
CASES = [
    (["--bogus"], "no such option: --bogus"),
    (["nosuchcmd"], "no such command 'nosuchcmd'"),
    (["research", "--seed", "abc", "q"], "'--seed'"),
    (["research", "--policy"], "--policy"),
    (["research"], "give a question"),
    (["research", "q", "--config", "BAD_YAML"], "line 3, column 1"),
    (["research", "q", "--config", "BINARY"], "not a text file"),
    (["research", "q", "--config", "DIR"], "config file not found"),
    (["research", "q", "--corpus", "DIR"], "DIR"),
    (["research", "--resume", "RUN", "--out", "OUT"], "drop --out"),
    (["research", "--questions", "MISSING", "--out", "OUT"], "question file not found"),
    (["research", "--questions", "BAD_QUESTIONS", "--out", "OUT"], "bad-questions.jsonl:2: invalid JSON"),
    (["research", "--questions", "DIR", "--out", "OUT"], "is a directory"),
    (["research", "--questions", "QUESTIONS", "--out", "OUT", "--seeds", "a,b"], "--seeds 'a,b': give whole numbers"),
    (["research", "--questions", "QUESTIONS", "--out", "OUT", "--seeds", "1,1"], "listed twice"),
    (["research", "--questions", "QUESTIONS", "--out", "OUT", "--workers", "0"], "'--workers'"),
    (["research", "--questions", "QUESTIONS", "--out", "OUT", "--engine", "spark"], "not one of serial, process, ray"),
    (["research", "--questions", "QUESTIONS", "--out", "OUT", "--workers", "2"], "--workers goes with --engine"),
    (["research", "--questions", "QUESTIONS", "--out", "OUT", "--policy", "nosuch"], "nosuch"),
    (["research", "--questions", "QUESTIONS"], "needs --out"),
    (["research", "--questions", "QUESTIONS", "--out", "RUN"], "is an existing file"),
    (["research", "q", "--questions", "QUESTIONS", "--out", "OUT"], "drop a question argument"),
    (["research", "q", "--seeds", "0,1"], "--seeds go with --questions"),
    (["research", "q", "--policy", "heuristic", "--policy", "naive"], "one --policy"),
    (["show"], "missing argument 'run'"),
    (["show", "DIR"], "is a directory"),
    (["show", "MISSING"], "no such run file"),
    (["show", "BAD_YAML"], "BAD_YAML"),
    (["replay", "DIR", "--check"], "is a directory"),
    (["replay", "RUN"], "choose exactly one of --check, --swap, --branch"),
    (["replay", "RUN", "--swap", "tools=BAD_YAML"], "line 3, column 1"),
    (["replay", "RUN", "--branch", "x"], "'--branch'"),
    (["rescore", "RUN", "--scorer", "nosuch"], "lexical"),
    (["diff", "RUN", "DIR"], "is a directory"),
    (["schema", "--out", "DIR"], "is a directory"),
    (["store", "ingest", "MISSING", "--store", "OUT"], "MISSING"),
    (["store", "stats", "--store", "MISSING"], "MISSING"),
    (["eval", "--dataset", "nosuch"], "unknown dataset 'nosuch'"),
    (["eval", "--dataset", "hotpotqa", "--limit", "x"], "'--limit'"),
    (["eval", "--dataset", "hotpotqa", "--config", "BAD_YAML"], "line 3, column 1"),
    (["eval", "--dataset", "hotpotqa", "--engine", "spark"], "not one of serial, process, ray"),
    (["eval", "--dataset", "hotpotqa", "--workers", "0"], "'--workers'"),
    (["store", "ingest", "DIR", "--store", "OUT", "--workers", "0"], "'--workers'"),
    (["gold", "--dataset", "hotpotqa"], "missing option '--out'"),
    (["score", "MISSING"], "MISSING"),
    (["score", "DIR"], "no run files"),
    (["filter", "RUN", "--config", "MISSING", "--out", "OUT"], "MISSING"),
    (["filter", "RUN", "--config", "configs/filters/default.yaml"], "missing option '--out'"),
    (["view", "DIR"], "is a directory"),
    (["view", "MISSING"], "no such run file"),
    (["loop", "--config", "MISSING"], "MISSING"),
    (["loop", "--config", "BAD_YAML"], "line 3, column 1"),
    (["export", "sft", "--runs", "MISSING", "--out", "OUT"], "MISSING"),
    (["export", "pairs", "--runs", "DIR", "--out", "OUT"], "no run files"),
    (["export", "rl", "--runs", "RUN"], "missing option '--out'"),
    (["export", "sft", "--runs", "RUN", "--out", "OUT", "--decision", "nosuch"], "nosuch"),
    (["export", "sft", "--runs", "RUN", "--out", "OUT", "--source", "bogus"], "--source 'bogus' is not one of"),
    (["headroom", "RUN", "--gold", "MISSING"], "does not exist"),
    (["headroom", "RUN", "--gold", "BAD_YAML"], "not JSON"),
    (["headroom", "RUN", "--gold", "MISSING", "--margin", "-1"], "must not be negative"),
    (["headroom", "DIR", "--gold", "MISSING"], "no run files"),
    (["headroom", "RUN"], "missing option '--gold'"),
    (["model", "tiny"], "missing option '--out'"),
    (["train", "sft", "--config", "MISSING"], "MISSING"),
    (["train", "dpo", "--config", "BAD_YAML"], "line 3, column 1"),
    (["serve", "MISSING"], "MISSING"),
    (["loop", "--config", "LOOP", "--train-set", "nokey"], "--train-set expects key=value, got 'nokey'"),
    (["loop", "--config", "LOOP_BAD_TRAIN"], "config file not found"),
    (["loop", "--config", "LOOP", "--set", "pairs.nokey=1"], "pairs.nokey"),
    (["loop", "--config", "LOOP", "--out", "TAKEN"], "holds a loop run of another config (name differs)"),
    (["loop", "--config", "LOOP", "--set", "name.x=1"], "'name' is 'tiny', not a section"),
    (["loop", "--config", "LOOP", "--set", "pairs.change_repeat=["], "value is not valid YAML"),
    (["eval", "--dataset", "hotpotqa", "--set", "budget=3", "--set", "budget.max_reads=2"],
     "'budget' is 3, not a section"),
    (["eval", "--dataset", "hotpotqa", "--set", "budget..max_reads=2"], "empty part between dots"),
    (["serve", "MISSING", "--engine", "tgi"], "--engine 'tgi': use vllm or hf"),
    (["serve", "MISSING", "--engine", "hf"], "no config.json"),
    (["serve", "MISSING", "--engine", "hf", "--lora", "a=b"], "--lora needs --engine vllm"),
]


def _resolve(args: list[str], files: dict[str, str]) -> list[str]:
    return [files.get(a, a).replace("tools=BAD_YAML", f"tools={files['BAD_YAML']}") for a in args]


@pytest.mark.parametrize(("args", "expected"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_input_is_one_error_line_and_exit_2(args: list[str], expected: str, files: dict[str, str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_resolve(args, files))
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert "Traceback" not in captured.out + captured.err
    lines = captured.err.strip().splitlines()
    assert lines and lines[0].startswith("error: "), captured.err
    assert files.get(expected, expected).lower() in lines[0].lower()
    # The error line, then at most the usage line and the help hint.
    assert len(lines) <= 3, captured.err


def test_a_usage_error_shows_the_commands_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--bogus", "x"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[1].startswith("Usage: citeloop show")
    assert err[2] == "Try 'citeloop show --help' for help."


def test_a_bug_is_one_line_with_exit_1_and_the_traceback_on_request(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def broken() -> None:
        raise KeyError("boom")

    monkeypatch.setattr(cli.app, "registered_commands",
                        [c for c in cli.app.registered_commands if c.name != "schema"])
    cli.app.command("schema")(broken)
    try:
        assert main(["schema"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: internal error (KeyError: 'boom')") and "CITELOOP_DEBUG=1" in err
        assert len(err.strip().splitlines()) == 1
        monkeypatch.setenv("CITELOOP_DEBUG", "1")
        with pytest.raises(KeyError):
            main(["schema"])
    finally:
        monkeypatch.undo()


def test_the_resume_refusal_leaves_the_run_file_untouched(files: dict[str, str]) -> None:
    before = Path(files["RUN"]).read_bytes()
    assert main(["research", "--resume", files["RUN"], "--out", files["OUT"]]) == 2
    assert Path(files["RUN"]).read_bytes() == before
    assert not Path(files["OUT"]).exists()


def test_a_loop_with_a_missing_filter_config_fails_before_any_research(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "loop"
    loop = Path(__file__).resolve().parents[1] / "configs" / "loop" / "tiny.yaml"
    code = main(["loop", "--config", str(loop), "--out", str(out), "--set", f"filter={tmp_path / 'no-filter.yaml'}"])
    assert code == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'no-filter.yaml'}: config file not found"
    assert not out.exists()
