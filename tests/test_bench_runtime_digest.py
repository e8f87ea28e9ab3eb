"""bench_runtime's runs digest: what tells a speed change that kept the runs from one that did not."""

from __future__ import annotations

from citeloop.eval.bench_runtime import run_digest, same_runs
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import MemorySink

QUESTION = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"


def _events(kit: ResearchKit, question: str = QUESTION, policy: str = "heuristic") -> list:
    sink = MemorySink()
    run_research(question, kit, policy_spec=policy, out_dir=None, sink=sink)
    return sink.events


def test_the_same_run_digests_the_same_and_another_run_does_not(kit: ResearchKit) -> None:
    first, again = _events(kit), _events(kit)
    assert run_digest(first) == run_digest(again)
    assert run_digest(first) != run_digest(_events(kit, policy="naive"))


def test_run_ids_and_wall_clock_do_not_count_but_every_other_field_does(kit: ResearchKit) -> None:
    events = _events(kit)
    renamed = [e.model_copy(update={"run_id": "run-elsewhere"}) for e in events]
    assert renamed[0].run_id != events[0].run_id
    assert run_digest(renamed) == run_digest(events)
    meta = events[-1]
    assert meta.type == "run_meta"
    slower = [*events[:-1], meta.model_copy(update={"wall_ms": meta.wall_ms + 1000})]
    assert run_digest(slower) == run_digest(events)
    moved = [*events[:1], events[1].model_copy(update={"seq": events[1].seq + 100}), *events[2:]]
    assert run_digest(moved) != run_digest(events)


def test_rows_compare_by_their_digest() -> None:
    assert same_runs({"runs_digest": "ab"}, {"runs_digest": "ab"}) == "yes"
    assert same_runs({"runs_digest": "ab"}, {"runs_digest": "cd"}) == "NO"
    assert same_runs({"runs_digest": "ab"}, {}) == "n/a"
    assert same_runs({"runs_digest": "ab"}, None) == "n/a"


def test_a_bad_baseline_is_one_error_line_before_anything_runs(tmp_path, capsys) -> None:
    from citeloop.eval.bench_runtime import main

    not_json, not_ours = tmp_path / "a.json", tmp_path / "b.json"
    not_json.write_text("{", encoding="utf-8")
    not_ours.write_text("[1]", encoding="utf-8")
    for path, says in ((tmp_path / "gone.json", "No such file"), (not_json, "Expecting"), (not_ours, "no datasets")):
        assert main(["--baseline", str(path), "--out", str(tmp_path / "out.json")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: --baseline") and says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.json").exists()


def test_bench_scale_refuses_a_runs_folder_without_run_files(tmp_path, capsys) -> None:
    from citeloop.eval.bench_scale import main

    assert main(["--runs", str(tmp_path / "gone"), "--out", str(tmp_path / "o.json")]) == 2
    assert capsys.readouterr().err.strip() == f"error: --runs {tmp_path / 'gone'}: no such directory"
    assert main(["--runs", str(tmp_path), "--out", str(tmp_path / "o.json")]) == 2
    assert "no run files" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()
