"""Prompts as versioned assets (seed 21.5): one YAML file per prompt under configs/prompts/.

A prompt file holds `id` (equal to the file name), an integer `version`, a `system` and a
`user` template with named `{slot}`s, and the kind of every slot: `text` (inserted after
invisible-character stripping) or `data` (retrieved text, which only ever enters a prompt
inside `as_data_block` delimiters). Layout rules are checked when the file loads:

- rules first, evidence last (seed 21.2): data slots sit only in the user template, after
  every text slot, with nothing but whitespace after the last one;
- judge prompts (`kind: judge`) list their `answers`, and one of them is `undecidable`
  (seed 21.4).

Rendering refuses a missing or an unknown slot with a message naming both sides.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from citeloop.runtime.injection import as_data_block, strip_invisible
from citeloop.runtime.registry import read_yaml_mapping
from citeloop.trajectories.events import ModelMessage
from citeloop.trajectories.errors import ErrorWording, validation_message

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "configs" / "prompts"
UNDECIDABLE = "undecidable"


class PromptError(ValueError):
    """A prompt file is invalid, or a render was given the wrong slots."""


class DataItem(BaseModel):
    """One piece of retrieved text for a data slot."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    text: str
    source: str
    """Where it came from (doc id or URL): shown in the block header."""
    date: str | None = None


def _slots(template: str, where: str) -> list[str]:
    try:
        fields = [(lit, name, spec, conv) for lit, name, spec, conv in string.Formatter().parse(template)]
    except ValueError as exc:
        raise PromptError(f"{where}: bad template ({exc}); write a literal brace as {{{{ or }}}}") from exc
    names = []
    for _, name, spec, conv in fields:
        if name is None:
            continue
        if not name.isidentifier() or spec or conv:
            raise PromptError(f"{where}: slot {{{name}}} must be a plain name (no index, format spec or conversion)")
        names.append(name)
    return names


class PromptSpec(BaseModel):
    """A prompt asset as loaded from YAML."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    version: int = Field(ge=1)
    """Bumped on every change to the text; runs record the versions they used."""
    kind: Literal["judge", "generate"] = "generate"
    description: str = ""
    system: str
    """Role and rules: stable text, no evidence."""
    user: str
    """The task's inputs; retrieved text last, in data blocks."""
    slots: dict[str, Literal["text", "data"]]
    answers: list[str] = Field(default_factory=list)
    """For judges: the closed set of answers, `undecidable` among them."""

    @model_validator(mode="after")
    def _check_layout(self) -> PromptSpec:
        where = f"prompt {self.id!r} v{self.version}"
        system_slots = _slots(self.system, f"{where} system")
        user_slots = _slots(self.user, f"{where} user")
        used = set(system_slots) | set(user_slots)
        undeclared = sorted(used - self.slots.keys())
        if undeclared:
            raise PromptError(f"{where}: template uses undeclared slot(s) {undeclared}; declared: {sorted(self.slots)}")
        unused = sorted(self.slots.keys() - used)
        if unused:
            raise PromptError(f"{where}: declared slot(s) {unused} appear in no template")
        data = {name for name, kind in self.slots.items() if kind == "data"}
        in_system = sorted(data & set(system_slots))
        if in_system:
            raise PromptError(f"{where}: data slot(s) {in_system} in the system template; evidence goes last, "
                              f"in the user template")
        if data:
            first_data = min(i for i, name in enumerate(user_slots) if name in data)
            late_text = [n for n in user_slots[first_data:] if n not in data]
            if late_text:
                raise PromptError(f"{where}: text slot(s) {late_text} come after evidence; rules and inputs "
                                  f"first, evidence last")
            last = max(i for i, name in enumerate(user_slots) if name in data)
            tail = self.user.rsplit("{" + user_slots[last] + "}", 1)[1]
            if tail.strip():
                raise PromptError(f"{where}: instructions after the last data slot ({tail.strip()[:60]!r}); "
                                  f"put every instruction before the evidence")
        if self.kind == "judge" and UNDECIDABLE not in self.answers:
            raise PromptError(f"{where}: a judge prompt must offer {UNDECIDABLE!r} among its answers "
                              f"(has {self.answers})")
        if self.answers and len(set(self.answers)) != len(self.answers):
            raise PromptError(f"{where}: answers repeat: {self.answers}")
        return self

    def render(self, **values: Any) -> RenderedPrompt:
        """Fill the slots: text values are stripped of invisible characters; data values
        (a `DataItem` or a list of them) become delimited data blocks."""
        where = f"prompt {self.id!r} v{self.version}"
        missing = sorted(self.slots.keys() - values.keys())
        unknown = sorted(values.keys() - self.slots.keys())
        if missing or unknown:
            parts = [f"missing slot(s) {missing}"] if missing else []
            parts += [f"unknown slot(s) {unknown}"] if unknown else []
            raise PromptError(f"{where}: {'; '.join(parts)}; declared: {sorted(self.slots)}")
        filled = {name: self._fill(name, kind, values[name], where) for name, kind in self.slots.items()}
        system = self.system.format_map(filled).strip()
        user = self.user.format_map(filled).strip()
        return RenderedPrompt(id=self.id, version=self.version, messages=[
            ModelMessage(role="system", content=system), ModelMessage(role="user", content=user)])

    @staticmethod
    def _fill(name: str, kind: str, value: Any, where: str) -> str:
        if kind == "text":
            if not isinstance(value, str):
                raise PromptError(f"{where}: text slot {name!r} takes a str, got {type(value).__name__}")
            return strip_invisible(value)
        items = [value] if isinstance(value, DataItem) else value
        if not isinstance(items, Sequence) or isinstance(items, str) or not all(isinstance(i, DataItem) for i in items):
            raise PromptError(f"{where}: data slot {name!r} takes DataItem(s), never a plain string, so retrieved "
                              f"text cannot skip its data block")
        if not items:
            return "(no evidence)"
        return "\n\n".join(as_data_block(item.text, item.source, item.date) for item in items)


class RenderedPrompt(BaseModel):
    """Messages ready to send, with the id and version of the asset they came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    version: int
    messages: list[ModelMessage]


def load_prompt_file(path: str | Path) -> PromptSpec:
    path = Path(path)
    data = read_yaml_mapping(path, PromptError)
    try:
        spec = PromptSpec.model_validate(data)
    except PromptError:
        raise
    except ValidationError as exc:
        # A PromptError raised by the layout check arrives wrapped: show its message alone.
        errors = exc.errors()
        inner = [e.get("ctx", {}).get("error") for e in errors]
        if len(errors) == 1 and isinstance(inner[0], PromptError):
            raise PromptError(f"{path}: {inner[0]}") from exc
        detail = validation_message(errors, ErrorWording(whole="(top)"))
        raise PromptError(f"{path}: invalid prompt file: {detail}") from exc
    if spec.id != path.stem:
        raise PromptError(f"{path}: id {spec.id!r} must equal the file name {path.stem!r}")
    return spec


class PromptLibrary:
    """The prompt assets of one directory (default: configs/prompts), loaded once each."""

    def __init__(self, directory: str | Path = PROMPTS_DIR) -> None:
        self.directory = Path(directory)
        self._loaded: dict[str, PromptSpec] = {}

    def ids(self) -> list[str]:
        return sorted(p.stem for p in self.directory.glob("*.yaml"))

    def get(self, prompt_id: str) -> PromptSpec:
        if prompt_id not in self._loaded:
            path = self.directory / f"{prompt_id}.yaml"
            if not path.is_file():
                raise PromptError(f"unknown prompt {prompt_id!r} in {self.directory}; valid: {self.ids()}")
            self._loaded[prompt_id] = load_prompt_file(path)
        return self._loaded[prompt_id]

    def versions(self) -> dict[str, str]:
        """Id -> version of every prompt used so far, for the run header's `prompt_versions`."""
        return {pid: str(spec.version) for pid, spec in sorted(self._loaded.items())}


def render(prompt_id: str, library: PromptLibrary | None = None, **values: Any) -> RenderedPrompt:
    return (library or PromptLibrary()).get(prompt_id).render(**values)

