"""The loop's report: per-policy table, the trained policy's paired differences from the
heuristic with 95 % bootstrap intervals and the issue-24 targets, model fallbacks and latency.

Writes `report.json` (everything), `report.md` (the tables a person reads) and `report.png`
(gold recall against searches per question, one point per policy, the headroom oracle too when
it was measured).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeloop.eval.charts import quality_cost_chart
from citeloop.eval.loop_compare import compare_rows, judge
from citeloop.runtime.policies.llm import llm_decision_counts

TABLE_KEYS = ("retrieved_recall", "all_gold_retrieved", "answer_correct", "cited_recall", "searches_per_q",
              "reads_per_q", "unsupported_claim_rate", "citation_correctness")
BASELINE = "heuristic"
"""The rule policy the trained one is compared with (the teacher it started from)."""


def policy_stats(events_by_run: list[list[Any]]) -> dict[str, Any]:
    """Decisions the served model took vs fell back (`llm_decision_counts`), and model-call latency
    (`run_meta.latency_ms` of each `model_call` seq), over one policy's runs."""
    counts: dict[str, int] = {}
    latencies: list[float] = []
    for events in events_by_run:
        for key, n in llm_decision_counts(events).items():
            counts[key] = counts.get(key, 0) + n
        calls = {str(e.seq) for e in events if e.type == "model_call"}
        meta = next((e for e in reversed(events) if e.type == "run_meta"), None)
        if meta is not None:
            latencies += [ms / 1000 for seq, ms in meta.latency_ms.items() if seq in calls]
    latencies.sort()
    decisions = counts.get("decisions", 0)
    return {"llm_decisions": decisions, "model_answers": counts.get("model", 0),
            "deferred_to_heuristic": counts.get("deferred", 0),
            "fallbacks": counts.get("fallback", 0),
            "fallback_causes": {k[len("fallback_"):]: v for k, v in counts.items() if k.startswith("fallback_")},
            "fallback_rate": round(counts.get("fallback", 0) / decisions, 4) if decisions else None,
            "model_calls": len(latencies),
            "latency_median_s": round(latencies[len(latencies) // 2], 4) if latencies else None,
            "latency_p90_s": round(latencies[int(len(latencies) * 0.9)], 4) if latencies else None}


def _pooled_rows(evaluation: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """One policy's per-question rows over every evaluation set, ids made unique by set."""
    return [{**row, "qid": f"{set_name}:{row['qid']}"} for set_name, r in evaluation.items()
            if name in r["policies"] for row in r["policies"][name]["per_question"]]


def policy_table(names: list[str], evaluation: dict[str, Any], captured: dict[str, list[list[Any]]]) -> dict:
    table: dict[str, dict[str, Any]] = {}
    for name in names:
        per_set = [r["policies"][name] for r in evaluation.values() if name in r["policies"]]
        n = sum(p["questions"] for p in per_set)
        row: dict[str, Any] = {"questions": n}
        for k in TABLE_KEYS:
            vals = [(p.get(k), p["questions"]) for p in per_set if p.get(k) is not None]
            row[k] = round(sum(v * w for v, w in vals) / sum(w for _, w in vals), 4) if vals else None
        row.update(policy_stats(captured.get(name, [])))
        table[name] = row
    return table


def comparisons(evaluation: dict[str, Any], kinds: list[str]) -> dict[str, Any]:
    """Trained minus heuristic, per evaluation set and pooled, with the targets judged on each."""
    out: dict[str, Any] = {}
    sets = {name: r for name, r in evaluation.items() if {"trained", BASELINE} <= set(r["policies"])}
    for set_name, r in sets.items():
        c = compare_rows(r["policies"]["trained"]["per_question"], r["policies"][BASELINE]["per_question"])
        out[set_name] = {**c, "targets": judge(kinds, c)}
    if len(sets) > 1:
        c = compare_rows(_pooled_rows(sets, "trained"), _pooled_rows(sets, BASELINE))
        out["pooled"] = {**c, "targets": judge(kinds, c)}
    return out


def targets_text(comparison: dict[str, Any]) -> str:
    """The targets judged on one comparison, as "stop: no"."""
    return ", ".join(f"{k}: {'yes' if t['met'] else 'no'}" for k, t in comparison["targets"].items()) or "-"


def interval_text(d: dict[str, Any], scale: float = 100.0) -> str:
    """A paired difference as "+1.2 [+0.3, +2.0]" (points by default; scale 1 for per-question counts)."""
    if d["difference"] is None:
        return "-"
    low, high = d["ci95"]
    return f"{scale * d['difference']:+.1f} [{scale * low:+.1f}, {scale * high:+.1f}]"


def write_report(config: Any, out: Path, evaluation: dict[str, Any], captured: dict[str, list[list[Any]]],
                 trained: Any, pairs_summary: dict[str, Any], timings: dict[str, float],
                 counts: dict[str, int], oracle: dict[str, Any] | None = None,
                 calibrations: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    names = [*config.eval.baselines, "trained"]
    table = policy_table(names, evaluation, captured)
    compared = comparisons(evaluation, list(config.eval.trained_kinds))
    report = {"name": config.name, "config": config.model_dump(mode="json"), "questions": counts,
              "timings_s": timings, "policies": table,
              "trained_kinds": list(config.eval.trained_kinds),
              "trained_vs_heuristic": compared, "oracle": oracle, "calibration": calibrations or {},
              "stop_calibration": (calibrations or {}).get("stop"),
              "pairs": {"rows": pairs_summary["rows"], "counts": pairs_summary["counts"],
                        "gold_agreement": pairs_summary["gold_agreement"],
                        "best_of_k": pairs_summary.get("best_of_k")},
              "training": trained.model_dump(mode="json") if hasattr(trained, "model_dump") else trained,
              "training_stages": pairs_summary.get("stages"),
              "evaluation": evaluation}
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    lines = [f"# citeloop loop: {config.name}", "",
             f"{counts['train']} training questions ({counts['runs']} runs, {counts['kept']} kept), "
             f"{counts['eval']} evaluation questions; same budget for every policy; the trained model takes "
             f"{', '.join(config.eval.trained_kinds)}.", "",
             "| policy | questions | gold recall (read) | all gold read | answer correct | searches/q | reads/q "
             "| fallback rate | median latency s |", "|---|---|---|---|---|---|---|---|---|"]
    for name, r in table.items():
        lines.append(f"| {name} | {r['questions']} | {r['retrieved_recall']} | {r['all_gold_retrieved']} | "
                     f"{r['answer_correct']} | {r['searches_per_q']} | {r['reads_per_q']} | {r['fallback_rate']} | "
                     f"{r['latency_median_s']} |")
    if compared:
        lines += ["", "Trained minus heuristic, points (searches and reads: per question), 95 % bootstrap "
                  "interval over questions:", "",
                  "| set | gold recall | all gold read | answer correct | searches | searches change | reads "
                  "| targets met |", "|---|---|---|---|---|---|---|---|"]
        for set_name, c in compared.items():
            met = targets_text(c)
            change = c["searches_change"]
            cells = [interval_text(c["retrieved_recall"]), interval_text(c["all_gold_retrieved"]),
                     interval_text(c["answer_correct"]), interval_text(c["searches"], 1.0),
                     "-" if change is None else f"{100 * change:+.1f}%", interval_text(c["reads"], 1.0), met]
            lines.append(f"| {set_name} | " + " | ".join(cells) + " |")
    calibrated = calibrations or {}
    share = getattr(config, "calibration_share", 0.0)
    fitted_runs = (f"calibration runs (the {100 * share:g} % of training questions held out of the training rows)"
                   if share else "training runs (the decisions the model trained on: in-sample)")
    if calibrated.get("stop"):
        c = calibrated["stop"]
        lines += ["", f"Stop threshold fitted on {c['decisions']} branched stop decisions of {c['runs']} {fitted_runs}: "
                  f"STOP iff logprob(STOP) - logprob(CONTINUE) > {c['threshold']:.3f}. On those runs: "
                  f"teacher score {c['teacher']['score']} (searches {c['teacher']['searches']}), the likelier "
                  f"option {c['likelier_option']['score']} ({c['likelier_option']['searches']}), the threshold "
                  f"{c['fitted']['score']} ({c['fitted']['searches']})."]
    for kind in ("angle", "follow", "read"):
        if calibrated.get(kind):
            c = calibrated[kind]
            lines += ["", f"{kind.capitalize()} deferral threshold fitted on {c['decisions']} branched {kind} decisions "
                      f"of {c['runs']} {fitted_runs}; the model's likeliest option is not the heuristic's in "
                      f"{c['model_differs']}. The model's option only when its logprob beats the heuristic's by more "
                      f"than {c['threshold']:.3f}. Mean branch score over those decisions: teacher "
                      f"{c['teacher']['score']}, the likeliest option {c['likeliest_option']['score']} "
                      f"({c['likeliest_option']['changed']} changed), the threshold {c['fitted']['score']} "
                      f"({c['fitted']['changed']} changed)."]
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    points = dict(table)
    if oracle and oracle.get("point"):
        points["oracle"] = oracle["point"]
    quality_cost_chart(points, out / "report.png", f"citeloop loop: {config.name} (evaluation questions)")
    return report
