"""Fixtures shared by the test files: a private index cache, one loaded research kit, a tiny
model, and (for `-m vllm`) the Python that has vLLM."""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


class _NoBareLayerNames(importlib.abc.MetaPathFinder):
    """Fails any import of a bare layer name (`runtime`, `eval`, ...) during the tests.

    pytest runs from the repository root, where the layer folders are importable by their bare
    names, so code that says `resources.files("runtime")` would pass here and fail installed.
    """

    LAYERS = frozenset({"runtime", "trajectories", "filters", "training", "eval"})

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201 - importlib's signature
        if name.split(".")[0] in self.LAYERS:
            raise ImportError(f"bare layer import {name!r}: use citeloop.{name}")
        return None


sys.meta_path.insert(0, _NoBareLayerNames())

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
