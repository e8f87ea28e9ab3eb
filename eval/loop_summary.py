"""Loop runs side by side: what each `citeloop loop` report says, without its per-question rows.

    python -m citeloop.eval.loop_summary loop-out/*/report.json [--out loop-runs.json]

A loop's `report.json` holds every evaluation row (half a megabyte and more); this keeps, per
report, what a reader compares across recipes: the policies' table, the trained policy's paired
differences from the heuristic with their 95 % intervals and targets, the fitted thresholds
(without their candidate lists), the oracle's gain, the training rows and the training run's
speed. Prints one line per report and per evaluation set, and writes the summaries as strict
JSON (an infinite threshold is written as the string "inf").
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from citeloop.eval.loop_report import interval_text

TRAINING_KEYS = ("kind", "rows", "steps", "seconds_per_step", "tokens_per_second", "threads", "device",
                 "train_seconds")


class SummaryError(ValueError):
    """A file that is not a loop report; the message says which and why."""


def summarise(report: dict[str, Any]) -> dict[str, Any]:
    """The comparable part of one loop report (module docstring)."""
    missing = [k for k in ("name", "policies", "trained_vs_heuristic") if k not in report]
    if missing:
        raise SummaryError(f"not a loop report (no {', '.join(missing)})")
    training = report.get("training") or {}
    final = training.get("final_metrics") or {}
    return _finite({
        "name": report["name"],
        "config": report.get("config"),
        "trained_kinds": report.get("trained_kinds", []),
        "questions": report.get("questions"),
        "timings_s": report.get("timings_s"),
        "policies": report["policies"],
        "trained_vs_heuristic": report["trained_vs_heuristic"],
        "calibration": {kind: {k: v for k, v in fit.items() if k != "candidates"}
                        for kind, fit in (report.get("calibration") or {}).items()},
        "oracle_gain": _oracle_gain(report.get("oracle")),
        "pairs": report.get("pairs"),
        "training": {**{k: training.get(k) for k in TRAINING_KEYS}, "final_loss": final.get("loss"),
                     "mean_loss": final.get("train_loss")},
    })


ORACLE_KEYS = ("decisions", "winning", "all_gold_gain", "searches_at_equal_recall")


def _oracle_gain(oracle: dict[str, Any] | None) -> dict[str, Any] | None:
    """Per evaluation set and trained kind, the headroom oracle's decisions won and its gain
    (all gold read, or searches saved at equal recall); why it was skipped, when it was."""
    if not oracle:
        return None
    if "skipped" in oracle:
        return {"skipped": oracle["skipped"]}
    return {set_name: {kind: {k: v.get(k) for k in ORACLE_KEYS} for kind, v in (by_set.get("kinds") or {}).items()}
            for set_name, by_set in (oracle.get("sets") or {}).items()}


def _finite(value: Any) -> Any:
    """The value with every infinite or NaN float written as a string, so the JSON is strict."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def lines(summary: dict[str, Any]) -> list[str]:
    """One line per evaluation set: trained minus heuristic, with intervals, and whether a target is met."""
    out = []
    for set_name, c in summary["trained_vs_heuristic"].items():
        parts = [f"{summary['name']:<34} {set_name:<9}"]
        for metric, label in (("all_gold_retrieved", "all gold"), ("answer_correct", "answer"),
                              ("retrieved_recall", "recall")):
            d = c.get(metric)
            if d and d.get("difference") is not None:
                parts.append(f"{label} {interval_text(d)}")
        if c.get("searches_change") is not None:
            parts.append(f"searches {100 * c['searches_change']:+.1f} %")
        met = [name for name, t in (c.get("targets") or {}).items() if t.get("met")]
        parts.append(f"target met: {', '.join(met) if met else 'no'}")
        out.append("  ".join(parts))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", type=Path, nargs="+", help="loop report.json files")
    parser.add_argument("--out", type=Path, default=None, help="write the summaries as JSON here")
    args = parser.parse_args(argv)
    summaries, table = [], []
    for path in args.reports:
        try:
            summary = summarise(json.loads(path.read_text(encoding="utf-8")))
            table += lines(summary)
        except (OSError, ValueError, AttributeError, TypeError, KeyError) as exc:  # JSONDecodeError is a ValueError
            print(f"error: {path}: {exc}", file=sys.stderr)
            return 2
        summaries.append(summary)
    print("\n".join(table))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summaries, indent=2, ensure_ascii=False, allow_nan=False) + "\n",
                            encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
