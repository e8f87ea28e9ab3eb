"""PNG charts of an evaluation (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first


def quality_cost_chart(policies: dict[str, dict[str, Any]], path: Path, title: str,
                       baseline: dict[str, Any] | None = None) -> Path:
    """Evidence recall (retrieved, and cited) against searches per question, one point per policy."""
    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=110)
    for i, (name, r) in enumerate(policies.items()):
        x = r.get("searches_per_q") or 0.0
        color = f"C{i}"
        if r.get("retrieved_recall") is not None:
            ax.scatter([x], [r["retrieved_recall"]], color=color, marker="o", s=60, label=f"{name} (retrieved)")
            ax.annotate(name, (x, r["retrieved_recall"]), textcoords="offset points", xytext=(6, 4), fontsize=8)
        if r.get("cited_recall") is not None:
            ax.scatter([x], [r["cited_recall"]], color=color, marker="x", s=60, label=f"{name} (cited)")
    if baseline and baseline.get("doc_recall") is not None:
        ax.scatter([1.0], [baseline["doc_recall"]], color="grey", marker="s", s=50,
                   label=f"BM25 top-{baseline['k']} (1 search, no reads)")
    ax.set_xlabel("searches per question")
    ax.set_ylabel("gold evidence recall")
    ax.set_ylim(0, 1.02)
    ax.set_xlim(left=0)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return path


def confusion_chart(confusion: dict[str, dict[str, int]], path: Path, title: str) -> Path:
    """A confusion matrix heat map: rows gold, columns predicted."""
    labels = list(confusion)
    grid = [[confusion[g][p] for p in labels] for g in labels]
    fig, ax = plt.subplots(figsize=(5.2, 4.4), dpi=110)
    ax.imshow(grid, cmap="Blues")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    peak = max((v for row in grid for v in row), default=0)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            ax.text(j, i, str(v), ha="center", va="center", fontsize=9,
                    color="white" if peak and v > peak / 2 else "black")
    ax.set_xlabel("verifier (mapped)")
    ax.set_ylabel("gold")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return path
