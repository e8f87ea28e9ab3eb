"""Deferral of a trained angle or follow policy to the heuristic: the threshold fitted on training
runs (training/choice_calibration.py), the policy that applies it (runtime/policies/llm.py,
`defer_margin`), its endpoint option, and the fit against a real served model
(eval/loop_calibration.py)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from citeloop.runtime.config import ResearchConfig
from citeloop.runtime.llm.fake import FakeChatClient
from citeloop.runtime.policies.llm import SAMPLING, LLMPolicy, endpoint_options, llm_decision_counts
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.choice_calibration import (NEVER, ChoicePoint, fit_defer_margin, simulate_choices,
                                                   teacher_choice)
from citeloop.training.outcomes import Outcome
from citeloop.trajectories.runfile import read_run

# A question whose heuristic run takes angle and follow decisions with several candidates.
BRIDGE = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"


def _o(score: float, recall: float = 1.0, searches: int = 2, reads: int = 4) -> Outcome:
    return Outcome(score=score, basis="gold_recall", verified=True, gold_recall=recall, searches=searches,
                   run_id="r", filters_score=0.0, reads=reads)


# Four branched decisions. d1: the model is sure (margin 3.0) and right (0.9 beats 0.6). d2:
# unsure (0.5) and wrong (0.1). d3: fairly sure (1.0) and wrong (0.2 < 0.7, half the gold).
# d4: the model agrees with the heuristic.
POINTS = [
    ChoicePoint("a", 10, teacher=0, best=2, margin=3.0, kept=_o(0.6), overruled=_o(0.9)),
    ChoicePoint("a", 20, teacher=0, best=1, margin=0.5, kept=_o(0.6), overruled=_o(0.1)),
    ChoicePoint("b", 10, teacher=1, best=3, margin=1.0, kept=_o(0.7), overruled=_o(0.2, recall=0.5)),
    ChoicePoint("c", 10, teacher=0, best=0, margin=0.0, kept=_o(0.8), overruled=None),
]


def test_the_rule_is_scored_decision_by_decision_from_the_branches() -> None:
    teacher = simulate_choices(POINTS, NEVER)
    assert teacher["score"] == pytest.approx((0.6 + 0.6 + 0.7 + 0.8) / 4, abs=1e-4) and teacher["changed"] == 0
    always = simulate_choices(POINTS, -NEVER)  # the model's best wherever it differs
    assert always["score"] == pytest.approx((0.9 + 0.1 + 0.2 + 0.8) / 4, abs=1e-4) and always["changed"] == 3
    assert always["gold_recall"] == pytest.approx((1.0 + 1.0 + 0.5 + 1.0) / 4, abs=1e-4)
    sure_only = simulate_choices(POINTS, 2.0)  # only d1 clears 2.0
    assert sure_only["score"] == pytest.approx((0.9 + 0.6 + 0.7 + 0.8) / 4, abs=1e-4) and sure_only["changed"] == 1
    assert simulate_choices(POINTS, 0.75)["changed"] == 2  # d1 and d3


def test_the_fitted_threshold_maximises_the_training_score_and_ties_keep_the_teacher() -> None:
    threshold, table = fit_defer_margin(POINTS)
    assert threshold == pytest.approx(2.0)  # between the margins 1.0 and 3.0: d1 changed, d3 kept
    assert max(row["score"] for row in table) == pytest.approx((0.9 + 0.6 + 0.7 + 0.8) / 4, abs=1e-4)
    assert math.isinf(table[-1]["threshold"])
    useless = [ChoicePoint(p.path, p.seq, p.teacher, p.best, p.margin, p.kept,
                           None if p.overruled is None else p.kept) for p in POINTS]
    assert fit_defer_margin(useless)[0] == NEVER  # overruling never helps: the teacher is kept
    with pytest.raises(ValueError, match="no branched decisions"):
        fit_defer_margin([])


def test_the_heuristic_option_recomputed_from_a_recorded_state_is_the_one_it_took(kit: ResearchKit,
                                                                                 tmp_path: Path) -> None:
    from citeloop.eval.datasets import load_eval_set

    checked = 0
    for i, q in enumerate(load_eval_set("musique").questions[:12]):
        _, path = run_research(q.question, kit, out_dir=tmp_path / str(i))
        for event in read_run(path).events:  # type: ignore[arg-type]
            if event.type in ("angle_decision", "follow_decision"):
                assert teacher_choice(event) == event.choice, (q.question, event.seq)  # type: ignore[attr-defined]
                checked += 1
    assert checked >= 24
    with pytest.raises(ValueError, match="no heuristic option"):
        teacher_choice(read_run(path).events[1])  # type: ignore[arg-type]


class _LastOptionLikeliest(FakeChatClient):
    """Scores a choice's options 0, 1, 2, ... in order (the last likeliest) and names the last."""

    def __init__(self) -> None:
        super().__init__(lambda _prompt, constraint: constraint.value[-1], sampling=SAMPLING)

    def chat(self, prompt, constraint=None):  # type: ignore[no-untyped-def]
        reply = super().chat(prompt, constraint)
        scores = {option: float(i) for i, option in enumerate(constraint.value)}  # type: ignore[union-attr]
        return reply.model_copy(update={"option_scores": scores})


def deferring(margin: float | None):  # type: ignore[no-untyped-def]
    return lambda _kind, config, _seed: LLMPolicy(_LastOptionLikeliest(), config, choice_scoring="sequence",
                                                  defer_margin=margin)


never, sure, always = deferring(math.inf), deferring(1.5), deferring(None)


def _choices(path: Path) -> list[tuple[str, int, int, str]]:
    run = read_run(path)
    return [(e.type, len(e.candidates), e.choice, e.reason) for e in run.events  # type: ignore[attr-defined]
            if e.type in ("angle_decision", "follow_decision")]


def test_the_policy_overrules_the_heuristic_only_by_more_than_the_margin(kit: ResearchKit, tmp_path: Path) -> None:
    _, base = run_research(BRIDGE, kit, out_dir=tmp_path / "h")
    heuristic = _choices(base)  # type: ignore[arg-type]
    assert any(n > 2 for _, n, _, _ in heuristic)
    runs, counts = {}, {}
    for name in ("never", "sure", "always"):
        factory = f"{__name__}:{name}"
        _, path = run_research(BRIDGE, kit, policy_spec=f"angle={factory},follow={factory}", out_dir=tmp_path / name)
        runs[name] = _choices(path)  # type: ignore[arg-type]
        counts[name] = llm_decision_counts(read_run(path).events)  # type: ignore[arg-type]
    asked = sum(n > 1 for _, n, _, _ in heuristic)
    assert counts["never"]["deferred"] == counts["never"]["model"] == asked and counts["always"]["deferred"] == 0
    # An infinite margin is the teacher: every choice the heuristic's, each reason saying it was kept.
    assert [(t, n, c) for t, n, c, _ in runs["never"]] == [(t, n, c) for t, n, c, _ in heuristic]
    assert all(" kept (" in r for _, n, _, r in runs["never"] if n > 1)
    # Margin 1.5: the model's last option when it is at least two places after the heuristic's
    # (scores are option positions), the heuristic's otherwise. The first decision is the same
    # state in every run, so it is checked against the heuristic's own first choice.
    (_, n, rule, _), (_, n2, chosen, reason) = heuristic[0], runs["sure"][0]
    assert n2 == n > 1
    if (n - 1) - rule > 1.5:
        assert chosen == n - 1 and re.search(r"over the heuristic's \w+ \d+ by margin \d", reason)
    else:
        assert chosen == rule and " kept (" in reason
    for _, n, chosen, reason in runs["sure"]:
        if chosen != n - 1:
            assert " kept (" in reason
    # No margin: the likeliest option, whatever the heuristic would have done.
    assert all(c == n - 1 for _, n, c, _ in runs["always"] if n > 1)


def test_the_endpoint_option_gives_the_deferral_margin() -> None:
    from citeloop.runtime.policies import PolicyError, resolve_policies

    options = endpoint_options("http://h:8000/v1?score=sequence&defer_margin=0.75")
    assert (options.url, options.defer_margin, options.stop_margin) == ("http://h:8000/v1", 0.75, None)
    assert endpoint_options("http://h:8000/v1?score=sequence&defer_margin=inf").defer_margin == math.inf
    for bad, message in (("?score=sequence&defer_margin=x", "is not a number"), ("?defer_margin=1", "give score")):
        with pytest.raises(PolicyError, match=message):
            resolve_policies(f"llm:angle=http://127.0.0.1:9/v1{bad}#m", ResearchConfig(), 0)


def test_the_fit_against_a_served_model(kit: ResearchKit, tiny_model: Path, tmp_path: Path) -> None:
    from citeloop.eval.loop_calibration import calibrate_choice
    from citeloop.training.hf_server import served_hf
    from citeloop.training.outcomes import OutcomeSettings

    paths = []
    for i, question in enumerate([BRIDGE, "Who was Audrey Williams pregnant with during the recording of "
                                          "\"Dear Brother\"?"]):
        _, path = run_research(question, kit, out_dir=tmp_path / f"r{i}")
        paths.append(path)
    with served_hf(tiny_model) as server:
        fitted = calibrate_choice("angle", paths, OutcomeSettings(), kit, "serial", server.endpoint, 6)
    assert fitted["kind"] == "angle" and fitted["decisions"] >= 2 and fitted["runs"] == 2
    assert fitted["teacher"]["decisions"] == fitted["decisions"]
    assert fitted["fitted"]["score"] == max(c["score"] for c in fitted["candidates"])
    assert fitted["fitted"]["score"] >= fitted["teacher"]["score"]
    assert fitted["teacher"]["changed"] == 0 and 0 <= fitted["model_differs"] <= fitted["decisions"]
