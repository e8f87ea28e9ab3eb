"""The training config: one YAML file under configs/train/ per run, validated by pydantic.

`TrainConfig` names the trainer kind (sft, dpo, grpo), the base model folder, the exported
dataset, the output folder, LoRA (or full fine-tuning), and the optimisation settings; unknown
keys are errors that name the key and the valid ones. `--set key=value` overrides use dotted
keys. The torch thread count comes from the CITELOOP_TORCH_THREADS environment variable
(default 1) unless the file sets it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from citeloop.runtime.registry import parse_settings, read_yaml_mapping, set_dotted
from citeloop.trajectories.errors import ErrorWording, validation_message

Kind = Literal["sft", "dpo", "grpo"]
KINDS: tuple[str, ...] = ("sft", "dpo", "grpo")
THREADS_ENV = "CITELOOP_TORCH_THREADS"
DEFAULT_LEARNING_RATE = {"sft": 2e-5, "dpo": 1e-6, "grpo": 1e-6}
"""TRL 1.16's own defaults, made explicit so the summary records them."""


class TrainConfigError(ValueError):
    """A training config, its dataset or its model is wrong; the message says where and what."""


def threads_from_env() -> int:
    raw = os.environ.get(THREADS_ENV, "1")
    try:
        value = int(raw)
    except ValueError:
        raise TrainConfigError(f"{THREADS_ENV}={raw!r} is not a whole number of threads") from None
    if value < 1:
        raise TrainConfigError(f"{THREADS_ENV}={raw!r}: give at least 1 thread")
    return value


class LoraSettings(BaseModel):
    """A LoRA adapter (peft), merged into the base model after training."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    r: int = Field(16, ge=1)
    """Adapter rank."""
    alpha: int = Field(32, ge=1)
    """Scaling numerator (`lora_alpha`)."""
    dropout: float = Field(0.05, ge=0.0, lt=1.0)
    target_modules: list[str] | Literal["all-linear"] = "all-linear"
    """Module names to adapt, or `all-linear`."""


class RewardSettings(BaseModel):
    """Arguments of `citeloop.training.rewards.RolloutReward.from_settings` (GRPO only)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    corpus: str | None = None
    """The runs' corpus file; null for the embedded one."""
    search_cost: float = Field(0.01, ge=0.0)
    """Outcome-score cost per search."""
    gold: str | None = None
    """Gold file: score outcomes by gold evidence recall where it has the question."""
    penalty: float = -1.0
    """Reward of an unparsable or impossible action."""


class TrainConfig(BaseModel):
    """One training run (configs/train/*.yaml). Relative paths are relative to the working directory."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    """Which TRL trainer: sft, dpo or grpo."""
    model: Path
    """Base model folder (`citeloop model prepare|tiny`, or an earlier training output)."""
    dataset: Path
    """Export directory of `citeloop export sft|pairs|rl` (or its `dataset/` folder)."""
    output: Path
    """Where the merged model, summary.json and loss.png go."""
    split: str = "train"
    eval_split: str | None = None
    """A split to evaluate on after training (e.g. `test`); skipped when the export lacks it or no row fits
    `max_length` (summary.json's `eval_rows` is then 0)."""
    lora: LoraSettings | None = None
    """null: full fine-tuning."""
    max_steps: int = Field(10, ge=1)
    batch_size: int = Field(4, ge=1)
    """Per-device batch size."""
    gradient_accumulation_steps: int = Field(1, ge=1)
    learning_rate: float | None = Field(None, gt=0.0)
    """null: TRL's default for the kind (SFT 2e-5, DPO and GRPO 1e-6)."""
    max_length: int = Field(1024, ge=16)
    """Longest tokenized sequence (prompt + completion); longer ones are cut at the end."""
    beta: float | None = Field(None, ge=0.0)
    """DPO's beta / GRPO's KL coefficient; null: TRL's default."""
    max_completion_length: int = Field(16, ge=1)
    """GRPO: tokens generated per completion (an action line is short)."""
    num_generations: int = Field(4, ge=2)
    """GRPO: completions per prompt; batch_size x gradient_accumulation_steps must be a multiple of it."""
    temperature: float = Field(1.0, gt=0.0)
    """GRPO sampling temperature."""
    reward: RewardSettings | None = None
    """GRPO: the rollout reward's settings (default settings when null)."""
    seed: int = 0
    threads: int = Field(default_factory=threads_from_env, ge=1)
    """torch CPU threads; default from the CITELOOP_TORCH_THREADS environment variable, else 1."""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    """auto: a GPU when torch sees one, else the CPU."""
    overwrite: bool = False
    """Replace a non-empty output directory."""

    @model_validator(mode="after")
    def _kind_specific(self) -> TrainConfig:
        if self.reward is not None and self.kind != "grpo":
            raise ValueError(f"reward applies to kind grpo only, not {self.kind}")
        if self.kind == "grpo" and (self.batch_size * self.gradient_accumulation_steps) % self.num_generations:
            raise ValueError(f"batch_size x gradient_accumulation_steps ({self.batch_size} x "
                             f"{self.gradient_accumulation_steps}) must be a multiple of num_generations "
                             f"({self.num_generations})")
        return self

    @property
    def lr(self) -> float:
        return self.learning_rate if self.learning_rate is not None else DEFAULT_LEARNING_RATE[self.kind]


def parse_overrides(pairs: list[str], flag: str = "--set") -> dict[str, Any]:
    """`["lora.r=8", "max_steps=3"]` -> `{"lora.r": 8, "max_steps": 3}` (values read as YAML);
    `flag` names the option in errors."""
    return parse_settings(pairs, flag, TrainConfigError)


def load_train_config(path: str | Path, overrides: dict[str, Any] | None = None,
                      kind: str | None = None) -> TrainConfig:
    """The config in YAML file `path`, with dotted-key `overrides`; `kind`, when given, must match the file's."""
    data = read_yaml_mapping(path, TrainConfigError)
    for dotted, value in (overrides or {}).items():
        set_dotted(data, dotted, value, TrainConfigError)
    if kind is not None:
        if kind not in KINDS:
            raise TrainConfigError(f"unknown training kind {kind!r}; valid: {', '.join(KINDS)}")
        declared = data.setdefault("kind", kind)
        if declared != kind:
            raise TrainConfigError(f"{path} is a {declared} config; run `citeloop train {declared}` with it")
    return validate_train_config(data, str(path))


def validate_train_config(data: dict[str, Any], where: str = "config") -> TrainConfig:
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as exc:
        raise TrainConfigError(f"{where}: {validation_message(exc, _WORDING)}") from exc


def _valid_keys(section: str) -> list[str]:
    model: Any = {"": TrainConfig, "lora": LoraSettings, "reward": RewardSettings}.get(section)
    return sorted(model.model_fields) if model else []


_WORDING = ErrorWording(unknown="unknown key '{key}'{place}{valid}", missing="missing key '{loc}'",
                        valid_keys=_valid_keys)
