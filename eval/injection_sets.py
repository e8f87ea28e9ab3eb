"""The injection benchmark's template sets, read from data.

This module owns reading `eval/data/injection/`: `manifest.yaml` lists every set (its name,
status, when and by whom it was written, its first measurement) in the order the benchmark
plants and reports them, and each set's templates are a JSON Lines file beside it, one
template a line with the fields of `eval.injection_docs.InjectionTemplate`. Every line is
validated; a bad one is a `TemplateSetError` naming the file and the line.

A set's status says how to read its numbers (docs/injection.md, "The template sets"):
`tuned` (the rules were fitted to it), `seen` (measured once while unread, then read and used
for a round of changes) or `held-out` (never used to change the defences). A set's name
carries its status: `tuned`, `seen-N` or `held-out-N`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeloop.eval.injection_docs import InjectionTemplate
from citeloop.trajectories.errors import validation_message

SETS_DIR = Path(__file__).parent / "data" / "injection"
MANIFEST = SETS_DIR / "manifest.yaml"
Status = Literal["tuned", "seen", "held-out"]
STATUSES: tuple[Status, ...] = ("tuned", "seen", "held-out")
"""In the order the benchmark reports them."""
_SET_NAME = re.compile(r"tuned|(?:seen|held-out)-[1-9][0-9]*")


class TemplateSetError(ValueError):
    """A template set or the manifest cannot be read; the message names the file (and line)."""


class TemplateLine(BaseModel):
    """One line of a set's JSONL file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[a-z0-9_]+$")
    """Unique across all sets; rows and tables are keyed by it."""
    language: Literal["en", "zh"]
    style: Literal["plain", "hidden", "fake_system", "add_link", "obfuscated"]
    text: str = Field(min_length=1)
    """`{title}` and `{n}` are filled per document; holds a marker (`evil.example` or `Zorblat`)."""
    group: str
    """The set's name (the file it is in)."""


class SetPart(BaseModel):
    """A part of a set that was written and measured apart before it joined the set (the `tuned` set)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    first_template: str
    """The name of the part's first template; the part runs in file order from there."""
    templates: int = Field(ge=1)
    written: str
    written_by: str
    first_measurement: str
    history: str | None = None


class SetEntry(BaseModel):
    """One set in the manifest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """`tuned`, `seen-N` or `held-out-N`: the group name its templates carry."""
    file: str
    """Its JSONL file, relative to the manifest."""
    status: Status
    written: str
    """When it was written (a date), or `see parts`."""
    written_by: str
    """`helper written blind`, `written blind (writer not recorded)`, or `fitted`."""
    first_measurement: str
    """Quoted verbatim from where the set was kept before it became data."""
    first_measurement_in_docs: str | None = None
    """The set's row in docs/injection.md's table of first measurements, verbatim."""
    history: str | None = None
    """The docstring of the module the set was kept in, verbatim: what it holds and every later measurement."""
    parts: list[SetPart] = Field(default_factory=list)


class Manifest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1]
    sets: list[SetEntry]


@dataclass(frozen=True)
class TemplateSet:
    entry: SetEntry
    templates: tuple[InjectionTemplate, ...]

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def status(self) -> Status:
        return self.entry.status


def status_of(group: str) -> Status:
    """The status a set's name carries: `tuned`, `seen-N` -> seen, `held-out-N` -> held-out;
    any other name (a test's ad-hoc group) counts as held out, never as fitted to."""
    if group == "tuned":
        return "tuned"
    return "seen" if group.startswith("seen-") else "held-out"


def _first_error(exc: ValidationError) -> str:
    return validation_message(exc, first_only=True)


def load_set_file(path: Path, group: str) -> tuple[InjectionTemplate, ...]:
    """The templates of one JSONL file, each of `group`; blank lines are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TemplateSetError(f"{path}: cannot read template set ({exc.strerror})") from exc
    templates: list[InjectionTemplate] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = TemplateLine.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise TemplateSetError(f"{path}:{number}: not a JSON object ({exc.msg}, column {exc.colno})") from exc
        except ValidationError as exc:
            raise TemplateSetError(f"{path}:{number}: {_first_error(exc)}") from exc
        if row.group != group:
            raise TemplateSetError(f"{path}:{number}: group {row.group!r}, but the file holds set {group!r}")
        templates.append(InjectionTemplate(row.name, row.language, row.style, row.text, group=row.group))
    if not templates:
        raise TemplateSetError(f"{path}: no templates")
    return tuple(templates)


def load_manifest(path: Path = MANIFEST) -> Manifest:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TemplateSetError(f"{path}: cannot read the manifest ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise TemplateSetError(f"{path}{where}: not YAML ({getattr(exc, 'problem', exc)})") from exc
    try:
        manifest = Manifest.model_validate(raw)
    except ValidationError as exc:
        raise TemplateSetError(f"{path}: {_first_error(exc)}") from exc
    seen: set[str] = set()
    for entry in manifest.sets:
        if not _SET_NAME.fullmatch(entry.name) or status_of(entry.name) != entry.status:
            raise TemplateSetError(f"{path}: set {entry.name!r} with status {entry.status!r}: a set is named "
                                   "`tuned`, `seen-N` or `held-out-N` after its status")
        if entry.name in seen:
            raise TemplateSetError(f"{path}: set {entry.name!r} listed twice")
        seen.add(entry.name)
    return manifest


def load_sets(manifest_path: Path = MANIFEST) -> tuple[TemplateSet, ...]:
    """Every set of the manifest, in its order, with its templates; template names are unique."""
    manifest = load_manifest(manifest_path)
    sets = tuple(TemplateSet(entry, load_set_file(manifest_path.parent / entry.file, entry.name))
                 for entry in manifest.sets)
    where: dict[str, str] = {}
    for template_set in sets:
        names = [t.name for t in template_set.templates]
        for template in template_set.templates:
            if template.name in where:
                raise TemplateSetError(f"{manifest_path.parent / template_set.entry.file}: template "
                                       f"{template.name!r} is also in {where[template.name]}")
            where[template.name] = template_set.entry.file
        for part in template_set.entry.parts:
            if part.first_template not in names:
                raise TemplateSetError(f"{manifest_path}: part {part.name!r} of {template_set.name!r} starts at "
                                       f"{part.first_template!r}, which the set does not hold")
        if template_set.entry.parts and sum(p.templates for p in template_set.entry.parts) != len(names):
            raise TemplateSetError(f"{manifest_path}: the parts of {template_set.name!r} count "
                                   f"{sum(p.templates for p in template_set.entry.parts)} templates, its file "
                                   f"{len(names)}")
    return sets


@lru_cache(maxsize=1)
def shipped_sets() -> tuple[TemplateSet, ...]:
    """The sets shipped in eval/data/injection, read once."""
    return load_sets(MANIFEST)


def all_templates() -> tuple[InjectionTemplate, ...]:
    """Every shipped template, set by set in manifest order."""
    return tuple(t for s in shipped_sets() for t in s.templates)


def set_names() -> tuple[str, ...]:
    """The shipped sets' names (the benchmark's template groups), in manifest order."""
    return tuple(s.name for s in shipped_sets())
