"""Fixtures shared by the test files: a private index cache and one loaded research kit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.session import ResearchKit


@pytest.fixture(scope="session", autouse=True)
def _private_citeloop_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """No test may read or write the user's real index cache."""
    cache = tmp_path_factory.mktemp("citeloop-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CITELOOP_CACHE", str(cache))
        yield cache


@pytest.fixture(scope="session")
def kit(tmp_path_factory: pytest.TempPathFactory) -> ResearchKit:
    """The embedded corpus and its BM25 index, built once per test session."""
    return ResearchKit.load(cache_dir=tmp_path_factory.mktemp("index"))


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, kit: ResearchKit) -> Path:
    """A tiny causal LM (tokenizer trained on the embedded corpus, 2 layers), built once per session."""
    pytest.importorskip("transformers")
    from training.base_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny", kit.corpus, seed=0)
