"""Tools that answer from a trajectory: the recorded search and read responses of a run.

A run file is its own tool cache. `search_result` events hold each `SearchResponse`
(keyed by query and the `k` of their `query_issued` parent); `document_read` events plus
the `text_blob` they point to rebuild each `ReadResponse`. Retries are recorded as the
status of every attempt, so each recorded call is served back as that many responses:
the failed attempts first, the final response last, and `call_with_retry` sees the same
sequence it saw the first time.

Requests are served in recorded order per key. A request the record cannot answer goes
to `live` when one is given, otherwise it is answered `refused` with error `not recorded`
(and listed in `misses`), never with an invented result.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from citeloop.trajectories.events import BaseEvent, DocumentRead, QueryIssued, SearchResult, TextBlob
from citeloop.trajectories.models import ReadResponse, SearchResponse, Sentence

NOT_RECORDED = "not recorded"


def read_response(event: DocumentRead, blobs: dict[str, str]) -> ReadResponse:
    """The `ReadResponse` a `document_read` event recorded, sentences cut back out of its blob."""
    text = blobs.get(event.text_digest, "") if event.text_digest else ""
    if event.text_digest and event.text_digest not in blobs:
        raise ValueError(f"document_read seq {event.seq}: text blob {event.text_digest[:12]} is not in the file")
    return ReadResponse(
        status=event.status, doc_id=event.doc_id, title=event.title, url=event.url, publisher=event.publisher,
        published=event.published, source_type=event.source_type,
        sentences=[Sentence(sid=s.sid, index=s.index, text=text[s.start : s.end]) for s in event.sentences],
        error=event.error,
    )


@dataclass
class ToolRecord:
    """Recorded tool responses of one run, one queue of attempt responses per request key."""

    searches: dict[tuple[str, int], deque[SearchResponse]] = field(default_factory=lambda: defaultdict(deque))
    reads: dict[str, deque[ReadResponse]] = field(default_factory=lambda: defaultdict(deque))

    @classmethod
    def from_events(cls, events: Sequence[BaseEvent]) -> "ToolRecord":
        record = cls()
        blobs = {e.digest: e.text for e in events if isinstance(e, TextBlob)}
        issued = {e.seq: e for e in events if isinstance(e, QueryIssued)}
        for e in events:
            if isinstance(e, SearchResult):
                parent = issued.get(e.parent_seq) if e.parent_seq is not None else None
                if parent is None:
                    raise ValueError(f"search_result seq {e.seq} has no query_issued parent; cannot key it by k")
                queue = record.searches[(e.query, parent.k)]
                queue.extend(SearchResponse(status=s, error=f"recorded {s} attempt") for s in e.attempts[:-1])
                queue.append(e.response)
            elif isinstance(e, DocumentRead):
                queue = record.reads[e.doc_id]
                queue.extend(ReadResponse(status=s, doc_id=e.doc_id, error=f"recorded {s} attempt")
                             for s in e.attempts[:-1])
                queue.append(read_response(e, blobs))
        return record


class RecordedSearchTool:
    name = "recorded_search"
    version = "1"

    def __init__(self, record: ToolRecord, live=None) -> None:  # noqa: ANN001 - a SearchTool or None
        self.record = record
        self.live = live
        self.served = 0
        self.live_calls = 0
        self.misses: list[str] = []

    def search(self, query: str, k: int, subq: str | None = None) -> SearchResponse:
        queue = self.record.searches.get((query, k))
        if queue:
            self.served += 1
            response = queue.popleft()
            # Hits carry the sub-question they served; a live tool would stamp the asker's.
            return response.model_copy(update={"hits": [h.model_copy(update={"subq": subq}) for h in response.hits]})
        if self.live is not None:
            self.live_calls += 1
            return self.live.search(query, k, subq)
        self.misses.append(f"search {query!r} (k={k})")
        return SearchResponse(status="refused", error=NOT_RECORDED)


class RecordedReadTool:
    name = "recorded_read"
    version = "1"

    def __init__(self, record: ToolRecord, live=None) -> None:  # noqa: ANN001 - a ReadTool or None
        self.record = record
        self.live = live
        self.served = 0
        self.live_calls = 0
        self.misses: list[str] = []

    def read(self, doc_id: str) -> ReadResponse:
        queue = self.record.reads.get(doc_id)
        if queue:
            self.served += 1
            return queue.popleft()
        if self.live is not None:
            self.live_calls += 1
            return self.live.read(doc_id)
        self.misses.append(f"read {doc_id!r}")
        return ReadResponse(status="refused", doc_id=doc_id, error=NOT_RECORDED)


class LazyTool:
    """A live tool built on first use, so a replay that never leaves the record needs no corpus."""

    def __init__(self, build: Callable[[], object], method: str) -> None:
        self._build = build
        self._method = method
        self._tool: object | None = None

    def _get(self):  # noqa: ANN202
        if self._tool is None:
            self._tool = self._build()
        return getattr(self._tool, self._method)

    def search(self, query: str, k: int, subq: str | None = None) -> SearchResponse:
        return self._get()(query, k, subq)

    def read(self, doc_id: str) -> ReadResponse:
        return self._get()(doc_id)
