"""Trained policy against a rule policy on the same evaluation questions: paired differences with
95 % bootstrap intervals over questions, and the issue-24 targets checked against them.

Each evaluation question is researched once by every policy with the same budget, so the
comparison is paired: per question, trained minus baseline for gold recall (read), all gold
read, answer correct, searches and reads. The interval resamples questions (2,000 resamples,
fixed seed), so it says how much of a difference the question sample alone could make.

Targets (issue 24), each judged on the interval, not the point estimate:
- **stop**: searches per question at least 25 % below the baseline's (point estimate), the
  interval of the change in searches clear of 0, and gold recall within 1 point (the lower end
  of the recall difference's interval at or above -1 point);
- **follow / read**: all gold read (or answer correct) at least 5 points above the baseline,
  with the interval excluding 0, at no more reads (reads per question not above the baseline's).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

RESAMPLES = 2000
SEED = 0
METRICS = ("retrieved_recall", "all_gold_retrieved", "answer_correct", "searches", "reads")
"""Per-question fields compared (eval/harness.py rows)."""


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def paired_difference(ours: Sequence[float], theirs: Sequence[float], resamples: int = RESAMPLES,
                      seed: int = SEED) -> dict[str, Any]:
    """Mean of ours minus theirs over paired items, its 95 % bootstrap interval, and both means."""
    if len(ours) != len(theirs):
        raise ValueError(f"paired values differ in length: {len(ours)} vs {len(theirs)}")
    if not ours:
        return {"n": 0, "ours": None, "theirs": None, "difference": None, "ci95": None}
    diffs = [a - b for a, b in zip(ours, theirs)]
    rng = random.Random(seed)
    n = len(diffs)
    boot = sorted(_mean([diffs[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    low, high = boot[int(0.025 * resamples)], boot[min(resamples - 1, int(0.975 * resamples))]
    return {"n": n, "ours": round(_mean(ours), 4), "theirs": round(_mean(theirs), 4),
            "difference": round(_mean(diffs), 4), "ci95": [round(low, 4), round(high, 4)]}


def compare_rows(ours: Sequence[dict[str, Any]], theirs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Paired differences per metric over the questions both row lists have a value for
    (rows are matched by `qid`)."""
    by_id = {r["qid"]: r for r in theirs}
    out: dict[str, Any] = {}
    for metric in METRICS:
        pairs = [(float(r[metric]), float(by_id[r["qid"]][metric])) for r in ours
                 if r["qid"] in by_id and r.get(metric) is not None and by_id[r["qid"]].get(metric) is not None]
        out[metric] = paired_difference([a for a, _ in pairs], [b for _, b in pairs])
    s = out["searches"]
    out["searches_change"] = (round(s["difference"] / s["theirs"], 4) if s["n"] and s["theirs"] else None)
    return out


def stop_target(c: dict[str, Any]) -> dict[str, Any]:
    """>= 25 % fewer searches (the change in searches clear of 0) with gold recall within 1 point."""
    change, searches, recall = c["searches_change"], c["searches"], c["retrieved_recall"]
    fewer = change is not None and change <= -0.25 and searches["ci95"][1] < 0
    kept = recall["ci95"] is not None and recall["ci95"][0] >= -0.01
    return {"target": ">= 25% fewer searches, gold recall within 1 point", "searches_change": change,
            "recall_ci95": recall["ci95"], "met": bool(fewer and kept)}


def gain_target(c: dict[str, Any]) -> dict[str, Any]:
    """>= +5 points all gold read or answer correct (interval clear of 0) at no more reads."""
    reads = c["reads"]
    equal_reads = reads["difference"] is not None and reads["difference"] <= 0
    best = None
    for metric in ("all_gold_retrieved", "answer_correct"):
        d = c[metric]
        if d["difference"] is not None and d["difference"] >= 0.05 and d["ci95"][0] > 0:
            best = metric
    return {"target": ">= +5 points all gold read or answer correct at equal reads",
            "all_gold_ci95": c["all_gold_retrieved"]["ci95"], "answer_ci95": c["answer_correct"]["ci95"],
            "reads_difference": reads["difference"], "met": bool(best and equal_reads), "by": best}


def judge(kinds: Sequence[str], c: dict[str, Any]) -> dict[str, Any]:
    """The targets of the trained decision kinds, each checked on comparison `c`."""
    out = {}
    if "stop" in kinds:
        out["stop"] = stop_target(c)
    if any(k in kinds for k in ("follow", "read", "angle")):
        out["gain"] = gain_target(c)
    return out
