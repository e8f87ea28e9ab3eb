"""BM25 index and cache, the search/read tools, retries and fault injection."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloop.runtime.corpus import Corpus, Document, load_embedded_corpus
from citeloop.runtime.index import BM25Index
from citeloop.runtime.tools import (
    CorpusReadTool,
    CorpusSearchTool,
    FaultInjectingReadTool,
    FaultInjectingSearchTool,
    FaultPlan,
    ReadTool,
    RetryPolicy,
    SearchTool,
    call_with_retry,
    read_with_retry,
    search_with_retry,
)
from citeloop.trajectories.models import SearchResponse


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may write the user's real index cache."""
    monkeypatch.setenv("CITELOOP_CACHE", str(tmp_path / "default-cache"))


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_embedded_corpus()


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> BM25Index:
    return BM25Index.build(corpus, cache_dir=tmp_path_factory.mktemp("index"))


@pytest.fixture()
def search(corpus: Corpus, index: BM25Index) -> CorpusSearchTool:
    return CorpusSearchTool(corpus, index)


def _titles(corpus: Corpus, response: SearchResponse) -> list[str]:
    return [corpus.by_id[h.doc_id].title for h in response.hits]


def test_tools_satisfy_protocols(corpus: Corpus, search: CorpusSearchTool) -> None:
    assert isinstance(search, SearchTool)
    assert isinstance(CorpusReadTool(corpus), ReadTool)


def test_search_finds_both_hops_of_the_leland_question(corpus: Corpus, search: CorpusSearchTool) -> None:
    response = search.search("Which film of 1986 was filmed in Leland, North Carolina?", 10, subq="sq1")
    assert response.status == "ok"
    titles = _titles(corpus, response)
    assert titles[0] == "Leland, North Carolina"
    assert "Maximum Overdrive" in titles
    # The bridge the runtime follows: the Leland page names the film, which then ranks first.
    leland = corpus.by_id[response.hits[0].doc_id]
    assert "Maximum Overdrive" in leland.text
    second = search.search("Maximum Overdrive 1986 film directed by", 3)
    assert _titles(corpus, second)[0] == "Maximum Overdrive"


def test_hits_are_light_ranked_and_tagged(corpus: Corpus, search: CorpusSearchTool) -> None:
    response = search.search("film shot in Leland North Carolina 1986", 8, subq="sq2")
    assert [h.rank for h in response.hits] == list(range(len(response.hits)))
    scores = [h.score for h in response.hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    for hit in response.hits:
        assert hit.subq == "sq2" and hit.source == "Wikipedia"
        assert len(hit.snippet) <= 200
        sentences = corpus.by_id[hit.doc_id].sentence_list()
        assert any(hit.snippet.rstrip("…") in s for s in sentences)  # one sentence, not the text
        assert hit.score == round(hit.score, 4)
    top = response.hits[0]
    assert "Leland" in top.snippet  # the sentence with the most query terms, not just the lead


def test_long_sentence_snippet_is_truncated(tmp_path: Path) -> None:
    long_sentence = "Zebra " + "word " * 80 + "end."
    docs = [Document(id="z", title="Zebras", text=long_sentence + " Short second sentence.")]
    corpus = Corpus(docs, "mem")
    tool = CorpusSearchTool(corpus, BM25Index.build(corpus, cache_dir=tmp_path))
    hit = tool.search("zebra", 1).hits[0]
    assert len(hit.snippet) == 200 and hit.snippet.endswith("…")


def test_search_is_deterministic_with_ties(tmp_path: Path) -> None:
    docs = [Document(id=f"d{i}", title="Same", text="Identical apple text.") for i in range(5)]
    corpus = Corpus(docs, "mem")
    index = BM25Index.build(corpus, cache_dir=tmp_path)
    assert [d for d, _ in index.search("apple", 5)] == ["d0", "d1", "d2", "d3", "d4"]
    assert index.search("apple", 2) == index.search("apple", 2)


def test_query_without_searchable_terms_is_parse_error(search: CorpusSearchTool) -> None:
    for query in ["the of ?", "", "   ", "?!.,"]:
        response = search.search(query, 5)
        assert response.status == "parse_error", query
        assert response.error and not response.hits


def test_unmatched_query_is_empty_not_error(search: CorpusSearchTool) -> None:
    response = search.search("zzqxv qqxzv", 5)
    assert response.status == "empty"
    assert response.hits == [] and response.error is None


def test_read_returns_sentences_with_stable_ids(corpus: Corpus) -> None:
    tool = CorpusReadTool(corpus)
    doc = next(d for d in corpus if d.title == "Leland, North Carolina")
    response = tool.read(doc.id)
    assert response.status == "ok" and response.title == doc.title
    assert response.url == doc.url and response.publisher == "Wikipedia"
    assert [s.sid for s in response.sentences] == [f"{doc.id}#s{i}" for i in range(len(doc.sentences))]
    assert [s.text for s in response.sentences] == doc.sentences
    assert tool.read(doc.id) == response  # replayable


def test_a_page_is_made_once_per_corpus() -> None:
    """Read responses are static per corpus: every reader of a page gets the one response, and
    another corpus with a document of the same id gets its own text."""
    first = Corpus([Document(id="p", title="Page", text="One sentence. Two sentences.")], "mem-a")
    other = Corpus([Document(id="p", title="Page", text="Other text.")], "mem-b")
    page = CorpusReadTool(first).read("p")
    assert CorpusReadTool(first).read("p") is page
    assert [s.text for s in page.sentences] == ["One sentence.", "Two sentences."]
    assert [s.text for s in CorpusReadTool(other).read("p").sentences] == ["Other text."]


def test_read_unknown_id_is_refused(corpus: Corpus) -> None:
    response = CorpusReadTool(corpus).read("nope-1")
    assert response.status == "refused"
    assert "unknown document id" in response.error and response.sentences == []


def test_index_cache_is_reused(corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITELOOP_CACHE", str(tmp_path / "cache"))
    first = BM25Index.build(corpus)
    assert not first.loaded_from_cache
    entry = tmp_path / "cache" / corpus.fingerprint[:16]
    assert entry.is_dir() and first.cache_path == entry
    second = BM25Index.build(corpus)
    assert second.loaded_from_cache
    query = "film shot in Leland North Carolina 1986"
    assert second.search(query, 10) == first.search(query, 10)


def test_corrupt_cache_is_rebuilt(corpus: Corpus, tmp_path: Path) -> None:
    BM25Index.build(corpus, cache_dir=tmp_path)
    entry = tmp_path / corpus.fingerprint[:16]
    (entry / "params.index.json").write_text("{not json")
    rebuilt = BM25Index.build(corpus, cache_dir=tmp_path)
    assert not rebuilt.loaded_from_cache
    assert rebuilt.search("Maximum Overdrive", 1)[0][0] == next(
        d.id for d in corpus if d.title == "Maximum Overdrive"
    )
    assert BM25Index.build(corpus, cache_dir=tmp_path).loaded_from_cache  # rewritten cleanly


def test_cache_of_other_corpus_is_not_reused(tmp_path: Path) -> None:
    a = Corpus([Document(id="a", title="A", text="apple pie.")], "mem")
    b = Corpus([Document(id="b", title="B", text="banana bread.")], "mem")
    BM25Index.build(a, cache_dir=tmp_path)
    index_b = BM25Index.build(b, cache_dir=tmp_path)
    assert not index_b.loaded_from_cache
    assert index_b.search("banana", 1) and not index_b.search("apple", 1)


# --------------------------------------------------------------------------- retries and faults


def test_retry_recovers_after_transient_faults(search: CorpusSearchTool) -> None:
    faulty = FaultInjectingSearchTool(search, {0: "timeout", 1: "rate_limited"})
    assert faulty.name == "faulty(corpus_bm25)"
    delays: list[float] = []
    policy = RetryPolicy(max_attempts=4, base_delay_s=0.5, factor=2.0)
    response, attempts = call_with_retry(lambda: faulty.search("Leland", 3), policy, sleep=delays.append)
    assert attempts == ["timeout", "rate_limited", "ok"]
    assert response.status == "ok" and response.hits
    assert delays == [0.5, 1.0]


def test_persistent_timeout_ends_as_timeout_never_empty(search: CorpusSearchTool) -> None:
    faulty = FaultInjectingSearchTool(search, {i: "timeout" for i in range(10)})
    delays: list[float] = []
    response, attempts = search_with_retry(
        faulty, "Leland", 3, None, RetryPolicy(max_attempts=3, base_delay_s=1.0), sleep=delays.append
    )
    assert attempts == ["timeout"] * 3
    assert response.status == "timeout" and response.error and not response.hits
    assert delays == [1.0, 2.0]  # no sleep after the last attempt
    assert faulty.calls == 3


def test_non_transient_failure_is_not_retried(corpus: Corpus) -> None:
    faulty = FaultInjectingReadTool(CorpusReadTool(corpus), {0: "parse_error"})
    response, attempts = read_with_retry(faulty, "hotpotqa-0000", RetryPolicy(), sleep=lambda s: None)
    assert attempts == ["parse_error"] and response.status == "parse_error"
    assert response.error and faulty.calls == 1


def test_raised_timeout_counts_as_timeout_and_other_errors_propagate(corpus: Corpus) -> None:
    calls = iter([TimeoutError("slow"), None])
    read = CorpusReadTool(corpus)

    def flaky():
        exc = next(calls)
        if exc:
            raise exc
        return read.read("hotpotqa-0000")

    response, attempts = call_with_retry(flaky, RetryPolicy(), sleep=lambda s: None)
    assert attempts == ["timeout", "ok"] and response.status == "ok"

    def broken():
        raise KeyError("bug")

    with pytest.raises(KeyError):
        call_with_retry(broken, RetryPolicy(), sleep=lambda s: None)

    def always_slow():
        raise TimeoutError("slow")

    with pytest.raises(TimeoutError):  # no on_timeout: the last timeout re-raises
        call_with_retry(always_slow, RetryPolicy(max_attempts=2), sleep=lambda s: None)
    response, attempts = read_with_retry(
        type("Slow", (), {"name": "slow", "version": "1", "read": lambda self, d: always_slow()})(),
        "x", RetryPolicy(max_attempts=2), sleep=lambda s: None,
    )
    assert attempts == ["timeout", "timeout"] and response.status == "timeout"


def test_fault_plan_is_deterministic(corpus: Corpus, search: CorpusSearchTool) -> None:
    plan = FaultPlan(seed=7, rates={"timeout": 0.3, "rate_limited": 0.2})

    def statuses(tool) -> list[str]:
        return [tool.search("Leland", 2).status for _ in range(40)]

    first = statuses(FaultInjectingSearchTool(search, plan))
    assert first == statuses(FaultInjectingSearchTool(search, plan))
    assert {"ok", "timeout", "rate_limited"} <= set(first)
    other = statuses(FaultInjectingSearchTool(search, FaultPlan(seed=8, rates=plan.rates)))
    assert other != first
    reads = FaultInjectingReadTool(CorpusReadTool(corpus), FaultPlan(seed=1, rates={"refused": 1.0}))
    response = reads.read("hotpotqa-0000")
    assert response.status == "refused" and response.error and response.sentences == []


def test_fault_plan_rejects_bad_rates() -> None:
    with pytest.raises(ValueError):
        FaultPlan(seed=0, rates={"timeout": 0.8, "refused": 0.5})
    with pytest.raises(ValueError):
        FaultPlan(seed=0, rates={"ok": 0.5})


@pytest.mark.parametrize("query", ["Dusan Poliacik", "Dušan Poliačik", "Roland Joffé", "Roland Joffe"])
def test_accented_names_are_found_with_or_without_their_accents(tmp_path: Path, query: str) -> None:
    """Documents are folded like queries: "Dušan Poliačik" is found by itself and by "Dusan Poliacik"."""
    corpus = Corpus([Document(id="a", title="Dušan Poliačik", text="Dušan Poliačik is a retired weightlifter."),
                     Document(id="b", title="Roland Joffé", text="Roland Joffé is a film director."),
                     Document(id="c", title="Granite", text="Granite is an igneous rock.")], source="test-accents")
    index = BM25Index.build(corpus, cache_dir=tmp_path)
    expected = "a" if "Poli" in query else "b"
    assert index.search(query, k=3)[0][0] == expected
