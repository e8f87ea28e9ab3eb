"""Verifier benchmark: the lexical verifier, the trained judge and the two trivial baselines
on SciFact and WiCE, tuning and validation parts apart, in one run.

    python -m citeloop.eval.bench_verifier [--data DIR] [--sets scifact,wice] [--verifier lexical]
                                           [--trained ENDPOINT] [--baseline OLD.json] [--tune]
                                           [--out bench-out/verifier.json]

Claims are split by a hash of their id into a tuning part (70 %) and a validation part (30 %)
(`citeloop.eval.verify_baselines.claim_split`); the verifier's cut-offs were tuned on the
tuning part only, so the validation rows are the numbers to quote, the tuning rows show how
much the tuning flattered them. Each row scores every (claim, document) pair of its part
(`citeloop.eval.verifier_eval.evaluate_verifier`): accuracy, macro-F1, SciFact's
contradiction recall, and beside them, from the same run, the overlap baseline (pooled
share of claim terms in the document, two cut-offs tuned on the tuning part) and the
majority baseline, with a paired bootstrap 95 % interval of the verifier's macro-F1 minus
each baseline's.

`--verifier` names the verifier to measure (default `lexical`; any registered name, a
`module:attr` path, or `trained:ENDPOINT`). `--trained ENDPOINT` adds the trained judge
(`trained:ENDPOINT`: the lexical pre-stage, the model only in its gray zone) with its firing
rate (share of checks that reached the model), fallbacks and seconds per check.
`--config` gives the verifier's cut-offs (default `configs/verify/claims.yaml`, tuned on the
tuning part). `--baseline` (an earlier output of this script, e.g. of the verifier before a
change) adds its macro-F1 as the "before" column. `--tune` re-runs the cut-off search on the tuning part
(`citeloop.eval.verify_tuning`) and prints it beside the defaults in use. Prints a table and
writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from citeloop.eval.datasets import EvalSet, claims_data_dir, load_eval_set
from citeloop.eval.verifier_eval import CLAIMS_CONFIG, claims_config, evaluate_verifier
from citeloop.runtime.llm.parts import make_verifier
from citeloop.runtime.verifier import VerifierConfig

SETS = ("scifact", "wice")
PARTS = ("tune", "validation")
TARGETS = ("lexical macro-F1 above the overlap baseline on both validation parts; with the trained judge, "
           "macro-F1 >= 60 on both, SciFact contradiction recall >= 40 %, the judge reached on at most a third "
           "of checks")


def _summary(v: dict, seconds: float) -> dict:
    """The numbers of one evaluation the bench keeps (no per-pair rows)."""
    out = {
        "verifier": v["verifier"], "pairs": v["pairs"], "claims": v["claims"], "accuracy": v["accuracy"],
        "macro_f1": v["macro_f1"], "per_class": v["per_class"], "confusion": v["confusion"],
        "verdicts": v["verdicts"], "seconds": round(seconds, 2),
        "seconds_per_check": v["seconds_per_check"],
    }
    if "CONTRADICT" in v["per_class"]:
        out["contradiction_recall"] = v["per_class"]["CONTRADICT"]["recall"]
    if "baselines" in v:
        over = v["baselines"]["overlap"]
        out["overlap"] = {"cutoffs": over["cutoffs"], "accuracy": over["accuracy"], "macro_f1": over["macro_f1"]}
        out["majority"] = {k: v["baselines"]["majority"][k] for k in ("label", "accuracy", "macro_f1")}
        out["vs_overlap"] = v["vs_baselines"]["overlap"]
        out["vs_majority"] = v["vs_baselines"]["majority"]
    if "checks" in v:
        out["checks"] = v["checks"]
    return out


def _measure(eval_set: EvalSet, spec: str, part: str, config: VerifierConfig) -> dict:
    verifier = make_verifier(spec, config)
    t0 = time.perf_counter()
    result = evaluate_verifier(eval_set, verifier, split=part)  # type: ignore[arg-type]
    return _summary(result, time.perf_counter() - t0)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _print(results: dict, before: dict | None) -> None:
    head = (f"{'set':8}{'part':11}{'pairs':>6}  {'verifier':>9}{'acc':>6}{'F1':>6}{'C.rec':>6}  "
            f"{'overlap':>7}{'major.':>7}  {'F1 - overlap [95% CI]':>24}  {'before':>6}  "
            f"{'trained':>7}{'C.rec':>6}{'fired':>7}{'s/chk':>7}")
    print(head)
    print("-" * len(head))
    for name, parts in results["sets"].items():
        for part, row in parts.items():
            lex = row["verifier"]
            diff = lex.get("vs_overlap")
            ci = (f"{diff['macro_f1_points']:+.1f} [{diff['ci95_points'][0]:+.1f}, {diff['ci95_points'][1]:+.1f}]"
                  if diff else "–")
            old = (before or {}).get("sets", {}).get(name, {}).get(part, {}).get("verifier", {}).get("macro_f1")
            trained = row.get("trained")
            fired = trained["checks"].get("trained", {}).get("fire_rate") if trained and "checks" in trained else None
            print(f"{name:8}{part:11}{lex['pairs']:>6}  {lex['verifier']['name'][:9]:>9}{_pct(lex['accuracy']):>6}"
                  f"{_pct(lex['macro_f1']):>6}{_pct(lex.get('contradiction_recall')):>6}  "
                  f"{_pct(lex.get('overlap', {}).get('macro_f1')):>7}{_pct(lex.get('majority', {}).get('macro_f1')):>7}  "
                  f"{ci:>24}  {_pct(old):>6}  "
                  f"{_pct(trained['macro_f1']) if trained else '–':>7}"
                  f"{_pct(trained.get('contradiction_recall')) if trained else '–':>6}"
                  f"{_pct(fired):>7}{format(trained['seconds_per_check'], '.2f') if trained else '–':>7}")
    print("(macro-F1, accuracy and contradiction recall in %; overlap: pooled-overlap baseline, cut-offs tuned on "
          "the tuning part; before: --baseline; fired: share of checks that reached the model)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=None, help="directory holding scifact/ and wice/ "
                                                                 "(default: ../shared/data beside the repository)")
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    parser.add_argument("--verifier", default="lexical", help="the verifier to measure (default lexical)")
    parser.add_argument("--trained", default=None, help="ENDPOINT (YAML or fake:NAME) of a served verdict model: "
                                                        "adds the trained judge, trained:ENDPOINT")
    parser.add_argument("--config", type=Path, default=CLAIMS_CONFIG, help="the verifier's cut-offs (YAML)")
    parser.add_argument("--baseline", type=Path, default=None, help="an earlier output of this script")
    parser.add_argument("--tune", action="store_true", help="re-run the cut-off search on the tuning part")
    parser.add_argument("--out", type=Path, default=Path("bench-out/verifier.json"))
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    if not names or set(names) - set(SETS):
        parser.error(f"--sets takes {', '.join(SETS)}")
    t0 = time.perf_counter()
    try:  # every input is read before the first measurement: a bad one is one error line
        before = json.loads(args.baseline.read_text(encoding="utf-8")) if args.baseline else None
        config = claims_config(args.config)
        for spec in [args.verifier, *([f"trained:{args.trained}"] if args.trained else [])]:
            make_verifier(spec, config)
        sets = {name: load_eval_set(name, claims_data_dir(name, args.data)) for name in names}
    except (OSError, ValueError) as exc:  # LLMPartsError, DatasetError and JSON errors are ValueErrors
        print(f"error: {exc}", file=sys.stderr)
        return 2
    results: dict = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "split": "sha256('{format}:{claim id}')[:8] as an integer, mod 100: below 70 tuning, else validation",
        "verifier_spec": args.verifier, "trained_spec": args.trained,
        "config_file": str(args.config), "config": config.model_dump(), "targets": TARGETS, "sets": {},
    }
    for name, eval_set in sets.items():
        results["sets"][name] = {}
        for part in PARTS:
            row = {"verifier": _measure(eval_set, args.verifier, part, config)}
            if args.trained:
                row["trained"] = _measure(eval_set, f"trained:{args.trained}", part, config)
            results["sets"][name][part] = row
    if args.tune:
        from citeloop.eval.verify_tuning import tune_gray_zone, tune_lexical

        tuned = tune_lexical(sets, config)
        tuned["gray_zone"] = tune_gray_zone(sets, config.model_copy(update=tuned["config"]))
        results["tuning"] = tuned
    results["seconds"] = round(time.perf_counter() - t0, 1)

    _print(results, before)
    if "tuning" in results:
        t = results["tuning"]
        print(f"cut-off search on the tuning part: {t['config']} (mean macro-F1 {100 * t['mean_macro_f1']:.1f}), "
              f"judge gray zone {t['gray_zone']['model_gray_zone']} (fires on {t['gray_zone']['fire_rate']}); "
              f"in use ({args.config}): " + str({k: results["config"][k] for k in [*t["config"], "model_gray_zone"]}))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"wrote {args.out} ({results['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
