"""Check firing rates on real runs (seed 002: a check that fires on most runs is a bug).

    python -m citeloop.eval.bench_checks [--data DIR] [--questions 200] [--out bench-out/checks.json]
                                [--llm ENDPOINT.yaml --model-questions 20]

Researches the shared HotpotQA-100 and MuSiQue-100 questions over the embedded corpus twice:
with the rule pipeline, and with the model pipeline (LLM writer, judge verifier, critic)
driven by the benchmark's obedient scripted model (`citeloop.eval.bench_injection.obedient_model`: on
clean evidence it restates evidence sentences), or by a served model (`--llm`, any
OpenAI-compatible endpoint; `--model-questions` caps its runs, which are slow on a CPU).
The runs are ingested into a store and every check in `run_meta.checks` is reported per
pipeline: runs it ran in, runs it fired in, its firing rate, and a flag when it fires on
most runs. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from citeloop.eval.bench_injection import MODEL_PARTS, obedient_model
from citeloop.eval.datasets import BUILTIN_DATA_DIR
from citeloop.eval.gold import shared_multihop
from citeloop.runtime.llm import FakeChatClient, model_spec
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.store import Store
from citeloop.trajectories.store_queries import MOST_RUNS, check_firing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=BUILTIN_DATA_DIR)
    parser.add_argument("--questions", type=int, default=200, help="first N of HotpotQA-100 then MuSiQue-100")
    parser.add_argument("--llm", default=None, help="endpoint YAML (or fake:NAME) for the model pipeline; "
                                                    "default: the obedient scripted model")
    parser.add_argument("--model-questions", type=int, default=None, help="model pipeline: first N questions only")
    parser.add_argument("--out", type=Path, default=Path("bench-out/checks.json"))
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    kit = ResearchKit.load()
    questions = shared_multihop(args.data, kit.corpus)[: args.questions]
    llm = model_spec(args.llm) if args.llm else FakeChatClient(obedient_model, name="obedient")
    pipelines = {"rule": {}, "model": {"llm": llm, **MODEL_PARTS}}
    limits = {"rule": len(questions), "model": args.model_questions or len(questions)}
    tmp = Path(tempfile.mkdtemp(prefix="citeloop-bench-checks-"))
    results: dict = {"questions": limits, "model": args.llm or "fake:obedient", "most_runs": MOST_RUNS,
                     "pipelines": {}}
    try:
        for name, parts in pipelines.items():
            runs = tmp / name / "runs"
            for q in questions[: limits[name]]:
                run_research(q.question, kit, out_dir=runs, **parts)  # type: ignore[arg-type]
            store = Store.create(tmp / name / "store")
            store.ingest(runs)
            results["pipelines"][name] = check_firing(store).to_dicts()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results["seconds"] = round(time.perf_counter() - t0, 1)

    print(f"{'pipeline':<9}{'check':<18}{'runs':>6}{'fired in':>10}{'share':>8}{'ran':>8}{'fired':>7}{'rate':>8}")
    for name, rows in results["pipelines"].items():
        for d in rows:
            flag = "  << fires on most runs" if d["most_runs"] else ""
            print(f"{name:<9}{d['check']:<18}{d['runs']:>6}{d['runs_fired']:>10}{d['share_of_runs']:>8.1%}"
                  f"{d['ran']:>8}{d['fired']:>7}{d['fire_rate']:>8.1%}{flag}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"wrote {args.out} ({results['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
