"""Which questions an answer change gained and lost: two `citeloop eval` outputs of one data set,
compared question by question. This is how issue 19's mechanisms are measured: one change at a
time, on each shared set, and a change that loses a question anywhere is reported, not hidden
in a net figure.

    citeloop eval --dataset 2wiki --policies heuristic --out before     # on the old code
    citeloop eval --dataset 2wiki --policies heuristic --out after      # on the new code
    python -m citeloop.eval.answer_diff before/eval.json after/eval.json [--policy heuristic] [--json]

Prints every question whose stated answer or correctness changed (`+` now right, `-` no longer
right, blank: still wrong, or still right, with another text), then the counts and the
aggregate answer, exact-match, gold-recall and search figures before and after.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from citeloop.eval.answer_loss import policy_result

FIGURES = ("answer_correct", "answer_precision", "answer_em", "answer_f1", "retrieved_recall", "all_gold_retrieved",
           "cited_precision", "searches_per_q")
"""Aggregate columns shown before and after (`citeloop eval`'s names)."""


def _policy(eval_json: object, policy: str, label: str) -> dict:
    try:
        result = policy_result(eval_json, policy)
    except ValueError as exc:
        raise ValueError(f"{label}: {exc}") from exc
    if not all("qid" in row for row in result["per_question"]):
        raise ValueError(f"{label}: per-question rows without a qid")
    return result


def answer_diff(before: object, after: object, policy: str = "heuristic") -> dict:
    """The changed questions and the figures of both sides. The two outputs must hold the same
    questions (the same data set and limit)."""
    old, new = _policy(before, policy, "before"), _policy(after, policy, "after")
    old_rows = {r["qid"]: r for r in old["per_question"]}
    new_rows = {r["qid"]: r for r in new["per_question"]}
    if set(old_rows) != set(new_rows):
        raise ValueError(f"the two outputs hold different questions ({len(set(old_rows) ^ set(new_rows))} "
                         "not in both): compare runs of the same data set and --limit")
    changed = []
    for qid, row in new_rows.items():
        was = old_rows[qid]
        if was.get("answer") == row.get("answer") and bool(was.get("answer_correct")) == bool(row.get("answer_correct")):
            continue
        mark = "+" if row.get("answer_correct") and not was.get("answer_correct") else \
            "-" if was.get("answer_correct") and not row.get("answer_correct") else " "
        changed.append({"qid": qid, "mark": mark, "gold": row.get("gold_answer"), "before": was.get("answer"),
                        "after": row.get("answer")})
    figures = {k: [old.get(k), new.get(k)] for k in FIGURES if k in old or k in new}
    return {"policy": policy, "questions": len(new_rows), "gained": sum(c["mark"] == "+" for c in changed),
            "lost": sum(c["mark"] == "-" for c in changed), "changed": changed, "figures": figures}


def _num(value: object) -> str:
    return f"{value:.4f}" if isinstance(value, (int, float)) else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    loaded = []
    for path in (args.before, args.after):
        try:
            loaded.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
            print(f"error: {path}: not a readable eval.json ({exc})", file=sys.stderr)
            return 2
    try:
        result = answer_diff(*loaded, policy=args.policy)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    for c in result["changed"]:
        print(f"{c['mark']} {c['qid']}  gold {c['gold']!r}  {c['before']!r} -> {c['after']!r}")
    print(f"{result['policy']}: {result['questions']} questions, {result['gained']} gained, {result['lost']} lost, "
          f"{len(result['changed'])} changed")
    for name, (was, now) in result["figures"].items():
        print(f"  {name:<20} {_num(was)} -> {_num(now)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
