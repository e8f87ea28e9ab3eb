"""Fuzzing the run-file reader: truncations and byte flips of a real run, plain and zstd.

Whatever the damage, `parse_run_bytes` / `read_run` either refuse with `RunFileError` or
return events of the original run, in order. A cut file always gives a prefix of the
original. In a zstd file every line is its own checksummed frame, so a flipped byte is
caught and a prefix comes back there too. A plain file has no checksums: a flip that
leaves its line a valid event (a letter in a title) cannot be seen, so there the promise
is that only an event whose line holds a flipped byte may differ, every other returned
event equals the original at its seq, and the reader never returns more events than
the original had.
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
        # Byte offset where each line starts: line 0 is the header, line i + 1 is event i.
        self.line_starts = [0] + [i + 1 for i, b in enumerate(self.plain) if b == 0x0A][:-1]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset) - 1


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


def test_the_original_reads_back_whole(original: Original) -> None:
    for path in original.paths.values():
        run = read_run(path)
        assert (run.torn, run.header, run.events) == (False, original.header, original.events)


@FUZZ
@given(cut=st.integers(min_value=0))
def test_a_cut_plain_file_gives_a_prefix(original: Original, cut: int) -> None:
    data = original.plain[: cut % (len(original.plain) + 1)]
    run = _read(data, compressed=False)
    _assert_prefix(run, original)
    if run is not None and len(data) < len(original.plain):
        assert run.torn or len(run.events) < len(original.events) or not data.endswith(b"\n")


@FUZZ
@given(cut=st.integers(min_value=0))
def test_a_cut_zst_file_gives_a_prefix(original: Original, cut: int) -> None:
    run = _read(original.zst[: cut % (len(original.zst) + 1)], compressed=True)
    _assert_prefix(run, original)


@FUZZ
@given(where=st.integers(min_value=0), mask=st.integers(min_value=1, max_value=255),
       cut=st.none() | st.integers(min_value=0))
def test_a_flipped_byte_in_a_zst_file_is_caught(original: Original, where: int, mask: int, cut: int | None) -> None:
    data, _ = _flip(original.zst, [(where, mask)])
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    _assert_prefix(_read(data, compressed=True), original)


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
    if run is None:
        return
    damaged = {original.line_of(p) for p in positions}
    if 0 not in damaged:
        assert run.header == original.header
    assert len(run.events) <= len(original.events)
    for i, event in enumerate(run.events):
        assert event.seq == i
        if i + 1 not in damaged:
            assert event == original.events[i], f"event {i} changed though its line was not touched"
