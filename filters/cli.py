"""`citeloop score` and `citeloop filter`: score run files; keep the good ones (and some failures).

`score` prints, per run and as a mean over runs, the three core metrics, ALCE citation
recall/precision, the intermediate metrics and the diagnosis. Citation metrics are always
shown next to coverage: a report that says little can cite perfectly (ALCE's shortcut).
`filter` applies the quality gates of a filter config, copies (or links) the kept run
files into a directory and writes its `manifest.json`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from citeloop.filters.errors import FilterError, NoRunsError

if TYPE_CHECKING:
    from citeloop.filters.gates import FilterConfig
    from citeloop.filters.metrics import RunScore, ScoreConfig

# Scoring and gates are imported inside the commands, so `citeloop --help` does not load them.

__all__ = ["FilterError", "register", "find_runs", "score_files"]

RUN_PATTERNS = ("*.jsonl", "*.jsonl.zst")


def find_runs(paths: list[Path]) -> list[Path]:
    """Run files named directly, or found (not recursively) in the directories named."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted({p for pattern in RUN_PATTERNS for p in path.glob(pattern) if p.is_file()})
        elif path.is_file():
            found.append(path)
        else:
            raise NoRunsError(f"{path}: no such file or directory")
    if not found:
        where = ", ".join(str(p) for p in paths) or "(no paths given)"
        raise NoRunsError(f"no run files ({', '.join(RUN_PATTERNS)}) in {where}")
    return list(dict.fromkeys(found))


def score_files(paths: list[Path], config: ScoreConfig, judge: str | None = None,
                scorers: list[str] | None = None) -> list[tuple[RunScore, Path]]:
    from citeloop.filters.metrics import score_run
    from citeloop.trajectories.runfile import read_run

    return [(score_run(read_run(p), judge=judge, config=config, scorers=scorers or ()), p) for p in paths]


def _f(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _core_line(m: dict[str, Any]) -> str:
    line = (f"citation correctness {_f(m['citation_correctness'])} (partial {_f(m['partial_rate'])}) | "
            f"ALCE recall {_f(m['citation_recall_alce'])} precision {_f(m['citation_precision_alce'])} | "
            f"coverage {_f(m['coverage'])} | unsupported {_f(m['unsupported_claim_rate'])}")
    if m.get("answer_in_report") is not None:
        line += f" | answer in report {_f(m['answer_in_report'])}"
    return line


def _process_line(m: dict[str, Any]) -> str:
    return (f"searches {_f(m['searches'])}, reads {_f(m['reads'])}, sources {_f(m['distinct_sources'])}, "
            f"duplicates {_f(m['duplicate_rate'])}, primary {_f(m['primary_evidence_ratio'])}, "
            f"sources/claim {_f(m['independent_sources_per_claim'])}, rewrites {_f(m['rewrite_rate'])}, "
            f"drops {_f(m['drop_rate'])}, conflicts {_f(m['conflicts'])}, dead ends {_f(m['dead_ends'])}, "
            f"not found {_f(m['not_found'])}, model calls {_f(m['model_calls'])}, tokens {_f(m['tokens'])}")


def score(
    runs: list[Path] = typer.Argument(..., help="Run files (.jsonl, .jsonl.zst) or directories of them."),
    as_json: bool = typer.Option(False, "--json", help="Print scores and the aggregate as JSON."),
    config: Path = typer.Option(None, "--config", help="Filter config whose `scoring` section to use."),
    judge: str = typer.Option(None, "--judge", help="Citation judge: lexical, or a module:attr path."),
    scorer: list[str] = typer.Option([], "--scorer", help="Extra scorer (name or module:attr); repeatable."),
) -> None:
    """Score runs: citation correctness, ALCE, coverage, unsupported claims, layer metrics, diagnosis."""
    from citeloop.filters.gates import load_filter_config
    from citeloop.filters.metrics import ScoreConfig, aggregate

    scoring = load_filter_config(config).scoring if config else ScoreConfig()
    scored = score_files(find_runs(runs), scoring, judge=judge, scorers=scorer)
    scores = [s for s, _ in scored]
    summary = aggregate(scores)
    if as_json:
        payload = {"runs": [dict(s.model_dump(mode="json"), file=str(p)) for s, p in scored], "aggregate": summary}
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for s, path in scored:
        m = s.model_dump()
        typer.echo(f"{s.run_id}  [{s.planner}/{s.policy}]  {s.question}" + ("" if s.finished else "  (torn)"))
        typer.echo(f"  {_core_line(m)}")
        typer.echo(f"  {_process_line(m)}")
        per_subq = " ".join(f"{k}:{v}" for k, v in s.searches_per_subq.items())
        typer.echo(f"  searches per sub-question: {per_subq or '-'}; failure modes: {', '.join(s.failure_modes) or '-'}")
        for message in s.diagnosis or ["no clear bottleneck"]:
            typer.echo(f"  diagnosis: {message}")
    means = {k: v["mean"] for k, v in summary["metrics"].items()}
    typer.echo(f"\nmean over {summary['runs']} run(s):")
    typer.echo(f"  {_core_line(means)}")
    typer.echo(f"  {_process_line(means)}")
    spq = summary["searches_per_subq"]
    typer.echo(f"  searches per sub-question: mean {_f(spq['mean'])}, max {_f(spq['max'])}, histogram {spq['histogram']}")
    typer.echo(f"  diagnoses: {summary['diagnosis'] or '-'}; failure modes: {summary['failure_modes'] or '-'}")


def _prepare_out(out: Path, inputs: list[Path], overwrite: bool) -> None:
    resolved = out.resolve()
    if any(p.resolve().parent == resolved for p in inputs):
        raise FilterError(f"--out {out} holds input runs; choose another directory")
    if out.exists() and not out.is_dir():
        raise FilterError(f"--out {out} is a file, not a directory")
    if out.is_dir() and any(out.iterdir()):
        manifest = out / "manifest.json"
        if not overwrite:
            raise FilterError(f"--out {out} is not empty; choose another directory or pass --overwrite")
        if manifest.is_file():
            # Only what an earlier `filter` put there is removed, nothing else.
            try:
                previous = json.loads(manifest.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise FilterError(f"{manifest}: not valid JSON, not removing anything ({exc.msg})") from exc
            for entry in previous.get("kept", []):
                old = out / Path(entry.get("file", "")).name
                if old.is_file() or old.is_symlink():
                    old.unlink()
            manifest.unlink()
    out.mkdir(parents=True, exist_ok=True)


def filter_runs(
    runs: list[Path] = typer.Argument(..., help="Run files (.jsonl, .jsonl.zst) or directories of them."),
    config: Path = typer.Option(..., "--config", help="Filter config (configs/filters/*.yaml)."),
    out: Path = typer.Option(..., "--out", help="Directory for the kept run files and manifest.json."),
    as_json: bool = typer.Option(False, "--json", help="Print the manifest as JSON."),
    link: bool = typer.Option(False, "--link", help="Symlink kept run files instead of copying them."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an earlier filter's output in --out."),
) -> None:
    """Keep runs that pass the quality gates, plus a share of failure-and-recovery runs."""
    from citeloop.filters.gates import load_filter_config, select

    cfg: FilterConfig = load_filter_config(config)
    paths = find_runs(runs)
    scored = score_files(paths, cfg.scoring)
    seen: dict[str, Path] = {}
    unique: list[tuple[RunScore, Path]] = []
    duplicates: list[dict[str, Any]] = []
    for s, p in scored:
        if s.run_id in seen:
            duplicates.append({"run_id": s.run_id, "file": str(p), "reason": f"same run id as {seen[s.run_id]}"})
            continue
        seen[s.run_id] = p
        unique.append((s, p))
    decisions = select(unique, cfg)  # type: ignore[arg-type]
    _prepare_out(out, paths, overwrite)
    kept, dropped = [], list(duplicates)
    for d in decisions:
        assert d.path is not None
        if d.kept:
            target = out / d.path.name
            if link:
                target.symlink_to(d.path.resolve())
            else:
                shutil.copy2(d.path, target)
            kept.append({"run_id": d.score.run_id, "file": target.name, "source": str(d.path), "reason": d.reason,
                         "failure_modes": d.score.failure_modes, "failed_gates": d.failed,
                         "score": d.score.model_dump(mode="json")})
        else:
            dropped.append({"run_id": d.score.run_id, "file": str(d.path), "reason": d.reason, "failed_gates": d.failed})
    manifest = {
        "config": str(config),
        "config_digest": cfg.digest(),
        "runs": len(scored),
        "kept": kept,
        "dropped": dropped,
        "recovery_kept": sum(1 for d in decisions if d.kept and d.failed),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(manifest, indent=2, ensure_ascii=False))
        return
    for entry in kept:
        typer.echo(f"KEEP {entry['run_id']}: {entry['reason']}")
    for entry in dropped:
        failed = f" [{'; '.join(entry['failed_gates'])}]" if entry.get("failed_gates") else ""
        typer.echo(f"DROP {entry['run_id']}: {entry['reason']}{failed}")
    typer.echo(f"kept {len(kept)} of {len(scored)} run(s) ({manifest['recovery_kept']} for failure and recovery) "
               f"-> {out / 'manifest.json'}{' (linked)' if link else ''}")


def register(app: typer.Typer) -> None:
    app.command("score")(score)
    app.command("filter")(filter_runs)

