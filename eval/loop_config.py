"""What a `citeloop loop` config says (configs/loop/*.yaml), validated: the data sets and their
split, the environments research runs in, the filter, the pairs and best-of-K rows, the train
stages, how the model is served and how it is evaluated. `citeloop.eval.loop` runs it.
`claim_out_dir` keeps one output directory to one config, so a variant never replaces another's
finished run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from citeloop.runtime.policies.actions import DEFERRAL_KINDS
from citeloop.runtime.registry import read_yaml_mapping, set_dotted
from citeloop.trajectories.errors import ErrorWording, validation_message


class LoopError(ValueError):
    """A loop config or stage that cannot go on; the message says which and why."""


class Environment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    policy: str = "explore"
    seed: int = 0
    config: dict[str, Any] = Field(default_factory=dict)
    """Research config overrides, e.g. {budget: {max_searches: 4}}."""


class PairSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    decision: str = "stop"
    alternatives: int = Field(2, ge=1)
    min_margin: float = Field(0.05, ge=0.0)
    per_kind: int | None = Field(None, ge=1)
    search_cost: float = Field(0.01, ge=0.0)
    use_gold: bool = True
    engine: Literal["serial", "process", "ray"] = "process"
    read_options: Literal["all", "one_more"] = "all"
    """Alternatives of a read decision (training/pairs.py READ_OPTIONS); `one_more` for a read
    policy under a deferral margin (calibrate_choice)."""
    change_repeat: int = Field(1, ge=1)
    """Times each best-of-K row that changes the recorded action is written to the SFT set
    (`training.best_of_k.repeat_changed`); 1 writes every row once."""


class ServeSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    engine: Literal["vllm", "hf"] = "vllm"
    """vllm: vLLM's OpenAI server (training/serve.py); hf: the small transformers server
    (training/hf_server.py), for machines without vLLM and for CI."""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    python: str | None = None
    """The Python with vLLM installed (default: CITELOOP_VLLM_PYTHON, else this one)."""
    timeout_s: float = Field(600.0, gt=0)


class EvalSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    baselines: list[str] = Field(default_factory=lambda: ["heuristic", "naive"])
    trained_kinds: list[Literal["stop", "angle", "read", "follow"]] = Field(default_factory=lambda: ["stop"])
    """Decision kinds the trained model takes; the others stay heuristic."""
    limit: int | None = Field(None, ge=1)
    """At most this many evaluation questions per data set."""
    calibrate_stop: bool = False
    """Fit the stop threshold on the training runs (with `calibration_share`, on the calibration
    questions' runs only) before the evaluation (training/calibration.py): the trained model
    stops only when logprob(STOP) - logprob(CONTINUE) beats it."""
    calibrate_choice: bool = False
    """For trained angle, follow and read: fit a deferral threshold on the training runs (or the
    calibration questions' runs) before the evaluation (training/choice_calibration.py): the trained model overrules the heuristic only
    when its option's logprob beats the heuristic's option by more than it."""
    oracle: bool = False
    """Also branch the heuristic's stop, follow and read decisions (those of the trained kinds) on
    the evaluation questions (training/headroom.py) and report the oracles: searches saved at
    equal recall, all-gold gain."""

    @model_validator(mode="after")
    def _calibrations_have_a_kind(self) -> EvalSettings:
        if self.calibrate_stop and "stop" not in self.trained_kinds:
            raise ValueError("calibrate_stop needs stop among trained_kinds")
        if self.calibrate_choice and not set(DEFERRAL_KINDS) & set(self.trained_kinds):
            raise ValueError("calibrate_choice needs angle, follow or read among trained_kinds")
        return self


class LoopConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    datasets: list[str] = Field(default_factory=lambda: ["hotpotqa", "musique"])
    eval_datasets: list[str] | None = None
    """The environment-shift case (seed 001 section 20.3): train on every question of
    `datasets`, evaluate on these (e.g. train on two shared sets, evaluate on the third).
    None: each of `datasets` is split by question (`eval_share`)."""
    data: Path | None = None
    eval_share: float = Field(0.3, gt=0.0, lt=1.0)
    calibration_share: float = Field(0.0, ge=0.0, lt=1.0)
    """Share of the training questions (by a hash of the question, independent of the split)
    whose runs only fit the calibrated thresholds (`eval.calibrate_stop`, `calibrate_choice`) and
    give no training rows or pairs, so the thresholds are fitted on decisions the model never
    trained on. 0: they are fitted on the training runs themselves (in-sample)."""
    limit: int | None = Field(None, ge=1)
    """At most this many questions per data set (before the split)."""
    environments: list[Environment] = Field(default_factory=lambda: [Environment(policy="explore", seed=1),
                                                                     Environment(policy="heuristic")])
    research_config: dict[str, Any] = Field(default_factory=dict)
    """Research config for every run (training and evaluation), before environment overrides."""
    filter: Path | None = Path("configs/filters/default.yaml")
    """Filter config; null keeps every finished run."""
    pairs: PairSettings = Field(default_factory=PairSettings)
    base_model: Path = Path("models/base")
    prepare: Literal["smollm2", "tiny", "none"] = "smollm2"
    """How to make `base_model` when it is missing."""
    train: Path | list[Path] = Path("configs/train/dpo-smollm2.yaml")
    """A train config, or several run in order (e.g. SFT on best-of-K rows, then DPO on pairs)."""
    train_overrides: dict[str, Any] = Field(default_factory=dict)
    """Dotted-key settings applied to every train stage, as `citeloop train --set` applies them
    (e.g. a GPU's `batch_size: 16`); `citeloop loop --train-set KEY=VALUE` adds to them."""
    serve: ServeSettings = Field(default_factory=ServeSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)
    out: Path = Path("loop-out")

    @model_validator(mode="after")
    def _calibration_questions_calibrate(self) -> LoopConfig:
        if self.calibration_share and not (self.eval.calibrate_stop or self.eval.calibrate_choice):
            raise ValueError("calibration_share holds training questions out for calibrate_stop or calibrate_choice; "
                             "set one of them, or calibration_share: 0")
        return self


def load_loop_config(path: Path, overrides: dict[str, Any] | None = None) -> LoopConfig:
    """The loop config in YAML file `path`, with dotted-key `overrides` (`citeloop loop --set`,
    e.g. {"pairs.change_repeat": 8}) applied before it is validated."""
    data = read_yaml_mapping(Path(path), LoopError)
    for dotted, value in (overrides or {}).items():
        set_dotted(data, dotted, value, LoopError)
    try:
        return LoopConfig.model_validate(data)
    except ValidationError as exc:
        raise LoopError(f"{path}: {validation_message(exc, ErrorWording(whole='(top)'))}") from exc


OUT_MARKER = "loop-config.json"
"""The config a loop run was started with, written into its output directory first."""


def claim_out_dir(config: LoopConfig, out: Path) -> None:
    """Refuse `out` when it holds a loop run of another config (recorded in `OUT_MARKER`, else in
    its `report.json`: the config, or for a run older than either only its `name`), then record
    this config there. The same config
    again is allowed: the loop is deterministic and re-makes what it made. `out` itself is not
    compared (the same run may be moved)."""
    current = config.model_dump(mode="json")
    marker, report = out / OUT_MARKER, out / "report.json"
    recorded: dict[str, Any] | None = None
    source = marker if marker.is_file() else report if report.is_file() else None
    if source is not None:
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise LoopError(f"{source}: not a JSON file of an earlier loop run ({exc}); remove it or give "
                            "this run another --out") from exc
        if not isinstance(data, dict):
            raise LoopError(f"{source}: not a JSON object; remove it or give this run another --out")
        recorded = data if source == marker else (data.get("config") or {"name": data.get("name")})
    if recorded is not None:
        differing = sorted(k for k in recorded if k != "out" and recorded[k] != current.get(k))
        if differing:
            verb = "differs" if len(differing) == 1 else "differ"
            raise LoopError(f"{out} holds a loop run of another config ({', '.join(differing)} {verb}); give this "
                            f"one its own --out, or remove {out} to replace it")
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(current, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
