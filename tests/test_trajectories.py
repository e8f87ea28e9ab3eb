"""The run-file format: event round-trips, sinks, torn files, headers, schema drift, `show`."""

from __future__ import annotations

import json
import re
import shutil
import typing
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import ValidationError

from citeloop.eval.cli import main
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.events import (
    BaseEvent,
    CardCreated,
    CardRejected,
    CitationRemoved,
    ClaimDrafted,
    ClaimDropped,
    ClaimRewritten,
    ConflictMarked,
    DeadEnd,
    Event,
    FollowCandidate,
    FollowDecision,
    FollowState,
    ModelCall,
    ModelMessage,
    PartFallback,
    PlanCreated,
    PolicyRef,
    StopDecision,
    StopSignals,
    SubQuestionAdded,
    RENAMED_TAGS,
    TokenLogprob,
    event_to_dict,
    parse_event,
)
from citeloop.trajectories.header import SCHEMA_CHANGES, SCHEMA_VERSION, RunHeader, migrate_header
from citeloop.trajectories.models import RejectedText
from citeloop.trajectories.runfile import (
    FileSink,
    MemorySink,
    RunFileError,
    deterministic_lines,
    dumps_line,
    read_run,
    truncate_torn_tail,
)
from citeloop.trajectories.schema_export import committed_schema_text, schema_text

FIXTURES = Path(__file__).parent / "fixtures"
RUN_V1 = FIXTURES / "run_v1.jsonl"
RUN_V3 = FIXTURES / "run_v3.jsonl"
RUN_CORRUPT = FIXTURES / "run_corrupt.jsonl"
RUN_OLD_HEADER = FIXTURES / "run_old_header.jsonl"
COMMITTED_SCHEMA = Path(__file__).parent.parent / "trajectories" / "schema" / "trajectory.schema.json"
QUESTION = "Are Christopher Nolan and Sathish Kalathil both film directors?"
EVENT_CLASSES: tuple[type[BaseEvent], ...] = typing.get_args(Event)


def _type_name(cls: type[BaseEvent]) -> str:
    return cls.model_fields["type"].default


@dataclass
class Captured:
    header: RunHeader
    events: list[BaseEvent]


class TeeSink:
    """Writes to several sinks at once: the file and an in-memory copy to compare it with."""

    def __init__(self, *sinks) -> None:
        self.sinks = sinks

    def write_header(self, header: RunHeader) -> None:
        for sink in self.sinks:
            sink.write_header(header)

    def write(self, event: BaseEvent) -> None:
        for sink in self.sinks:
            sink.write(event)

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()


@pytest.fixture(scope="module")
def captured(kit: ResearchKit) -> Captured:
    memory = MemorySink()
    run_research(QUESTION, kit, sink=memory, out_dir=None)
    assert memory.header is not None
    return Captured(memory.header, memory.events)


@pytest.fixture(scope="module")
def run_path(captured: Captured, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plain run file of the captured run; tests copy it before cutting it."""
    path = tmp_path_factory.mktemp("run") / "run.jsonl"
    _write(path, captured.header, captured.events)
    return path


def _write(path: Path, header: RunHeader, events: list[BaseEvent]) -> None:
    sink = FileSink(path)
    sink.write_header(header)
    for event in events:
        sink.write(event)
    sink.close()


def _copy(src: Path, tmp_path: Path, name: str = "run.jsonl") -> Path:
    dst = tmp_path / name
    shutil.copyfile(src, dst)
    return dst


# --------------------------------------------------------------------------- 1. event round-trips


def _current_tag(line: dict) -> str:
    """The tag an old event line reads as: renamed in v4; a hard-limit stop is a `hard_limit` event since v5."""
    if line.get("type") == "stop_decision" and line.get("policy", {}).get("name") == "hard_limit":
        return "hard_limit"
    return RENAMED_TAGS.get(line["type"], line["type"])


def _first(events: list[BaseEvent], cls: type[BaseEvent]) -> BaseEvent:
    return next(e for e in events if isinstance(e, cls))


def _hand_made_events(captured: Captured) -> list[BaseEvent]:
    """Kinds a plain run does not produce, built from the run's own plan, cards and claims."""
    run_id = captured.header.run_id
    plan = _first(captured.events, PlanCreated).plan  # type: ignore[attr-defined]
    cards = [e.card for e in captured.events if isinstance(e, CardCreated)]
    claim = _first(captured.events, ClaimDrafted).claim  # type: ignore[attr-defined]
    base_sq = plan.sub_questions[0]
    expansion = base_sq.model_copy(
        update={"id": "sq9", "question": f"Who else worked with {plan.entities[0]}?", "expansion": True,
                "search_query": f"{plan.entities[0]} collaborators", "depends_on": [base_sq.id], "need": 2}
    )
    return [
        SubQuestionAdded(run_id=run_id, seq=100, parent_seq=3, subq="sq9", sub_question=expansion,
                         reason="gap follow-up: collaborators named in evidence"),
        ConflictMarked(run_id=run_id, seq=101, parent_seq=12, subq=cards[0].subq, card_id=cards[0].card_id,
                       other_card_id=cards[1].card_id, reason="numbers disagree: 1970 vs 1971"),
        ClaimRewritten(run_id=run_id, seq=102, parent_seq=40, subq=claim.subq, claim_id=claim.claim_id,
                       old_text=claim.text, new_text="Christopher Nolan is a film director.",
                       reason="partial support: dropped unsupported terms 'producer', 'screenwriter'"),
        ClaimDropped(run_id=run_id, seq=103, parent_seq=41, subq=claim.subq, claim_id=claim.claim_id,
                     verdict="conflict", reason="counter-evidence from an independent source"),
        DeadEnd(run_id=run_id, seq=104, subq="sq2", queries_tried=["Sathish Kalathil film directors",
                "Sathish Kalathil"], angles_tried=["base", "entity"],
                reason="2 angles tried, 3 relevant hits, no evidence kept"),
        CardRejected(run_id=run_id, seq=105, parent_seq=7, subq=cards[0].subq, rejected=RejectedText(
            doc_id=cards[0].doc_id, sentence_ids=cards[0].sentence_ids, reason="injection",
            detail="sentence addresses the reader: 'ignore previous instructions'")),
        ModelCall(run_id=run_id, seq=106, parent_seq=40, subq=claim.subq, prompt_id="verdict_judge",
                  prompt_version=1, model="SmolLM2-135M-Instruct",
                  messages=[ModelMessage(role="system", content="Answer with one word."),
                            ModelMessage(role="user", content=f"Claim: {claim.text}")],
                  sampling={"temperature": 0.0, "seed": 0, "max_tokens": 8, "logprobs": True},
                  constraint={"kind": "choice", "value": ["entail", "conflict", "undecidable"]},
                  request_digest="0" * 64, status="ok", completion="entail", finish_reason="stop",
                  attempts=["rate_limited", "ok"], usage={"prompt_tokens": 40, "completion_tokens": 2},
                  logprobs=[TokenLogprob(token="ent", logprob=-0.05, token_id=1234, top={"con": -3.2}),
                            TokenLogprob(token="ail", logprob=-0.01)]),
        PartFallback(run_id=run_id, seq=107, parent_seq=106, subq=claim.subq, part="writer",
                     fallback="rule writer", reason="unusable reply: reply is not JSON", model_call_seqs=[106]),
        CitationRemoved(run_id=run_id, seq=108, claim_id=claim.claim_id, card_id=cards[0].card_id,
                        reason="the quote does not appear in the text of the source", claim_removed=True),
        StopDecision(run_id=run_id, seq=109, state=StopSignals(
            round=1, min_rounds=2, searches_used=3, searches_max=10, reads_used=6, reads_max=12, recent_gains=[1],
            recent_new_cards=[4], uncovered_terms=["born"], initial_deficit=2, coverage=0.5, coverage_target=0.85,
            open_subqs=["sq2"], min_rounds_met=False, gain_flat=False, coverage_met=False, budget_exhausted=False,
            answer_ready=True), choice="stop", policy=PolicyRef(name="heuristic", version="2"),
            reason="the answer's hops have their evidence"),
        FollowDecision(run_id=run_id, seq=110, subq="sq2", dep="sq1", state=FollowState(
            round=1, hop_question="Which film was shot in Leland?", next_query="{sq1} director", finds="film"),
            candidates=[FollowCandidate(names=["Maximum Overdrive", "Leland"], score=1.5),
                        FollowCandidate(names=["Maximum Overdrive"], quote="Maximum Overdrive was shot in Leland.",
                                        doc_id=cards[0].doc_id, title="Leland", score=1.5)],
            choice=1, policy=PolicyRef(name="explore", version="1"), reason="explore: follow Maximum Overdrive"),
    ]


@pytest.fixture(scope="module")
def event_cases(captured: Captured) -> dict[str, BaseEvent]:
    cases: dict[str, BaseEvent] = {}
    for event in captured.events + _hand_made_events(captured):
        cases.setdefault(event.type, event)
    return cases


def test_round_trip_cases_cover_the_whole_event_union(event_cases: dict[str, BaseEvent]) -> None:
    union = {_type_name(cls) for cls in EVENT_CLASSES}
    assert len(union) == len(EVENT_CLASSES), "two event classes share a `type` tag"
    missing = union - event_cases.keys()
    assert not missing, f"no round-trip case for event types {sorted(missing)}: add one to _hand_made_events"
    assert event_cases.keys() == union


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=_type_name)
def test_event_round_trip(cls: type[BaseEvent], event_cases: dict[str, BaseEvent]) -> None:
    event = event_cases.get(_type_name(cls))
    assert event is not None, f"no round-trip case for {cls.__name__}"
    assert type(event) is cls
    line = dumps_line(event)
    back = parse_event(json.loads(line))
    assert type(back) is cls
    assert back == event
    assert dumps_line(back) == line  # byte-stable on re-serialisation


def test_verdict_pass_is_written_under_its_alias(event_cases: dict[str, BaseEvent]) -> None:
    data = event_to_dict(event_cases["verdict_reached"])
    assert "pass" in data and "pass_" not in data


def test_unknown_event_type_is_rejected() -> None:
    with pytest.raises(ValueError):
        parse_event({"type": "telepathy", "run_id": "r", "seq": 0})


def test_run_file_lines_are_byte_stable(run_path: Path) -> None:
    lines = run_path.read_text(encoding="utf-8").splitlines(keepends=True)
    for line in lines[1:]:
        assert dumps_line(parse_event(json.loads(line))) == line


# --------------------------------------------------------------------------- 2. FileSink + read_run


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.zst"])
def test_file_sink_writes_what_read_run_loads(suffix: str, kit: ResearchKit, tmp_path: Path) -> None:
    memory = MemorySink()
    path = tmp_path / f"run{suffix}"
    sink = TeeSink(FileSink(path), memory)
    run_research(QUESTION, kit, sink=sink, out_dir=None)
    sink.close()
    if suffix.endswith(".zst"):
        assert path.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"  # zstd magic: really compressed
    run = read_run(path)
    assert (run.torn, run.problem) == (False, None)
    assert run.header == memory.header
    assert run.events == memory.events
    assert run.finished
    assert [e.seq for e in run.events] == list(range(len(run.events)))


def test_run_research_writes_its_own_file(kit: ResearchKit, tmp_path: Path) -> None:
    result, path = run_research(QUESTION, kit, out_dir=tmp_path, compress=True)
    assert path is not None and path.name == f"{result.run_id}.jsonl.zst"
    run = read_run(path)
    assert not run.torn and run.run_id == result.run_id and run.finished


# --------------------------------------------------------------------------- 3. torn files


def _resume(path: Path, events: list[BaseEvent]) -> None:
    """What resume does: cut the torn tail, then append the events that were lost."""
    run = read_run(path)
    truncate_torn_tail(path, run)
    sink = FileSink(path, append=True)
    for event in events[len(run.events):]:
        sink.write(event)
    sink.close()


def test_cut_mid_line_loads_the_complete_prefix_and_resumes(run_path: Path, captured: Captured,
                                                            tmp_path: Path) -> None:
    path = _copy(run_path, tmp_path)
    original = path.read_bytes()
    lines = original.split(b"\n")
    cut = sum(len(line) + 1 for line in lines[:9]) + len(lines[9]) // 2  # half of line 10
    path.write_bytes(original[:cut])

    run = read_run(path)
    assert run.events == captured.events[:8]  # lines 2..9
    assert run.torn and run.problem is not None and "line 10" in run.problem and "incomplete" in run.problem
    assert not run.finished

    _resume(path, captured.events)
    assert path.read_bytes() == original
    again = read_run(path)
    assert (again.torn, again.problem) == (False, None)
    assert again.events == captured.events


def test_cut_after_a_complete_line_is_a_clean_unfinished_prefix(run_path: Path, captured: Captured,
                                                                tmp_path: Path) -> None:
    # Byte-wise nothing is wrong here, so the reader does not call it torn; `finished`
    # is what tells an interrupted run from a complete one.
    path = _copy(run_path, tmp_path)
    original = path.read_bytes()
    lines = original.split(b"\n")
    path.write_bytes(original[: sum(len(line) + 1 for line in lines[:12])])

    run = read_run(path)
    assert run.events == captured.events[:11]
    assert (run.torn, run.problem, run.finished) == (False, None, False)
    assert run.good_bytes == path.stat().st_size

    _resume(path, captured.events)
    assert path.read_bytes() == original


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        (b'{"run_id": "x", "seq": 9, "typ', "not valid JSON"),
        (b'{"type": "telepathy", "run_id": "x", "seq": 9}', "not a valid event"),
        (b"", "blank"),
        (None, "has seq 8, expected 9"),  # None: line 10 written twice
    ],
    ids=["garbage", "unknown-type", "blank", "repeated-line"],
)
def test_bad_line_in_the_middle_stops_there_and_resumes(bad_line: bytes | None, message: str, run_path: Path,
                                                        captured: Captured, tmp_path: Path) -> None:
    path = _copy(run_path, tmp_path)
    original = path.read_bytes()
    lines = original.split(b"\n")
    inserted = lines[9] if bad_line is None else bad_line
    path.write_bytes(b"\n".join(lines[:10] + [inserted] + lines[10:]))  # bad line is line 11

    run = read_run(path)
    assert run.events == captured.events[:9]
    assert run.torn and run.problem is not None
    assert run.problem.startswith("line 11 ") and message in run.problem

    _resume(path, captured.events)
    assert path.read_bytes() == original
    assert read_run(path).events == captured.events


def test_header_without_its_newline_resumes_on_line_2(captured: Captured, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(dumps_line(captured.header).rstrip("\n").encode("utf-8"))
    run = read_run(path)
    assert run.events == [] and run.header == captured.header

    _resume(path, captured.events)
    again = read_run(path)
    assert not again.torn and again.events == captured.events


def _frame_ends(data: bytes) -> set[int]:
    """Byte offsets where the zstd frames of `data` end."""
    import zstandard

    ends, pos = set(), 0
    while pos < len(data):
        reader = zstandard.ZstdDecompressor().decompressobj()
        reader.decompress(data[pos:])
        pos = len(data) - len(reader.unused_data)
        ends.add(pos)
    return ends


def test_zst_cut_mid_stream_loads_its_complete_frames(captured: Captured, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl.zst"
    _write(path, captured.header, captured.events)
    data = path.read_bytes()
    cut = len(data) // 2
    while cut in _frame_ends(data):  # a cut on a frame boundary leaves whole frames only
        cut -= 1
    path.write_bytes(data[:cut])

    run = read_run(path)
    n = len(run.events)
    assert 0 < n < len(captured.events)
    assert run.events == captured.events[:n]
    assert run.torn and run.problem is not None and run.problem.startswith(f"line {n + 2}")
    with pytest.raises(RunFileError, match="decompress it first"):
        truncate_torn_tail(path, run)


def test_zst_with_only_a_cut_header_frame_is_refused(captured: Captured, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl.zst"
    _write(path, captured.header, captured.events)
    path.write_bytes(path.read_bytes()[:20])
    with pytest.raises(RunFileError, match="before line 1"):
        read_run(path)


# --------------------------------------------------------------------------- 4. headers and fixtures


def _header_line(captured: Captured, **changes) -> str:
    header = captured.header.model_dump(mode="json")
    header.update(changes)
    header = {k: v for k, v in header.items() if v is not ...}
    return json.dumps(header) + "\n"


def test_newer_schema_is_refused_with_upgrade_hint(captured: Captured, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(_header_line(captured, schema_version=99), encoding="utf-8")
    with pytest.raises(RunFileError) as info:
        read_run(path)
    message = str(info.value)
    assert "upgrade" in message and "99" in message
    assert "Value error" not in message  # pydantic's wrapper prefix is stripped


def test_missing_schema_version_is_read_as_current(captured: Captured, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(_header_line(captured, schema_version=...), encoding="utf-8")
    assert "schema_version" not in path.read_text(encoding="utf-8")
    run = read_run(path)
    assert run.header.schema_version == SCHEMA_VERSION
    assert run.header.spec == captured.header.spec


@pytest.mark.parametrize(
    ("version", "message"),
    [(0, "predates"), ("1", "must be an integer")],
)
def test_unreadable_schema_versions_are_refused(version, message: str, captured: Captured, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(_header_line(captured, schema_version=version), encoding="utf-8")
    with pytest.raises(RunFileError, match=message):
        read_run(path)


def test_migrate_header_brings_old_headers_to_current(captured: Captured) -> None:
    data = captured.header.model_dump(mode="json")
    assert migrate_header(data)["schema_version"] == SCHEMA_VERSION
    data.pop("schema_version")
    assert migrate_header(data)["schema_version"] == SCHEMA_VERSION
    assert "schema_version" not in data  # the caller's dict is not mutated
    with pytest.raises(ValueError, match=r"schema_version 0 predates citeloop's first format \(1\)"):
        migrate_header({**data, "schema_version": 0})
    assert sorted(SCHEMA_CHANGES) == list(range(1, SCHEMA_VERSION + 1)), "SCHEMA_CHANGES lacks a version"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such run file"),
        (b"", "file is empty"),
        (b"\n  \n", "file is empty"),
        (b"# a notebook, not a run\n", "line 1 is not valid JSON"),
        (b'{"type": "plan_created", "run_id": "x", "seq": 0}\n', "line 1 is not a run_header"),
        (b'[1, 2, 3]\n', "line 1 is not a run_header"),
        (b'{"type": "run_header", "run_id": "x"}\n', "bad run header: spec"),
    ],
    ids=["missing", "empty", "blank", "not-json", "event-first", "json-list", "header-without-spec"],
)
def test_files_that_are_not_runs_raise_specific_errors(content: bytes | None, message: str, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(RunFileError, match=message) as info:
        read_run(path)
    assert str(info.value).startswith(str(path))


def test_committed_v1_run_loads_whole() -> None:
    run = read_run(RUN_V1)
    assert (run.torn, run.problem) == (False, None)
    assert run.header.schema_version == SCHEMA_VERSION  # migrated from 1 on read
    assert run.header.spec.corpus_cutoff is None  # v1 did not record it
    assert run.header.spec.question == QUESTION
    assert run.finished and len(run.events) == 48
    assert run.events[-1].type == "run_meta"
    assert sum(1 for _ in RUN_V1.open(encoding="utf-8")) == len(run.events) + 1
    assert all(run.blobs()[e.text_digest] for e in run.of_type("document_read"))  # type: ignore[attr-defined]


def test_committed_v2_run_loads_with_no_answer_and_replays_naming_the_change() -> None:
    from citeloop.runtime.replay import check_run

    v2 = FIXTURES / "run_v2.jsonl"
    assert json.loads(v2.read_text(encoding="utf-8").splitlines()[0])["schema_version"] == 2
    run = read_run(v2)
    assert (run.torn, run.header.schema_version) == (False, SCHEMA_VERSION)
    report = next(e for e in run.events if e.type == "report_written").report  # type: ignore[attr-defined]
    assert report.answer is None, "v2 reports had no short answer"
    check = check_run(run)
    assert not check.ok and check.divergence is not None, "the code changed since: replay names where"


def test_committed_v3_run_loads_with_the_new_tags_and_replays_its_research() -> None:
    from citeloop.runtime.replay import check_run

    raw = [json.loads(line) for line in RUN_V3.read_text(encoding="utf-8").splitlines()]
    assert raw[0]["schema_version"] == 3
    run = read_run(RUN_V3)
    assert (run.torn, run.problem, run.header.schema_version) == (False, None, SCHEMA_VERSION)
    assert len(run.events) == len(raw) - 1
    assert [e.type for e in run.events] == [_current_tag(d) for d in raw[1:]]
    assert {d["type"] for d in raw} & set(RENAMED_TAGS), "the v3 file has old tags to migrate"
    assert not {e.type for e in run.events} & set(RENAMED_TAGS)
    check = check_run(run)
    # The research (plan, status changes, searches, reads, cards) replays through the renamed
    # tags; claims may differ when claim writing changed since the file was written. The plan
    # may differ only by what later planners add (each hop's `finds`, absent in v3).
    first_claim = next(e.seq for e in run.events if e.type == "claim_drafted")
    if not check.ok and check.divergence.seq == 0:
        from citeloop.runtime.planner import RulePlanner

        recorded = next(e for e in run.events if e.type == "plan_created").plan  # type: ignore[attr-defined]
        replanned = RulePlanner().plan(recorded.question)
        without = [sq.model_copy(update={"finds": ""}) for sq in replanned.sub_questions]
        assert replanned.model_copy(update={"sub_questions": without}) == recorded, check.divergence
        assert any(sq.finds for sq in replanned.sub_questions), "the plan differs by more than `finds`"
    else:
        assert check.ok or check.divergence.seq >= first_claim, check.divergence


@pytest.mark.parametrize("path", [RUN_V1, FIXTURES / "run_v2.jsonl", RUN_V3, RUN_OLD_HEADER],
                         ids=["v1", "v2", "v3", "no-version"])
def test_old_tags_are_read_as_the_new_ones(path: Path) -> None:
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    run = read_run(path)
    assert [e.type for e in run.events] == [_current_tag(d) for d in raw]


def test_old_tags_are_refused_in_a_current_file(tmp_path: Path) -> None:
    lines = RUN_V3.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["schema_version"] = SCHEMA_VERSION
    current = tmp_path / "current.jsonl"
    current.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    run = read_run(current)
    first_old = next(i for i, line in enumerate(lines[1:]) if json.loads(line)["type"] in RENAMED_TAGS)
    assert run.torn and len(run.events) == first_old and "type" in (run.problem or "")


def test_every_tag_is_its_class_name_in_snake_case() -> None:
    # The naming rule: the class name in snake_case, `SubQuestion` spelled `subq` (as the
    # `subq` field is).
    for cls in EVENT_CLASSES:
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__.replace("SubQuestion", "Subq")).lower()
        assert _type_name(cls) == name, cls.__name__
    assert set(RENAMED_TAGS.values()) <= {_type_name(cls) for cls in EVENT_CLASSES}
    assert not set(RENAMED_TAGS) & {_type_name(cls) for cls in EVENT_CLASSES}, "an old tag is a new one"


def test_messages_with_tool_calls_load_and_round_trip() -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"q": "Leland"}'}}
    messages = [
        {"role": "user", "content": "Who directed it?"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "content": "three hits", "tool_call_id": "call_1"},
    ]
    line = json.dumps({"run_id": "r", "seq": 0, "parent_seq": None, "subq": None, "type": "model_call",
                       "prompt_id": "p", "prompt_version": 1, "model": "fake:x", "messages": messages,
                       "sampling": {"temperature": 0.0, "top_p": 1.0, "seed": 0, "max_tokens": 8,
                                    "logprobs": False, "top_logprobs": None},
                       "constraint": None, "request_digest": "d", "status": "ok", "completion": "x",
                       "finish_reason": "stop", "error": None, "usage": None, "logprobs": None},
                      separators=(",", ":")) + "\n"
    event = parse_event(json.loads(line))
    assert isinstance(event, ModelCall)
    assert event.messages[1].tool_calls is not None and event.messages[1].tool_calls[0].function.name == "search"
    assert event.messages[2].role == "tool" and event.messages[2].tool_call_id == "call_1"
    assert dumps_line(event) == line  # messages without tool fields are written as before
    assert "tool_calls" not in ModelMessage(role="user", content="hi").model_dump()
    with pytest.raises(ValidationError):
        ModelMessage.model_validate({"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": {}}]})


def test_model_call_settings_are_typed(event_cases: dict[str, BaseEvent]) -> None:
    data = event_to_dict(event_cases["model_call"])
    kept = parse_event({**data, "sampling": {**data["sampling"], "min_p": 0.1}})
    assert kept.sampling["min_p"] == 0.1  # type: ignore[union-attr]  # keys other servers add are kept
    for bad in ({"sampling": {"temperature": "hot"}}, {"constraint": {"kind": "grammar", "value": "x"}},
                {"constraint": {"kind": "choice", "value": [1, 2]}}):
        with pytest.raises(ValidationError):
            parse_event({**data, **bad})
    assert "attempts" not in data and "attempts" not in ModelCall.model_fields
    assert parse_event({**data, "attempts": ["timeout", "ok"], "cached": False}) == event_cases["model_call"]


def test_a_file_from_a_newer_schema_is_refused_with_the_upgrade_message(tmp_path: Path) -> None:
    lines = (FIXTURES / "run_v2.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["schema_version"] = SCHEMA_VERSION + 1
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(RunFileError, match=f"schema_version {SCHEMA_VERSION + 1}.*upgrade citeloop"):
        read_run(newer)


def test_committed_corrupt_run_loads_its_good_prefix() -> None:
    run = read_run(RUN_CORRUPT)
    assert run.events == read_run(RUN_V1).events[:4]
    assert run.torn and run.problem is not None and run.problem.startswith("line 6 is not valid JSON")


def test_committed_old_header_run_loads_as_current() -> None:
    assert '"schema_version"' not in RUN_OLD_HEADER.read_text(encoding="utf-8").splitlines()[0]
    run = read_run(RUN_OLD_HEADER)
    assert run.header.schema_version == SCHEMA_VERSION
    assert run.header.run_id == read_run(RUN_V1).run_id
    assert (run.torn, len(run.events)) == (False, 4)


# --------------------------------------------------------------------------- 5. schema drift


def test_committed_schema_matches_the_models() -> None:
    assert schema_text() == COMMITTED_SCHEMA.read_text(encoding="utf-8"), (
        "the run-file models changed but the committed JSON Schema did not; run "
        "`citeloop schema --out trajectories/schema/trajectory.schema.json` (and bump "
        "SCHEMA_VERSION with a SCHEMA_CHANGES entry if old files no longer load)"
    )
    assert committed_schema_text() == COMMITTED_SCHEMA.read_text(encoding="utf-8")


def test_schema_command_prints_the_schema(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    schema = json.loads(out)
    assert {"header", "event"} <= schema.keys()
    assert schema["schema_version"] == SCHEMA_VERSION
    assert out == schema_text()

    target = tmp_path / "schema.json"
    assert main(["schema", "--out", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == schema_text()


# --------------------------------------------------------------------------- 6. determinism view


def test_deterministic_lines_drop_run_meta_and_nothing_else(run_path: Path) -> None:
    raw = run_path.read_text(encoding="utf-8").splitlines(keepends=True)
    expected = [line for line in raw if json.loads(line)["type"] != "run_meta"]
    assert len(expected) == len(raw) - 1
    assert deterministic_lines(run_path) == expected


def test_deterministic_lines_of_an_older_file_keep_every_other_line() -> None:
    # The committed file may predate fields added since (with defaults) and tags renamed since
    # (read with their new names), so compare which lines survive, not their bytes.
    raw = [json.loads(line) for line in RUN_V1.read_text(encoding="utf-8").splitlines()]
    kept = [json.loads(line) for line in deterministic_lines(RUN_V1)]
    renamed = [(_current_tag(d), d.get("seq")) for d in raw if d["type"] != "run_meta"]
    assert [(d["type"], d.get("seq")) for d in kept] == renamed
    assert len(kept) == len(raw) - 1


# --------------------------------------------------------------------------- 7. `citeloop show`


def test_show_json_counts_events(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(RUN_V1), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    run = read_run(RUN_V1)
    assert summary["events"] == len(run.events) == sum(summary["events_by_type"].values())
    assert summary["run_id"] == run.run_id
    assert (summary["torn"], summary["finished"]) == (False, True)


def test_show_reports_a_torn_file_without_failing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(RUN_CORRUPT), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["torn"], summary["events"], summary["finished"]) == (True, 4, False)
    assert "line 6" in summary["problem"]


@pytest.mark.parametrize("content", [b"hello, world\n", None], ids=["not-a-run", "missing"])
def test_show_refuses_a_non_run_file(content: bytes | None, capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    if content is not None:
        path.write_bytes(content)
    assert main(["show", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error:")
    assert str(path) in captured.err
    assert captured.out == ""
