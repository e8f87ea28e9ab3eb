"""The store's common questions as polars queries; `citeloop store stats` prints them,
with the firing rate of every check the runs recorded (`run_meta.checks`).

Each takes a `Store` and returns a small DataFrame (the module docstring of
`trajectories.store` shows the same queries inline).
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from citeloop.trajectories.store import TABLES, Store


def decisions_by_kind_and_policy(store: Store) -> pl.DataFrame:
    """Decisions per (kind, policy, version): how many, in how many runs, mean candidates."""
    return (
        store.scan("decisions")
        .group_by("kind", "policy", "policy_version")
        .agg(
            n=pl.len(),
            runs=pl.col("run_id").n_unique(),
            mean_candidates=pl.col("n_candidates").mean().round(3),
        )
        .sort("kind", "policy", "policy_version")
        .collect()
    )


def searches_per_subquestion(store: Store) -> pl.DataFrame:
    """Distribution of searches per sub-question: (searches, subquestions, share).

    Every (run, sub-question) that any event mentions counts, so sub-questions that were
    never searched (blocked, or the run stopped first) show up with 0 searches.
    """
    subqs = store.scan("events").filter(pl.col("subq").is_not_null()).select("run_id", "subq").unique()
    searches = (
        store.scan("tool_calls").filter(pl.col("tool") == "search")
        .group_by("run_id", "subq").agg(searches=pl.len())
    )
    return (
        subqs.join(searches, on=["run_id", "subq"], how="left")
        .with_columns(pl.col("searches").fill_null(0))
        .group_by("searches").agg(subquestions=pl.len())
        .with_columns(share=(pl.col("subquestions") / pl.col("subquestions").sum()).round(4))
        .sort("searches")
        .collect()
    )


def summarize_distribution(dist: pl.DataFrame, value: str = "searches", weight: str = "subquestions") -> dict[str, Any]:
    """Mean, median, p90 and max of a (value, count) distribution."""
    total = int(dist[weight].sum()) if dist.height else 0
    if total == 0:
        return {"n": 0, "mean": None, "median": None, "p90": None, "max": None}
    values, counts = dist[value].to_list(), dist[weight].to_list()
    mean = sum(v * c for v, c in zip(values, counts)) / total

    def quantile(q: float) -> int:
        seen = 0
        for v, c in zip(values, counts):
            seen += c
            if seen >= q * total:
                return v
        return values[-1]

    return {"n": total, "mean": round(mean, 3), "median": quantile(0.5), "p90": quantile(0.9), "max": max(values)}


def verdict_distribution(store: Store) -> pl.DataFrame:
    """Final verdict of every drafted claim: (verdict, n, share, dropped, rewritten).

    A null verdict is a claim whose run stopped before it was checked.
    """
    return (
        store.scan("claims")
        .group_by("verdict")
        .agg(n=pl.len(), dropped=pl.col("dropped").sum(), rewritten=pl.col("rewritten").sum())
        .with_columns(share=(pl.col("n") / pl.col("n").sum()).round(4))
        .sort("n", "verdict", descending=[True, False], nulls_last=True)
        .collect()
    )


def events_by_type(store: Store) -> pl.DataFrame:
    """Events per type (a query over the events table alone)."""
    return store.scan("events").group_by("type").agg(n=pl.len()).sort("n", "type", descending=[True, False]).collect()


MOST_RUNS = 0.5
"""A check that fires in more than this share of the runs it ran in is flagged: seed 002 says a
check that fires on most runs is a bug (in the check, or in what it checks)."""


def check_firing(store: Store) -> pl.DataFrame:
    """Per check of `run_meta.checks`: (check, runs, runs_fired, share_of_runs, ran, fired,
    fire_rate, most_runs). `runs` counts runs where the check ran at least once."""
    metas = store.scan("events").filter(pl.col("type") == "run_meta").select("payload").collect()["payload"]
    totals: dict[str, list[int]] = {}
    for payload in metas:
        for check, counts in (json.loads(payload).get("checks") or {}).items():
            ran, fired = int(counts.get("ran", 0)), int(counts.get("fired", 0))
            if ran == 0:
                continue
            t = totals.setdefault(check, [0, 0, 0, 0])
            t[0] += 1
            t[1] += fired > 0
            t[2] += ran
            t[3] += fired
    rows = [{"check": check, "runs": r, "runs_fired": rf, "share_of_runs": round(rf / r, 4), "ran": ran,
             "fired": fired, "fire_rate": round(fired / ran, 4), "most_runs": rf / r > MOST_RUNS}
            for check, (r, rf, ran, fired) in sorted(totals.items())]
    schema = {"check": pl.String(), "runs": pl.Int64(), "runs_fired": pl.Int64(), "share_of_runs": pl.Float64(),
              "ran": pl.Int64(), "fired": pl.Int64(), "fire_rate": pl.Float64(), "most_runs": pl.Boolean()}
    return pl.DataFrame(rows, schema=schema)


def run_summary(store: Store) -> dict[str, Any]:
    runs = store.scan("runs").select(
        runs=pl.len(),
        finished=pl.col("finished").sum(),
        torn=pl.col("torn").sum(),
        questions=pl.col("question").n_unique(),
    ).collect()
    return {k: int(v or 0) for k, v in runs.row(0, named=True).items()}


def stats(store: Store) -> dict[str, Any]:
    """Everything `citeloop store stats` prints, as plain data."""
    dist = searches_per_subquestion(store)
    return {
        "store": str(store.root),
        "rows": store.counts(),
        "parquet_bytes": store.size_bytes(),
        "runs": run_summary(store),
        "decisions_by_kind_and_policy": decisions_by_kind_and_policy(store).to_dicts(),
        "searches_per_subquestion": {
            "summary": summarize_distribution(dist),
            "distribution": dist.to_dicts(),
        },
        "verdicts": verdict_distribution(store).to_dicts(),
        "checks": check_firing(store).to_dicts(),
    }


def render_stats(s: dict[str, Any]) -> str:
    """`stats` as text for a terminal."""
    out = [f"store {s['store']}  ({s['parquet_bytes'] / 1e6:.2f} MB of Parquet)"]
    out.append("rows: " + ", ".join(f"{t} {s['rows'][t]:,}" for t in TABLES))
    r = s["runs"]
    out.append(f"runs: {r['runs']:,} ({r['finished']:,} finished, {r['torn']:,} torn), {r['questions']:,} questions")
    out.append("")
    out.append(f"{'decision':<8} {'policy':<22} {'ver':<5} {'n':>9} {'runs':>7} {'cands':>6}")
    for d in s["decisions_by_kind_and_policy"]:
        out.append(f"{d['kind']:<8} {d['policy']!s:<22} {d['policy_version']!s:<5} {d['n']:>9,} "
                   f"{d['runs']:>7,} {d['mean_candidates'] if d['mean_candidates'] is not None else '-':>6}")
    sq = s["searches_per_subquestion"]
    sm = sq["summary"]
    out.append("")
    out.append(f"searches per sub-question ({sm['n']:,} sub-questions): mean {sm['mean']}, median {sm['median']}, "
               f"p90 {sm['p90']}, max {sm['max']}")
    for d in sq["distribution"]:
        out.append(f"  {d['searches']:>3} searches: {d['subquestions']:>8,}  {d['share']:>7.2%}")
    out.append("")
    out.append(f"{'verdict':<12} {'claims':>9} {'share':>8} {'dropped':>8} {'rewritten':>10}")
    for d in s["verdicts"]:
        out.append(f"{d['verdict']!s:<12} {d['n']:>9,} {d['share']:>8.2%} {d['dropped']:>8,} {d['rewritten']:>10,}")
    out.append("")
    out.append(f"{'check':<18} {'runs':>7} {'fired in':>9} {'share':>7} {'ran':>9} {'fired':>8} {'rate':>7}")
    for d in s["checks"]:
        flag = "  fires on most runs: a check that fires often is a bug" if d["most_runs"] else ""
        out.append(f"{d['check']:<18} {d['runs']:>7,} {d['runs_fired']:>9,} {d['share_of_runs']:>7.2%} "
                   f"{d['ran']:>9,} {d['fired']:>8,} {d['fire_rate']:>7.2%}{flag}")
    return "\n".join(out)
