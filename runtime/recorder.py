"""The recorder: turns what the engine does into numbered events on a sink.

It owns the run's event counter and the set of text blobs already written, so document
text is stored once per file and referenced by digest. Wall-clock latencies are kept
aside and only leave in the final `run_meta` event.
"""

from __future__ import annotations

import hashlib
import platform
import sys
from datetime import datetime, timezone
from typing import Any, TypeVar

from trajectories.events import BaseEvent, RunMeta, TextBlob
from trajectories.header import RunHeader
from trajectories.runfile import EventSink

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
        self.events: list[BaseEvent] = []
        self.started_at = utc_now()

    def emit(self, cls: type[E], *, parent: int | None = None, subq: str | None = None, **fields: Any) -> E:
        event = cls(run_id=self.run_id, seq=self.seq, parent_seq=parent, subq=subq, **fields)
        self.seq += 1
        self.sink.write(event)
        self.events.append(event)
        return event

    def blob(self, text: str) -> str:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if digest not in self.blobs:
            self.blobs.add(digest)
            self.emit(TextBlob, digest=digest, text=text)
        return digest

    def latency(self, seq: int, ms: float) -> None:
        self.latency_ms[str(seq)] = round(ms, 3)

    def finish(self, wall_ms: float) -> None:
        self.emit(
            RunMeta,
            started_at=self.started_at,
            finished_at=utc_now(),
            wall_ms=round(wall_ms, 3),
            host={"python": sys.version.split()[0], "platform": platform.platform(), "machine": platform.machine()},
            latency_ms=self.latency_ms,
        )
        self.sink.close()
