"""BM25 retrieval over a `Corpus`, with an on-disk cache keyed by the corpus fingerprint.

The index only ranks; statuses (`empty`, `parse_error`) are the search tool's business.
Tokenisation (lower-case, English stopwords, Snowball English stemmer) is shared with the
tool so snippet selection counts the same terms the ranking used.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer

from citeloop.runtime.corpus import Corpus
from citeloop.runtime.memo import memo
from citeloop.runtime.text import fold_accents

# Bump when tokenisation or BM25 parameters change: the cache key must change with them.
INDEX_FORMAT = 3  # 2: accents folded in queries; 3: and in the documents indexed
BM25_PARAMS: dict[str, Any] = {"k1": 1.5, "b": 0.75, "method": "lucene"}
_META_FILE = "citeloop_meta.json"
# PyStemmer objects keep internal state per call and are not safe to share across
# threads; the runtime searches sub-questions of one layer concurrently (seed 13.2).
_LOCAL = threading.local()


def _stemmer() -> Stemmer.Stemmer:
    if not hasattr(_LOCAL, "stemmer"):
        _LOCAL.stemmer = Stemmer.Stemmer("english")
    return _LOCAL.stemmer


def tokenize(texts: list[str]) -> list[list[str]]:
    """Stemmed, stopword-free, accent-folded tokens of each text (bm25s's regex: words of 2+ chars)."""
    missing = list(dict.fromkeys(t for t in texts if t not in _search_tokens))
    if missing:  # one bm25s call for all texts not seen yet: its cost is mostly per call
        _search_tokens.seed(zip(missing, map(tuple, _bm25_tokenize(missing))))
    return [list(_search_tokens(t)) for t in texts]


def _bm25_tokenize(texts: list[str]) -> list[list[str]]:
    # bm25s tokenises each text on its own (with return_ids=False the batch shares nothing
    # that reaches the strings), so a text's tokens do not depend on the batch it came in.
    return bm25s.tokenize([fold_accents(t) for t in texts], stopwords="english", stemmer=_stemmer(),
                          return_ids=False, show_progress=False)


@memo("index.tokenize")
def _search_tokens(text: str) -> tuple[str, ...]:
    return tuple(_bm25_tokenize([text])[0])


def default_cache_dir() -> Path:
    env = os.environ.get("CITELOOP_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "citeloop" / "index"


class BM25Index:
    """A bm25s retriever plus the corpus order of its rows."""

    def __init__(self, retriever: bm25s.BM25, doc_ids: list[str], *,
                 loaded_from_cache: bool = False, cache_path: Path | None = None) -> None:
        self.retriever = retriever
        self.doc_ids = doc_ids
        self.loaded_from_cache = loaded_from_cache
        """True when this index was read from disk instead of built (tests, diagnostics)."""
        self.cache_path = cache_path

    # ----------------------------------------------------------------- build / cache

    @classmethod
    def build(cls, corpus: Corpus, cache_dir: Path | None = None) -> BM25Index:
        """Load the index for `corpus` from the cache, or build it and cache it.

        A cache entry that cannot be read or does not match the corpus is rebuilt:
        the cache is an optimisation, never a source of truth.
        """
        cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        entry = cache_dir / corpus.fingerprint[:16]
        doc_ids = [doc.id for doc in corpus]
        meta = {
            "format": INDEX_FORMAT,
            "fingerprint": corpus.fingerprint,
            "bm25s": bm25s.__version__,
            "params": BM25_PARAMS,
            "doc_ids": doc_ids,
        }
        cached = cls._load(entry, meta)
        if cached is not None:
            return cached
        # Folded like the queries (`tokenize`): "Dušan Poliačik" is found by "Dusan Poliacik" and by itself.
        texts = [fold_accents(f"{doc.title}\n{doc.text}") for doc in corpus]
        retriever = bm25s.BM25(**BM25_PARAMS)
        retriever.index(
            bm25s.tokenize(texts, stopwords="english", stemmer=_stemmer(), show_progress=False),
            show_progress=False,
        )
        cls._save(entry, retriever, meta)
        return cls(retriever, doc_ids, loaded_from_cache=False, cache_path=entry)

    @classmethod
    def _load(cls, entry: Path, meta: dict[str, Any]) -> BM25Index | None:
        if not entry.is_dir():
            return None
        try:
            stored = json.loads((entry / _META_FILE).read_text(encoding="utf-8"))
            if stored != meta:
                raise ValueError("cache metadata does not match the corpus")
            retriever = bm25s.BM25.load(str(entry), show_progress=False, verbosity=0)
            if retriever.scores["num_docs"] != len(meta["doc_ids"]):
                raise ValueError("cached index has the wrong number of documents")
        except Exception:  # noqa: BLE001 - any unreadable cache is rebuilt, whatever broke it
            shutil.rmtree(entry, ignore_errors=True)
            return None
        return cls(retriever, list(meta["doc_ids"]), loaded_from_cache=True, cache_path=entry)

    @staticmethod
    def _save(entry: Path, retriever: bm25s.BM25, meta: dict[str, Any]) -> None:
        # Write into a temporary sibling and rename, so a concurrent reader or a crash
        # never leaves a half-written entry that looks complete.
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=entry.name + ".tmp-", dir=entry.parent))
            retriever.save(str(tmp), show_progress=False)
            (tmp / _META_FILE).write_text(json.dumps(meta), encoding="utf-8")
            try:
                tmp.rename(entry)
            except OSError:  # another process won the race; its entry is as good as ours
                shutil.rmtree(tmp, ignore_errors=True)
        except OSError:
            pass  # a read-only or full cache dir costs a rebuild next time, nothing more

    # ----------------------------------------------------------------- search

    def query_tokens(self, query: str) -> list[str]:
        """The searchable terms of `query` (empty for stopwords or punctuation only)."""
        return tokenize([query])[0]

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top `k` (doc id, score) with score > 0, by score then corpus order."""
        tokens = self.query_tokens(query)
        if not tokens or k <= 0:
            return []
        scores = np.asarray(self.retriever.get_scores(tokens), dtype=np.float64)
        # lexsort's last key is primary: descending score, then ascending corpus position,
        # so equal scores always come back in the same order.
        order = np.lexsort((np.arange(len(scores)), -scores))
        results: list[tuple[str, float]] = []
        for row in order[:k]:
            if scores[row] <= 0:
                break
            results.append((self.doc_ids[row], float(scores[row])))
        return results
