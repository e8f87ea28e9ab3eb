"""`citeloop research` and `citeloop show`: run a question with capture (or resume a killed
run, or a batch of questions: `runtime.batch_cli`); summarise a run file. Mounts the replay
commands of `runtime.replay_cli`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from typing import TYPE_CHECKING

import typer
from rich.console import Console

from citeloop.runtime import replay_cli
from citeloop.trajectories.cli import CommandError

if TYPE_CHECKING:
    from citeloop.runtime.llm.client import ModelEndpoint

# The research machinery (index, policies, model client) is imported inside the commands, so
# `citeloop --help` and `citeloop show` do not pay for it.

console = Console()


def research(
    question: str = typer.Argument(None, help="The question to research (omit with --resume)."),
    seed: int = typer.Option(0, help="Seed for exploratory policies; same seed, same trajectory."),
    policy: list[str] = typer.Option([], help="heuristic (default) | explore | naive | stop=NAME,angle=NAME,"
                                              "read=NAME; with --questions, repeat it for several policies"),
    planner: str = typer.Option("rule", help="rule (decomposes the question) | naive (the naive research loop "
                                             "baseline: no plan) | "
                                             "llm (a model plans; rule planner behind it)"),
    verifier: str = typer.Option("lexical", help="lexical (deterministic) | judge (lexical pre-stage, one "
                                                 "verbatim-extraction model call when it cannot decide)"),
    writer: str = typer.Option("rule", help="rule | llm (a model writes claims from each section's evidence)"),
    critic: str = typer.Option("none", help="none | llm (a model in a separate context may veto one claim)"),
    screen: str = typer.Option("rules", help="rules | llm (after the injection filter's rules, a model checks "
                                             "each read document for instructions aimed at it)"),
    screen_min_confidence: float = typer.Option(
        None, min=0.0, max=1.0,
        help="With --screen llm: reject a page only when the model answers `instruction` with at least this "
             "probability (from the reply's logprobs; a reply without them is taken at its word). Default 0.9."),
    llm: str = typer.Option(None, "--llm", help="The model for llm/judge parts: fake:NAME (scripted, offline) "
                                               "or an endpoint YAML {base_url, model, sampling...}."),
    config: Path = typer.Option(None, "--config", help="YAML research config (see configs/research/)."),
    corpus: Path = typer.Option(None, "--corpus", help="JSONL corpus of {id, title, text, ...}; default: embedded."),
    out: Path = typer.Option(None, "--out", help="Directory for the trajectory file (default runs/; "
                                                 "not with --resume, which appends to the run file itself)."),
    compress: bool = typer.Option(False, help="Write the trajectory zstd-compressed (.jsonl.zst)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on stdout."),
    resume: Path = typer.Option(None, "--resume", help="Finish a run file cut off by a crash; everything "
                                                       "(question, config, policies, corpus) comes from its header."),
    questions: Path = typer.Option(None, "--questions", help="Batch: research every question of this JSONL file "
                                                             "({id, question} per line) into --out DIR as "
                                                             "DIR/POLICY/seedS/ID.jsonl; a re-run skips finished "
                                                             "runs and resumes cut-off ones."),
    seeds: str = typer.Option("0", "--seeds", help="With --questions: the seeds, comma-separated (e.g. 0,1,2)."),
    engine: str = typer.Option("serial", "--engine", help="With --questions: serial | process | ray (RAY_ADDRESS "
                                                          "set: that cluster; else a local instance)."),
    workers: int = typer.Option(None, "--workers", min=1, help="With --questions: worker processes (default: "
                                                               "the CPU count for process and ray)."),
) -> None:
    """Research a question over the corpus and write its trajectory (or a batch, with --questions)."""
    from citeloop.runtime.llm.screen import DEFAULT_MIN_CONFIDENCE

    batch_only = [name for name, is_set in (("--seeds", seeds != "0"), ("--engine", engine != "serial"),
                                            ("--workers", workers is not None)) if is_set]
    if questions is not None:
        single_only = [name for name, is_set in (
            ("a question argument", question is not None), ("--seed (use --seeds)", seed != 0),
            ("--resume", resume is not None), ("--compress", compress), ("--verifier", verifier != "lexical"),
            ("--writer", writer != "rule"), ("--critic", critic != "none"), ("--screen", screen != "rules"),
            ("--screen-min-confidence", screen_min_confidence is not None), ("--llm", llm is not None)) if is_set]
        if single_only:
            raise CommandError(f"--questions runs rule-based batch research; drop {', '.join(single_only)}")
        from citeloop.runtime.batch_cli import run_batch_command

        run_batch_command(questions, out, policy or ["heuristic"], seeds, planner, config, corpus, engine, workers,
                          as_json)
        return
    if batch_only:
        raise CommandError(f"{', '.join(batch_only)} go with --questions FILE (batch research)")
    if len(policy) > 1:
        raise CommandError("one --policy for a single question (several go with --questions)")
    policy = policy[0] if policy else "heuristic"
    if resume is not None:
        given = [name for name, is_set in (("question", question is not None), ("--seed", seed != 0),
                                           ("--policy", policy != "heuristic"), ("--planner", planner != "rule"),
                                           ("--verifier", verifier != "lexical"), ("--writer", writer != "rule"),
                                           ("--critic", critic != "none"), ("--screen", screen != "rules"),
                                           ("--screen-min-confidence", screen_min_confidence is not None),
                                           ("--llm", llm is not None), ("--config", config is not None),
                                           ("--compress", compress), ("--out", out is not None)) if is_set]
        if given:
            raise CommandError(f"--resume takes everything from the run's header; drop {', '.join(given)}")
        _resume(resume, corpus, as_json)
        return
    if question is None:
        raise CommandError("give a question to research, --questions FILE for a batch, or --resume RUN")
    if screen_min_confidence is not None and screen != "llm":
        raise CommandError("--screen-min-confidence sets the model check's threshold: it needs --screen llm")
    from citeloop.runtime.config import load_config
    from citeloop.runtime.llm.parts import LLMPartsError
    from citeloop.runtime.report import render_markdown
    from citeloop.runtime.session import ResearchKit, run_research

    cfg = load_config(config)
    kit = ResearchKit.load(corpus)
    if screen_min_confidence is None:
        screen_min_confidence = DEFAULT_MIN_CONFIDENCE
    try:
        result, path = run_research(question, kit, cfg, policy_spec=policy, seed=seed, out_dir=out or Path("runs"),
                                    compress=compress, planner=planner, verifier_name=verifier, writer=writer,
                                    critic=critic, screen=screen, llm=_model(llm),
                                    screen_min_confidence=screen_min_confidence)
    except LLMPartsError as exc:
        raise CommandError(str(exc)) from exc
    if as_json:
        answer = result.report.answer
        payload = {
            "run_id": result.run_id,
            "trajectory": str(path),
            "answer": answer.model_dump(mode="json") if answer is not None and answer.status == "answered" else None,
            "answer_reason": None if answer is None or answer.status == "answered" else
            {"status": answer.status, "reason": answer.reason, "candidates": answer.candidates},
            "report": result.report.model_dump(mode="json"),
            "outcome": result.outcome.model_dump(mode="json"),
        }
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    from rich.markdown import Markdown

    console.print(Markdown(render_markdown(result.report)))
    counts = result.outcome.counts
    console.print(
        f"[bold]stop:[/bold] {result.outcome.stop_reason} | searches {counts['searches']}, reads {counts['reads']}, "
        f"cards {counts['cards']}, claims kept {counts['claims_kept']}/{counts['claims_drafted']}"
    )
    console.print(f"[bold]trajectory:[/bold] {path}")


def _model(spec: str | None) -> str | ModelEndpoint | None:
    """`fake:NAME` as is; anything else is the path of an endpoint YAML."""
    from citeloop.runtime.llm import model_spec

    if spec is None:
        return None
    try:
        return model_spec(spec)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc


def _resume(path: Path, corpus: Path | None, as_json: bool) -> None:
    from citeloop.runtime.resume import resume_run

    outcome = resume_run(path, corpus)
    payload = {"run_id": outcome.run_id, "trajectory": str(outcome.path), "kept_events": outcome.kept,
               "appended_events": outcome.appended, "was": outcome.problem or "complete up to its last line",
               "outcome": outcome.result.outcome.model_dump(mode="json") if outcome.result else None}
    if as_json:
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    elif outcome.result is None:
        console.print(f"{outcome.path}: already complete; nothing to resume")
    else:
        console.print(f"resumed {outcome.run_id}: kept {outcome.kept} events, appended {outcome.appended}; "
                      f"stop: {outcome.result.outcome.stop_reason}")
        console.print(f"[bold]trajectory:[/bold] {outcome.path}")


def show(
    run: Path = typer.Argument(..., help="A run file (.jsonl or .jsonl.zst)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    report: bool = typer.Option(False, "--report", help="Also print the report."),
) -> None:
    """Summarise a run: question, components, events by kind, decisions, outcome."""
    from rich.table import Table

    from citeloop.trajectories.runfile import read_run

    loaded = read_run(run)
    spec = loaded.header.spec
    kinds = Counter(e.type for e in loaded.events)
    decisions = Counter(
        (e.type, e.policy.name) for e in loaded.events if e.type.endswith("_decision")  # type: ignore[attr-defined]
    )
    finished = next((e for e in loaded.events if e.type == "run_finished"), None)
    meta = next((e for e in loaded.events if e.type == "run_meta"), None)
    summary = {
        "run_id": loaded.run_id,
        "question": spec.question,
        "seed": spec.seed,
        "policy": spec.policies["spec"].name if "spec" in spec.policies else None,
        "corpus": spec.corpus_source,
        "events": len(loaded.events),
        "events_by_type": dict(sorted(kinds.items())),
        "decisions": {f"{k}:{p}": n for (k, p), n in sorted(decisions.items())},
        "torn": loaded.torn,
        "problem": loaded.problem,
        "finished": finished is not None,
        "outcome": finished.outcome.model_dump(mode="json") if finished else None,  # type: ignore[union-attr]
        # Per check: how often it ran and fired in this run (a check that fires often is a bug).
        "checks": meta.checks if meta is not None else None,  # type: ignore[union-attr]
    }
    if as_json:
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    console.print(f"[bold]{loaded.run_id}[/bold]  {spec.question}")
    console.print(f"seed {spec.seed}, policy {summary['policy']}, corpus {spec.corpus_source}")
    if loaded.torn:
        console.print(f"[yellow]torn file:[/yellow] loaded {len(loaded.events)} events; stopped at {loaded.problem}")
    table = Table("event", "count")
    for kind, n in sorted(kinds.items()):
        table.add_row(kind, str(n))
    console.print(table)
    for key, n in summary["decisions"].items():
        console.print(f"decision {key}: {n}")
    if finished is not None:
        console.print(outcome_line(finished.outcome))  # type: ignore[union-attr]
    for name, counts in (summary["checks"] or {}).items():
        console.print(f"check {name}: fired {counts['fired']} of {counts['ran']}")
    if report:
        written = next((e for e in loaded.events if e.type == "report_written"), None)
        if written is not None:
            from rich.markdown import Markdown

            from citeloop.runtime.report import render_markdown

            console.print(Markdown(render_markdown(written.report)))  # type: ignore[union-attr]


def outcome_line(outcome) -> str:  # noqa: ANN001 - a RunOutcome; its module loads only in commands
    """One line for a person: status, why the run stopped, its counts, then its metrics."""
    counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in outcome.counts.items())
    metrics = ", ".join(f"{k.replace('_', ' ')} {'n/a' if v is None else f'{v:.2f}'}"
                        for k, v in outcome.metrics.items())
    return f"outcome: {outcome.status}, stopped: {outcome.stop_reason}; {counts}" + (f"; {metrics}" if metrics else "")


def register(app: typer.Typer) -> None:
    app.command("research")(research)
    app.command("show")(show)
    replay_cli.register(app)
