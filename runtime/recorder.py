"""The recorder: turns what the engine does into numbered events on a sink.

It owns the run's event counter and the set of text blobs already written, so document
text is stored once per file and referenced by digest. Wall-clock latencies, how model
replies arrived (retries, cache hits) and check firing counts are kept aside and only leave
in the final `run_meta` event. `ResumeRecorder` re-executes a run
over the valid prefix of a torn file: it checks each re-generated event against the file
and appends only what comes after.
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any, TypeVar

from citeloop.trajectories.events import BaseEvent, RunMeta, TextBlob
from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.runfile import EventSink, dumps_line

CRASH_ENV = "CITELOOP_CRASH_AFTER_EVENTS"
"""Test hook: the process dies (exit 137, as after kill -9) once this many events are written."""

E = TypeVar("E", bound=BaseEvent)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Recorder:
    def __init__(self, header: RunHeader, sink: EventSink, start_seq: int = 0, known_blobs: set[str] | None = None):
        self.run_id = header.run_id
        self.sink = sink
        self.seq = start_seq
        self.blobs: set[str] = set(known_blobs or ())
        self.latency_ms: dict[str, float] = {}
        self.model_calls: dict[str, dict[str, Any]] = {}
        self.checks: dict[str, dict[str, int]] = {}
        self.events: list[BaseEvent] = []
        self.started_at = utc_now()
        crash_after = os.environ.get(CRASH_ENV)
        self._crash_after = int(crash_after) if crash_after else None

    def emit(self, cls: type[E], *, parent: int | None = None, subq: str | None = None, **fields: Any) -> E:
        event = cls(run_id=self.run_id, seq=self.seq, parent_seq=parent, subq=subq, **fields)
        self.seq += 1
        self._write(event)
        self.events.append(event)
        if self._crash_after is not None and self.seq >= self._crash_after:
            os._exit(137)  # no flush, no cleanup: what a kill -9 leaves behind
        return event

    def _write(self, event: BaseEvent) -> None:
        self.sink.write(event)

    def blob(self, text: str) -> str:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if digest not in self.blobs:
            self.blobs.add(digest)
            self.emit(TextBlob, digest=digest, text=text)
        return digest

    def latency(self, seq: int, ms: float) -> None:
        self.latency_ms[str(seq)] = round(ms, 3)

    def model_call_meta(self, seq: int, attempts: list[str], cached: bool) -> None:
        """How a model call's reply arrived: metadata, like latency, never part of the event."""
        self.model_calls[str(seq)] = {"attempts": list(attempts), "cached": cached}

    def check(self, name: str, fired: bool) -> None:
        """Count one run of the check `name`, and whether it fired (for firing rates)."""
        counts = self.checks.setdefault(name, {"ran": 0, "fired": 0})
        counts["ran"] += 1
        counts["fired"] += int(fired)

    def finish(self, wall_ms: float) -> None:
        self.emit(
            RunMeta,
            started_at=self.started_at,
            finished_at=utc_now(),
            wall_ms=round(wall_ms, 3),
            host={"python": sys.version.split()[0], "platform": platform.platform(), "machine": platform.machine()},
            latency_ms=self.latency_ms,
            model_calls=self.model_calls,
            checks={name: dict(counts) for name, counts in sorted(self.checks.items())},
        )
        self.sink.close()


class ResumeDivergence(RuntimeError):
    """A re-generated event differs from the one the torn file holds at that seq."""

    def __init__(self, seq: int, recorded: BaseEvent, regenerated: BaseEvent) -> None:
        self.seq, self.recorded, self.regenerated = seq, recorded, regenerated
        a, b = recorded.model_dump(by_alias=True), regenerated.model_dump(by_alias=True)
        fields = sorted(k for k in {*a, *b} if a.get(k) != b.get(k))
        super().__init__(f"cannot resume: re-executing the run gives a different event at seq {seq} "
                         f"(file: {recorded.type}, now: {regenerated.type}; differs in {fields})")


class ResumeRecorder(Recorder):
    """Records a resumed run: events already in the file are checked, not written.

    The sink is opened (`open_sink`) only when the first new event is written, so a resume
    that diverges inside the prefix leaves the file as it was. Text blobs of the prefix are
    re-generated in order and so are known before any new event needs them: none is written
    twice.
    """

    def __init__(self, header: RunHeader, open_sink: Callable[[], EventSink], prefix: Sequence[BaseEvent]) -> None:
        super().__init__(header, _PendingSink())
        self.prefix = list(prefix)
        self._open_sink = open_sink

    def _write(self, event: BaseEvent) -> None:
        if event.seq < len(self.prefix):
            recorded = self.prefix[event.seq]
            if dumps_line(recorded) != dumps_line(event):
                raise ResumeDivergence(event.seq, recorded, event)
            return
        if isinstance(self.sink, _PendingSink):
            self.sink = self._open_sink()
        self.sink.write(event)

    @property
    def appended(self) -> int:
        return max(0, len(self.events) - len(self.prefix))


class _PendingSink:
    """Stands in until the first new event: nothing may be written before it."""

    def write_header(self, header: RunHeader) -> None:
        raise AssertionError("a resumed run keeps the header it has")

    def write(self, event: BaseEvent) -> None:
        raise AssertionError("no sink opened yet")

    def close(self) -> None:
        pass
