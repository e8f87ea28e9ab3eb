"""Fixtures shared by the test files: a private index cache, one loaded research kit, a tiny
model, and (for `-m vllm`) the Python that has vLLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citeloop.runtime.session import ResearchKit


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
    from citeloop.training.base_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny", kit.corpus, seed=0)


@pytest.fixture(scope="session")
def vllm_interpreter() -> str:
    """The Python that has vLLM (`CITELOOP_VLLM_PYTHON`, else this one); skips when it has none."""
    from citeloop.training.serve import ServeError, probe_vllm, vllm_python

    python = vllm_python()
    try:
        probe_vllm(python)
    except ServeError as exc:
        pytest.skip(str(exc))
    return python
