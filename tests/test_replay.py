"""Replay: exact re-execution (`--check`), swaps and their diffs, branches, `diff`, `rescore`,
and the CLI's answers to bad input."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from citeloop.eval.cli import main
from citeloop.runtime.branch import branch_run
from citeloop.runtime.replay import ReplayError, check_run
from citeloop.runtime.swap import swap_run
from citeloop.runtime.rescore import resolve_scorer
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.events import event_to_dict
from citeloop.trajectories.models import VerdictRecord
from citeloop.trajectories.runfile import deterministic_lines, dumps_line, read_run

LELAND = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
NOLAN = "Are Christopher Nolan and Sathish Kalathil both film directors?"
HAYMO = "What language were books being translated into during the era of Haymo of Faversham?"
FIXTURES = Path(__file__).parent / "fixtures"


def _golden_path() -> Path:
    spec = importlib.util.spec_from_file_location("make_golden", Path(__file__).parent / "make_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.GOLDEN_PATH


class NoSupportVerifier:
    """Finds every claim irrelevant to its evidence: a verifier swap that must change verdicts."""

    name = "no-support"
    version = "1"

    def check(self, claim_id, claim_text, evidence, others=()):  # noqa: ANN001, ANN201
        return VerdictRecord(claim_id=claim_id, verdict="irrelevant", checker="no-support",
                             reason="test verifier supports nothing", support=0.0)


NO_SUPPORT = f"{__name__}:NoSupportVerifier"


def make_run(kit: ResearchKit, out: Path, question: str = LELAND, **kwargs) -> Path:  # noqa: ANN003
    _, path = run_research(question, kit, out_dir=out, **kwargs)
    assert path is not None
    return path


@pytest.fixture(scope="module")
def leland(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(kit, tmp_path_factory.mktemp("leland"))


def rewrite(path: Path, out: Path, seq: int, change) -> Path:  # noqa: ANN001
    """Copy a run file with the event at `seq` edited by `change(dict)`."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    event = json.loads(lines[seq + 1])
    change(event)
    lines[seq + 1] = json.dumps(event, ensure_ascii=False) + "\n"
    out.write_text("".join(lines), encoding="utf-8")
    return out


def without_run_id(events) -> list[dict]:  # noqa: ANN001
    out = []
    for e in events:
        d = event_to_dict(e)
        d.pop("run_id")
        out.append(d)
    return out


# --------------------------------------------------------------------------- exact replay


def test_golden_run_replays_exactly_with_a_package_warning() -> None:
    check = check_run(read_run(_golden_path()))
    assert check.ok, check.divergence
    assert check.divergence is None and check.header_problems == []
    assert check.events_recorded == check.events_replayed > 20
    assert any("no package versions" in w for w in check.warnings)


@pytest.mark.parametrize(
    ("question", "kwargs"),
    [
        (LELAND, {"policy_spec": "heuristic"}),
        (NOLAN, {"policy_spec": "explore", "seed": 7}),
        (HAYMO, {"policy_spec": "explore", "seed": 3, "compress": True}),
        (LELAND, {"policy_spec": "naive", "planner": "naive"}),
    ],
    ids=["heuristic", "explore-seed7", "explore-zst", "naive-naive"],
)
def test_fresh_runs_replay_exactly(kit: ResearchKit, tmp_path: Path, question: str, kwargs: dict) -> None:
    path = make_run(kit, tmp_path, question, **kwargs)
    check = check_run(read_run(path))
    assert check.ok, check.divergence
    assert check.warnings == [], "a fresh run records the installed package versions"
    assert check.events_recorded == len(deterministic_lines(path)) - 1


def test_v1_fixture_still_loads_and_replay_names_the_config_change() -> None:
    check = check_run(read_run(FIXTURES / "run_v1.jsonl"))
    assert not check.ok
    assert any("config digest differs" in p for p in check.header_problems)


def test_tampered_hit_diverges_at_the_decision_that_saw_it(leland: Path, tmp_path: Path) -> None:
    run = read_run(leland)
    result = next(e for e in run.events if e.type == "search_result" and e.response.hits)
    reader = next(e for e in run.events if e.type == "read_decision" and e.parent_seq == result.seq)

    def change(event: dict) -> None:
        event["response"]["hits"][0]["title"] = "A Title Nobody Recorded"

    check = check_run(read_run(rewrite(leland, tmp_path / "tampered.jsonl", result.seq, change)))
    assert not check.ok
    assert check.divergence is not None
    assert check.divergence.seq == reader.seq
    assert check.divergence.recorded_type == "read_decision"
    assert "state" in check.divergence.fields


def test_tampered_decision_is_named_as_a_decision_that_differs(leland: Path, tmp_path: Path) -> None:
    run = read_run(leland)
    stop = next(e for e in run.events if e.type == "stop_decision" and e.policy.name == "heuristic")

    def change(event: dict) -> None:
        event["choice"] = "stop" if event["choice"] == "continue" else "continue"

    check = check_run(read_run(rewrite(leland, tmp_path / "tampered.jsonl", stop.seq, change)))
    assert check.divergence is not None and check.divergence.seq == stop.seq
    assert check.divergence.reason.startswith("a decision that differs")


def test_unrecorded_read_is_refused_and_named(leland: Path, tmp_path: Path) -> None:
    run = read_run(leland)
    read = next(e for e in run.events if e.type == "document_read")

    def change(event: dict) -> None:
        event["doc_id"] = "not-the-doc-that-was-read"

    # The read's text blob is written just before it: that is where the streams part.
    blob = next(e for e in run.events if e.type == "text_blob" and e.digest == read.text_digest)
    assert blob.seq == read.seq - 1
    check = check_run(read_run(rewrite(leland, tmp_path / "tampered.jsonl", read.seq, change)))
    assert check.divergence is not None and check.divergence.seq == blob.seq
    assert (check.divergence.recorded_type, check.divergence.replayed_type) == ("text_blob", "document_read")
    assert "not recorded" in check.divergence.reason and repr(read.doc_id) in check.divergence.reason


# --------------------------------------------------------------------------- swaps and diff


def test_policy_swap_equals_a_fresh_run_and_reports_changed_queries(kit: ResearchKit, leland: Path,
                                                                    tmp_path: Path) -> None:
    swapped = swap_run(read_run(leland), "policy=naive", tmp_path / "swap", kit=kit)
    fresh = make_run(kit, tmp_path / "fresh", policy_spec="naive")
    assert swapped.path is not None
    assert deterministic_lines(swapped.path) == deterministic_lines(fresh)
    diff = swapped.diff
    assert diff.queries_added or diff.queries_removed
    assert not diff.identical and diff.first_divergence is not None
    first_angle = next(e for e in read_run(leland).events if e.type == "angle_decision")
    assert diff.first_divergence.seq <= first_angle.seq
    assert swapped.served > 0, "calls the original made are served from its record"


def test_verifier_swap_changes_verdicts_and_calls_no_tool(leland: Path, tmp_path: Path) -> None:
    swapped = swap_run(read_run(leland), f"verifier={NO_SUPPORT}", tmp_path)
    diff = swapped.diff
    assert swapped.live == 0
    assert swapped.header.spec.verifier.name == NO_SUPPORT
    assert swapped.path is not None and check_run(read_run(swapped.path)).ok, "the swapped run replays from its header"
    assert diff.verdicts_changed and all(v.after == "irrelevant" for v in diff.verdicts_changed)
    assert diff.first_divergence is not None and diff.first_divergence.before_type == "verdict_reached"
    assert not diff.queries_added and not diff.queries_removed and not diff.evidence_gained
    assert diff.counts_after["dropped"] == diff.counts_after["claims_drafted"] > diff.counts_before["dropped"]


def test_tools_swap_uses_the_new_corpus_and_search_settings(leland: Path, tmp_path: Path) -> None:
    docs = [
        {"id": "leland", "title": "Leland, North Carolina",
         "text": "Leland is a town in North Carolina. Maximum Overdrive (1986) was shot in or around Leland."},
        {"id": "overdrive", "title": "Maximum Overdrive",
         "text": "Maximum Overdrive is a 1986 film written and directed by Stephen King."},
    ]
    (tmp_path / "tiny.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    config = tmp_path / "tools.yaml"
    config.write_text("corpus: tiny.jsonl\nsearch: {k: 2}\n", encoding="utf-8")
    swapped = swap_run(read_run(leland), f"tools={config}")
    spec = swapped.header.spec
    assert spec.config["search"]["k"] == 2 and spec.tools["search"].args["k"] == 2
    assert spec.corpus_source.endswith("tiny.jsonl")
    issued = [e for e in swapped.events if e.type == "query_issued"]
    assert issued and all(e.k == 2 for e in issued)
    read_ids = {e.doc_id for e in swapped.events if e.type == "document_read"}
    assert read_ids and read_ids <= {"leland", "overdrive"}
    assert {k.doc_id for k in swapped.diff.evidence_gained} <= {"leland", "overdrive"}
    assert swapped.diff.evidence_lost


def test_bad_tools_config_is_refused(leland: Path, tmp_path: Path) -> None:
    config = tmp_path / "tools.yaml"
    config.write_text("retriever: dense\n", encoding="utf-8")
    with pytest.raises(ReplayError, match="corpus, search"):
        swap_run(read_run(leland), f"tools={config}")


def test_diff_command_json_and_question_mismatch(kit: ResearchKit, leland: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    other = make_run(kit, tmp_path, LELAND, policy_spec="explore", seed=1)
    assert main(["diff", str(leland), str(other), "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)
    assert diff["before_run_id"] == read_run(leland).run_id and diff["question"] == LELAND
    assert {"first_divergence", "queries_added", "evidence_gained", "verdicts_changed", "stop_before",
            "metrics_after"} <= diff.keys()
    assert main(["diff", str(leland), str(make_run(kit, tmp_path, NOLAN))]) == 2
    assert "different questions" in capsys.readouterr().err


# --------------------------------------------------------------------------- branches


def test_stop_branch_keeps_the_parent_prefix_and_records_its_origin(kit: ResearchKit, leland: Path,
                                                                   tmp_path: Path) -> None:
    parent = read_run(leland)
    stop = next(e for e in parent.events if e.type == "stop_decision" and e.policy.name == "heuristic")
    forced = "stop" if stop.choice == "continue" else "continue"
    branch = branch_run(parent, stop.seq, forced, out_dir=tmp_path, kit=kit)
    assert branch.header.run_id != parent.run_id
    origin = branch.header.spec.branch
    assert origin is not None
    assert (origin.parent_run_id, origin.branch_seq, origin.forced_choice) == (parent.run_id, stop.seq, forced)
    assert (origin.decision_type, origin.continuation_policy) == ("stop_decision", "heuristic")
    assert without_run_id(branch.events[: stop.seq]) == without_run_id(parent.events[: stop.seq])
    assert all(e.run_id == branch.header.run_id for e in branch.events)
    at = branch.events[stop.seq]
    assert at.type == "stop_decision" and at.choice == forced and at.policy.name == "scripted"  # type: ignore[attr-defined]
    assert at.state == stop.state  # type: ignore[attr-defined]
    assert branch.diff.first_divergence is not None and branch.diff.first_divergence.seq == stop.seq
    if forced == "stop":
        assert branch.diff.stop_after.round == stop.state.round
    # The branch file is a run like any other: it replays exactly from its own header.
    assert branch.path is not None
    assert check_run(read_run(branch.path)).ok


def test_angle_branch_by_index_continues_with_another_policy(kit: ResearchKit, leland: Path) -> None:
    parent = read_run(leland)
    angle = next(e for e in parent.events if e.type == "angle_decision")
    index = next(i for i in range(len(angle.candidates)) if i != angle.choice)
    branch = branch_run(parent, angle.seq, str(index), then="naive", kit=kit)
    assert without_run_id(branch.events[: angle.seq]) == without_run_id(parent.events[: angle.seq])
    assert branch.events[angle.seq].choice == index  # type: ignore[attr-defined]
    issued = branch.events[angle.seq + 1]
    assert issued.type == "query_issued" and issued.query == angle.candidates[index]  # type: ignore[attr-defined]
    later = [e for e in branch.events[angle.seq + 1 :] if e.type.endswith("_decision") and e.policy.name != "hard_limit"]
    assert later and all(e.policy.name == "naive" for e in later)
    assert branch.header.spec.policies["spec"].name == "naive"


def test_read_branch_forces_the_documents_read(kit: ResearchKit, leland: Path) -> None:
    parent = read_run(leland)
    decision = next(e for e in parent.events if e.type == "read_decision" and len(e.candidates) > 3)
    ever_read = {e.doc_id for e in parent.events if e.type == "document_read"}
    unread = [c for c in decision.candidates if c not in ever_read][:1]
    assert unread
    branch = branch_run(parent, decision.seq, ",".join(unread), kit=kit)
    assert branch.events[decision.seq].choice == unread  # type: ignore[attr-defined]
    first_read = next(e for e in branch.events[decision.seq :] if e.type == "document_read")
    assert first_read.doc_id == unread[0] and first_read.parent_seq == decision.seq  # type: ignore[attr-defined]
    assert branch.live >= 1, "a document the parent never read is read live"


# --------------------------------------------------------------------------- CLI


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str], code: int = 2) -> str:
    assert main(argv) == code
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    return err


def test_cli_check_exit_codes(leland: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(leland), "--check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    run = read_run(leland)
    stop = next(e for e in run.events if e.type == "stop_decision" and e.policy.name == "heuristic")
    tampered = rewrite(leland, tmp_path / "t.jsonl", stop.seq, lambda e: e.update(choice="stop" if e["choice"] == "continue" else "continue"))
    assert main(["replay", str(tampered), "--check"]) == 1
    assert f"seq {stop.seq}" in capsys.readouterr().out


def test_check_of_a_file_with_a_damaged_middle_line_never_says_identical(
        leland: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = leland.read_text(encoding="utf-8").splitlines(keepends=True)
    damaged_line = 8  # file line 8 holds the event with seq 6
    lines[damaged_line - 1] = lines[damaged_line - 1][: len(lines[damaged_line - 1]) // 2] + "\n"
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(lines), encoding="utf-8")
    assert main(["replay", str(damaged), "--check"]) == 3
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "identical" not in out
    assert f"line {damaged_line} is not valid JSON" in out
    assert f"{len(lines) - damaged_line} lines after it were not read" in out
    assert "The 6 events before it match the replay" in out
    assert main(["replay", str(damaged), "--check", "--json"]) == 3
    check = json.loads(capsys.readouterr().out)
    assert (check["ok"], check["events_recorded"], check["lines_unread"]) == (False, 6, len(lines) - damaged_line)


def test_check_of_a_file_cut_off_by_a_crash_is_not_identical_either(
        leland: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = leland.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) - 40])  # the last line loses its end
    assert main(["replay", str(cut), "--check"]) == 3
    out = " ".join(capsys.readouterr().out.split())
    assert "identical" not in out and "is incomplete (no newline)" in out and "lines after it" not in out


def test_cli_unknown_run_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such run file" in _fails(["replay", str(tmp_path / "missing.jsonl"), "--check"], capsys)


def test_cli_branch_bad_input(leland: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = read_run(leland)

    def first(kind: str) -> int:
        return next(e.seq for e in run.events
                    if e.type == kind and not (kind == "stop_decision" and e.policy.name == "hard_limit"))

    seq_of = {t: first(t) for t in ("plan_created", "stop_decision", "angle_decision", "read_decision", "keep_decision")}
    r = str(leland)
    assert "not a stop/angle/read/keep/follow decision" in _fails(["replay", r, "--branch", str(seq_of["plan_created"]),
                                                            "--action", "stop"], capsys)
    assert "no event at seq 9999" in _fails(["replay", r, "--branch", "9999", "--action", "stop"], capsys)
    assert "continue or stop" in _fails(["replay", r, "--branch", str(seq_of["stop_decision"]), "--action", "maybe"], capsys)
    assert "out of range" in _fails(["replay", r, "--branch", str(seq_of["angle_decision"]), "--action", "99"], capsys)
    assert "not candidates" in _fails(["replay", r, "--branch", str(seq_of["read_decision"]), "--action", "nope"], capsys)
    assert "not candidates" in _fails(["replay", r, "--branch", str(seq_of["keep_decision"]), "--action", "x#s0"], capsys)
    assert "needs --action" in _fails(["replay", r, "--branch", str(seq_of["stop_decision"])], capsys)
    assert "exactly one of" in _fails(["replay", r], capsys)
    assert "expected tools=CONFIG" in _fails(["replay", r, "--swap", "planner=naive"], capsys)
    hard = next((e.seq for e in run.events if e.type == "stop_decision" and e.policy.name == "hard_limit"), None)
    if hard is not None:
        assert "hard-limit" in _fails(["replay", r, "--branch", str(hard), "--action", "continue"], capsys)


def test_cli_branch_json(leland: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = read_run(leland)
    keep = next(e for e in run.events if e.type == "keep_decision" and e.candidates)
    assert main(["replay", str(leland), "--branch", str(keep.seq), "--action", keep.candidates[-1].sid,
                 "--out", str(tmp_path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["branch"]["branch_seq"] == keep.seq and payload["branch"]["forced_choice"] == [keep.candidates[-1].sid]
    assert Path(payload["trajectory"]).is_file()


# --------------------------------------------------------------------------- rescore


def test_rescore_with_the_run_s_own_verifier_changes_nothing(leland: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = resolve_scorer("lexical").rescore(read_run(leland))
    assert result.claims and result.changed == [] and result.before == result.after
    assert main(["rescore", str(leland), "--scorer", "lexical", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["changed"] == []


def test_rescore_with_another_verifier_lists_changed_claims(leland: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = resolve_scorer(NO_SUPPORT).rescore(read_run(leland))
    drafted = [e for e in read_run(leland).events if e.type == "claim_drafted"]
    assert {c.claim_id for c in result.changed} == {e.claim.claim_id for e in drafted}
    assert result.after == {"irrelevant": len(drafted)}
    assert "valid: lexical" in _fails(["rescore", str(leland), "--scorer", "nonsense"], capsys)


def test_dumps_are_stable_for_replayed_events(leland: Path) -> None:
    """Replay compares serialised lines: a parsed event must re-serialise to its line."""
    lines = leland.read_text(encoding="utf-8").splitlines(keepends=True)
    run = read_run(leland)
    assert [dumps_line(e) for e in run.events] == lines[1:]


def test_v1_header_with_a_branch_migrates_to_the_current_version() -> None:
    from citeloop.trajectories.header import SCHEMA_VERSION, RunHeader

    line = (FIXTURES / "run_v1.jsonl").read_text(encoding="utf-8").splitlines()[0]
    data = json.loads(line)
    data["spec"]["branch"] = {"parent_run_id": "run-x", "branch_seq": 4, "forced_choice": "stop",
                              "continuation_policy": "heuristic"}
    header = RunHeader.model_validate(data)
    assert header.schema_version == SCHEMA_VERSION == 7
    assert header.spec.branch is not None and header.spec.branch.decision_type is None
    assert header.spec.corpus_cutoff is None


def test_a_divergence_names_a_code_change_as_its_likely_cause(leland: Path, tmp_path: Path) -> None:
    from citeloop.runtime.session import code_digest

    lines = leland.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    assert header["spec"]["packages"]["citeloop"].endswith(f"+src.{code_digest()}")  # the run names its code
    header["spec"]["packages"]["citeloop"] = "0.1.0+src.000000000000"  # recorded by other code
    run = read_run(leland)
    stop = next(e for e in run.events if e.type == "stop_decision" and e.policy.name == "heuristic")

    def change(event: dict) -> None:
        event["choice"] = "stop" if event["choice"] == "continue" else "continue"

    older = tmp_path / "older.jsonl"
    older.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    check = check_run(read_run(rewrite(older, tmp_path / "older-tampered.jsonl", stop.seq, change)))
    assert check.divergence is not None
    assert "likely cause: the code changed since the run (citeloop 0.1.0+src.000000000000 -> " in \
        check.divergence.reason
    assert any("package versions differ" in w for w in check.warnings)
    same = check_run(read_run(rewrite(leland, tmp_path / "tampered.jsonl", stop.seq, change)))
    assert same.divergence is not None and "likely cause" not in same.divergence.reason  # same code: no blame
