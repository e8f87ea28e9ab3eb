"""Writing training rows as Hugging Face datasets: save_to_disk, Parquet and a dataset card.

Layout of an export directory:
- `dataset/`: `DatasetDict.save_to_disk` (load with `datasets.load_from_disk`);
- `parquet/{split}.parquet`: the same rows, one file per split;
- `README.md`: the dataset card (counts per decision kind and split, source runs, mix);
- `export.json`: the same facts for machines.
Empty splits are left out (`datasets` cannot reload a zero-shard split). The directory is
built beside the target and moved into place, so a failed export leaves nothing half-written.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from citeloop.training.staging import move_into_place, staging_dir

MESSAGES_FEATURE = [{"role": "string", "content": "string"}]
DECISION_COLUMNS: dict[str, Any] = {
    "decision": "string",
    "n_candidates": "int64",
    "run_id": "string",
    "seq": "int64",
    "subq": "string",
    "question": "string",
}
"""Which decision a row comes from; every export has these after its message columns."""
SOURCE_COLUMNS: dict[str, Any] = {
    "corpus": "string",
    "seed": "int64",
    "template_id": "string",
    "template_version": "int64",
}
"""The environment and prompt template of a row; every export ends with these."""

SFT_COLUMNS: dict[str, Any] = {
    "prompt": MESSAGES_FEATURE,
    "completion": MESSAGES_FEATURE,
    **DECISION_COLUMNS,
    "policy_name": "string",
    "policy_version": "string",
    "run_policy": "string",
    **SOURCE_COLUMNS,
}


PAIR_COLUMNS: dict[str, Any] = {
    "prompt": MESSAGES_FEATURE,
    "chosen": MESSAGES_FEATURE,
    "rejected": MESSAGES_FEATURE,
    **DECISION_COLUMNS,
    "policy_name": "string",
    "policy_version": "string",
    "continuation_policy": "string",
    "chosen_score": "float64",
    "rejected_score": "float64",
    "margin": "float64",
    "outcome_basis": "string",
    "chosen_gold_recall": "float64",
    "rejected_gold_recall": "float64",
    "chosen_searches": "int64",
    "rejected_searches": "int64",
    "chosen_is_recorded": "bool",
    "chosen_run_id": "string",
    "rejected_run_id": "string",
    "state_tags": ["string"],
    **SOURCE_COLUMNS,
}


RL_COLUMNS: dict[str, Any] = {
    "prompt": MESSAGES_FEATURE,
    **DECISION_COLUMNS,
    "run_path": "string",
    "recorded_action": "string",
    "policy_name": "string",
    "policy_version": "string",
    "state_tags": ["string"],
    **SOURCE_COLUMNS,
}


def features(columns: dict[str, Any]) -> Any:
    from datasets import Features, List, Value

    def one(spec: Any) -> Any:
        if isinstance(spec, list):
            return List({name: Value(kind) for name, kind in spec[0].items()} if isinstance(spec[0], dict)
                        else Value(spec[0]))
        return Value(spec)

    return Features({name: one(spec) for name, spec in columns.items()})


def prepare_out(out: Path, overwrite: bool) -> Path:
    """A fresh staging directory beside `out`; refuses a non-empty `out` unless `overwrite`."""
    return staging_dir(out, overwrite, FileExistsError(f"{out} exists and is not empty; pass --overwrite to "
                                                       "replace it"))


def write_dataset(out: Path, rows: dict[str, list[dict[str, Any]]], columns: dict[str, Any], card: str,
                  summary: dict[str, Any], overwrite: bool = False) -> dict[str, int]:
    """Save the non-empty splits to `out` (see module docstring); returns rows per split written."""
    staging = prepare_out(out, overwrite)
    try:
        written = _write(staging, rows, columns, card, summary)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    move_into_place(staging, out)
    return written


def _write(staging: Path, rows: dict[str, list[dict[str, Any]]], columns: dict[str, Any], card: str,
           summary: dict[str, Any]) -> dict[str, int]:
    from datasets import Dataset, DatasetDict
    from datasets.utils.logging import (
        disable_progress_bar,
        enable_progress_bar,
        is_progress_bar_enabled,
    )

    feats = features(columns)
    splits = DatasetDict({name: Dataset.from_list(split_rows, features=feats)
                          for name, split_rows in rows.items() if split_rows})
    was_enabled = is_progress_bar_enabled()
    disable_progress_bar()  # the command shows its own progress; keep stdout/stderr clean for --json
    try:
        splits.save_to_disk(str(staging / "dataset"))
        (staging / "parquet").mkdir()
        for name, ds in splits.items():
            ds.to_parquet(str(staging / "parquet" / f"{name}.parquet"))
    finally:
        if was_enabled:
            enable_progress_bar()
    (staging / "README.md").write_text(card, encoding="utf-8")
    (staging / "export.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return {name: len(ds) for name, ds in splits.items()}


def _table(header: list[str], body: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def sft_card(summary: dict[str, Any]) -> str:
    """The dataset card of an SFT export, from its summary (see `training.cli`)."""
    counts: dict[str, dict[str, int]] = summary["counts"]
    splits = [s for s in ("train", "test") if summary["rows"].get(s)]
    front = ["---", "configs:", "- config_name: default", "  data_files:"]
    front += [f"  - split: {s}\n    path: parquet/{s}.parquet" for s in splits]
    front += ["task_categories:", "- text-generation", "tags:", "- citeloop", "- sft", "- conversational", "---"]
    count_rows = [[k, c.get("train", 0), c.get("test", 0), c.get("train", 0) + c.get("test", 0)]
                  for k, c in counts.items()]
    count_rows.append(["**all**", summary["rows"].get("train", 0), summary["rows"].get("test", 0),
                       sum(summary["rows"].values())])
    runs = summary["runs"]
    mix = Counter((r["corpus"], r["policy"]) for r in runs)
    mix_rows = [[corpus, policy, n] for (corpus, policy), n in sorted(mix.items())]
    seeds = sorted({r["seed"] for r in runs})
    templates = ", ".join(f"`{t}`" for t in summary["templates"])
    run_rows = [[f"`{r['run_id']}`", r["policy"], r["seed"], r["decisions"], r["question"].replace("|", "\\|")]
                for r in runs[:200]]
    skipped = [[reason, n] for reason, n in sorted(summary["skipped_decisions"].items())]
    parts = [
        "\n".join(front),
        "# citeloop per-decision SFT set",
        "One row per decision a policy took in the source runs (`decision`: stop, angle, read, keep). "
        "`prompt` is a system + user conversation rendering the state the policy saw; `completion` is one "
        "assistant message with the action in its fixed form (`STOP`/`CONTINUE`, `ANGLE n`, `READ i,j`, "
        "`KEEP i,j`, `NONE` for an empty choice), parsed by `citeloop.runtime.policies.actions.parse_action`. Loads as is in "
        "TRL's `SFTTrainer` (conversational prompt/completion).",
        f"Generated by `{summary['command']}`. Prompt templates: {templates}.",
        "## Rows per decision kind and split",
        f"Split by question (sha256 of the normalised question; test share {summary['test_share']}); "
        f"{summary['questions']['train']} train and {summary['questions']['test']} test questions, none shared.",
        _table(["decision", "train", "test", "total"], count_rows),
        f"Duplicate (prompt, completion) rows dropped: {summary['duplicates']}. "
        f"Prompts with more than one distinct completion: {summary['conflicting_prompts']}.",
        "## Left out",
        (_table(["reason", "decisions"], skipped) if skipped else "No decisions were left out.")
        + (f"\n\nRuns skipped: {len(summary['skipped_runs'])} (unfinished)." if summary["skipped_runs"] else ""),
        "## Environment mix",
        _table(["corpus", "run policy", "runs"], mix_rows) + f"\n\nSeeds: {', '.join(map(str, seeds)) or '-'}.",
        f"## Source runs ({len(runs)})",
        _table(["run", "policy", "seed", "rows", "question"], run_rows)
        + ("\n\n(first 200 shown; all in export.json)" if len(runs) > 200 else ""),
        "## Columns",
        "Provenance: `run_id`, `seq` (the decision event), `subq`, `question`, `policy_name`/`policy_version` "
        "(who decided), `run_policy`, `corpus`, `seed`, `template_id`/`template_version`, `n_candidates`.",
    ]
    return "\n\n".join(parts) + "\n"


def _front(splits: list[str], tag: str) -> str:
    lines = ["---", "configs:", "- config_name: default", "  data_files:"]
    lines += [f"  - split: {s}\n    path: parquet/{s}.parquet" for s in splits]
    lines += ["tags:", "- citeloop", f"- {tag}", "- conversational", "---"]
    return "\n".join(lines)


def pairs_card(summary: dict[str, Any]) -> str:
    """The dataset card of a preference-pair export, from its summary (see `training.cli`)."""
    counts: dict[str, dict[str, int]] = summary["counts"]
    splits = [s for s in ("train", "test") if summary["rows"].get(s)]
    count_rows = [[k, summary["examined"].get(k, 0), c.get("train", 0), c.get("test", 0)] for k, c in counts.items()]
    margins = summary["margins"]
    runs = summary["runs"]
    left = [[reason, n] for reason, n in sorted(summary["left_out"].items())]
    run_rows = [[f"`{r['run_id']}`", r["policy"], r["seed"], r["pairs"], r["question"].replace("|", "\\|")]
                for r in runs[:200]]
    parts = [
        _front(splits, "dpo"),
        "# citeloop step-level preference pairs",
        ("Each row compares two actions at one recorded decision: the run was branched there with each action "
         "and continued with its own policy, and each outcome was scored. `chosen` is the action whose outcome "
         "scored higher by at least the minimum margin, and its report passed the verifier (every cited claim "
         "entailed). Loads as is in TRL's `DPOTrainer` (conversational prompt/chosen/rejected)."),
        f"Generated by `{summary['command']}`. Outcome score: {summary['outcome_score']}.",
        "## Pairs per decision kind and split",
        (f"Split by question (test share {summary['test_share']}); {summary['questions']['train']} train and "
         f"{summary['questions']['test']} test questions, none shared. Rollouts: {summary['rollouts']}."),
        _table(["decision", "decisions branched", "train", "test"], count_rows),
        "## Margin distribution",
        _table(["min", "median", "max", "mean"], [[margins["min"], margins["median"], margins["max"], margins["mean"]]])
        + "\n\n" + _table(["margin", "pairs"], [[b, n] for b, n in margins["histogram"].items()]),
        "## Left out",
        (_table(["reason", "candidate pairs"], left) if left else "Nothing was left out.")
        + f"\n\nDecisions that could not be branched: {len(summary['errors'])}. "
        + f"Duplicate pairs dropped: {summary['duplicates']}.",
        "## Gold direction",
        _gold_line(summary["gold_agreement"]),
        "## Sampling and environment mix",
        _sampling(summary),
        f"## Source runs ({len(runs)})",
        _table(["run", "policy", "seed", "pairs", "question"], run_rows),
    ]
    return "\n\n".join(parts) + "\n"


def _gold_line(g: dict[str, Any]) -> str:
    if not g["pairs_with_gold"]:
        return "No pair's question has gold evidence in the gold file (or no gold file was given)."
    return (f"Of {g['pairs_with_gold']} pairs whose question has gold evidence, `chosen` read more gold evidence "
            f"than `rejected` in {g['agree']} ({g['agreement']:.1%}), as much in {g['tie']}, less in "
            f"{g['disagree']}.")


def _sampling(summary: dict[str, Any]) -> str:
    mix = summary["mix"]
    tags = summary["state_tags"]
    tag_rows = [[t, n, tags.get("in_pairs", {}).get(t, "-")] for t, n in tags["selected"].items()]
    return "\n\n".join([
        (f"Decisions available per kind (after dropping {summary['duplicate_states']} repeated states): "
         + ", ".join(f"{k} {n}" for k, n in summary["available"].items()) + "."),
        "Failure-and-recovery states (training/sampling.py) among the decisions used:",
        _table(["state tag", "decisions", "rows"], tag_rows),
        (f"Environments: corpora {mix['corpora']}; run policies {mix['policies']}; {mix['seeds']} distinct seeds; "
         f"{mix['questions']} questions."),
    ])


def rl_card(summary: dict[str, Any]) -> str:
    """The dataset card of an RL prompt export (`citeloop export rl`)."""
    counts: dict[str, dict[str, int]] = summary["counts"]
    splits = [s for s in ("train", "test") if summary["rows"].get(s)]
    count_rows = [[k, c.get("train", 0), c.get("test", 0)] for k, c in counts.items()]
    runs = summary["runs"]
    run_rows = [[f"`{r['run_id']}`", r["policy"], r["seed"], r["decisions"], r["question"].replace("|", "\\|")]
                for r in runs[:200]]
    parts = [
        _front(splits, "grpo"),
        "# citeloop RL decision prompts",
        ("Prompt-only rows: each `prompt` renders the state a policy saw at one recorded decision. Train with "
         "TRL's `GRPOTrainer` and `citeloop.training.rewards.RolloutReward` as the reward function: it parses the "
         "completion's action, branches the run (`run_path`, `seq`) with it, continues with the run's own policy "
         "and returns the outcome score; an unparsable or impossible action gets a fixed penalty, and every "
         "reward is recorded with its status."),
        f"Generated by `{summary['command']}`.",
        "## Rows per decision kind and split",
        (f"Split by question (test share {summary['test_share']}); {summary['questions']['train']} train and "
         f"{summary['questions']['test']} test questions, none shared."),
        _table(["decision", "train", "test"], count_rows),
        "## Sampling and environment mix",
        _sampling(summary),
        f"## Source runs ({len(runs)})",
        _table(["run", "policy", "seed", "decisions", "question"], run_rows),
    ]
    return "\n\n".join(parts) + "\n"
