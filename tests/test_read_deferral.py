"""Read under a deferral margin: the heuristic's reads, or those plus the one more hit a trained
model is sure of (runtime/policies/actions.py `read_one_more`, runtime/policies/llm.py), the
one-more-read alternatives a read decision is branched with (training/pairs.py), and the points
its threshold is fitted on (training/choice_calibration.py `read_points`)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from citeloop.runtime.llm.fake import FakeChatClient, Scripted
from citeloop.runtime.policies.actions import read_one_more
from citeloop.runtime.policies.llm import SAMPLING, LLMPolicy, llm_decision_counts
from citeloop.runtime.policies.prompts import TEMPLATES
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.choice_calibration import read_points
from citeloop.training.outcomes import OutcomeSettings
from citeloop.training.pairs import alternatives, roll_decisions
from citeloop.training.sft import ExportError
from citeloop.trajectories.runfile import read_run
from test_choice_calibration import _LastOptionLikeliest

BRIDGE = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"


def test_one_more_read_is_offered_only_while_the_reads_left_allow_it() -> None:
    assert read_one_more(["b"], ["a", "b", "c"], 3) == [["b"], ["b", "a"], ["b", "c"]]
    assert read_one_more(["b", "a"], ["a", "b", "c"], 3) == [["b", "a"], ["b", "a", "c"]]
    assert read_one_more(["b"], ["a", "b", "c"], 1) == [["b"]]  # no read left for one more
    assert read_one_more([], ["a", "c"], 2) == [[], ["a"], ["c"]]
    assert read_one_more(["a", "c"], ["a", "c"], 5) == [["a", "c"]]  # no hit left


def _read_decisions(path: Path) -> list:
    return [e for e in read_run(path).events if e.type == "read_decision"]  # type: ignore[union-attr]


def test_a_read_decision_is_branched_with_one_more_read_after_the_singles(kit: ResearchKit, tmp_path: Path) -> None:
    _, path = run_research(BRIDGE, kit, out_dir=tmp_path)
    roomy = [e for e in _read_decisions(path) if e.choice and len(e.choice) < min(e.state.reads_left, len(e.candidates))]
    assert roomy
    e = roomy[0]
    options = alternatives(e, 64)
    singles = [c for c in e.candidates if [c] != list(e.choice)]
    more = [",".join([*e.choice, c]) for c in e.candidates if c not in e.choice]
    assert options == singles + [""] + more  # written out by hand, in candidate order
    assert alternatives(e, 2) == singles[:2]  # a small K keeps what it branched before
    assert alternatives(e, 64, "one_more") == more and alternatives(e, 1, "one_more") == more[:1]
    with pytest.raises(ExportError, match="read options 'some'"):
        roll_decisions([path], "read", 4, OutcomeSettings(), kit=kit, read_options="some")


def _deferring(margin: float):  # type: ignore[no-untyped-def]
    return lambda _kind, config, _seed: LLMPolicy(_LastOptionLikeliest(), config, choice_scoring="sequence",
                                                  defer_margin=margin)


never, sure = _deferring(math.inf), _deferring(0.5)
failing = lambda _kind, config, _seed: LLMPolicy(  # noqa: E731
    FakeChatClient(lambda _p, _c: Scripted(status="timeout"), sampling=SAMPLING), config,
    choice_scoring="sequence", defer_margin=0.5)


def _decisions(path: Path) -> list[tuple[str, list[str], str]]:
    return [(e.type, list(e.choice), e.reason) for e in read_run(path).events  # type: ignore[attr-defined]
            if e.type in ("read_decision", "keep_decision")]


def test_the_read_policy_adds_one_more_hit_only_by_more_than_the_margin(kit: ResearchKit, tmp_path: Path) -> None:
    _, base = run_research(BRIDGE, kit, out_dir=tmp_path / "h")
    heuristic = _decisions(base)
    runs = {}
    for name in ("never", "sure", "failing"):
        _, path = run_research(BRIDGE, kit, policy_spec=f"read={__name__}:{name}", out_dir=tmp_path / name)
        runs[name] = path
    # An infinite margin is the teacher: the same reads and keeps, the model asked where one
    # more read was possible, and keep never asked.
    assert [d[:2] for d in _decisions(runs["never"])] == [d[:2] for d in heuristic]
    events = read_run(runs["never"]).events
    calls = [e for e in events if e.type == "model_call"]
    assert calls and all(e.prompt_id == TEMPLATES["read"].id for e in calls)  # type: ignore[attr-defined]
    counts = llm_decision_counts(events)  # type: ignore[arg-type]
    assert counts["deferred"] == counts["model"] == len(calls) and counts["fallback"] == 0
    assert all(r.endswith("no model call") for t, _, r in _decisions(runs["never"]) if t == "keep_decision")
    # Margin 0.5 with the last option likeliest (its score is its place, at least 1 above the
    # heuristic's reads): the first read decision reads the heuristic's hits and then the last
    # candidate it left unread.
    first = _read_decisions(base)[0]
    assert len(first.choice) < min(first.state.reads_left, len(first.candidates))
    extra = [c for c in first.candidates if c not in first.choice][-1]
    taken = _read_decisions(runs["sure"])[0]
    assert list(taken.choice) == [*first.choice, extra]
    assert "one more than the heuristic's READ" in taken.reason and "by margin" in taken.reason
    # A model that times out leaves the heuristic's reads, recorded as a fallback.
    failed = _read_decisions(runs["failing"])
    assert [list(e.choice) for e in failed] == [list(e.choice) for e in _read_decisions(base)]
    assert llm_decision_counts(read_run(runs["failing"]).events)["fallback_timeout"] == len(  # type: ignore[arg-type]
        [e for e in read_run(runs["failing"]).events if e.type == "model_call"])


def test_the_read_points_compare_the_heuristic_reads_with_the_models_one_more(kit: ResearchKit,
                                                                              tmp_path: Path) -> None:
    from citeloop.eval.loop import gold_of
    from citeloop.eval.datasets import load_eval_set

    hotpot = load_eval_set("hotpotqa")
    question = hotpot.questions[0].question
    _, heuristic = run_research(question, kit, out_dir=tmp_path / "h")
    _, explorer = run_research(question, kit, policy_spec="explore", seed=1, out_dir=tmp_path / "x")
    settings = OutcomeSettings(gold=gold_of([hotpot]))
    rolled = roll_decisions([heuristic, explorer], "read", 64, settings, kit=kit)
    asked: list[list[str]] = []

    def last_likeliest(_messages: list[dict[str, str]], texts: list[str]) -> dict[str, float]:
        asked.append(texts)
        return {t: float(i) for i, t in enumerate(texts)}

    points = read_points(rolled, last_likeliest)
    reads = _read_decisions(heuristic)
    assert len(points) == len(reads) and {p.path for p in points} == {str(heuristic)}  # explorers' reads left out
    for point, event in zip(sorted(points, key=lambda p: p.seq), reads):
        options = read_one_more(list(event.choice), list(event.candidates), event.state.reads_left)
        assert point.kept == rolled.outcomes[(str(heuristic), event.seq, ",".join(event.choice))]
        if len(options) == 1:
            assert point.overruled is None and point.best == 0
        else:
            assert point.best == len(options) - 1 and point.margin == pytest.approx(len(options) - 1)
            assert point.overruled == rolled.outcomes[(str(heuristic), event.seq, ",".join(options[-1]))]
    assert len(asked) == sum(p.best != 0 for p in points)


def test_the_read_threshold_fit_against_a_served_model(kit: ResearchKit, tiny_model: Path, tmp_path: Path) -> None:
    """calibrate_choice for read on the transformers server: every heuristic read decision is a
    point, the model's one-more options are scored as whole replies, and the fit is no worse
    than the teacher on the training decisions."""
    from citeloop.eval.loop_calibration import calibrate_choice
    from citeloop.training.hf_server import served_hf

    _, path = run_research(BRIDGE, kit, out_dir=tmp_path)
    with served_hf(tiny_model) as server:
        fitted = calibrate_choice("read", [path], OutcomeSettings(), kit, "serial", server.endpoint, 16, "one_more")
    assert fitted["kind"] == "read" and fitted["decisions"] == len(_read_decisions(path)) and fitted["runs"] == 1
    assert fitted["fitted"]["score"] == max(c["score"] for c in fitted["candidates"]) >= fitted["teacher"]["score"]
    assert fitted["teacher"]["changed"] == 0 and 0 <= fitted["model_differs"] <= fitted["decisions"]


def test_the_read_options_benchmark_branches_each_family(kit: ResearchKit, tmp_path: Path) -> None:
    import json

    from citeloop.eval.bench_read_options import FAMILIES, families, main

    _, path = run_research(BRIDGE, kit, out_dir=tmp_path)
    e = next(e for e in _read_decisions(path) if len(e.choice) >= 2 and len(e.choice) < e.state.reads_left)
    options = families(e)
    unchosen = [c for c in e.candidates if c not in e.choice]
    assert options["one more"] == [",".join([*e.choice, c]) for c in unchosen]
    assert options["single new"] == unchosen and options["single chosen"] == list(e.choice)
    assert options["none"] == [""] and options["swap last"] == [",".join([*e.choice[:-1], c]) for c in unchosen]
    out = tmp_path / "read-options.json"
    assert main(["--sets", "hotpotqa,bogus", "--out", str(out)]) == 2 and not out.exists()
    assert main(["--sets", "hotpotqa", "--limit", "2", "--workers", "1", "--out", str(out)]) == 0
    report = json.loads(out.read_text())["hotpotqa"]
    assert report["questions"] == 2 and report["read_decisions"] >= 2 and set(report["families"]) == set(FAMILIES)
    for counts in report["families"].values():
        assert counts.get("wins", 0) + counts.get("losses", 0) <= counts.get("offered", 0) <= report["read_decisions"]
