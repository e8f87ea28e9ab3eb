"""Runtime benchmark: `heuristic` against `naive` on the same questions and budget, in one run.

    python -m citeloop.eval.bench_runtime [--data DIR] [--limit N] [--sets hotpotqa,musique,2wiki]
                                          [--baseline OLD.json] [--out bench-out/runtime.json]

For each shared data set (HotpotQA-100 with sentence-level gold and MuSiQue-100 with
paragraph-level gold, both over the embedded corpus; 2Wiki-500 with title-level gold over its
own corpus and its read budget of 10) and each policy it reports, through the evaluation
harness (`citeloop.eval.harness.run_eval`): whether the report states a short answer and
whether it is right (the gold answer or an alias contained in it as whole words after
normalisation; exact match; token F1), gold recall of
what was retrieved (read) and cited, all gold retrieved, cited-evidence precision, question
coverage, searches and reads per question, the median run time and the median of each run's
time against its floor: the same searches through the bare index (`BM25Index.search`, query
tokenisation included, no cached text analysis), timed in the same process after the runs. Each
set's per-document text analysis (`citeloop.runtime.doc_features`) is precomputed, or loaded
from beside its index, before its runs, and reported apart. `naive` is the naive
research loop baseline (no plan, naive decisions); `naive-policies` keeps citeloop's plan and
engine but decides naively. With `--baseline` (an earlier output of this script) each row also
shows the change in answer accuracy and gold recall against it, and a line says, per data set and
policy, whether the runs are the baseline's (`runs_digest`: every event but run ids and wall
clock, so a speed change can show that it kept the runs). Then trajectory capture: the
same batch with a file sink against a null sink, as a ratio; and how well the gold-free scores
(`run_score`, `coverage`) order pairs of runs of one question the way gold recall does.
Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from citeloop.eval.datasets import BUILTIN_DATA_DIR, EvalSet, load_eval_set
from citeloop.eval.harness import PolicyRun, run_eval
from citeloop.runtime.config import ResearchConfig, load_config
from citeloop.runtime.index import BM25Index
from citeloop.runtime.memo import disabled as memos_disabled
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.trajectories.runfile import NullSink

POLICIES = [PolicyRun("heuristic", "rule", "heuristic"), PolicyRun("naive", "naive", "naive"),
            PolicyRun("naive-policies", "rule", "naive")]
SETS = ("hotpotqa", "musique", "2wiki")
COLUMNS = [("answer_correct", "ans.ok"), ("answer_precision", "ans.P"), ("answer_em", "ans.EM"), ("answer_f1", "ans.F1"),
           ("answer_stated", "stated"),
           ("answer_in_report", "in rep."),
           ("retrieved_recall", "retr.R"), ("all_gold_retrieved", "allgold"), ("cited_recall", "cite.R"),
           ("cited_precision", "cite.P"), ("coverage", "cover")]
DELTAS = ("answer_correct", "retrieved_recall", "all_gold_retrieved", "cited_precision")


def kit_for(eval_set: EvalSet, embedded: ResearchKit) -> ResearchKit:
    if eval_set.corpus.fingerprint == embedded.corpus.fingerprint:
        return embedded
    t0 = time.perf_counter()
    index = BM25Index.build(eval_set.corpus)
    return ResearchKit(corpus=eval_set.corpus, index=index, index_seconds=time.perf_counter() - t0)


def precompute_features(kit: ResearchKit) -> dict:
    """The corpus's per-document text analysis, before any run is timed: loaded from its store
    beside the index, or computed (and stored) now."""
    t0 = time.perf_counter()
    assert kit.features is not None
    loaded, analysed = kit.features.loaded, kit.features.analysed
    kit.features.precompute()
    return {"seconds": round(time.perf_counter() - t0, 3), "loaded": kit.features.loaded - loaded,
            "analysed": kit.features.analysed - analysed, "store": str(kit.features.path)}


def run_digest(events: list) -> str:
    """sha256 of what a run did: every event but the wall-clock `run_meta` (whose check counts
    are kept), without run ids, which hash the run spec and with it the corpus file's path.
    Two trees whose runs digest the same made the same runs (a speed change must keep them)."""
    h = hashlib.sha256()
    for e in events:
        text = json.dumps(e.checks, sort_keys=True) if e.type == "run_meta" else e.model_dump_json(exclude={"run_id"})
        h.update(text.encode("utf-8") + b"\n")
    return h.hexdigest()


def evaluate(eval_set: EvalSet, kit: ResearchKit) -> dict:
    config = load_config(None, dict(eval_set.config_overrides))
    searches: dict[str, list[list[tuple[str, int]]]] = {run.name: [] for run in POLICIES}
    digests: dict[str, list[str]] = {run.name: [] for run in POLICIES}

    def seen(name: str, events: list) -> None:
        searches[name].append([(e.query, e.k) for e in events if e.type == "query_issued"])
        digests[name].append(run_digest(events))

    results = run_eval(eval_set, kit, POLICIES, config, on_run=seen)["policies"]
    floors = floor_seconds(kit, [q for runs in searches.values() for run in runs for q in run])
    for name, r in results.items():
        walls = sorted(row["wall_s"] for row in r["per_question"])
        r["median_ms"] = round(statistics.median(walls) * 1000, 2)
        r["p90_ms"] = round(walls[int(0.9 * (len(walls) - 1))] * 1000, 2)
        ratios = []
        for row, queries in zip(r["per_question"], searches[name]):
            floor = sum(floors[q] for q in queries)
            row["floor_ms"] = round(floor * 1000, 4)
            row["floor_ratio"] = round(row["wall_s"] / floor, 2) if floor else None
            if floor:
                ratios.append(row["wall_s"] / floor)
        r["floor_median_ms"] = round(statistics.median(row["floor_ms"] for row in r["per_question"]), 4)
        r["floor_ratio_median"] = round(statistics.median(ratios), 2) if ratios else None
        r["budget"] = config.budget.model_dump()
        r["runs_digest"] = hashlib.sha256("".join(digests[name]).encode()).hexdigest()[:16]
    return results


def floor_seconds(kit: ResearchKit, searches: list[tuple[str, int]], repeats: int = 3) -> dict[tuple[str, int], float]:
    """Seconds of each (query, k) through the bare index, best of `repeats`, with the text memos
    out of the way (the index tokenises the query as it did before any run)."""
    unique = list(dict.fromkeys(searches))
    best = {q: float("inf") for q in unique}
    with memos_disabled():
        kit.index.search(unique[0][0], unique[0][1]) if unique else None  # first-call costs
        for _ in range(repeats):
            for query, k in unique:
                t0 = time.perf_counter()
                kit.index.search(query, k)
                best[(query, k)] = min(best[(query, k)], time.perf_counter() - t0)
    return best


def capture_overhead(eval_set: EvalSet, kit: ResearchKit, repeats: int) -> dict:
    """Same batch, file sink vs null sink, interleaved so drift hits both alike; best of `repeats`."""
    config = ResearchConfig()
    file_times, null_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            t0 = time.perf_counter()
            for q in eval_set.questions:
                run_research(q.question, kit, config, sink=NullSink(), out_dir=None)
            null_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for q in eval_set.questions:
                run_research(q.question, kit, config, out_dir=Path(tmp))
            file_times.append(time.perf_counter() - t0)
    return {"questions": len(eval_set.questions), "repeats": repeats, "null_sink_s": round(min(null_times), 4),
            "file_sink_s": round(min(file_times), 4), "ratio": round(min(file_times) / min(null_times), 4)}


def score_agreement(by_policy: dict, score: str, gold: str = "retrieved_recall") -> dict:
    """How often a gold-free score orders two runs of one question the way gold recall does:
    over every pair of policies' runs of a question whose gold recall differs, the share the
    score orders the same way, and the share it ties."""
    names = sorted(by_policy)
    rows = {n: {r["qid"]: r for r in by_policy[n]["per_question"]} for n in names}
    same = tie = total = 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for qid, ra in rows[a].items():
                rb = rows[b].get(qid)
                if rb is None or None in (ra.get(gold), rb.get(gold), ra.get(score), rb.get(score)):
                    continue
                if ra[gold] == rb[gold]:
                    continue
                total += 1
                if ra[score] == rb[score]:
                    tie += 1
                elif (ra[score] > rb[score]) == (ra[gold] > rb[gold]):
                    same += 1
    return {"pairs": total, "agree": round(same / total, 4) if total else None,
            "tie": round(tie / total, 4) if total else None,
            "agree_untied": round(same / (total - tie), 4) if total - tie else None}


def _fmt(value: float | None) -> str:
    return "   n/a" if value is None else f"{value * 100:6.1f}"


def print_table(results: dict, baseline: dict | None) -> None:
    header = f"{'dataset':<9}{'policy':<15}" + "".join(f"{label:>8}" for _, label in COLUMNS) + \
             f"{'srch/q':>8}{'read/q':>8}{'med ms':>8}{'x floor':>8}"
    if baseline:
        header += "".join(f"{'d.' + k.split('_')[0][:6]:>10}" for k in DELTAS)
    print(header)
    print("-" * len(header))
    for name, by_policy in results["datasets"].items():
        for policy, r in by_policy.items():
            line = f"{name:<9}{policy:<15}" + "".join(f"{_fmt(r.get(k)):>8}" for k, _ in COLUMNS) + \
                   f"{r['searches_per_q']:>8.2f}{r['reads_per_q']:>8.2f}{r['median_ms']:>8.1f}" + \
                   f"{'n/a' if r.get('floor_ratio_median') is None else format(r['floor_ratio_median'], '.1f'):>8}"
            old = (baseline or {}).get("datasets", {}).get(name, {}).get(policy)
            if old:
                for k in DELTAS:
                    a, b = r.get(k), old.get(k)
                    line += f"{'n/a' if a is None or b is None else f'{(a - b) * 100:+.1f}':>10}"
            print(line)
    print("(ans.ok: the gold answer or an alias, normalised, stands as whole words in the stated answer; ans.EM: "
          "equals it; recall/precision in %; x floor: median of each "
          "run's time over its searches' through the bare index; d.*: points against --baseline)")
    if baseline:
        print("same runs as --baseline (events digest): " + "; ".join(
            f"{name}/{policy} {same_runs(r, (baseline.get('datasets', {}).get(name) or {}).get(policy))}"
            for name, by_policy in results["datasets"].items() for policy, r in by_policy.items()))


def same_runs(row: dict, old: dict | None) -> str:
    """`yes` / `NO` by the rows' `runs_digest`, `n/a` where the baseline has none."""
    if not old or "runs_digest" not in old:
        return "n/a"
    return "yes" if row.get("runs_digest") == old["runs_digest"] else "NO"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=BUILTIN_DATA_DIR)
    parser.add_argument("--limit", type=int, default=None, help="questions per data set")
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    parser.add_argument("--repeats", type=int, default=3, help="repeats of the capture-overhead batch")
    parser.add_argument("--baseline", type=Path, default=None, help="an earlier output of this script")
    parser.add_argument("--out", type=Path, default=Path("bench-out/runtime.json"))
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    if not names or set(names) - set(SETS):
        parser.error(f"--sets takes {', '.join(SETS)}")
    try:  # a bad baseline is one line before anything is run
        baseline = json.loads(args.baseline.read_text(encoding="utf-8")) if args.baseline else None
    except (OSError, ValueError) as exc:
        print(f"error: --baseline {args.baseline}: {exc}", file=sys.stderr)
        return 2
    if baseline is not None and not isinstance(baseline.get("datasets") if isinstance(baseline, dict) else None, dict):
        print(f"error: --baseline {args.baseline}: not an output of this script (no datasets)", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    embedded = ResearchKit.load()
    load_s = time.perf_counter() - t0
    results: dict = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                    "omp_threads": os.environ.get("OMP_NUM_THREADS", "unset")},
        "corpus": {"documents": len(embedded.corpus), "load_and_index_s": round(load_s, 3),
                   "index_from_cache": embedded.index.loaded_from_cache},
        "datasets": {},
    }
    first_set = None
    for name in names:
        eval_set = load_eval_set(name, args.data).limit(args.limit)
        kit = kit_for(eval_set, embedded)
        results.setdefault("features", {})[name] = precompute_features(kit)
        results["datasets"][name] = evaluate(eval_set, kit)
        first_set = first_set or (eval_set, kit)
    results["score_agreement"] = {name: {score: score_agreement(by_policy, score) for score in ("run_score", "coverage")}
                                  for name, by_policy in results["datasets"].items()}
    results["capture"] = capture_overhead(*first_set, args.repeats)
    results["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)

    print_table(results, baseline)
    for name, by_policy in results["datasets"].items():
        h, n = by_policy["heuristic"], by_policy["naive"]
        print(f"{name}: heuristic answers {_fmt(h['answer_correct']).strip()}% right vs naive "
              f"{_fmt(n['answer_correct']).strip()}%; retrieves {(h['retrieved_recall'] - n['retrieved_recall']) * 100:+.1f} "
              f"points of gold; searches/q {h['searches_per_q']:.2f} vs {n['searches_per_q']:.2f}")
    for name, scores in results["score_agreement"].items():
        print(f"{name}: gold-free scores against gold recall over pairs of runs that differ in it: " + "; ".join(
            f"{score} agrees {_fmt(a['agree']).strip()}%, ties {_fmt(a['tie']).strip()}% "
            f"(untied {_fmt(a['agree_untied']).strip()}%, {a['pairs']} pairs)" for score, a in scores.items()))
    c = results["capture"]
    print(f"capture overhead: file {c['file_sink_s']:.3f}s vs null {c['null_sink_s']:.3f}s = {c['ratio']:.3f}x")
    print(f"peak RSS {results['peak_rss_mb']} MB; corpus load+index {results['corpus']['load_and_index_s']} s")
    print("per-document text analysis before the runs: " + "; ".join(
        f"{name} {f['seconds']} s ({f['loaded']} loaded, {f['analysed']} analysed)"
        for name, f in results.get("features", {}).items()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
