"""The cue catalogue of the injection filter's rules, as code reads it.

This module owns loading `runtime/data/injection_cues.yaml` (the phrases and regex sources,
each cue with a short name), validating it, and compiling it once into the matchers the page
check uses (`citeloop.runtime.injection`): phrase cues (`PhraseCue`), word classes
(`WordClass`, a Title Case match after a sentence's first character does not count) and the
forms of a web address. What the catalogue holds is data; which cues must fire together to
flag a sentence is the page check's logic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal, NamedTuple

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citeloop.runtime.datafiles import parse_yaml
from citeloop.trajectories.errors import validation_message

CUES_PATH = Path(__file__).parent / "data" / "injection_cues.yaml"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PhraseGroup(_Model):
    name: str = Field(min_length=1)
    note: str | None = None
    phrases: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1)


class PhraseList(_Model):
    about: str
    cues: list[PhraseGroup] = Field(min_length=1)


class ClassCue(_Model):
    name: str = Field(min_length=1)
    """A short name: what the cue catches, in general words."""
    note: str | None = None
    """Why the cue is written as it is (what it must not catch)."""
    bound: Literal["word", "start", "none"] = "none"
    """`word`: the alternatives are wrapped as \\b(?:...)\\b; `start`: as \\b(?:...); `none`: as written."""
    any: list[str] = Field(min_length=1)
    """Regex alternatives; the cue matches where one does."""


class ClassSpec(_Model):
    about: str
    cues: list[ClassCue] = Field(min_length=1)


class Classes(_Model):
    downstream: ClassSpec
    """Text made from the page, the act of making it, or who makes and reads it."""
    oblige: ClassSpec
    """Obligation or request."""
    second_person: ClassSpec
    address: ClassSpec
    """Someone addressed by role."""
    redirect: ClassSpec
    """Talk about where the records are kept or how to search for the subject."""
    reader: ClassSpec


class WebForm(_Model):
    about: str
    any: list[str] = Field(min_length=1)


class DomainForm(WebForm):
    endings: list[str] = Field(min_length=1)
    """Web name endings a bare domain is recognised by; `{endings}` in `any` stands for them."""


class Web(_Model):
    url: WebForm
    www: WebForm
    domain: DomainForm


class CueFile(_Model):
    schema_version: Literal[1]
    strong: PhraseList
    weak: PhraseList
    web: Web
    classes: Classes


def _phrase_pattern(cue: str) -> re.Pattern[str]:
    escaped = re.escape(cue).replace(r"\ ", r"\s+")
    if cue.isascii():
        # Word boundaries keep "as an ai" out of "as an aide" and "prompt" out of "prompted";
        # a cue ending in punctuation ("new instructions:") needs none on that side.
        start = r"\b" if cue[0].isalnum() else ""
        end = r"\b" if cue[-1].isalnum() else ""
        return re.compile(start + escaped + end)
    return re.compile(escaped)  # CJK has no word boundaries


def _lead(cue: str) -> str:
    """A substring every match of the cue holds (its first word; CJK: its first two
    characters): a plain `in` test rules most cues out before their regex runs."""
    return cue.split()[0] if cue.isascii() else cue[:2]


class PhraseCue(NamedTuple):
    phrase: str
    lead: str
    """A substring every match holds, tested before the regex runs."""
    pattern: re.Pattern[str]


def found(cues: tuple[PhraseCue, ...], norm: str) -> list[str]:
    """The phrases of `cues` in the normalised text, in catalogue order."""
    return [phrase for phrase, lead, pattern in cues if lead in norm and pattern.search(norm)]


class WordClass:
    """A word-class pattern: searched in the casefolded text first (fast, no case flag),
    then, only where it is there, in the cased text, where a Title Case match after the
    sentence's first character does not count ("What Would You Do" is a song, not a request)."""

    def __init__(self, pattern: str) -> None:
        self.folded = re.compile(pattern)
        self.cased = re.compile(pattern, re.IGNORECASE)

    def __call__(self, norm: str, cased: str) -> str | None:
        if not self.folded.search(norm):
            return None
        for m in self.cased.finditer(cased):
            if m.start() > 1 and m.group().istitle():
                continue
            return m.group().casefold()
        return None


def class_pattern(spec: ClassSpec) -> str:
    """The class's regex: its cues in order, joined by `|`; consecutive cues of one bound share
    one group (`\\b(?:a|b)\\b` matches what `\\b(?:a)\\b|\\b(?:b)\\b` does)."""
    runs: list[tuple[str, list[str]]] = []
    for cue in spec.cues:
        if runs and cue.bound != "none" and runs[-1][0] == cue.bound:
            runs[-1][1].extend(cue.any)
        else:
            runs.append((cue.bound, list(cue.any)))
    wrap = {"word": r"\b(?:{})\b", "start": r"\b(?:{})", "none": "{}"}
    return "|".join(wrap[bound].format("|".join(alternatives)) for bound, alternatives in runs)


@dataclass(frozen=True)
class Catalogue:
    strong: tuple[PhraseCue, ...]
    """Any one is an instruction aimed at the model reading the page."""
    weak: tuple[PhraseCue, ...]
    """Suspicious only together."""
    url: re.Pattern[str]
    www: re.Pattern[str]
    domain: re.Pattern[str]
    downstream: WordClass
    oblige: WordClass
    second_person: WordClass
    address: WordClass
    redirect: WordClass
    reader: WordClass


class CueCatalogueError(ValueError):
    """The cue catalogue cannot be read; the message names the file and the cue."""


def _compiled(path: Path, where: str, pattern: str, flags: int = 0) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise CueCatalogueError(f"{path}: {where}: not a regex ({exc})") from exc


def load_catalogue(path: Path = CUES_PATH) -> Catalogue:
    """Read, validate and compile a cue catalogue."""
    try:
        raw = parse_yaml(path.read_text(encoding="utf-8"))
        spec = CueFile.model_validate(raw)
    except OSError as exc:
        raise CueCatalogueError(f"{path}: cannot read the cue catalogue ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        raise CueCatalogueError(f"{path}: not YAML ({exc})") from exc
    except ValidationError as exc:
        raise CueCatalogueError(f"{path}: {validation_message(exc, first_only=True)}") from exc

    def phrases(part: PhraseList) -> tuple[PhraseCue, ...]:
        return tuple(PhraseCue(p, _lead(p), _phrase_pattern(p)) for group in part.cues for p in group.phrases)

    classes = {}
    for name in Classes.model_fields:
        class_spec: ClassSpec = getattr(spec.classes, name)
        for cue in class_spec.cues:
            _compiled(path, f"classes.{name}, cue {cue.name!r}", class_pattern(ClassSpec(about="", cues=[cue])))
        classes[name] = WordClass(class_pattern(class_spec))
    web = spec.web
    domain = "|".join(web.domain.any).replace("{endings}", "|".join(map(re.escape, web.domain.endings)))
    return Catalogue(strong=phrases(spec.strong), weak=phrases(spec.weak),
                     url=_compiled(path, "web.url", "|".join(web.url.any)),
                     www=_compiled(path, "web.www", "|".join(web.www.any)),
                     domain=_compiled(path, "web.domain", domain), **classes)


@lru_cache(maxsize=1)
def catalogue() -> Catalogue:
    """The catalogue shipped with the package, compiled once."""
    return load_catalogue(CUES_PATH)
