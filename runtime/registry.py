"""Shared plumbing for pluggable parts and config files.

`load_object("pkg.module:attr")` is how every registry (policies, verifiers, scorers,
judges) resolves a name that is not built in; `read_yaml_mapping` is how every config file
is read. Both raise the caller's error class with a message that says what went wrong.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import yaml


def load_object(path: str, error: type[Exception] = ValueError, what: str = "object", valid: str = "") -> Any:
    """Import `module:attr`; on failure raise `error` naming the path and the valid built-in names."""
    module, sep, attr = path.partition(":")
    hint = f"; valid: {valid} (or a module:attr path)" if valid else ""
    if not sep or not module or not attr:
        raise error(f"unknown {what} {path!r}{hint}")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise error(f"cannot load {what} {path!r} ({exc}){hint}") from exc


def yaml_problem(exc: yaml.YAMLError) -> str:
    """One line for a YAML syntax error: where (line and column, from 1) and what."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"not valid YAML: {where}{problem}"


def read_yaml_mapping(path: str | Path, error: type[Exception] = ValueError) -> dict[str, Any]:
    """A YAML file whose top level is a mapping (an empty file is an empty mapping)."""
    path = Path(path)
    if not path.is_file():
        raise error(f"{path}: config file not found")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise error(f"{path}: {yaml_problem(exc)}") from exc
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a text file (byte {exc.start} is not UTF-8)") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error(f"{path}: top level must be a mapping, got {type(data).__name__}")
    return data
