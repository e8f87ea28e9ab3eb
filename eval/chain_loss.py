"""Where a multi-hop chain breaks: each hop of a MuSiQue question against its gold decomposition.

    citeloop eval --dataset musique --policies heuristic --out OUT --runs-out RUNS
    python -m citeloop.eval.chain_loss OUT/eval.json [--data FILE] [--policy heuristic] [--show] [--out chain.json]

MuSiQue gives every question its chain: the sub-questions, each one's answer and the paragraph
that states it. For each run this reads, from the run file:

- **first hop followed**: the first hop's gold answer stands, as whole words after
  normalisation, among the names the run put into the next hop (the first "dependencies
  answered" status change);
- **last page read**: the run read the paragraph that states the final answer;
- **planned depth**: the longest chain of hops in the run's plan (`plan_gate.hops_after`),
  against the gold chain's length.

It prints, per question type (`2hop`, `3hop1`, ... from the id) and in all: questions, right
answers, first hop followed, right among those, last page read among the followed but wrong,
and plans as deep as the gold chain; `--show` lists the followed-but-wrong questions. The
answer of `answer_loss` is where a gold string is lost; this one is which hop lost the chain.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from citeloop.eval.answer_loss import holds, policy_result, write_result
from citeloop.eval.datasets import BUILTIN_DATA_DIR
from citeloop.runtime.plan_gate import hops_after
from citeloop.trajectories.runfile import RunFile, RunFileError, read_run

DEFAULT_DATA = BUILTIN_DATA_DIR / "multihop" / "musique_100.json"
COLUMNS = ("questions", "right", "followed", "right_followed", "last_read_wrong", "planned_depth")


class _NanIsNone(ast.NodeTransformer):
    """A bare `nan` in a written Python literal (pandas' missing value) read as None."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Constant(None), node) if node.id == "nan" else node


def _listed(value: object, what: str) -> list[dict]:
    """A field of a MuSiQue row: a list, or the same written as a Python literal (the shared
    copies keep some that way, with `nan` for a missing value)."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(_NanIsNone().visit(ast.parse(value, mode="eval")))
        except (ValueError, SyntaxError) as exc:
            raise ValueError(f"{what} is not a list: {exc}") from None
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValueError(f"{what} is not a list of objects")
    return value


def chain_row(decomposition: Sequence[dict], paragraphs: Sequence[dict], run: RunFile) -> dict:
    """What one run did with its question's gold chain (module docstring)."""
    fills = [e.reason for e in run.events
             if e.type == "subq_status_changed" and e.reason.startswith("dependencies answered")]
    read = {e.title for e in run.events if e.type == "document_read" and e.status == "ok"}
    plans = [e.plan for e in run.events if e.type == "plan_created"]
    depth = 1 + max((hops_after(plans[0], s.id) for s in plans[0].sub_questions), default=0) if plans else 0
    last = paragraphs[decomposition[-1]["paragraph_support_idx"]]["title"]
    return {"followed": bool(fills) and holds(fills[0], [decomposition[0]["answer"]]),
            "last_read": last in read, "planned_depth": depth, "gold_depth": len(decomposition), "last_page": last}


def chain_loss(eval_json: dict, rows: Sequence[dict], policy: str) -> dict:
    """Per-type counts (`COLUMNS`) and per-question rows of one policy of an eval.json written
    with --runs-out, against the MuSiQue rows (`id`, `question_decomposition`, `paragraphs`)."""
    per_question = policy_result(eval_json, policy)["per_question"]
    if per_question and "run_file" not in per_question[0]:
        raise ValueError("this eval.json keeps no run files: run `citeloop eval ... --runs-out DIR` first")
    gold = {str(r.get("id")): r for r in rows}
    out, counts = [], {}
    for row in per_question:
        item = gold.get(str(row["qid"]))
        if item is None:
            raise ValueError(f"question {row['qid']!r} is not in the MuSiQue file (another data set?)")
        decomposition = _listed(item.get("question_decomposition"), f"{row['qid']}: question_decomposition")
        paragraphs = _listed(item.get("paragraphs"), f"{row['qid']}: paragraphs")
        chain = chain_row(decomposition, paragraphs, read_run(row["run_file"]))
        right = bool(row.get("answer_correct"))
        kind = str(row["qid"]).split("__")[0]
        out.append({"qid": row["qid"], "type": kind, "right": right, "answer": row.get("answer"),
                    "gold": row.get("gold_answer"), **chain})
        for key in (kind, "all"):
            c = counts.setdefault(key, dict.fromkeys(COLUMNS, 0))
            c["questions"] += 1
            c["right"] += right
            c["followed"] += chain["followed"]
            c["right_followed"] += chain["followed"] and right
            c["last_read_wrong"] += chain["followed"] and not right and chain["last_read"]
            c["planned_depth"] += chain["planned_depth"] == chain["gold_depth"]
    return {"policy": policy, "types": dict(sorted(counts.items(), key=lambda kv: (kv[0] == "all", kv[0]))),
            "questions": out}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("eval_json", type=Path)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the MuSiQue question file (default: shipped)")
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--show", action="store_true", help="list the questions whose first hop was followed, answered wrong")
    parser.add_argument("--out", type=Path, default=None, help="write the result as JSON here")
    args = parser.parse_args(argv)
    try:
        rows = json.loads(args.data.read_text(encoding="utf-8"))
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError("not a list of MuSiQue questions")
        result = chain_loss(json.loads(args.eval_json.read_text(encoding="utf-8")), rows, args.policy)
    except (OSError, ValueError, KeyError, IndexError, TypeError, RunFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{'type':<8}{'questions':>10}{'right':>7}{'followed':>10}{'right|fol':>11}{'last read|fol,wrong':>21}"
          f"{'depth ok':>10}")
    for kind, c in result["types"].items():
        print(f"{kind:<8}{c['questions']:>10}{c['right']:>7}{c['followed']:>10}{c['right_followed']:>11}"
              f"{c['last_read_wrong']:>21}{c['planned_depth']:>10}")
    print("(followed: the first hop's gold answer among the names put into the next hop; last read: the paragraph "
          "stating the final answer was read; depth ok: the plan's longest chain as long as the gold chain)")
    if args.show:
        for q in result["questions"]:
            if q["followed"] and not q["right"]:
                print(f"  {q['qid']}  last page {'read' if q['last_read'] else 'not read'} ({q['last_page']})  "
                      f"gold {q['gold']!r}  answered {q['answer']!r}")
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
