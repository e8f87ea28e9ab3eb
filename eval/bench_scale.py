"""Scale benchmark: batch research and store ingest on more than one worker, measured in one run.

    python -m citeloop.eval.bench_scale [--data DIR] [--seeds 0,1] [--limit N] [--rounds 2]
                                        [--repeats 3] [--out bench-out/scale.json]
    python -m citeloop.eval.bench_scale --runs DIR [--repeats 5] [--compare PYTHONPATH]   # only part 2

1. Batch research, `citeloop research --questions FILE`, of the shipped 2Wiki-500 questions over
   their own corpus (written out as a corpus JSONL) with the set's read budget of 10, policy
   `heuristic`, each seed of `--seeds` (1,000 runs with the default `0,1`), on four engines:
   serial, process with 1 and with 2 workers, Ray with 2 workers (a local instance). The
   questions are cut into `--rounds` parts, and each round runs its part on every engine in
   turn, so that load from other work on the machine hits the engines alike. Each batch is the
   command line in a fresh process. Runs per second come from the batches' own clock (engine up
   to the last run done), so the command line's start-up (interpreter, imports, corpus and
   index load) and Ray's start are reported beside the figure, not in it; a Ray worker loads
   its index inside the batch. Every engine's run files are checked against the serial
   batch's (bytes up to the final `run_meta` line; a header whose code digest alone differs
   means the source tree changed while the benchmark ran). The corpus's stored per-document
   analysis is built (or loaded) before the first batch and its time reported apart, so that
   the first engine of a round does not pay for building it.
2. Store ingest of the serial batch's run files (at least 1,000 runs with the defaults), or of
   the run files under `--runs DIR` (then the research is skipped), `citeloop store ingest
   --workers 1` and `--workers 2`, into a fresh store each time, events per second from the
   ingest's own clock (start-up excluded), against the bare floor, measured in this process:
   read every file, decode every event line with msgspec (the store's typed decoder) and write
   those events once, as one zstd Parquet file. Each of `--repeats` rounds runs the floor,
   ingest x 1 and ingest x 2 in turn, so that load from other work hits them alike; the best of
   each is reported, and every round's figures with the load average. Each round also runs the
   floor once in a fresh interpreter, as every `citeloop store ingest` runs, and reports it beside
   the other: for reference only (the targets are on the floor measured in this process, whose
   best round has its memory and caches warm from the rounds before). CPU seconds of each (the
   ingest's from its report) are reported too: on a machine shared with other work they move
   much less than the clock. `--compare PYTHONPATH` runs another citeloop's ingest (e.g. an
   earlier commit's) in the same rounds, interleaved, for a before/after in one run.

Targets: research with 2 process workers >= 1.7x the runs/s of 1; ingest in one process >=
0.9x the floor; ingest with 2 workers >= 1.6x of 1. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citeloop.eval.bench_cli import citeloop_command
from citeloop.eval.datasets import BUILTIN_DATA_DIR, load_2wiki

ENGINES = (("serial", None), ("process", 1), ("process", 2), ("ray", 2))
TARGETS = {"research_2_over_1": 1.7, "ingest_over_floor": 0.9, "ingest_2_over_1": 1.6}


def prepare(data: Path, limit: int | None, rounds: int, folder: Path) -> dict:
    """2Wiki's questions (one file per round), corpus and read budget as the files the command line takes."""
    eval_set = load_2wiki(data).limit(limit)
    corpus, config = folder / "corpus.jsonl", folder / "config.yaml"
    questions = eval_set.questions
    size = -(-len(questions) // rounds)
    parts = []
    for i in range(0, len(questions), size):
        part = folder / f"questions-{len(parts)}.jsonl"
        part.write_text("".join(json.dumps({"id": q.id, "question": q.question}) + "\n"
                                for q in questions[i:i + size]), encoding="utf-8")
        parts.append(part)
    corpus.write_text("".join(d.model_dump_json(exclude_none=True) + "\n" for d in eval_set.corpus), encoding="utf-8")
    lines = []
    for dotted, value in eval_set.config_overrides.items():  # e.g. budget.max_reads: 10
        section, key = dotted.split(".")
        lines += [f"{section}:", f"  {key}: {json.dumps(value)}"]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"questions": parts, "corpus": corpus, "config": config, "n_questions": len(questions),
            "n_documents": len(eval_set.corpus)}


def stored_analysis(corpus: Path) -> float:
    """Build (or load) the corpus's stored per-document analysis (`runtime.doc_features`) before
    any batch is timed; seconds taken. Every batch's command line reads it from beside the
    index, and without this the first engine of a round would pay for building it."""
    from citeloop.runtime.session import ResearchKit

    t0 = time.perf_counter()
    kit = ResearchKit.load(corpus)
    assert kit.features is not None
    kit.features.precompute()
    return time.perf_counter() - t0


def run_json(argv: list[str], pythonpath: str | None = None) -> tuple[float, dict]:
    """Run a citeloop command in a fresh process; its wall time and its `--json` output.
    `pythonpath`: run the code found there (e.g. an export of an earlier commit) instead."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}  # Ray: a local instance, not a cluster
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    t0 = time.perf_counter()
    done = subprocess.run([*citeloop_command(), *argv, "--json"], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise SystemExit(f"citeloop {' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout)


def research(questions: Path, files: dict, seeds: str, engine: str, workers: int | None, out: Path) -> dict:
    argv = ["research", "--questions", str(questions), "--corpus", str(files["corpus"]), "--config",
            str(files["config"]), "--seeds", seeds, "--out", str(out), "--engine", engine]
    wall, summary = run_json(argv + ([] if workers is None else ["--workers", str(workers)]))
    return {"runs": summary["runs"], "failed": summary["counts"]["failed"], "seconds": summary["seconds"],
            "engine_start_s": summary["start_seconds"],
            "cli_startup_s": wall - summary["seconds"] - summary["start_seconds"]}


def research_rounds(files: dict, seeds: str, folder: Path) -> list[dict]:
    """Every engine on every round's questions, engines in turn within a round; totals per engine."""
    totals = {key: {"engine": key[0], "workers": key[1], "runs": 0, "failed": 0, "seconds": 0.0,
                    "engine_start_s": 0.0, "cli_startup_s": 0.0} for key in ENGINES}
    for i, questions in enumerate(files["questions"]):
        for engine, workers in ENGINES:
            row = research(questions, files, seeds, engine, workers, folder / f"runs-{engine}-{workers}")
            total = totals[(engine, workers)]
            for key, value in row.items():
                total[key] += value
            print(f"  round {i + 1}: {engine} x {workers or 1}: {row['runs'] / row['seconds']:.1f} runs/s",
                  file=sys.stderr)
    rounds = len(files["questions"])
    for total in totals.values():
        total["runs_per_s"] = round(total["runs"] / total["seconds"], 3)
        total["seconds"] = round(total["seconds"], 2)
        total["engine_start_s"] = round(total["engine_start_s"] / rounds, 2)
        total["cli_startup_s"] = round(total["cli_startup_s"] / rounds, 2)
        total["identical_to_serial"] = same_runs(folder / "runs-serial-None",
                                                 folder / f"runs-{total['engine']}-{total['workers']}")
    return list(totals.values())


def _lines_but_meta(data: bytes) -> list[bytes]:
    return data.rstrip(b"\n").split(b"\n")[:-1]


def _header_but_code(line: bytes) -> dict:
    header = json.loads(line)
    header["spec"]["packages"].pop("citeloop", None)
    return header


def same_runs(a: Path, b: Path) -> str:
    """`yes`: the run files under `a` and `b` are the same bytes up to their final line (run_meta);
    `code changed`: the same but for the code digest in the headers; else `NO`."""
    names = sorted(p.relative_to(a) for p in a.rglob("*.jsonl"))
    if not names or names != sorted(p.relative_to(b) for p in b.rglob("*.jsonl")):
        return "NO"
    verdict = "yes"
    for name in names:
        mine, theirs = _lines_but_meta((a / name).read_bytes()), _lines_but_meta((b / name).read_bytes())
        if mine == theirs:
            continue
        if mine[1:] != theirs[1:] or _header_but_code(mine[0]) != _header_but_code(theirs[0]):
            return "NO"
        verdict = "code changed"
    return verdict


def ingest_floor(paths: list[Path], target: Path) -> tuple[int, float]:
    """(events, seconds) to read every file, msgspec-decode its event lines and write them all once."""
    import polars as pl

    from citeloop.trajectories.store_decode import LINE_KINDS, decode_lines

    t0 = time.perf_counter()
    run_ids: list[str] = []
    seqs: list[int] = []
    types: list[str] = []
    lines: list[str] = []
    for path in paths:
        data = path.read_bytes()
        body = data[data.index(b"\n") + 1:]
        decoded = decode_lines(body)
        run_ids += [e.run_id for e in decoded]
        seqs += [e.seq for e in decoded]
        types += [LINE_KINDS[type(e)] for e in decoded]
        lines += body.decode("utf-8").splitlines()
    pl.DataFrame({"run_id": run_ids, "seq": seqs, "type": types, "line": lines}).write_parquet(
        target, compression="zstd")
    return len(lines), time.perf_counter() - t0


def timed_floor(paths: list[Path], target: Path) -> dict:
    """`ingest_floor` with its CPU time (every thread of this process)."""
    cpu = time.process_time()
    events, seconds = ingest_floor(paths, target)
    return {"runs": len(paths), "events": events, "seconds": round(seconds, 4),
            "events_per_s": round(events / seconds), "cpu_seconds": round(time.process_time() - cpu, 4)}


def fresh_floor(runs: Path, target: Path) -> dict:
    """`timed_floor` once in a new interpreter, as each `citeloop store ingest` runs: for
    reference only (the targets stay on the floor measured in this process)."""
    code = ("import json, sys; from pathlib import Path; from citeloop.eval.bench_scale import timed_floor; "
            "print(json.dumps(timed_floor(sorted(Path(sys.argv[1]).rglob('*.jsonl')), Path(sys.argv[2]))))")
    done = subprocess.run([sys.executable, "-c", code, str(runs), str(target)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def ingest(runs: Path, store: Path, workers: int, pythonpath: str | None = None) -> dict:
    shutil.rmtree(store, ignore_errors=True)
    wall, report = run_json(["store", "ingest", str(runs), "--store", str(store), "--workers", str(workers)],
                            pythonpath)
    return {"workers": workers, "runs": report["runs_added"], "events": report["events"],
            "seconds": report["seconds"], "events_per_s": round(report["events"] / report["seconds"]),
            "cpu_seconds": report.get("cpu_seconds"),  # None: code from before the report had it
            "start_method": report.get("start_method"), "cli_startup_s": round(wall - report["seconds"], 3)}


def ingest_rounds(runs: Path, tmp: Path, repeats: int, compare: str | None = None) -> dict:
    """The floor, ingest x 1 and ingest x 2 in turn, `repeats` times (load from other work hits
    them alike); the best of each, and every round's figures. With `compare` (a PYTHONPATH
    holding other code), each round also runs that code's ingest x 1 and x 2, before this
    code's in odd rounds and after it in even ones."""
    paths = sorted(runs.rglob("*.jsonl"))
    floors, fresh, ingests, other, rounds = [], [], [], [], []
    for i in range(repeats):
        floors.append(timed_floor(paths, tmp / "floor.parquet"))
        fresh.append(fresh_floor(runs, tmp / "fresh-floor.parquet"))
        codes = [None] if compare is None else [compare, None] if i % 2 == 0 else [None, compare]
        row = {"floor": floors[-1]["events_per_s"], "floor_fresh_process": fresh[-1]["events_per_s"]}
        for code in codes:
            one, two = (ingest(runs, tmp / "store", w, code) for w in (1, 2))
            (ingests if code is None else other).extend([one, two])
            prefix = "ingest" if code is None else "compare"
            row |= {f"{prefix}_1": one["events_per_s"], f"{prefix}_2": two["events_per_s"]}
        rounds.append(row | {"load_avg": round(os.getloadavg()[0], 2)})
        print(f"  ingest round {len(rounds)}: " + ", ".join(f"{k} {v:,}" for k, v in rounds[-1].items()),
              file=sys.stderr)
    best = lambda rows: max(rows, key=lambda r: r["events_per_s"])  # noqa: E731
    out = {"ingest_floor": best(floors), "ingest_floor_fresh_process": best(fresh), "ingest_rounds": rounds,
           "ingest": [best([r for r in ingests if r["workers"] == w]) for w in (1, 2)],
           "cpu_seconds": {"floor": min(r["cpu_seconds"] for r in floors),
                           "floor_fresh_process": min(r["cpu_seconds"] for r in fresh),
                           **{f"ingest_{w}": min(r["cpu_seconds"] for r in ingests if r["workers"] == w)
                              for w in (1, 2)}}}
    if compare is not None:
        out["compare"] = {"pythonpath": compare,
                          "ingest": [best([r for r in other if r["workers"] == w]) for w in (1, 2)]}
    return out


def _met(value: float | None, target: float) -> dict:
    return {"target": target, "value": value, "met": value is not None and value >= target}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=BUILTIN_DATA_DIR)
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--rounds", type=int, default=2, help="research rounds, engines in turn within each")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench-out/scale.json"))
    parser.add_argument("--runs", type=Path, default=None,
                        help="skip the research: measure only the store ingest, of the run files under DIR")
    parser.add_argument("--compare", default=None, metavar="PYTHONPATH",
                        help="also run the store ingest of the citeloop found on this PYTHONPATH (e.g. a folder "
                             "`citeloop/` whose packages link to an export of an earlier commit), interleaved")
    args = parser.parse_args(argv)
    if args.compare is not None and not Path(args.compare, "citeloop", "trajectories").is_dir():
        print(f"error: --compare {args.compare}: no citeloop/trajectories package there", file=sys.stderr)
        return 2
    if args.runs is not None:
        from citeloop.trajectories.store_ingest import run_files
        from citeloop.trajectories.store_manifest import StoreError

        try:  # a bad folder is one line before anything is measured
            run_files(args.runs)
        except StoreError as exc:
            print(f"error: --runs {exc}", file=sys.stderr)
            return 2

    tmp = Path(tempfile.mkdtemp(prefix="citeloop-bench-scale-"))
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                 "load_avg_at_start": os.getloadavg()[0]}}
    try:
        if args.runs is None:
            files = prepare(args.data, args.limit, max(1, args.rounds), tmp)
            results["dataset"] = {"name": "2wiki", "questions": files["n_questions"],
                                  "documents": files["n_documents"], "seeds": args.seeds, "policy": "heuristic",
                                  "rounds": len(files["questions"])}
            t0 = time.perf_counter()
            subprocess.run([*citeloop_command(), "--help"], capture_output=True, check=True)
            results["cli_help_s"] = round(time.perf_counter() - t0, 3)
            results["stored_analysis_s"] = round(stored_analysis(files["corpus"]), 2)
            results["research"] = research_rounds(files, args.seeds, tmp)
        results.update(ingest_rounds(args.runs or tmp / "runs-serial-None", tmp, args.repeats, args.compare))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results["machine"]["load_avg_at_end"] = os.getloadavg()[0]

    one, two = results["ingest"]
    floor = results["ingest_floor"]["events_per_s"]
    results["targets"] = {
        "ingest_over_floor": _met(round(one["events_per_s"] / floor, 3), TARGETS["ingest_over_floor"]),
        "ingest_2_over_1": _met(round(two["events_per_s"] / one["events_per_s"], 3), TARGETS["ingest_2_over_1"]),
    }
    if "research" in results:
        rate = {(b["engine"], b["workers"]): b["runs_per_s"] for b in results["research"]}
        research_ratio = round(rate[("process", 2)] / rate[("process", 1)], 3) if rate[("process", 1)] else None
        results["targets"] = {"research_2_over_1": _met(research_ratio, TARGETS["research_2_over_1"]),
                              **results["targets"]}
    _print(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


def _print(results: dict) -> None:
    t = results["targets"]
    miss = lambda key: "" if t[key]["met"] else " MISS"  # noqa: E731
    if "research" in results:
        _print_research(results, miss)
    f = results["ingest_floor"]
    print(f"store ingest of {f['runs']:,} runs, {f['events']:,} events (best of repeats; start-up excluded):")
    print(f"{'':<34}{'events/s':>12}{'seconds':>10}{'CLI start-up s':>16}")
    print(f"{'floor (read, msgspec, 1 Parquet)':<34}{f['events_per_s']:>12,}{f['seconds']:>10.3f}{'':>16}")
    fresh = results.get("ingest_floor_fresh_process")
    if fresh:
        print(f"{'  the same in a fresh process':<34}{fresh['events_per_s']:>12,}{fresh['seconds']:>10.3f}{'':>16}")
    compare = results.get("compare", {})
    for prefix, rows in (("ingest", results["ingest"]), ("compared code", compare.get("ingest", []))):
        for r in rows:
            label = f"{prefix}, {r['workers']} worker{'s' if r['workers'] > 1 else ''}" + (
                f" ({r['start_method']})" if r["start_method"] else "")
            print(f"{label:<34}{r['events_per_s']:>12,}{r['seconds']:>10.3f}{r['cli_startup_s']:>16.2f}")
    print(f"ingest x 1 over floor: {t['ingest_over_floor']['value']}x (target >= 0.9){miss('ingest_over_floor')}; "
          f"ingest x 2 over x 1: {t['ingest_2_over_1']['value']}x (target >= 1.6){miss('ingest_2_over_1')}")
    if compare:
        one, two = compare["ingest"]
        floor = f["events_per_s"]
        print(f"compared code ({compare['pythonpath']}): x 1 over floor {one['events_per_s'] / floor:.3f}x, "
              f"x 2 over x 1 {two['events_per_s'] / one['events_per_s']:.3f}x")
    cpu = results["cpu_seconds"]
    print(f"CPU seconds (least of repeats; less disturbed by other work than the clock): floor {cpu['floor']:.3f} "
          f"(fresh process {cpu['floor_fresh_process']:.3f}), ingest x 1 {cpu['ingest_1']:.3f}, "
          f"x 2 {cpu['ingest_2']:.3f} (workers included)")
    machine = results["machine"]
    print(f"{machine['cpus']} CPUs, load average {machine['load_avg_at_start']:.1f} at start, "
          f"{machine['load_avg_at_end']:.1f} at end")
    if "cli_help_s" in results:
        print(f"CLI start-up (`citeloop --help`): {results['cli_help_s']:.2f} s")
    if "stored_analysis_s" in results:
        print(f"the corpus's stored analysis, built or loaded before the batches: {results['stored_analysis_s']:.1f} s")


def _print_research(results: dict, miss) -> None:  # noqa: ANN001 - the caller's helper
    d, t = results["dataset"], results["targets"]
    print(f"batch research: 2wiki, {d['questions']} questions x seeds {d['seeds']}, {d['policy']}, "
          f"{d['rounds']} rounds; "
          f"{results['machine']['cpus']} CPUs, load {results['machine']['load_avg_at_start']:.1f} at start")
    print(f"{'engine':<16}{'runs':>7}{'failed':>8}{'runs/s':>9}{'batch s':>9}{'engine start s':>16}"
          f"{'CLI start-up s':>16}{'same bytes':>14}")
    for b in results["research"]:
        print(f"{b['engine'] + ' x ' + str(b['workers'] or 1):<16}{b['runs']:>7}{b['failed']:>8}{b['runs_per_s']:>9}"
              f"{b['seconds']:>9.1f}{b['engine_start_s']:>16.2f}{b['cli_startup_s']:>16.2f}"
              f"{b['identical_to_serial']:>14}")
    print(f"process x 2 over process x 1: {t['research_2_over_1']['value']}x (target >= 1.7){miss('research_2_over_1')}")


if __name__ == "__main__":
    sys.exit(main())
