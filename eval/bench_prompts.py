"""Prompt-size benchmark: decision prompts in template version 1 against versions 2 and 3 (compact).

    python -m citeloop.eval.bench_prompts --model models/base [--sets hotpotqa,musique,2wiki]
                                          [--limit 60] [--steps 3] [--out bench-out/prompts.json]

The heuristic researches the first `--limit` questions of each set; every decision of those
runs is rendered in both versions and measured in the model's tokens (chat template
included): median, 90th percentile and maximum per kind and set. Then the cost of a training
step on each version, in the same run: for each kind, batches of 4 rows (prompt and action
line) of that kind go through one forward and backward pass of the model, `--steps` times per
version, alternating, and the median seconds per step and the v2/v1 ratio are reported (the
machine is noisy; the ratio is what to read). Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from citeloop.eval.bench_runtime import kit_for
from citeloop.eval.datasets import BUILTIN_DATA_DIR, load_eval_set, model_folder_or_error, sets_or_error
from citeloop.runtime.config import load_config
from citeloop.runtime.policies.actions import KIND_OF_EVENT, format_action
from citeloop.runtime.policies.prompts import RunContext, candidate_count, recorded_action, render_prompt
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import RunFile, read_run

VERSIONS = (1, 2, 3)
"""Template versions rendered and counted in tokens (3 is 2 with one more line in the angle prompt)."""
STEP_VERSIONS = (1, 2)
"""Template versions timed in a training step (3 costs what 2 does but for the angle prompt's line)."""


def heuristic_runs(name: str, kit: ResearchKit, limit: int, out: Path) -> Iterator[tuple[RunFile, RunContext]]:
    """Each of the heuristic's runs on the first `limit` questions of set `name` (written under
    `out`), with its prompt context."""
    eval_set = load_eval_set(name, BUILTIN_DATA_DIR).limit(limit)
    set_kit = kit_for(eval_set, kit)
    config = load_config(None, dict(eval_set.config_overrides))
    for q in eval_set.questions:
        run = read_run(run_research(q.question, set_kit, config, out_dir=out)[1])
        yield run, RunContext.of(run)


def rendered_rows(name: str, kit: ResearchKit, limit: int, out: Path) -> list[tuple[str, dict[int, list[dict]]]]:
    """(kind, {version: messages with the recorded action}) for every decision of the heuristic's runs."""
    rows = []
    for run, ctx in heuristic_runs(name, kit, limit, out):
        for event in run.events:
            if event.type not in KIND_OF_EVENT or not candidate_count(event):
                continue
            kind = KIND_OF_EVENT[event.type]
            action = {"role": "assistant", "content": format_action(kind, recorded_action(event), candidate_count(event))}
            rows.append((kind, {v: [*render_prompt(event, ctx, version=v)[0], action] for v in VERSIONS}))
    return rows


def token_table(rows: list[tuple[str, dict[int, list[dict]]]], tokenizer) -> dict:
    counts: dict[str, dict[int, list[int]]] = {}
    for kind, by_version in rows:
        for v, messages in by_version.items():
            text = tokenizer.apply_chat_template(messages[:-1], add_generation_prompt=True, tokenize=False)
            counts.setdefault(kind, {}).setdefault(v, []).append(len(tokenizer(text)["input_ids"]))
    out = {}
    for kind, by_version in sorted(counts.items()):
        out[kind] = {}
        for v, values in by_version.items():
            values.sort()
            out[kind][f"v{v}"] = {"n": len(values), "median": statistics.median(values),
                                  "p90": values[int(0.9 * (len(values) - 1))], "max": values[-1]}
        out[kind]["median_ratio"] = round(out[kind]["v2"]["median"] / out[kind]["v1"]["median"], 3)
    return out


def step_seconds(rows: list[tuple[str, dict[int, list[dict]]]], model_dir: Path, steps: int) -> dict:
    """Median seconds of one forward+backward pass over 4 rows, per kind and version, alternating versions."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
    model.train()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    out = {}
    for kind in sorted({k for k, _ in rows}):
        of_kind = [r for k, r in rows if k == kind][:4 * steps]
        if len(of_kind) < 4:
            continue
        times: dict[int, list[float]] = {v: [] for v in STEP_VERSIONS}
        for i in range(0, len(of_kind) - 3, 4):
            for v in STEP_VERSIONS:
                texts = [tokenizer.apply_chat_template(r[v], tokenize=False) for r in of_kind[i:i + 4]]
                batch = tokenizer(texts, return_tensors="pt", padding=True)
                labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
                started = time.perf_counter()
                model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=labels).loss.backward()
                times[v].append(time.perf_counter() - started)
                model.zero_grad(set_to_none=True)
        v1, v2 = statistics.median(times[1]), statistics.median(times[2])
        out[kind] = {"v1_s": round(v1, 3), "v2_s": round(v2, 3), "ratio": round(v2 / v1, 3), "steps": len(times[1])}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True, help="a model folder (its tokenizer counts tokens)")
    parser.add_argument("--sets", default="hotpotqa,musique,2wiki")
    parser.add_argument("--limit", type=int, default=60, help="questions per set")
    parser.add_argument("--steps", type=int, default=3, help="timed steps per kind and version (0: tokens only)")
    parser.add_argument("--out", type=Path, default=Path("bench-out/prompts.json"))
    args = parser.parse_args(argv)
    names = sets_or_error(args.sets)
    if names is None:
        return 2
    if not model_folder_or_error(args.model):
        return 2
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(args.model))
    kit = ResearchKit.load()
    results: dict = {"tokens": {}, "step_seconds": None}
    all_rows = []
    with tempfile.TemporaryDirectory(prefix="citeloop-bench-prompts-") as tmp:
        for name in names:
            rows = rendered_rows(name, kit, args.limit, Path(tmp) / name)
            results["tokens"][name] = token_table(rows, tokenizer)
            all_rows += rows
    print(f"{'set':10}{'kind':8}{'n':>6}{'v1 median':>11}{'v2 median':>11}{'v2 p90':>8}{'v2 max':>8}{'ratio':>7}"
          f"{'v3 median':>11}{'v3 max':>8}")
    for name, kinds in results["tokens"].items():
        for kind, t in kinds.items():
            print(f"{name:10}{kind:8}{t['v1']['n']:>6}{t['v1']['median']:>11}{t['v2']['median']:>11}"
                  f"{t['v2']['p90']:>8}{t['v2']['max']:>8}{t['median_ratio']:>7}{t['v3']['median']:>11}{t['v3']['max']:>8}")
    if args.steps:
        os.environ.setdefault("OMP_NUM_THREADS", "2")
        results["step_seconds"] = step_seconds(all_rows, args.model, args.steps)
        print(f"\n{'kind':8}{'v1 s/step':>11}{'v2 s/step':>11}{'ratio':>7}   (forward+backward, 4 rows)")
        for kind, s in results["step_seconds"].items():
            print(f"{kind:8}{s['v1_s']:>11}{s['v2_s']:>11}{s['ratio']:>7}")
    results.update({"model": str(args.model), "limit": args.limit, "load_average": os.getloadavg()})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
