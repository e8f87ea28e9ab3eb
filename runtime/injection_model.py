"""The learned line of the injection filter: a logistic regression over hashed word n-grams.

The filter's rules (`runtime.injection`) are phrase lists, each round fitted to the template
set just read; on a set nobody has read they catch about half. This model learns from the
same material what the rules cannot list: it is trained (`eval.train_injection_filter`) on
the sentences the rules flag in the template sets they were fitted to (the instructions and
steering attempts; planted statements are never flagged by the rules, so never positives)
against clean sentences of the 2WikiMultiHopQA corpus, and it scores every sentence the rules
let through. A sentence at or above the threshold is kept out of evidence like a flagged one.
A sentence at or above the lower `suspect_at` score is kept in the ledger but inert: it names
no bridge, counts as no source and is no claim's quote (`citeloop.runtime.injection.suspected`). What
the filter half suspects should neither steer the research nor be stated.

Features: lower-cased word unigrams and bigrams, character 4-grams of each word (with its
boundaries marked), and bigrams of Han characters, each hashed with CRC-32 into `BUCKETS`
buckets (set, not counted). The 4-grams were chosen by leave-one-set-out validation over the
`seen-N` sets (recall on the left-out set 0.874 with words alone, 0.958 with them), never on a
held-out set. Scoring needs only numpy: the weights of a sentence's buckets are summed with
the bias and squashed. The weights, the threshold and
what they were trained on ship in `runtime/data/injection_filter.npz` (written by the
training script; its threshold is the lowest at which no validation page of clean text has
a flagged sentence).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from citeloop.runtime.memo import memo

BUCKETS = 1 << 18
MODEL_PATH = Path(__file__).parent / "data" / "injection_filter.npz"

_TOKEN = re.compile(r"\w+|[^\w\s]")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def features(text: str) -> list[int]:
    """The sentence's hashed n-gram buckets, sorted and each once. `text` is already
    stripped of invisible characters (`citeloop.runtime.injection.strip_invisible`)."""
    return list(_features(text))


@memo("injection_model.features")
def _features(text: str) -> tuple[int, ...]:
    lowered = text.lower()
    tokens = _TOKEN.findall(lowered)
    han = _HAN.findall(lowered)
    buckets = {b for token in set(tokens) for b in _word_buckets(token)}
    pairs = [*(f"{a} {b}" for a, b in zip(tokens, tokens[1:])), *(a + b for a, b in zip(han, han[1:]))]
    buckets.update(_bucket(g) for g in pairs)
    return tuple(sorted(buckets))


def _bucket(gram: str) -> int:
    return zlib.crc32(gram.encode("utf-8")) % BUCKETS


@lru_cache(maxsize=1 << 16)
def _word_buckets(token: str) -> tuple[int, ...]:
    """A word's own bucket and those of its character 4-grams (so "summarisers" shares
    features with "summarise"); cached, since words repeat from sentence to sentence."""
    marked = f"<{token}>"
    return (_bucket(token), *(_bucket(marked[i : i + 4]) for i in range(max(1, len(marked) - 3))))


@memo("injection_model.feature_rows")
def _feature_rows(text: str) -> np.ndarray:
    """`features` as an index array (what scoring gathers the weights with), read-only."""
    rows = np.array(_features(text), dtype=np.intp)
    rows.flags.writeable = False
    return rows


@dataclass(frozen=True)
class InjectionModel:
    weights: np.ndarray
    """One float32 weight per bucket."""
    bias: float
    threshold: float
    """A sentence scoring at or above this is flagged."""
    suspect_at: float
    """A sentence scoring at or above this (and below `threshold`) is suspect: in the ledger, inert."""
    card: dict[str, Any]
    """What the model was trained on and how its threshold was chosen."""

    def score(self, text: str) -> float:
        """The probability, by the model, that the sentence is an injection."""
        z = float(self.weights[_feature_rows(text)].sum()) + self.bias
        return float(1.0 / (1.0 + np.exp(-z)))

    def flags(self, text: str) -> float | None:
        """The score when it reaches the threshold, else None."""
        p = self.score(text)
        return p if p >= self.threshold else None

    def suspects(self, text: str) -> float | None:
        """The score when it reaches `suspect_at`, else None."""
        p = self.score(text)
        return p if p >= self.suspect_at else None

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            np.savez_compressed(handle, weights=self.weights.astype(np.float32), bias=np.float64(self.bias),
                                threshold=np.float64(self.threshold), suspect_at=np.float64(self.suspect_at),
                                card=np.array(json.dumps(self.card, sort_keys=True)))

    @classmethod
    def load(cls, path: Path) -> InjectionModel:
        try:
            with np.load(path, allow_pickle=False) as data:
                weights = data["weights"]
                if weights.shape != (BUCKETS,):
                    raise ValueError(f"weights of shape {weights.shape}, expected ({BUCKETS},)")
                threshold = float(data["threshold"])
                # a file written before `suspect_at` existed suspects nothing below its threshold
                suspect_at = float(data["suspect_at"]) if "suspect_at" in data.files else threshold
                if not 0.0 < suspect_at <= threshold:
                    raise ValueError(f"suspect_at {suspect_at} outside (0, threshold {threshold}]")
                return cls(weights.astype(np.float32), float(data["bias"]), threshold, suspect_at,
                           json.loads(str(data["card"])))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not an injection filter model ({exc})") from exc


@lru_cache(maxsize=1)
def shipped_model() -> InjectionModel:
    """The model shipped with the package."""
    if not MODEL_PATH.exists():
        raise FileNotFoundError(f"{MODEL_PATH}: the injection filter's model is missing from this install "
                                "(rebuild it with `python -m citeloop.eval.train_injection_filter`)")
    return InjectionModel.load(MODEL_PATH)
