"""Fuzzing the run-file reader: truncations and byte flips of a real run, plain and zstd.

Each test works out from the bytes it damaged which events must survive, and asserts that
the reader returns exactly those (a cut) or at least those (a flip), never refusing a file
whose header line is intact: damage costs the events from the damaged line on, not the file.

- A cut plain file gives back precisely the events whose lines are complete before the cut,
  and is `torn` exactly when the cut falls inside a line.
- A cut zstd file (every line is its own checksummed frame) gives back every event whose
  frame is whole, plus at most the event of the cut frame when its text came out whole.
- A flipped byte in a zstd file is caught by its frame's checksum: every event whose frame
  lies before the damaged one comes back, and nothing that differs from the original.
- A plain file has no checksums: a flip that leaves its line a valid event (a letter in a
  title) cannot be seen, so there the promise is that every event before the first damaged
  line comes back, only an event whose line holds a flipped byte may differ, and the reader
  never returns more events than the original had.
"""

from __future__ import annotations

import bisect
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import (
    FileSink,
    MemorySink,
    RunFile,
    RunFileError,
    decompress_run_bytes,
    parse_run_bytes,
    read_run,
)

QUESTION = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])


class Original:
    def __init__(self, kit: ResearchKit, folder: Path) -> None:
        sink = MemorySink()
        run_research(QUESTION, kit, sink=sink, out_dir=None)
        assert sink.header is not None
        self.header, self.events = sink.header, sink.events
        self.paths = {}
        for suffix in (".jsonl", ".jsonl.zst"):
            path = folder / f"run{suffix}"
            out = FileSink(path)
            out.write_header(sink.header)
            for e in sink.events:
                out.write(e)
            out.close()
            self.paths[suffix] = path
        self.plain = self.paths[".jsonl"].read_bytes()
        self.zst = self.paths[".jsonl.zst"].read_bytes()
        # Byte offset just past each line's newline: line 0 is the header, line i + 1 is event i.
        self.line_ends = [i + 1 for i, b in enumerate(self.plain) if b == 0x0A]
        self.line_starts = [0] + self.line_ends[:-1]
        self.frame_ends = _frame_ends(self.zst)
        assert len(self.line_ends) == len(self.events) + 1
        # Frame i holds line i; the writer may end the stream with an empty frame.
        assert len(self.frame_ends) >= len(self.line_ends)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset) - 1

    def whole_lines(self, length: int) -> int:
        """Lines (header included) complete with their newline in the first `length` bytes of the plain file."""
        return bisect.bisect_right(self.line_ends, length)

    def frame_of(self, offset: int) -> int:
        return bisect.bisect_right(self.frame_ends, offset)

    def whole_frames(self, length: int) -> int:
        """Line frames (header included) complete in the first `length` bytes of the zstd file."""
        return min(bisect.bisect_right(self.frame_ends, length), len(self.line_ends))


def _frame_ends(data: bytes) -> list[int]:
    """Byte offset just past each zstd frame of `data`, found by decoding one frame at a time."""
    import zstandard

    ends: list[int] = []
    rest = data
    while rest:
        frame = zstandard.ZstdDecompressor().decompressobj()
        frame.decompress(rest)
        assert frame.eof
        ends.append(len(data) - len(frame.unused_data))
        rest = frame.unused_data
    return ends


@pytest.fixture(scope="module")
def original(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> Original:
    return Original(kit, tmp_path_factory.mktemp("fuzz"))


def _read(data: bytes, compressed: bool) -> RunFile | None:
    """What read_run does with these bytes; None when it refuses them with RunFileError."""
    text, stream_problem = decompress_run_bytes(data, compressed=compressed)
    try:
        return parse_run_bytes(text, Path("fuzzed"), stream_problem=stream_problem)
    except RunFileError:
        return None


def _flip(data: bytes, flips: list[tuple[int, int]]) -> tuple[bytes, set[int]]:
    out = bytearray(data)
    positions = set()
    for where, mask in flips:
        pos = where % len(out)
        out[pos] ^= mask
        positions.add(pos)
    return bytes(out), positions


def _assert_prefix(run: RunFile | None, original: Original) -> None:
    if run is None:
        return
    assert run.header == original.header
    assert len(run.events) <= len(original.events)
    assert run.events == original.events[: len(run.events)]


def _assert_keeps(run: RunFile | None, original: Original, intact_lines: int) -> None:
    """The first `intact_lines` lines (header included) are undamaged: their events come back."""
    if intact_lines >= 1:
        assert run is not None, "the header line is intact, yet the reader refused the file"
        assert run.header == original.header
        assert len(run.events) >= intact_lines - 1, (
            f"{intact_lines - 1} events precede the damage, the reader kept {len(run.events)} ({run.problem})")


def test_the_original_reads_back_whole(original: Original) -> None:
    for path in original.paths.values():
        run = read_run(path)
        assert (run.torn, run.header, run.events) == (False, original.header, original.events)


def test_a_file_cut_inside_an_event_keeps_the_events_before_it(original: Original) -> None:
    """By hand: a cut in the middle of event 10's line leaves events 0-9, and says why."""
    cut = (original.line_starts[11] + original.line_ends[11]) // 2
    run = _read(original.plain[:cut], compressed=False)
    assert run is not None and run.torn and run.lines_unread == 0
    assert [e.seq for e in run.events] == list(range(10))
    assert run.problem == "line 12 is incomplete (no newline)"
    assert run.good_bytes == original.line_ends[10]


@FUZZ
@given(cut=st.integers(min_value=0))
def test_a_cut_plain_file_gives_exactly_its_whole_lines(original: Original, cut: int) -> None:
    data = original.plain[: cut % (len(original.plain) + 1)]
    run = _read(data, compressed=False)
    whole = original.whole_lines(len(data))
    if whole == 0:  # the header line itself is cut (a header without its newline still reads)
        assert run is None or run.events == []
        return
    assert run is not None
    assert run.header == original.header
    assert run.events == original.events[: whole - 1]
    assert run.torn == (len(data) != original.line_ends[whole - 1])
    assert run.lines_unread == 0 and run.good_bytes == original.line_ends[whole - 1]


@FUZZ
@given(cut=st.integers(min_value=0))
def test_a_cut_zst_file_gives_its_whole_frames(original: Original, cut: int) -> None:
    data = original.zst[: cut % (len(original.zst) + 1)]
    run = _read(data, compressed=True)
    _assert_prefix(run, original)
    whole = original.whole_frames(len(data))
    _assert_keeps(run, original, whole)
    if run is not None:
        # A cut frame may have given out its whole line before its checksum was cut: one more.
        assert len(run.events) <= whole
    if len(data) == len(original.zst):
        assert run is not None and not run.torn and run.events == original.events


@FUZZ
@given(where=st.integers(min_value=0), mask=st.integers(min_value=1, max_value=255),
       cut=st.none() | st.integers(min_value=0))
def test_a_flipped_byte_in_a_zst_file_is_caught(original: Original, where: int, mask: int, cut: int | None) -> None:
    data, positions = _flip(original.zst, [(where, mask)])
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    run = _read(data, compressed=True)
    _assert_prefix(run, original)
    _assert_keeps(run, original, min(original.frame_of(min(positions)), original.whole_frames(len(data))))


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=1, max_value=255)),
                      min_size=1, max_size=3),
       cut=st.none() | st.integers(min_value=0))
def test_flipped_bytes_in_a_plain_file_change_only_their_own_lines(
        original: Original, flips: list[tuple[int, int]], cut: int | None) -> None:
    data, positions = _flip(original.plain, flips)
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    run = _read(data, compressed=False)
    damaged = {original.line_of(p) for p in positions}
    _assert_keeps(run, original, min(min(damaged), original.whole_lines(len(data))))
    if run is None:
        return
    if 0 not in damaged:
        assert run.header == original.header
    assert len(run.events) <= len(original.events)
    for i, event in enumerate(run.events):
        assert event.seq == i
        if i + 1 not in damaged:
            assert event == original.events[i], f"event {i} changed though its line was not touched"
