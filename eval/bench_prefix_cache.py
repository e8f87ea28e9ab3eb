"""Prefix-cache benchmark: whole-option scoring of read decisions by the transformers server,
with and without its prefix cache, in one run.

    python -m citeloop.eval.bench_prefix_cache --model models/base [--sets hotpotqa,musique]
                                               [--limit 10] [--out bench-out/prefix-cache.json]

The heuristic researches the first `--limit` questions of each set; every read decision of
those runs with at least two hits is rendered as the read policy under a deferral margin asks it
(template version 3; the heuristic's reads, then those plus each unread hit), and each option is
scored as a whole reply by `ChatModel.choose` (what the server does for a scoring request, without
HTTP): once with the prefix cache off and once on, alternating which goes first, on the same
model, with CITELOOP_TORCH_THREADS torch threads. Reported: seconds per decision (median and total) of each and their ratio, the tokens each
ran through the model, whether both chose the same option on every decision, and the largest
difference of an option's score (float rounding only). Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from citeloop.eval.bench_prompts import heuristic_runs
from citeloop.eval.datasets import model_folder_or_error, sets_or_error
from citeloop.runtime.policies.actions import format_action
from citeloop.runtime.policies.prompts import recorded_action, render_prompt
from citeloop.runtime.session import ResearchKit

PROMPT_VERSION = 3


def read_decisions(name: str, kit: ResearchKit, limit: int, out: Path) -> list[tuple[list[dict], list[str]]]:
    """(prompt messages, option texts) for every read decision with two or more hits."""
    decisions = []
    for run, ctx in heuristic_runs(name, kit, limit, out):
        for event in run.events:
            if event.type != "read_decision" or len(event.candidates) < 2:
                continue
            n, chosen = len(event.candidates), recorded_action(event)
            options = [chosen] + [(*chosen, i) for i in range(n) if i not in chosen]
            texts = [format_action("read", option, n) for option in options]
            decisions.append((render_prompt(event, ctx, version=PROMPT_VERSION)[0], texts))
    return decisions


def measure(decisions: list[tuple[list[dict], list[str]]], model_dir: Path) -> dict:
    from citeloop.training.hf_server import ChatModel
    from citeloop.training.train_config import threads_from_env

    threads = threads_from_env()  # CITELOOP_TORCH_THREADS, as the loop's server
    models = {cached: ChatModel(model_dir, threads, prefix_cache=cached) for cached in (False, True)}
    seconds: dict[bool, list[float]] = {False: [], True: []}
    same, largest = 0, 0.0
    for i, (messages, texts) in enumerate(decisions):
        chosen, scores = {}, {}
        for cached in ((False, True) if i % 2 == 0 else (True, False)):
            model = models[cached]
            started = time.perf_counter()
            chosen[cached] = model.choose(messages, texts)[0]
            seconds[cached].append(time.perf_counter() - started)
            ids = [model.prefill_logprobs([*messages, {"role": "assistant", "content": t}], closed=True)[1]
                   for t in texts[:2]]
            scores[cached] = [sum(lps) for lps in ids]
        same += chosen[False] == chosen[True]
        largest = max(largest, *(abs(a - b) for a, b in zip(scores[False], scores[True])))
    off, on = sum(seconds[False]), sum(seconds[True])
    return {"decisions": len(decisions), "options_per_decision": round(statistics.mean(len(t) for _, t in decisions), 2),
            "median_s": {"off": round(statistics.median(seconds[False]), 3), "on": round(statistics.median(seconds[True]), 3)},
            "total_s": {"off": round(off, 2), "on": round(on, 2)}, "speedup": round(off / on, 2) if on else None,
            "tokens_run": {"off": models[False].tokens_run, "on": models[True].tokens_run},
            "same_choice": same, "largest_score_difference": largest}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True, help="a model folder (e.g. models/base)")
    parser.add_argument("--sets", default="hotpotqa,musique")
    parser.add_argument("--limit", type=int, default=10, help="questions per set")
    parser.add_argument("--out", type=Path, default=Path("bench-out/prefix-cache.json"))
    args = parser.parse_args(argv)
    names = sets_or_error(args.sets)
    if names is None:
        return 2
    if not model_folder_or_error(args.model):
        return 2
    kit = ResearchKit.load()
    with tempfile.TemporaryDirectory(prefix="citeloop-bench-prefix-cache-") as tmp:
        decisions = [d for name in names for d in read_decisions(name, kit, args.limit, Path(tmp) / name)]
    if not decisions:
        print("error: the heuristic's runs made no read decision with two or more hits", file=sys.stderr)
        return 2
    result = {"model": str(args.model), "sets": names, "limit": args.limit, **measure(decisions, args.model)}
    print(f"{'cache':6}{'decisions':>10}{'options':>9}{'median s':>10}{'total s':>9}{'tokens run':>12}")
    for key, label in ((False, "off"), (True, "on")):
        print(f"{label:6}{result['decisions']:>10}{result['options_per_decision']:>9}{result['median_s'][label]:>10}"
              f"{result['total_s'][label]:>9}{result['tokens_run'][label]:>12}")
    print(f"speed-up {result['speedup']}x; same choice on {result['same_choice']} of {result['decisions']}; "
          f"largest score difference {result['largest_score_difference']:.2e}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
