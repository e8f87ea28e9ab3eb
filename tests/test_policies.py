"""The decision policies on hand-made states, the registry, scripted playback and explore."""

from __future__ import annotations

import itertools

import pytest

from citeloop.runtime.config import load_config
from citeloop.runtime.policies import AngleCandidate, PolicyError, resolve_policies
from citeloop.runtime.policies.explore import ExploreAngle
from citeloop.runtime.policies.heuristic import HeuristicAngle, HeuristicRead, HeuristicStop
from citeloop.runtime.policies.naive import NaiveAngle, NaiveRead, NaiveStop
from citeloop.runtime.policies.scripted import ScriptDivergence, ScriptedAngle, ScriptedStop
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.decision_events import ReadState
from citeloop.trajectories.events import AngleState, StopSignals
from citeloop.trajectories.models import SearchHit
from citeloop.trajectories.runfile import MemorySink

LELAND = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"


def signals(**overrides: object) -> StopSignals:
    """A mid-run state in which the heuristic would continue; tests flip one signal at a time."""
    base: dict[str, object] = dict(
        round=3, min_rounds=2, searches_used=3, searches_max=10, reads_used=4, reads_max=12,
        recent_gains=[2, 1, 1], recent_new_cards=[4, 4, 4], uncovered_terms=["director"],
        initial_deficit=2, coverage=0.5, coverage_target=0.85, open_subqs=["sq2"],
        min_rounds_met=True, gain_flat=False, coverage_met=False, budget_exhausted=False,
    )
    base.update(overrides)
    return StopSignals.model_validate(base)


# --------------------------------------------------------------------------- stop


def test_heuristic_stop_continues_before_min_rounds_even_when_everything_else_says_stop() -> None:
    s = signals(round=1, min_rounds_met=False, coverage=1.0, coverage_met=True, gain_flat=True)
    choice = HeuristicStop().decide_stop(s)
    assert choice.value == "continue"
    assert "minimum" in choice.reason


def test_heuristic_stop_stops_when_coverage_met_and_gain_flat() -> None:
    choice = HeuristicStop().decide_stop(signals(coverage=0.9, coverage_met=True, gain_flat=True, recent_gains=[1, 0, 0]))
    assert choice.value == "stop"
    assert "flat" in choice.reason


def test_heuristic_stop_continues_while_coverage_is_below_target() -> None:
    choice = HeuristicStop().decide_stop(signals(coverage_met=False, gain_flat=True))
    assert choice.value == "continue"
    assert "below target" in choice.reason


def test_heuristic_stop_continues_when_coverage_met_but_gain_still_rising() -> None:
    assert HeuristicStop().decide_stop(signals(coverage=0.9, coverage_met=True, gain_flat=False)).value == "continue"


def test_heuristic_stop_stops_once_the_answers_hops_have_evidence_even_in_round_one() -> None:
    choice = HeuristicStop().decide_stop(signals(round=1, min_rounds_met=False, open_subqs=["sq3"], answer_ready=True))
    assert choice.value == "stop" and "answer's hops" in choice.reason
    assert HeuristicStop().decide_stop(signals(round=1, min_rounds_met=False, answer_ready=False)).value == "continue"


def test_naive_stop_stops_when_no_terms_are_uncovered() -> None:
    choice = NaiveStop().decide_stop(signals(round=1, uncovered_terms=[]))
    assert choice.value == "stop"
    assert "gaps" in choice.reason


def test_naive_stop_stops_on_diminishing_returns() -> None:
    assert NaiveStop().decide_stop(signals(round=1, recent_new_cards=[5, 2])).value == "stop"
    assert NaiveStop().decide_stop(signals(round=1, recent_new_cards=[5, 3])).value == "continue"


def test_naive_stop_stops_after_max_iterations() -> None:
    assert NaiveStop().decide_stop(signals(round=4)).value == "stop"


# --------------------------------------------------------------------------- angle

ANGLES = ("base", "entity", "relation", "context", "question", "gap_followup")
CANDIDATES = [AngleCandidate(angle=a, query=f"query for {a}") for a in ANGLES]


@pytest.mark.parametrize("dependent", [False, True])
def test_heuristic_angle_never_repeats_a_query_while_an_untried_one_exists(dependent: bool) -> None:
    policy = HeuristicAngle()
    queries = [c.query for c in CANDIDATES]
    for n in range(len(queries)):
        for tried in itertools.combinations(queries, n):
            state = AngleState(round=1, base_query=queries[0], tried_queries=list(tried), deficit=1, dependent=dependent)
            choice = policy.choose_angle(state, CANDIDATES)
            assert CANDIDATES[choice.value].query not in tried, tried  # type: ignore[index]


def test_heuristic_angle_picks_by_angle_name_not_candidate_position() -> None:
    state = AngleState(round=1, base_query="", tried_queries=["query for base"], deficit=1)
    in_order = HeuristicAngle().choose_angle(state, CANDIDATES)
    shuffled = list(reversed(CANDIDATES))
    reversed_choice = HeuristicAngle().choose_angle(state, shuffled)
    assert shuffled[reversed_choice.value].angle == CANDIDATES[in_order.value].angle  # type: ignore[index]


def test_heuristic_angle_on_a_first_hop_asks_the_question_then_its_own_words() -> None:
    """A first hop searches the whole question, then its own query, and only then its query with
    the question's other names ("country nugegoda located British Empire" mixes in the next hop's
    words)."""
    order = []
    tried: list[str] = []
    for _ in range(3):
        state = AngleState(round=1, base_query="query for base", tried_queries=list(tried), deficit=1, dependent=False)
        pick = CANDIDATES[HeuristicAngle().choose_angle(state, CANDIDATES).value]  # type: ignore[index]
        order.append(pick.angle)
        tried.append(pick.query)
    assert order == ["question", "base", "context"]
    dependent = AngleState(round=1, base_query="query for base", tried_queries=[], deficit=1, dependent=True)
    assert CANDIDATES[HeuristicAngle().choose_angle(dependent, CANDIDATES).value].angle == "base"  # type: ignore[index]


def test_heuristic_angle_heads_a_long_chain_with_its_own_words() -> None:
    """When two hops or more wait on a first hop, most of the question's words are theirs: the hop
    searches its own query first. One hop waiting leaves the whole question first."""
    for waiting, first in ((1, "question"), (2, "base"), (3, "base")):
        state = AngleState(round=1, base_query="query for base", tried_queries=[], deficit=1, hops_after=waiting)
        assert CANDIDATES[HeuristicAngle().choose_angle(state, CANDIDATES).value].angle == first  # type: ignore[index]


def test_hops_after_counts_the_longest_chain_waiting_on_a_hop() -> None:
    from citeloop.runtime.plan_gate import hops_after
    from citeloop.runtime.planner import RulePlanner

    plan = RulePlanner().plan("When did the country of Izgoy's performer invade Manchuria?")
    chain = {s.id: s.depends_on for s in plan.sub_questions}
    assert chain == {"sq1": [], "sq2": ["sq1"], "sq3": ["sq2"]}
    assert [hops_after(plan, sid) for sid in ("sq1", "sq2", "sq3")] == [2, 1, 0]
    # old trajectories, recorded before the field, load as no hop waiting
    assert AngleState.model_validate({"round": 1, "base_query": "q", "tried_queries": [], "deficit": 1}).hops_after == 0


def test_naive_angle_asks_the_question_then_follows_gaps() -> None:
    first = NaiveAngle().choose_angle(AngleState(round=1, base_query="", tried_queries=[], deficit=1), CANDIDATES)
    later = NaiveAngle().choose_angle(AngleState(round=2, base_query="", tried_queries=["x"], deficit=1), CANDIDATES)
    assert CANDIDATES[first.value].angle == "question"  # type: ignore[index]
    assert CANDIDATES[later.value].angle == "gap_followup"  # type: ignore[index]


def test_explore_angle_is_seed_stable_and_never_picks_out_of_range() -> None:
    state = AngleState(round=1, base_query="", tried_queries=[], deficit=1)
    picks = [ExploreAngle(seed, 0.9).choose_angle(state, CANDIDATES).value for seed in range(20)]
    again = [ExploreAngle(seed, 0.9).choose_angle(state, CANDIDATES).value for seed in range(20)]
    assert picks == again
    assert all(0 <= p < len(CANDIDATES) for p in picks)  # type: ignore[operator]
    assert len(set(picks)) > 1


# --------------------------------------------------------------------------- scripted


def test_scripted_stop_plays_back_then_hands_over() -> None:
    policy = ScriptedStop(["continue", "continue"], then=HeuristicStop())
    assert policy.ref.name == "scripted"
    stop_state = signals(coverage=1.0, coverage_met=True, gain_flat=True)
    assert policy.decide_stop(stop_state).value == "continue"  # recorded, not what the heuristic would say
    assert policy.decide_stop(stop_state).value == "continue"
    handed = policy.decide_stop(stop_state)
    assert handed.value == "stop"
    assert policy.ref == HeuristicStop.ref


def test_scripted_stop_forced_choice_overrides_the_recording() -> None:
    policy = ScriptedStop(["continue", "continue"], then=HeuristicStop(), forced={1: "stop"})
    assert [policy.decide_stop(signals()).value for _ in range(2)] == ["continue", "stop"]


def test_scripted_stop_raises_divergence_on_invalid_recorded_choice() -> None:
    policy = ScriptedStop(["continue", "maybe"], then=HeuristicStop())
    policy.decide_stop(signals())
    with pytest.raises(ScriptDivergence) as info:
        policy.decide_stop(signals())
    assert info.value.position == 1
    assert info.value.recorded == "maybe"


def test_scripted_angle_matches_by_query_and_diverges_on_unknown_query() -> None:
    state = AngleState(round=1, base_query="", tried_queries=[], deficit=1)
    policy = ScriptedAngle(["query for context", "query nobody offers"], then=HeuristicAngle())
    assert policy.choose_angle(state, CANDIDATES).value == 3
    with pytest.raises(ScriptDivergence, match="angle decision #1"):
        policy.choose_angle(state, CANDIDATES)


# --------------------------------------------------------------------------- registry


def test_resolve_policies_mixes_families() -> None:
    config = load_config()
    policies = resolve_policies("stop=naive,angle=heuristic", config, 0)
    assert isinstance(policies.stop, NaiveStop)
    assert isinstance(policies.angle, HeuristicAngle)
    assert isinstance(policies.read, HeuristicRead), "unnamed kinds stay heuristic"
    naive = resolve_policies("naive", config, 0)
    assert isinstance(naive.read, NaiveRead)


@pytest.mark.parametrize("spec", ["bogus", "stop=bogus", "angle=heuristic,read=nope"])
def test_unknown_policy_name_lists_valid_names(spec: str) -> None:
    with pytest.raises(PolicyError) as info:
        resolve_policies(spec, load_config(), 0)
    message = str(info.value)
    assert "unknown policy" in message
    for name in ("explore", "heuristic", "naive"):
        assert name in message


@pytest.mark.parametrize("spec", ["", "stop=", "speed=naive", "stop:naive,angle=x"])
def test_malformed_policy_spec_is_an_error(spec: str) -> None:
    with pytest.raises(PolicyError):
        resolve_policies(spec, load_config(), 0)


def _decision_choices(kit: ResearchKit, policy: str, config=None, seed: int = 0) -> list[tuple[str, object]]:
    sink = MemorySink()
    run_research(LELAND, kit, config, policy_spec=policy, seed=seed, out_dir=None, sink=sink)
    return [(e.type, e.choice) for e in sink.events if e.type.endswith("_decision")]  # type: ignore[attr-defined]


def test_explore_with_zero_epsilon_chooses_like_heuristic(kit: ResearchKit) -> None:
    heuristic = _decision_choices(kit, "heuristic")
    for seed in (0, 7):
        explore = _decision_choices(kit, "explore", load_config(overrides={"explore.epsilon": 0.0}), seed)
        assert explore == heuristic
    assert len(heuristic) >= 5


# --------------------------------------------------------------------------- read


def _hit(doc_id: str, rank: int, title: str) -> SearchHit:
    return SearchHit(doc_id=doc_id, title=title, source="example.org", snippet=f"{title} is a page.",
                     score=10.0 - rank, rank=rank)


def test_heuristic_read_takes_the_first_hit_whatever_its_snippet_says() -> None:
    hits = [_hit("d0", 0, "Aschenbrödel"), _hit("d1", 1, "Pharmacy"), _hit("d2", 2, "Ballet"), _hit("d3", 3, "Opera")]
    state = ReadState(hits=hits, already_read=[], reads_left=5)
    relevance = {"d0": 0.0, "d1": 0.1, "d2": 0.5, "d3": 0.3}
    choice = HeuristicRead().choose_reads(state, relevance, 5)
    assert choice.value == ["d0", "d2", "d3"]  # the first hit, then the relevant ones in rank order
    # a first hit read before is not read again, and the others still need their relevance
    again = HeuristicRead().choose_reads(ReadState(hits=hits, already_read=["d0"], reads_left=5), relevance, 5)
    assert again.value == ["d2", "d3"]
