"""Shared plumbing for pluggable parts and config files.

`load_object("pkg.module:attr")` is how every registry (policies, verifiers, scorers,
judges) resolves a name that is not built in; `read_yaml_mapping` is how every config file
is read; `parse_settings` and `set_dotted` are how every `--set KEY=VALUE` reaches one. All
raise the caller's error class with a message that says what went wrong.
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


def parse_settings(items: list[str], flag: str = "--set", error: type[Exception] = ValueError) -> dict[str, Any]:
    """`["lora.r=8", "max_steps=3"]` -> `{"lora.r": 8, "max_steps": 3}`, each value read as YAML;
    `flag` names the option in errors."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise error(f"{flag} expects key=value, got {item!r}")
        try:
            out[key.strip()] = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError as exc:
            raise error(f"{flag} {item!r}: value is {yaml_problem(exc)}") from exc
    return out


def set_dotted(data: dict[str, Any], dotted: str, value: Any, error: type[Exception] = ValueError) -> None:
    """Set `data["a"]["b"] = value` for `dotted` "a.b", making missing sections; a key on the way
    that holds a value, not a section, is an error (`budget=3` then `budget.max_reads=2`)."""
    parts = dotted.split(".")
    if not all(parts):
        raise error(f"bad key {dotted!r}: empty part between dots")
    node = data
    for depth, part in enumerate(parts[:-1]):
        child = node.get(part)
        if child is None:  # missing, or an empty section in YAML (`lora:`)
            child = node[part] = {}
        if not isinstance(child, dict):
            where = ".".join(parts[:depth + 1])
            raise error(f"cannot set {dotted!r}: {where!r} is {child!r}, not a section")
        node = child
    node[parts[-1]] = value
