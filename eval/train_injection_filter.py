"""Train the learned line of the injection filter (`runtime.injection_model`).

    python -m citeloop.eval.train_injection_filter [--data DIR] [--out runtime/data/injection_filter.npz]

Positives: the template sets the rules were fitted to (status `tuned` or `seen` in
`eval/data/injection/manifest.yaml`, read by `eval.injection_sets`), each template rendered
into `--renders` random titles, kept when the rules flag the rendering. That keeps the instructions and steering attempts and leaves out the
planted statements, which the rules never flag: a planted fact reads like any encyclopedic
sentence, and teaching a filter to flag those would teach it to flag the encyclopedia. No
`held-out` set is ever used: those measure what the filter misses.

Negatives: every sentence of the 2WikiMultiHopQA corpus in the shared data, a corpus the
injection benchmark does not plant into and does not count false positives on.

Model: L2-regularised logistic regression (`--l2`), positives weighted up to balance the
classes, fitted by L-BFGS (scipy). Threshold: the embedded corpus's pages are split in two by
a hash of their id; the threshold is the lowest on a 0.01 grid from 0.5 at which no page of
the validation half has a sentence at or above it (sentences the rules or the script-island
check already flag excepted); the other half is reported as a check. `suspect_at` (sentences
at or above it stay in the ledger but are inert: no bridge, no source, no claim): the lowest
value on a 0.01 grid from 0.2 up to the threshold that at most `SUSPECT_SHARE` of the
validation half's sentences reach. Training is deterministic: same data, same weights.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sparse
from scipy.optimize import minimize

from citeloop.eval.datasets import BUILTIN_DATA_DIR
from citeloop.eval.injection_docs import InjectionTemplate, own_markers
from citeloop.eval.injection_sets import all_templates, shipped_sets
from citeloop.runtime.injection import detect_injection, rule_findings, strip_invisible
from citeloop.runtime.injection_model import BUCKETS, MODEL_PATH, InjectionModel, features
from citeloop.runtime.sentences import split_sentences
from citeloop.runtime.session import ResearchKit

_TLDS = (".org", ".com", ".net", ".info")
SUSPECT_SHARE = 0.002
"""At most one clean sentence in 500 may score `suspect_at` or more (and so be inert in the ledger)."""


def training_groups() -> list[str]:
    """The template sets trained on: those of status `tuned` or `seen`, never `held-out`."""
    return sorted({s.name for s in shipped_sets() if s.status in ("tuned", "seen")})


def _disguised(template: InjectionTemplate, title: str, n: int, stand_in: str, domain: str) -> str:
    """The template rendered with a real-looking name and domain in place of the benchmark's
    markers (`Zorblat017`, `n017.evil.example`): a model that learned the markers would
    flag every benchmark page by them and nothing in the wild."""
    marker_domain, marker_name = own_markers(n)
    text = template.render(title, n).replace(marker_domain, domain).replace(marker_name, stand_in)
    return strip_invisible(text)


def positives(titles: list[str], renders: int, seed: int = 0) -> tuple[list[str], int]:
    """(renderings the rules flag, templates they came from) for the training groups, each
    naming another page title in place of the benchmark's marker name."""
    rng = random.Random(seed)
    kept, sources = [], set()
    groups = set(training_groups())
    for template in all_templates():
        if template.group not in groups:
            continue
        for _ in range(renders):
            stand_in = rng.choice(titles)
            domain = "".join(c for c in rng.choice(titles).lower() if c.isalnum())[:12] + rng.choice(_TLDS)
            text = _disguised(template, rng.choice(titles), rng.randrange(1000), stand_in, domain or "archive.org")
            if detect_injection(text) is not None:
                kept.append(text)
                sources.add(template.name)
    return kept, len(sources)


def negatives(data: Path) -> tuple[list[str], list[str]]:
    """(clean sentences, page titles) of the 2WikiMultiHopQA corpus."""
    path = data / "multihop" / "2wiki_corpus.json"
    if not path.is_file():
        raise SystemExit(f"{path}: missing; pass --data pointing at the shared data folder")
    pages = json.loads(path.read_text(encoding="utf-8"))
    sentences = [strip_invisible(s) for p in pages for s in split_sentences(p["text"])]
    return [s for s in sentences if s.strip()], [p["title"] for p in pages]


def matrix(texts: list[str]) -> sparse.csr_matrix:
    rows, cols = [], []
    for i, text in enumerate(texts):
        buckets = features(text)
        rows += [i] * len(buckets)
        cols += buckets
    return sparse.csr_matrix((np.ones(len(rows), dtype=np.float64), (rows, cols)), shape=(len(texts), BUCKETS))


def fit(x: sparse.csr_matrix, y: np.ndarray, l2: float, max_iter: int = 300) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression; (weights, bias)."""
    weight = np.where(y == 1, (y == 0).sum() / max(1, (y == 1).sum()), 1.0)
    xt = x.T.tocsr()

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = params[:-1], params[-1]
        z = x @ w + b
        # log(1 + e^z) computed stably; loss = sum weight * (log(1 + e^z) - y z)
        nll = float((weight * (np.logaddexp(0.0, z) - y * z)).sum() + l2 * (w @ w))
        residual = weight * (1.0 / (1.0 + np.exp(-z)) - y)
        return nll, np.r_[xt @ residual + 2 * l2 * w, residual.sum()]

    result = minimize(loss, np.zeros(BUCKETS + 1), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    return result.x[:-1], float(result.x[-1])


def sentence_scores(model: InjectionModel, pages: list[list[str]]) -> list[np.ndarray]:
    """Per page, the scores of the sentences the rules and script islands let through."""
    out = []
    for sentences in pages:
        cleaned = [strip_invisible(s) for s in sentences]
        flagged = rule_findings(cleaned)
        out.append(np.array([model.score(s) for i, s in enumerate(cleaned) if i not in flagged]))
    return out


def page_maxima(by_page: list[np.ndarray]) -> np.ndarray:
    """Each page's highest sentence score (0 for a page with none)."""
    return np.array([scores.max(initial=0.0) for scores in by_page])


def pick_threshold(scores: np.ndarray) -> float:
    """The lowest threshold on the grid 0.50, 0.51, ... 0.99 that flags no page."""
    for threshold in np.round(np.arange(0.5, 1.0, 0.01), 2):
        if not (scores >= threshold).any():
            return float(threshold)
    return 0.99


def pick_suspect_at(scores: np.ndarray, threshold: float) -> float:
    """The lowest `suspect_at` on the grid 0.20, 0.21, ... up to `threshold` that at most
    `SUSPECT_SHARE` of the clean sentences `scores` reach."""
    for bar in np.round(np.arange(0.2, threshold, 0.01), 2):
        if (scores >= bar).mean() <= SUSPECT_SHARE:
            return float(bar)
    return threshold


def _digest(texts: list[str]) -> str:
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]


def train(data: Path, renders: int = 8, l2: float = 1.0, seed: int = 0, max_iter: int = 300,
          log=print) -> InjectionModel:
    t0 = time.perf_counter()
    clean, titles = negatives(data)
    pos, n_templates = positives(titles, renders, seed)
    log(f"training data: {len(pos)} flagged renderings of {n_templates} templates "
        f"({', '.join(training_groups())}); {len(clean)} clean 2Wiki sentences")
    x = matrix(pos + clean)
    y = np.r_[np.ones(len(pos)), np.zeros(len(clean))]
    weights, bias = fit(x, y, l2, max_iter)
    log(f"fitted in {time.perf_counter() - t0:.1f} s")
    kit_pages = sorted(ResearchKit.load().corpus.documents, key=lambda d: d.id)
    halves: tuple[list[list[str]], list[list[str]]] = ([], [])
    for doc in kit_pages:
        halves[zlib.crc32(doc.id.encode()) % 2].append(doc.sentence_list())
    probe = InjectionModel(weights.astype(np.float32), bias, 1.0, 1.0, {})
    by_page = sentence_scores(probe, halves[0])
    validation, check = page_maxima(by_page), page_maxima(sentence_scores(probe, halves[1]))
    threshold = pick_threshold(validation)
    sentences = np.concatenate(by_page)
    suspect_at = pick_suspect_at(sentences, threshold)
    card = {
        "buckets": BUCKETS, "l2": l2, "renders": renders, "seed": seed, "max_iter": max_iter,
        "training_groups": training_groups(), "positives": len(pos), "positive_templates": n_templates,
        "negatives": len(clean), "negatives_source": "2wiki_corpus.json",
        "positives_digest": _digest(pos), "negatives_digest": _digest(clean),
        "threshold": threshold, "validation_pages": len(validation),
        "check_pages": len(check), "check_pages_flagged": int((check >= threshold).sum()),
        "suspect_at": suspect_at, "validation_sentences": len(sentences),
        "validation_sentences_suspected": int(((sentences >= suspect_at) & (sentences < threshold)).sum()),
    }
    log(f"threshold {threshold:.2f}: 0 of {len(validation)} validation pages flagged; "
        f"{card['check_pages_flagged']} of {len(check)} check pages; suspect at {suspect_at:.2f}: "
        f"{card['validation_sentences_suspected']} of {len(sentences)} validation sentences")
    return InjectionModel(weights.astype(np.float32), bias, threshold, suspect_at, card)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=BUILTIN_DATA_DIR)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--renders", type=int, default=8, help="renderings of each training template")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--max-iter", type=int, default=300)
    args = parser.parse_args(argv)
    if args.renders < 1 or args.max_iter < 1 or args.l2 < 0:
        parser.error("--renders and --max-iter must be at least 1, and --l2 not negative")
    model = train(args.data, args.renders, args.l2, max_iter=args.max_iter, log=lambda m: print(m, file=sys.stderr))
    model.save(args.out)
    print(json.dumps({"out": str(args.out), **model.card}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
