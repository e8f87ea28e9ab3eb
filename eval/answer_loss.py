"""Where a run loses the gold answer: the diagnosis behind the answer mechanisms of issue 19.

    citeloop eval --dataset 2wiki --policies heuristic --out OUT --runs-out RUNS
    python -m citeloop.eval.answer_loss OUT/eval.json [--policy heuristic] [--show STAGE] [--out loss.json]

For every question whose stated answer is not right (yes/no questions left out: the word
"yes" is in every text), the gold answer is looked for, normalised as HotpotQA does (`citeloop.filters.answers.normalise_answer`), in what the run kept at each stage, and the
run is counted at the first stage that lost it:

- `not read`: no document the run read holds it;
- `read, not carded`: a read document holds it, no evidence card does;
- `carded, not claimed`: a card holds it, no claim of the report (nor the card a claim cites);
- `claimed, wrong span`: a claim holds it, and the answer finder chose another span (or none).

Prints a table per stage and writes JSON; `--show STAGE` lists that stage's questions.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from citeloop.filters.answers import normalise_answer
from citeloop.runtime.text import fold_accents
from citeloop.trajectories.runfile import RunFileError, read_run

STAGES = ("not read", "read, not carded", "carded, not claimed", "claimed, wrong span")


def holds(text: str, answers: Sequence[str]) -> bool:
    """Does the text hold one of the answers as whole words, after normalisation?"""
    padded = f" {normalise_answer(fold_accents(text))} "
    return any(a and f" {normalise_answer(fold_accents(a))} " in padded for a in answers)


def loss_stage(read: Iterable[str], cards: Iterable[str], claims: Iterable[str], answers: Sequence[str]) -> str:
    """The first stage that lost the answer (`STAGES`): texts read, card quotes, claim texts."""
    if any(holds(t, answers) for t in claims):
        return STAGES[3]
    if any(holds(t, answers) for t in cards):
        return STAGES[2]
    if any(holds(t, answers) for t in read):
        return STAGES[1]
    return STAGES[0]


def run_stage(path: str | Path, answers: Sequence[str]) -> str:
    """`loss_stage` of one run file."""
    run = read_run(path)
    read = [e.text for e in run.events if e.type == "text_blob"]
    cards = [e.card.quote for e in run.events if e.type == "card_created"]
    reports = [e.report for e in run.events if e.type == "report_written"]
    claims: list[str] = []
    if reports:
        quotes = {c.card_id: c.quote for c in reports[-1].evidence}
        for section in reports[-1].sections:
            for claim in section.claims:
                if claim.verdict in ("entail", "partial"):
                    claims += [claim.text, *(quotes[c] for c in claim.citations if c in quotes)]
    return loss_stage(read, cards, claims, answers)


def policy_result(eval_json: object, policy: str) -> dict:
    """One policy's results of an eval.json of `citeloop eval`, checked to hold per-question
    rows; ValueError with what is wrong otherwise."""
    policies = eval_json.get("policies") if isinstance(eval_json, dict) else None
    if not isinstance(policies, dict) or not all(
            isinstance(p, dict) and isinstance(p.get("per_question"), list)
            and all(isinstance(r, dict) for r in p["per_question"]) for p in policies.values()):
        raise ValueError("not an eval.json of `citeloop eval` (no policies with per_question rows)")
    if policy not in policies:
        raise ValueError(f"policy {policy!r} is not in this eval.json (it has: {', '.join(policies) or 'none'})")
    return policies[policy]


def answer_loss(eval_json: dict, policy: str) -> dict:
    """Stage counts and per-question rows of one policy of an eval.json written with --runs-out."""
    rows = policy_result(eval_json, policy)["per_question"]
    if rows and "run_file" not in rows[0]:
        raise ValueError("this eval.json keeps no run files: run `citeloop eval ... --runs-out DIR` first")
    lost = []
    asked = right = 0
    for row in rows:
        gold = row.get("gold_answer")
        if not gold or normalise_answer(gold) in ("yes", "no"):
            continue
        asked += 1
        if row.get("answer_correct"):
            right += 1
            continue
        stage = run_stage(row["run_file"], [gold])
        lost.append({"qid": row["qid"], "type": row.get("type"), "stage": stage, "gold": gold,
                     "answer": row.get("answer")})
    counts = Counter(r["stage"] for r in lost)
    return {"policy": policy, "questions": asked, "right": right, "stages": {s: counts.get(s, 0) for s in STAGES},
            "lost": lost}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("eval_json", type=Path)
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--show", choices=STAGES, default=None, help="list the questions lost at this stage")
    parser.add_argument("--out", type=Path, default=None, help="write the result as JSON here")
    args = parser.parse_args(argv)
    try:
        result = answer_loss(json.loads(args.eval_json.read_text(encoding="utf-8")), args.policy)
    except (OSError, ValueError, KeyError, RunFileError) as exc:  # json.JSONDecodeError is a ValueError
        print(f"error: {args.eval_json}: {exc}", file=sys.stderr)
        return 2
    print(f"{result['policy']}: {result['questions']} questions with a non-yes/no gold answer, {result['right']} right")
    print(f"{'stage':<22} {'lost':>5}")
    for stage, n in result["stages"].items():
        print(f"{stage:<22} {n:>5}")
    for row in result["lost"]:
        if row["stage"] == args.show:
            print(f"  {row['qid']}  gold {row['gold']!r}  answered {row['answer']!r}")
    write_result(args.out, result)
    return 0


def write_result(path: Path | None, result: dict) -> None:
    """Write a diagnosis result as JSON to `path` (none: nothing) and say so."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    raise SystemExit(main())
