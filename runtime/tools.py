"""The research tools: search and read as two separate steps (seed 12.2), retries with
backoff for transient failures, and deterministic fault injection for tests.

Statuses follow seed 12.3: `empty` is a real answer ("nothing matched"); `timeout`,
`rate_limited`, `parse_error` and `refused` are failures and never mean "no information".
Tools return structured responses only, and the corpus tools are pure functions of
(corpus, arguments), so every call can be replayed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, TypeVar, get_args, runtime_checkable
from weakref import WeakKeyDictionary

from pydantic import BaseModel, ConfigDict, Field, field_validator

from citeloop.runtime.corpus import Corpus, Document
from citeloop.runtime.index import BM25Index, tokenize
from citeloop.runtime.memo import memo
from citeloop.trajectories.models import (
    TRANSIENT_STATUSES,
    ReadResponse,
    SearchHit,
    SearchResponse,
    Sentence,
    ToolStatus,
)

if TYPE_CHECKING:
    from citeloop.runtime.doc_features import DocFeatures

SNIPPET_CHARS = 200


@runtime_checkable
class SearchTool(Protocol):
    name: str
    version: str

    def search(self, query: str, k: int, subq: str | None = None) -> SearchResponse: ...


@runtime_checkable
class ReadTool(Protocol):
    name: str
    version: str

    def read(self, doc_id: str) -> ReadResponse: ...


# --------------------------------------------------------------------------- corpus tools


def snippet(sentence: str, limit: int = SNIPPET_CHARS) -> str:
    """A hit's snippet: its best sentence, cut to `limit` characters."""
    if len(sentence) <= limit:
        return sentence
    return sentence[: limit - 1].rstrip() + "…"


class CorpusSearchTool:
    """BM25 search over a local corpus; hits carry a one-sentence snippet, never full text.
    `features`: the corpus's precomputed per-document results (`runtime.doc_features`), which
    a hit's document is looked up in before its snippet is cut."""

    name = "corpus_bm25"
    version = "1"

    def __init__(self, corpus: Corpus, index: BM25Index, features: DocFeatures | None = None) -> None:
        self.corpus = corpus
        self.index = index
        self.features = features

    def search(self, query: str, k: int, subq: str | None = None) -> SearchResponse:
        if k < 1:
            # A caller bug, not a tool outcome: recording it as a status would hide it.
            raise ValueError(f"k must be at least 1, got {k}")
        terms = self.index.query_tokens(query)
        if not terms:
            return SearchResponse(
                status="parse_error",
                error=f"query has no searchable terms (only stopwords or punctuation): {query!r}",
            )
        ranked = self.index.search(query, k)
        if not ranked:
            return SearchResponse(status="empty")
        query_terms = set(terms)
        hits = []
        for rank, (doc_id, score) in enumerate(ranked):
            doc = self.corpus.by_id[doc_id]
            if self.features is not None:
                self.features.touch(doc_id, "hit")
            hits.append(
                SearchHit(
                    doc_id=doc_id,
                    title=doc.title,
                    source=doc.publisher or "unknown",
                    date=doc.published,
                    snippet=self._snippet(doc_id, query_terms),
                    score=round(score, 4),
                    rank=rank,
                    subq=subq,
                )
            )
        return SearchResponse(status="ok", hits=hits)

    def _snippet(self, doc_id: str, query_terms: set[str]) -> str:
        sentences = self.corpus.by_id[doc_id].sentence_list()
        overlaps = [len(terms & query_terms) for terms in _sentence_terms(tuple(sentences))]
        # max() keeps the first of equal overlaps; with no overlap (a title-only match)
        # that is the lead sentence, which is the best summary of an encyclopedia entry.
        best = max(range(len(sentences)), key=overlaps.__getitem__)
        return snippet(sentences[best])


@memo("tools.sentence_terms", maxsize=1 << 15)
def _sentence_terms(sentences: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """The search terms of each of a document's sentences: documents recur across the
    searches of a run and across runs."""
    return tuple(frozenset(terms) for terms in tokenize(list(sentences)))


_PAGES: WeakKeyDictionary[Corpus, dict[str, ReadResponse]] = WeakKeyDictionary()
"""Read responses by corpus and document id, made once per process: a page is static text and
a response is frozen, and every run that reads the page gets the same one."""


class CorpusReadTool:
    """Full document as sentences with stable ids `{doc_id}#s{index}`. `features`: as for
    `CorpusSearchTool`; a document is looked up in them when it is read."""

    name = "corpus_read"
    version = "1"

    def __init__(self, corpus: Corpus, features: DocFeatures | None = None) -> None:
        self.corpus = corpus
        self.features = features

    def read(self, doc_id: str) -> ReadResponse:
        doc = self.corpus.get(doc_id)
        if doc is not None and self.features is not None:
            self.features.touch(doc_id, "read")
        if doc is None:
            return ReadResponse(
                status="refused", doc_id=doc_id, error=f"unknown document id {doc_id!r}"
            )
        pages = _PAGES.setdefault(self.corpus, {})
        page = pages.get(doc_id)
        if page is None:
            page = pages[doc_id] = self._page(doc)
        return page

    @staticmethod
    def _page(doc: Document) -> ReadResponse:
        return ReadResponse(
            status="ok",
            doc_id=doc.id,
            title=doc.title,
            url=doc.url,
            publisher=doc.publisher,
            published=doc.published,
            source_type=doc.source_type,
            sentences=[
                Sentence(sid=f"{doc.id}#s{i}", index=i, text=text)
                for i, text in enumerate(doc.sentence_list())
            ],
        )


# --------------------------------------------------------------------------- retries


class RetryPolicy(BaseModel):
    """Exponential backoff for transient statuses (`timeout`, `rate_limited`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int = Field(3, ge=1)
    """Attempts in total, the first one included."""
    base_delay_s: float = Field(0.0, ge=0.0)
    """Wait before the second attempt; 0 retries at once (local corpora, tests)."""
    factor: float = Field(2.0, ge=1.0)
    """Multiplier of the wait for each further attempt."""

    def delay(self, failed_attempts: int) -> float:
        """Wait after the `failed_attempts`-th failure (1-based)."""
        return self.base_delay_s * self.factor ** (failed_attempts - 1)


class _HasStatus(Protocol):
    @property
    def status(self) -> ToolStatus: ...


R = TypeVar("R", bound=_HasStatus)


def call_with_retry(
    call: Callable[[], R],
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
    on_timeout: Callable[[TimeoutError], R] | None = None,
) -> tuple[R, list[ToolStatus]]:
    """Call until the status is not transient or attempts run out.

    Returns the last response and the status of every attempt, so the trajectory can
    record that a final `timeout` was a timeout and not an empty result.

    A raised `TimeoutError` counts as a `timeout` attempt; `on_timeout` turns it into a
    response (without it, a timeout on the last attempt is re-raised). Every other
    exception propagates: it is a bug in the tool or its caller, and turning it into a
    status would record an invented tool outcome and hide the bug from tests.
    """
    statuses: list[ToolStatus] = []
    for attempt in range(1, policy.max_attempts + 1):
        try:
            response = call()
            statuses.append(response.status)
        except TimeoutError as exc:
            statuses.append("timeout")
            if attempt == policy.max_attempts:
                if on_timeout is None:
                    exc.add_note(f"attempt statuses: {statuses}")
                    raise
                return on_timeout(exc), statuses
            response = None
        if response is not None and response.status not in TRANSIENT_STATUSES:
            return response, statuses
        if attempt < policy.max_attempts:
            delay = policy.delay(attempt)
            if delay > 0:
                sleep(delay)
    assert response is not None  # the last attempt either returned or raised above
    return response, statuses


def search_with_retry(tool: SearchTool, query: str, k: int, subq: str | None,
                      policy: RetryPolicy, sleep: Callable[[float], None] = time.sleep,
                      ) -> tuple[SearchResponse, list[ToolStatus]]:
    return call_with_retry(
        lambda: tool.search(query, k, subq), policy, sleep,
        on_timeout=lambda exc: SearchResponse(status="timeout", error=f"timed out: {exc}"),
    )


def read_with_retry(tool: ReadTool, doc_id: str, policy: RetryPolicy,
                    sleep: Callable[[float], None] = time.sleep,
                    ) -> tuple[ReadResponse, list[ToolStatus]]:
    return call_with_retry(
        lambda: tool.read(doc_id), policy, sleep,
        on_timeout=lambda exc: ReadResponse(status="timeout", doc_id=doc_id, error=f"timed out: {exc}"),
    )


# --------------------------------------------------------------------------- fault injection

_STATUS_ORDER: tuple[str, ...] = get_args(ToolStatus)


class FaultPlan(BaseModel):
    """Random faults with a fixed seed: the same plan fails the same calls every run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int
    rates: dict[ToolStatus, float]
    """Probability per call of each injected status; the rest of the mass calls the tool."""

    @field_validator("rates")
    @classmethod
    def _valid_rates(cls, rates: dict[str, float]) -> dict[str, float]:
        if "ok" in rates:
            raise ValueError("'ok' is what remains after the fault rates; do not list it")
        if any(not 0.0 <= r <= 1.0 for r in rates.values()) or sum(rates.values()) > 1.0 + 1e-9:
            raise ValueError("rates must be in [0, 1] and sum to at most 1")
        return rates


class _FaultSchedule:
    def __init__(self, faults: Mapping[int, ToolStatus] | FaultPlan) -> None:
        self.faults = faults
        self.calls = 0
        self._rng = random.Random(faults.seed) if isinstance(faults, FaultPlan) else None

    def next(self) -> ToolStatus | None:
        """The status to inject for this call, or None to call the real tool."""
        index, self.calls = self.calls, self.calls + 1
        if isinstance(self.faults, FaultPlan):
            draw = self._rng.random()  # one draw per call keeps the sequence seed-stable
            edge = 0.0
            # Fixed status order, so equal plans behave equally whatever the dict order.
            for status in _STATUS_ORDER:
                edge += self.faults.rates.get(status, 0.0)
                if draw < edge:
                    return status
            return None
        status = self.faults.get(index)
        return None if status in (None, "ok") else status


def _fault_error(status: ToolStatus, index: int) -> str | None:
    return None if status == "empty" else f"injected {status} on call {index}"


class _FaultInjecting:
    """Shared wrapper state: the inner tool, its name and version, and the fault schedule."""

    def __init__(self, inner: SearchTool | ReadTool, faults: Mapping[int, ToolStatus] | FaultPlan) -> None:
        self.inner = inner
        self.name = f"faulty({inner.name})"
        self.version = inner.version
        self._schedule = _FaultSchedule(faults)

    @property
    def calls(self) -> int:
        return self._schedule.calls


class FaultInjectingSearchTool(_FaultInjecting):
    """Wraps a search tool and replaces chosen calls with a given status (tests)."""

    def search(self, query: str, k: int, subq: str | None = None) -> SearchResponse:
        status = self._schedule.next()
        if status is None:
            return self.inner.search(query, k, subq)  # type: ignore[union-attr]
        return SearchResponse(status=status, error=_fault_error(status, self.calls - 1))


class FaultInjectingReadTool(_FaultInjecting):
    """Wraps a read tool and replaces chosen calls with a given status (tests)."""

    def read(self, doc_id: str) -> ReadResponse:
        status = self._schedule.next()
        if status is None:
            return self.inner.read(doc_id)  # type: ignore[union-attr]
        return ReadResponse(status=status, doc_id=doc_id, error=_fault_error(status, self.calls - 1))
