"""Memos of pure functions of text: the per-process store behind the per-corpus features.

A run analyses the same static text over and over: the sentences of every page it reads are
tokenised, stemmed, searched for numbers and screened for injections when they are read, again
when each claim is aligned to them and again in the reverse check, and every branch rollout of
`export pairs` or `headroom` does it all once more. The functions that do it are pure functions
of their argument, so each keeps its results here, by argument, and computes a text once per
process. `citeloop.runtime.doc_features` fills the memos with a whole corpus at once and keeps
them on disk beside the index.

A memo returns exactly what its function returns (tests compare both on corpus text), so
results must be immutable: the functions memoised here return tuples, and their public
wrappers hand callers a fresh list where the contract is a list. A memo is bounded: past
`maxsize` entries the oldest go first, which costs time, never a different result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_MAXSIZE = 1 << 18
"""Entries per memo: room for the shipped corpora together (2Wiki's alone fills about 100,000
entries of `text.tokenize`)."""

MEMOS: dict[str, Memo] = {}
"""Every memo by name, for `clear_all`, `disabled` and the corpus feature files."""

_ENABLED = [True]


class Memo(Generic[K, V]):
    """One pure function's results by argument; call it like the function."""

    def __init__(self, name: str, fn: Callable[[K], V], maxsize: int = DEFAULT_MAXSIZE) -> None:
        self.name = name
        self.fn = fn
        """The function itself, uncached (tests compare it with the memo)."""
        self.maxsize = maxsize
        self._store: dict[K, V] = {}
        # Only eviction needs the lock: dict reads and single writes are atomic in CPython,
        # and two threads computing one value at once store equal values.
        self._lock = threading.Lock()

    def __call__(self, key: K) -> V:
        try:
            return self._store[key]
        except KeyError:
            pass
        value = self.fn(key)
        self._put(key, value)
        return value

    def _put(self, key: K, value: V) -> None:
        if not _ENABLED[0]:
            return
        store = self._store
        if len(store) >= self.maxsize:
            with self._lock:
                while len(store) >= self.maxsize:
                    store.pop(next(iter(store)), None)
        store[key] = value

    def seed(self, items: Iterable[tuple[K, V]]) -> int:
        """Store precomputed (argument, result) pairs (the caller vouches that they are the
        function's); returns how many were new."""
        new = 0
        for key, value in items:
            if key not in self._store:
                self._put(key, value)
                new += 1
        return new

    def get(self, key: K) -> V | None:
        """The stored result for `key`, without computing it."""
        return self._store.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._store

    def __len__(self) -> int:
        return len(self._store)

    def clear(self) -> None:
        self._store.clear()


def memo(name: str, maxsize: int = DEFAULT_MAXSIZE) -> Callable[[Callable[[K], V]], Memo[K, V]]:
    """Decorator: the function as a `Memo` registered under `name`."""

    def wrap(fn: Callable[[K], V]) -> Memo[K, V]:
        if name in MEMOS:
            raise ValueError(f"a memo named {name!r} exists already")
        MEMOS[name] = made = Memo(name, fn, maxsize)
        return made

    return wrap


def clear_all() -> None:
    """Forget every stored result (a cold cache: what a fresh process sees)."""
    for m in MEMOS.values():
        m.clear()


@contextmanager
def disabled() -> Iterator[None]:
    """Within the block every memo is empty and stores nothing: the uncached path, for
    tests that compare it with the cached one. Not for use while other threads run."""
    saved = {name: dict(m._store) for name, m in MEMOS.items()}
    clear_all()
    _ENABLED[0] = False
    try:
        yield
    finally:
        _ENABLED[0] = True
        for name, m in MEMOS.items():
            m._store = saved[name]
