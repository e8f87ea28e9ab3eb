"""The runtime's shipped data files (`runtime/data/*.yaml`: cue lists, countries, the
injection catalogue), parsed with libyaml's safe loader where PyYAML was built with it: a
research process reads them all on its first run, and the pure-Python parser took about a
tenth of a second for the injection catalogue alone. Both loaders give the same objects for
these files (tests compare them). Users' own YAML (configs) keeps the pure-Python loader and
its error messages."""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str) -> Any:
    """`yaml.safe_load`, by libyaml when present."""
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader


def read_data_yaml(name: str) -> Any:
    """A shipped data file of `runtime/data`, parsed."""
    return parse_yaml(resources.files("citeloop.runtime").joinpath("data", name).read_text(encoding="utf-8"))
