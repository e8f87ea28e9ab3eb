"""Run files: append-only JSON Lines (optionally zstd), their sinks and a torn-tolerant reader.

Line 1 is the `RunHeader`; every later line is one event. A sink receives the header and
events as the runtime emits them: `FileSink` appends and flushes each line (so a crash
loses at most the line being written), `MemorySink` keeps them, `NullSink` drops them.
`read_run` loads a file up to its last complete, valid event and says where it stopped.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from pydantic import ValidationError

from citeloop.trajectories.errors import validation_message
from citeloop.trajectories.events import NONDETERMINISTIC_TYPES, BaseEvent, Event, TextBlob, parse_event
from citeloop.trajectories.header import RunHeader


class RunFileError(ValueError):
    """A run file cannot be read at all (missing, empty, bad header, newer schema)."""


def dumps_line(record: RunHeader | BaseEvent) -> str:
    """One record as one JSON line. pydantic writes fields in declaration order, so the
    bytes are stable; its Rust serializer keeps capture cheap (see eval/bench_runtime.py)."""
    return record.model_dump_json(by_alias=True) + "\n"


class EventSink(Protocol):
    def write_header(self, header: RunHeader) -> None: ...
    def write(self, event: BaseEvent) -> None: ...
    def close(self) -> None: ...


class NullSink:
    """Drops everything; the baseline for measuring capture overhead."""

    def write_header(self, header: RunHeader) -> None:
        pass

    def write(self, event: BaseEvent) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class MemorySink:
    header: RunHeader | None = None
    events: list[BaseEvent] = field(default_factory=list)

    def write_header(self, header: RunHeader) -> None:
        self.header = header

    def write(self, event: BaseEvent) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass


class FileSink:
    """Appends one JSON line per record; `.zst` paths are written as a zstd stream.

    `append=True` continues an existing (possibly torn) file: used by resume, after the
    torn tail has been truncated by `truncate_torn_tail`.
    """

    def __init__(self, path: Path, append: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._compressed = self.path.suffix == ".zst"
        self._raw: IO[bytes] = open(self.path, "ab" if append else "wb")
        self._out: IO[bytes]
        if self._compressed:
            import zstandard

            # Checksummed frames: a damaged byte is caught on read, not returned as text.
            compressor = zstandard.ZstdCompressor(write_checksum=True)
            self._out = compressor.stream_writer(self._raw, closefd=False)
        else:
            self._out = self._raw

    def _line(self, record: RunHeader | BaseEvent) -> None:
        self._out.write(dumps_line(record).encode("utf-8"))
        if self._compressed:
            import zstandard

            self._out.flush(zstandard.FLUSH_FRAME)
        self._raw.flush()

    def write_header(self, header: RunHeader) -> None:
        self._line(header)

    def write(self, event: BaseEvent) -> None:
        self._line(event)

    def close(self) -> None:
        if self._compressed:
            self._out.close()
        self._raw.close()


@dataclass
class RunFile:
    """A loaded run. `torn` says the file ended mid-way; `problem` says why it stopped."""

    path: Path | None
    header: RunHeader
    events: list[Event]
    torn: bool = False
    problem: str | None = None
    good_bytes: int = 0
    """Length of the valid prefix of the (decompressed) file."""
    lines_unread: int = 0
    """Non-blank lines after the damaged one (0 for a tail cut off by a crash): events the file lost."""

    @property
    def run_id(self) -> str:
        return self.header.run_id

    @property
    def finished(self) -> bool:
        return any(e.type == "run_finished" for e in self.events)

    def blobs(self) -> dict[str, str]:
        return {e.digest: e.text for e in self.events if isinstance(e, TextBlob)}

    def of_type(self, type_name: str) -> list[Event]:
        return [e for e in self.events if e.type == type_name]


def _read_bytes(path: Path) -> tuple[bytes, str | None]:
    """The file's (decompressed) bytes, and why a compressed stream stopped early, if it did."""
    return decompress_run_bytes(path.read_bytes(), compressed=path.suffix == ".zst")


def decompress_run_bytes(data: bytes, compressed: bool) -> tuple[bytes, str | None]:
    """Run-file bytes as text bytes, and why a compressed stream stopped early, if it did."""
    if not compressed:
        return data, None
    import zstandard

    # Decompress frame by frame: a torn last frame must not lose the good ones, and must
    # not pass silently either (a stream reader just reports EOF on a cut frame). A frame
    # that fails (e.g. its checksum) may already have emitted some of its damaged bytes:
    # they are dropped, so only frames that decoded cleanly (or were merely cut) count.
    dctx = zstandard.ZstdDecompressor()
    out = bytearray()
    frame = dctx.decompressobj()
    in_frame = False
    frame_start = 0
    for start in range(0, len(data), 1 << 16):
        chunk = data[start : start + (1 << 16)]
        while chunk:
            try:
                out += frame.decompress(chunk)
            except zstandard.ZstdError as exc:
                del out[frame_start:]
                return bytes(out), f"compressed stream is damaged ({exc})"
            in_frame = True
            if not frame.eof:
                break
            chunk = frame.unused_data
            frame, in_frame, frame_start = dctx.decompressobj(), False, len(out)
    return bytes(out), ("compressed stream ends inside a frame" if in_frame else None)


def read_run(path: str | Path) -> RunFile:
    """Load a run file up to its last complete, valid event."""
    path = Path(path)
    if not path.exists():
        raise RunFileError(f"{path}: no such run file")
    data, stream_problem = _read_bytes(path)
    return parse_run_bytes(data, path, stream_problem=stream_problem)


def parse_run_bytes(data: bytes, path: Path | None = None, stream_problem: str | None = None) -> RunFile:
    """Parse run-file bytes; `stream_problem` says the (decompressed) bytes stop early."""
    where = str(path) if path else "<run>"
    if not data.strip() and stream_problem:
        raise RunFileError(f"{where}: {stream_problem} before line 1 could be read")
    if not data.strip():
        raise RunFileError(f"{where}: file is empty; a run file starts with a run_header line")
    lines = data.split(b"\n")
    try:
        header_obj = json.loads(lines[0])
    except ValueError as exc:  # JSONDecodeError, or UnicodeDecodeError for bytes that are not UTF-8
        raise RunFileError(f"{where}: line 1 is not valid JSON ({_json_msg(exc)}); is this a citeloop run file?") from exc
    if not isinstance(header_obj, dict) or header_obj.get("type") != "run_header":
        raise RunFileError(f"{where}: line 1 is not a run_header; is this a citeloop run file?")
    try:
        header = RunHeader.model_validate(header_obj)
    except ValidationError as exc:  # NewerSchemaError arrives wrapped in here too
        raise RunFileError(f"{where}: bad run header: {_first_error(exc)}") from exc

    written = header_obj.get("schema_version")  # as written (None: none): events are migrated from it
    events: list[Event] = []
    offset = len(lines[0]) + 1
    problem = None
    for number, raw in enumerate(lines[1:], start=2):
        is_last = number == len(lines)
        if not raw.strip():
            if is_last:
                break
            problem = f"line {number} is blank"
            break
        if is_last:
            # No trailing newline: the writer died mid-line.
            problem = f"line {number} is incomplete (no newline)"
            break
        try:
            event = parse_event(json.loads(raw), written)
        except ValidationError as exc:
            problem = f"line {number} is not a valid event: {_first_error(exc)}"
            break
        except ValueError as exc:  # JSONDecodeError, or UnicodeDecodeError for bytes that are not UTF-8
            problem = f"line {number} is not valid JSON ({_json_msg(exc)})"
            break
        expected = len(events)
        if event.seq != expected:
            problem = f"line {number} has seq {event.seq}, expected {expected}"
            break
        if event.run_id != header.run_id:
            problem = f"line {number} has run_id {event.run_id!r}, expected {header.run_id!r}"
            break
        events.append(event)
        offset += len(raw) + 1
    if problem is None and stream_problem:
        problem = f"line {len(events) + 2}: {stream_problem}"
    unread = sum(1 for raw in lines[len(events) + 2:] if raw.strip()) if problem is not None else 0
    return RunFile(path=path, header=header, events=events, torn=problem is not None, problem=problem,
                   good_bytes=offset, lines_unread=unread)


def truncate_torn_tail(path: Path, run: RunFile) -> None:
    """Cut a plain-text run file back to its last good event so appending can resume."""
    if path.suffix == ".zst":
        raise RunFileError(f"{path}: resuming a compressed run file is not supported; decompress it first")
    with open(path, "r+b") as handle:
        size = handle.seek(0, io.SEEK_END)
        if run.good_bytes > size:
            # Only a header whose newline never reached the disk: complete it, or the
            # next appended event would be glued onto line 1.
            handle.write(b"\n")
        else:
            handle.truncate(run.good_bytes)


def deterministic_lines(path: str | Path) -> list[str]:
    """The run's lines without the wall-clock metadata block: what determinism compares."""
    run = read_run(path)
    lines = [dumps_line(run.header)]
    lines += [dumps_line(e) for e in run.events if e.type not in NONDETERMINISTIC_TYPES]
    return lines


def _json_msg(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 at byte {exc.start}"
    return str(exc)


def _first_error(exc: ValidationError) -> str:
    return validation_message(exc, first_only=True)
