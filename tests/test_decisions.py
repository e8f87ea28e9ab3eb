"""The decisions exposed to learning: a stop that is a real choice, the follow decision, read
options beyond the per-search cap, hard limits as events, and old files' decisions.

Each case is a small hand-made corpus where taking the decision the other way changes the
outcome, branched both ways with `branch_run`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from citeloop.runtime.branch import branch_run
from citeloop.runtime.corpus import Corpus, Document
from citeloop.runtime.index import BM25Index
from citeloop.runtime.policies import Choice
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.events import PolicyRef, StopSignals
from citeloop.trajectories.models import Axis, Plan, SubQuestion
from citeloop.trajectories.runfile import read_run

FIXTURES = Path(__file__).parent / "fixtures"
FILLER = {
    "Kelp Forest": "A kelp forest is an underwater area with a high density of kelp. It grows in cold water.",
    "Granite": "Granite is a coarse-grained igneous rock. It is composed mostly of quartz and feldspar.",
    "Violin": "The violin is a wooden string instrument. It is the smallest member of its family.",
}
TWO_FILMS = {**FILLER,
             "Port Elsa": "Port Elsa is a fishing town. The films Grey Tide and Salt Marsh Road were shot there in 1979.",
             "Grey Tide": "Grey Tide is a 1979 documentary film directed by Ana Pell.",
             "Salt Marsh Road": "Salt Marsh Road is a 1979 thriller film directed by Mara Quint."}
BRIDGE = "Who directed the film that was shot in Port Elsa in 1979?"


def _kit(pages: dict[str, str]) -> ResearchKit:
    docs = [Document(id=f"d{i}", title=title, text=text) for i, (title, text) in enumerate(pages.items())]
    corpus = Corpus(docs, source="test-decisions")
    return ResearchKit(corpus=corpus, index=BM25Index.build(corpus), index_seconds=0.0)


def _run(question: str, kit: ResearchKit, tmp_path: Path, **kwargs):  # noqa: ANN003, ANN202
    result, path = run_research(question, kit, out_dir=tmp_path, **kwargs)
    return result, read_run(path)


def _answer(events: list) -> str | None:  # noqa: ANN001
    report = next(e for e in events if e.type == "report_written").report
    return report.answer.text


# --------------------------------------------------------------------------- follow


def test_the_follow_decision_fixes_the_next_hop_and_each_option_leads_elsewhere(tmp_path: Path) -> None:
    kit = _kit(TWO_FILMS)
    _, run = _run(BRIDGE, kit, tmp_path)
    follow = next(e for e in run.events if e.type == "follow_decision")
    options = [c.names for c in follow.candidates]
    assert ["Grey Tide"] in options and ["Salt Marsh Road"] in options, options
    assert len(options[0]) > 1 and follow.choice == 0, "the heuristic searches the leaders together"
    assert all(c.quote and c.doc_id for c in follow.candidates[1:]), "each name comes with its sentence"
    answers = {}
    for index, names in enumerate(options):
        if names not in (["Grey Tide"], ["Salt Marsh Road"]):
            continue
        branch = branch_run(run, follow.seq, str(index), kit=kit)
        queries = [e.query for e in branch.events if e.type == "query_issued" and e.subq == follow.subq]
        assert queries and names[0].lower() in queries[0].lower()
        other = ({"Grey Tide", "Salt Marsh Road"} - set(names)).pop()
        assert other.lower() not in queries[0].lower(), "one option, one entity in the next hop's query"
        answers[names[0]] = _answer(branch.events)
    assert answers == {"Grey Tide": "Ana Pell", "Salt Marsh Road": "Mara Quint"}


def test_a_follow_index_out_of_range_is_a_clear_error(tmp_path: Path) -> None:
    from citeloop.runtime.rebuild import ReplayError

    kit = _kit(TWO_FILMS)
    _, run = _run(BRIDGE, kit, tmp_path)
    follow = next(e for e in run.events if e.type == "follow_decision")
    try:
        branch_run(run, follow.seq, "9", kit=kit)
    except ReplayError as exc:
        assert "not a candidate index of this follow decision" in str(exc)
    else:
        raise AssertionError("an out-of-range follow index must be refused")


# --------------------------------------------------------------------------- stop


class _FixedPlanner:
    """A plan with a background hop the corpus cannot satisfy and an answer hop it can."""

    name, version = "fixed", "1"

    def plan(self, question: str) -> Plan:
        def sq(sid: str, axis: str, query: str) -> SubQuestion:
            return SubQuestion(id=sid, axis=axis, question=query, search_query=query,
                               stop_condition="one independent source", expected_claims=[f"States {query}"])
        return Plan(question=question, question_type="factoid", scope_in=[question], scope_out=[],
                    axes=[Axis(id="a1", title="Background"), Axis(id="a2", title="Answer")],
                    sub_questions=[sq("sq1", "a1", "Quarry Vale wages"), sq("sq2", "a2", "Orla Fenn born")],
                    entities=["Orla Fenn", "Quarry Vale"])


def test_stopping_early_is_right_when_the_answer_is_in_hand(tmp_path: Path) -> None:
    kit = _kit({**FILLER, "Orla Fenn": "Orla Fenn (born 3 March 1950) is an Irish painter."})
    result, run = _run("When was Orla Fenn born?", kit, tmp_path, planner=_FixedPlanner())
    stop = next(e for e in run.events if e.type == "stop_decision")
    assert (stop.state.round, stop.choice, stop.state.answer_ready) == (1, "stop", True)
    assert stop.state.open_subqs == ["sq1"], "something could still be searched: a real choice"
    assert result.report.answer.text == "3 March 1950"
    # The other way (a planner outside the registry cannot be branched, so the run is redone
    # with a stop policy that always continues): the same answer for more searches.
    _, longer = _run("When was Orla Fenn born?", kit, tmp_path / "longer", planner=_FixedPlanner(),
                     policy_spec="stop=test_decisions:always_continue")
    searches = lambda events: sum(e.type == "query_issued" for e in events)  # noqa: E731
    assert _answer(longer.events) == "3 March 1950"
    assert searches(longer.events) > searches(run.events), "continuing only spends searches"


class _AlwaysContinue:
    ref = PolicyRef(name="always-continue", version="1")

    def decide_stop(self, signals: StopSignals) -> Choice:
        return Choice("continue", "never stops")


def always_continue(kind: str, config: object, seed: int) -> _AlwaysContinue:
    return _AlwaysContinue()


def test_stopping_early_is_wrong_while_the_answer_hop_is_open(tmp_path: Path) -> None:
    kit = _kit(TWO_FILMS)
    _, run = _run(BRIDGE, kit, tmp_path)
    stop = next(e for e in run.events if e.type == "stop_decision")
    assert (stop.state.round, stop.choice, stop.state.answer_ready) == (1, "continue", False)
    assert _answer(run.events) in ("Ana Pell", "Mara Quint")
    early = branch_run(run, stop.seq, "stop", kit=kit)
    assert _answer(early.events) is None, "stopped before the answer hop searched"


def test_a_hard_limit_is_an_event_and_never_a_dataset_row(tmp_path: Path) -> None:
    from citeloop.training.sft import export_sft

    kit = _kit(TWO_FILMS)
    _, run = _run(BRIDGE, kit, tmp_path)
    limits = [e for e in run.events if e.type == "hard_limit"]
    assert [e.limit for e in limits] == ["nothing_left"]
    assert all(e.policy.name != "hard_limit" for e in run.events if e.type == "stop_decision")
    rows = export_sft([run.path], test_share=0.0).rows["train"]
    assert rows and limits[0].seq not in {r["seq"] for r in rows}
    assert {r["decision"] for r in rows} >= {"stop", "follow", "read", "angle"}


# --------------------------------------------------------------------------- read


def test_read_options_reach_past_the_per_search_cap_and_rank_seven_can_win(tmp_path: Path) -> None:
    pages = {**FILLER}
    for kind in ("song", "novel", "album", "poem", "painting", "opera"):
        pages[f"Lantern Bay ({kind})"] = (f"Lantern Bay is a {kind}. The Lantern Bay {kind} was directed and staged in "
                                          f"Lantern Bay harbour, and Lantern Bay fans loved the Lantern Bay {kind}.")
    pages["Lantern Bay (1963 film)"] = "Lantern Bay is a 1963 British drama film. Its director was John Gilling."
    kit = _kit(pages)
    gold = next(d.id for d in kit.corpus.documents if d.title == "Lantern Bay (1963 film)")
    _, run = _run("Who directed Lantern Bay?", kit, tmp_path)
    read = next(e for e in run.events if e.type == "read_decision")
    assert len(read.candidates) >= 7 and read.candidates.index(gold) == 6, "the film ranks seventh"
    assert gold not in read.choice and len(read.choice) == 3, "the heuristic reads its three"
    branch = branch_run(run, read.seq, gold, kit=kit)
    assert gold in {e.doc_id for e in branch.events if e.type == "document_read"}
    assert gold not in {e.doc_id for e in run.events if e.type == "document_read"}


# --------------------------------------------------------------------------- old files


def test_old_files_keep_their_decisions_and_their_hard_limits_become_events() -> None:
    raw = [json.loads(line) for line in (FIXTURES / "run_v3.jsonl").read_text(encoding="utf-8").splitlines()[1:]]
    run = read_run(FIXTURES / "run_v3.jsonl")
    by_seq = {e.seq: e for e in run.events}
    kinds = Counter()
    for line in raw:
        event = by_seq[line["seq"]]
        if line["type"] == "stop_decision" and line["policy"]["name"] == "hard_limit":
            assert event.type == "hard_limit" and event.reason == line["reason"]
            assert event.limit == "nothing_left" and event.round == line["state"]["round"]
            kinds["hard"] += 1
        elif line["type"].endswith("_decision"):
            assert event.type == line["type"] and event.choice == line["choice"]
            kinds["kept"] += 1
    assert kinds["hard"] == 1 and kinds["kept"] > 5
