"""Per-corpus precomputation: what a run derives from a document's text alone, computed once
per corpus and kept beside its index.

A run tokenises, stems, splits, searches for numbers, MinHashes and screens for injections the
static text of every document it meets, and so does every other run and every branch rollout
over the same corpus. Those are pure functions of the text (`citeloop.runtime.memo`), so their
results for a document are worked out once and stored: `analyse` runs them on exactly the texts
a run will give them (a page's sentences as the search snippet picks from them, as the read
tool returns them, as evidence cards quote them), and `DocFeatures` keeps each document's
results in an SQLite file in the document's index cache entry (`BM25Index.cache_path`, named
by the corpus fingerprint). The corpus tools `touch` a document when a search returns it
(`hit`: what the snippet and the hit's relevance need) and when it is read (`read`: the rest);
its stored results then enter the memos, and the run finds them there. A document no process
has analysed yet is analysed on that first touch and stored for the next process; `precompute`
does the whole corpus at once (the benchmarks do, before timing).

Results are the functions' own, so a run is byte-identical with a cold store, a warm one or
none (tests compare all three). The file is named by a digest of the runtime code and data and
of the versions of the libraries the functions use: any change there starts a new file, never
reuses results the current code would not compute. The store is a cache: one that cannot be
opened, read or written costs time, never a result. It holds pickles, trusted as much as the
cache directory it lives in (the index beside it is trusted the same way).
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import sqlite3
import sys
import threading
from collections.abc import Iterable
from importlib import metadata
from functools import cache
from pathlib import Path
from typing import Any, Literal

from citeloop.runtime import (
    alignment,
    bridging,
    countries,
    injection,
    mentions,
    numbers,
    opposition,
    polarity,
    sentences,
    text,
    tools,
)
from citeloop.runtime.claims import draft_from_quote
from citeloop.runtime.config import LedgerSettings
from citeloop.runtime.corpus import Corpus, Document
from citeloop.runtime.index import _search_tokens, tokenize as search_tokenize
from citeloop.runtime.injection_strip import strip_invisible
from citeloop.runtime.ledger import canonical_url, text_signature
from citeloop.runtime.memo import MEMOS, Memo
from citeloop.runtime.verifier import VerifierConfig
from citeloop.trajectories.engines import paused_gc
from citeloop.runtime.tools import snippet as snippet_of

FORMAT = 1
"""Bump when what `analyse` stores changes shape."""
Level = Literal["hit", "read"]
LEVELS: tuple[Level, ...] = ("hit", "read")
Record = dict[str, list[tuple[Any, Any]]]
"""Memo name -> (argument, result) pairs."""
_UNREADABLE = (pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError)
"""What unpickling a damaged or foreign record raises."""
_LIBRARIES = ("bm25s", "PyStemmer", "datasketch", "numpy")
_RUNTIME = Path(__file__).resolve().parent


@cache
def analysis_digest() -> str:
    """16 hex digits over the runtime's code and data (the embedded corpus aside: corpora are
    told apart by fingerprint) and the versions of the libraries the analysis calls."""
    h = hashlib.sha256(f"{FORMAT} {sys.version_info[:2]}".encode())
    for name in _LIBRARIES:
        try:
            h.update(f"{name}={metadata.version(name)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name}=none\0".encode())
    for path in sorted(p for p in _RUNTIME.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and "corpus" not in p.relative_to(_RUNTIME).parts):
        h.update(f"{path.relative_to(_RUNTIME).as_posix()}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def analyse(doc: Document, level: Level, ledger: LedgerSettings | None = None) -> Record:
    """Run the text functions a run calls on `doc`'s text at `level`, through their memos
    (so this process has them after), and return what they returned, by memo."""
    record: Record = {}

    def keep(memo: Memo, key: Any) -> Any:
        value = memo(key)
        record.setdefault(memo.name, []).append((key, value))
        return value

    def keep_folded(key: str) -> None:
        if not key.isascii():  # `fold_accents` returns ASCII text as it is, asking no memo
            keep(text._folded, key)

    raw = keep(sentences._sentences, doc.text) if doc.sentences is None else tuple(doc.sentences)
    if level == "hit":
        # `CorpusSearchTool._snippet` and the hit's relevance in `EvidenceIntake._read_hits`.
        search_tokenize(list(raw))
        keep(tools._sentence_terms, raw)
        for s in raw:
            keep(_search_tokens, s)
            hit_text = f"{doc.title} {snippet_of(s)}"
            keep(text._content_terms, hit_text)
            keep_folded(hit_text)
        return record
    ledger = ledger or LedgerSettings()
    verifier = VerifierConfig()
    if doc.url:  # `Ledger.register`: the page's address, as the read tool returns it
        keep(canonical_url, doc.url)
    # `Ledger.register`, `EvidenceIntake._keep_evidence` (the injection filter, the key terms,
    # the bridge test) and then what cards quoting a sentence meet: the verifier's alignment,
    # duplicate quotes, suspect quotes, bridge names, on-topic tests.
    keep(text_signature, (" ".join(raw), ledger.shingle_words, ledger.minhash_permutations))
    keep_folded(" ".join([doc.title, *raw]))
    keep(text._content_terms, doc.title)
    clean = tuple(strip_invisible(s) for s in raw)
    keep(MEMOS["injection.findings_by_line"], clean)
    for s in clean:
        keep(text._tokens, s)
        keep(text._term_pairs, s)
        keep(text._content_terms, s)
        keep(numbers._mentions, s)
        keep(sentences._sentences, s)
        keep(text._entity_spans, s)
        keep(injection._suspected, s)
        keep(polarity._analyse, s)
        prefixed = keep(polarity._prefixed_words, s)
        # A card quoting the sentence, in the ledger's and the reverse check's opposition gate
        # and read against a text that turns none of its prefixed words.
        keep(polarity._reading, (s, (False,) * len(prefixed)))
        keep(opposition._contrasts, s)
        keep(opposition._evidence_contrasts, s)
        keep(polarity.possible_terms, s)
        keep(bridging.word_stems, s)
        # The answer-sentence tests and the answer's spans: a card's dates and countries.
        keep(mentions._date_mentions, s)
        keep(countries._countries_named, s)
        # A claim drafted from a card quoting the sentence (asides in parentheses dropped), read
        # and checked against that card.
        claim = draft_from_quote(s)
        if claim != s:
            for fn in (text._tokens, text._term_pairs, text._content_terms, numbers._mentions,
                       polarity._analyse, polarity._prefixed_words, opposition._contrasts):
                keep(fn, claim)
        keep(alignment._aligned, (claim, (s,), verifier.max_sentences, verifier.min_gain))
        titled = f"{doc.title} {s}"
        keep_folded(titled)
        keep(text._content_terms, titled)
    return record


def seed(record: Record) -> None:
    """Put a stored record's results into the memos."""
    for name, entries in record.items():
        memo = MEMOS.get(name)
        if memo is not None:
            memo.seed(entries)


class DocFeatures:
    """The per-document results of one corpus: in this process's memos, and in a store file
    beside the corpus's index (`store_dir`; None: memos only)."""

    def __init__(self, corpus: Corpus, store_dir: Path | None = None) -> None:
        self.corpus = corpus
        self.store_dir = store_dir
        self._touched: set[tuple[str, Level]] = set()
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._broken = False
        self.loaded = 0
        """Documents (by level) whose results came from the store file in this process."""
        self.analysed = 0
        """Documents (by level) analysed in this process (and stored, when the store works)."""

    @property
    def path(self) -> Path | None:
        """The store file: named by the analysis digest, in the index's cache entry."""
        return None if self.store_dir is None else self.store_dir / f"doc-features-{analysis_digest()}.sqlite"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.update(_lock=None, _conn=None, _pid=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ lookups

    def touch(self, doc_id: str, level: Level) -> None:
        """Make `doc_id`'s results at `level` this process's: from the store, or analysed now
        (and stored). An id the corpus does not hold is left alone (the tool says so)."""
        key = (doc_id, level)
        if key in self._touched:
            return
        with self._lock:
            if key in self._touched:
                return
            doc = self.corpus.get(doc_id)
            if doc is not None:
                stored = self._read(doc_id, level)
                if stored is not None:
                    seed(stored)
                    self.loaded += 1
                else:
                    self._write([(doc_id, level, analyse(doc, level))])
                    self.analysed += 1
            self._touched.add(key)

    def precompute(self, levels: Iterable[Level] = LEVELS) -> None:
        """Make every document's results at `levels` this process's: the stored ones loaded
        in one pass, the others analysed (and stored) now."""
        wanted = {(doc.id, level) for doc in self.corpus for level in levels} - self._touched
        with self._lock, paused_gc():  # millions of small records that live as long as the process
            conn = self._connect()
            if conn is not None:
                try:
                    for doc_id, level, blob in conn.execute("SELECT doc_id, level, record FROM features"):
                        if (doc_id, level) in wanted:
                            seed(pickle.loads(blob))
                            self._touched.add((doc_id, level))
                            self.loaded += 1
                except (sqlite3.Error, *_UNREADABLE):
                    self._give_up()
            fresh = []
            for doc in self.corpus:
                for level in levels:
                    if (doc.id, level) not in self._touched:
                        fresh.append((doc.id, level, analyse(doc, level)))
                        self._touched.add((doc.id, level))
                if len(fresh) >= 256:
                    self._write(fresh)
                    self.analysed, fresh = self.analysed + len(fresh), []
            self._write(fresh)
            self.analysed += len(fresh)
        # What was loaded lives as long as the process: out of the collector's sight, so that a
        # later full collection does not walk millions of records (measured: a one-pass batch
        # of 2Wiki-500 spent 1.6 s of 10.5 s in two such collections; 0.1 s frozen).
        gc.freeze()

    # ------------------------------------------------------------------ the store file

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        path = self.path
        if path is None or self._broken:
            return None
        # A connection is not shared with forked workers: each process opens its own.
        if not path.parent.is_dir():  # the index was not cached: nor are its features
            self._broken = True
            return None
        meta = {"format": str(FORMAT), "fingerprint": self.corpus.fingerprint, "analysis": analysis_digest()}
        try:
            conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")  # a cache: a torn write is a miss next time
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.execute("CREATE TABLE IF NOT EXISTS features (doc_id TEXT NOT NULL, level TEXT NOT NULL, "
                         "record BLOB NOT NULL, PRIMARY KEY (doc_id, level))")
            stored = dict(conn.execute("SELECT key, value FROM meta"))
            if stored != meta:  # another corpus's or another code's file: start it over
                conn.execute("DELETE FROM features")
                conn.execute("DELETE FROM meta")
                conn.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
            conn.execute("COMMIT")
        except (sqlite3.Error, OSError):
            self._give_up()
            return None
        self._conn, self._pid = conn, os.getpid()
        self._remove_stale(path)
        return conn

    @staticmethod
    def _remove_stale(path: Path) -> None:
        """Files of an older analysis beside this one: nothing will read them again."""
        for other in path.parent.glob("doc-features-*.sqlite*"):
            if not other.name.startswith(path.name):
                try:
                    other.unlink()
                except OSError:
                    pass

    def _give_up(self) -> None:
        self._broken = True
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
        self._conn = None

    def _read(self, doc_id: str, level: Level) -> Record | None:
        conn = self._connect()
        if conn is None:
            return None
        try:
            row = conn.execute("SELECT record FROM features WHERE doc_id = ? AND level = ?", (doc_id, level)).fetchone()
            return None if row is None else pickle.loads(row[0])
        except (sqlite3.Error, *_UNREADABLE):
            self._give_up()  # unreadable: this process analyses instead
            return None

    def _write(self, rows: list[tuple[str, Level, Record]]) -> None:
        conn = self._connect() if rows else None
        if conn is None:
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT OR IGNORE INTO features VALUES (?, ?, ?)",
                             [(d, lv, pickle.dumps(r, protocol=pickle.HIGHEST_PROTOCOL)) for d, lv, r in rows])
            conn.execute("COMMIT")
        except sqlite3.Error:
            self._give_up()
