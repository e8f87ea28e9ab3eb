"""The store's header struct (`store_header`) against pydantic's `RunHeader`, the oracle: every
header the struct accepts, `RunHeader` accepts with the same values; every header `RunHeader`
refuses, the store skips with `parse_run_bytes`' own words; headers only pydantic's lax mode
takes are still stored."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from citeloop.trajectories.header import RunHeader
from citeloop.trajectories.runfile import RunFileError, parse_run_bytes
from citeloop.trajectories.store_decode import read_file
from citeloop.trajectories.store_header import derive_struct, fast_header

TESTS = Path(__file__).parent
COMMITTED = [TESTS / "fixtures" / f"run_{name}.jsonl" for name in ("v1", "v2", "v3", "old_header")] + [
    TESTS / "golden" / "leland_heuristic.jsonl"]
GOLDEN_HEADER: dict[str, Any] = json.loads(COMMITTED[-1].read_bytes().split(b"\n", 1)[0])


def _pydantic(line: bytes) -> dict[str, Any]:
    dumped = RunHeader.model_validate(json.loads(line)).model_dump(mode="json")
    dumped.pop("schema_version")  # migrated to the current version; the struct keeps it as written
    return dumped


def _struct(header: Any) -> dict[str, Any]:
    built = msgspec.to_builtins(header)
    built.pop("schema_version")
    return built


def _line(data: Any) -> bytes:
    return json.dumps(data).encode() + b"\n"


@pytest.mark.parametrize("path", COMMITTED, ids=[p.stem for p in COMMITTED])
def test_every_committed_header_reads_as_pydantic_reads_it(path: Path) -> None:
    line = path.read_bytes().split(b"\n", 1)[0] + b"\n"
    fast = fast_header(line)
    assert fast is not None, "the fast path takes every committed header"
    assert _struct(fast) == _pydantic(line)


def _with(path: tuple[str, ...], value: Any = None, delete: bool = False) -> dict[str, Any]:
    data = copy.deepcopy(GOLDEN_HEADER)
    where = data
    for key in path[:-1]:
        where = where.setdefault(key, {}) if isinstance(where, dict) else where
    if delete:
        where.pop(path[-1])
    else:
        where[path[-1]] = value
    return data


REFUSED = {
    "no type": _with(("type",), delete=True),
    "another type": _with(("type",), "plan_created"),
    "unknown field": _with(("extra",), 1),
    "unknown spec field": _with(("spec", "extra"), 1),
    "unknown component field": _with(("spec", "planner", "extra"), 1),
    "no run_id": _with(("run_id",), delete=True),
    "no spec question": _with(("spec", "question"), delete=True),
    "seed a word": _with(("spec", "seed"), "three"),
    "question a number": _with(("spec", "question"), 3),
    "newer version": _with(("schema_version",), 99),
    "version 0": _with(("schema_version",), 0),
    "version text": _with(("schema_version",), "6"),
    "version float": _with(("schema_version",), 6.0),
    "policies a list": _with(("spec", "policies"), ["heuristic"]),
    "package version a number": _with(("spec", "packages", "citeloop"), 1),
    "forced choice an object": _with(("spec", "branch"), {"parent_run_id": "r", "branch_seq": 3,
                                                          "forced_choice": {}, "continuation_policy": "heuristic"}),
    "not an object": ["run_header"],
}


@pytest.mark.parametrize("data", list(REFUSED.values()), ids=list(REFUSED))
def test_a_header_pydantic_refuses_is_skipped_in_its_words(data: Any, tmp_path: Path) -> None:
    line = _line(data)
    assert fast_header(line) is None
    with pytest.raises(RunFileError) as refused:
        parse_run_bytes(line, tmp_path / "r.jsonl")
    read = read_file(str(tmp_path / "r.jsonl"), line, "d", None, exact=False)
    assert read.file is None and read.reason == str(refused.value)


LAX = {  # values pydantic's lax mode converts and msgspec's strict types refuse: -> (runs column, value)
    "seed as text": (_with(("spec", "seed"), "3"), "seed", 3),
    "seed as float": (_with(("spec", "seed"), 3.0), "seed", 3),
    "branch seq as text": (_with(("spec", "branch"), {"parent_run_id": "run-p", "branch_seq": "4",
                                                      "forced_choice": "stop", "continuation_policy": "heuristic"}),
                           "branch_seq", 4),
}


@pytest.mark.parametrize(("data", "column", "value"), list(LAX.values()), ids=list(LAX))
def test_a_header_only_pydantic_takes_is_still_stored(data: dict[str, Any], column: str, value: Any) -> None:
    line = _line(data)
    assert fast_header(line) is None
    read = read_file("r.jsonl", line, "d", None, exact=False)
    assert read.file is not None and read.file.run_row[column] == value


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 10) | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(max_size=4), lambda inner: st.lists(inner, max_size=2)
                     | st.dictionaries(st.text(max_size=4), inner, max_size=2), max_leaves=4)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path of `value`, and a new key in each of its objects."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        out.append((*prefix, "zz"))
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    return out


PATHS = _paths(GOLDEN_HEADER) + [("spec", "branch", "parent_run_id"), ("spec", "branch", "branch_seq"),
                                 ("spec", "branch", "forced_choice"), ("spec", "branch", "continuation_policy"),
                                 ("spec", "branch", "decision_type"), ("spec", "corpus_cutoff")]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.sampled_from(PATHS), _JSON, st.booleans()), min_size=1, max_size=3))
def test_the_struct_never_takes_what_pydantic_refuses(edits: list[tuple[tuple[Any, ...], Any, bool]]) -> None:
    data = copy.deepcopy(GOLDEN_HEADER)
    data["spec"]["branch"] = {"parent_run_id": "run-p", "branch_seq": 2, "forced_choice": ["d1"],
                              "continuation_policy": "heuristic"}
    for path, value, delete in edits:
        where = data
        for key in path[:-1]:
            if not isinstance(where, dict) or not isinstance(where.get(key), dict):
                break
            where = where[key]
        else:
            if delete:
                where.pop(path[-1], None)
            else:
                where[path[-1]] = value
    line = _line(data)
    fast = fast_header(line)
    try:
        want = _pydantic(line)
    except (ValidationError, ValueError):
        assert fast is None, "the struct took a header pydantic refuses"
        return
    if fast is not None:
        assert _struct(fast) == want


def test_a_model_the_struct_cannot_stand_for_fails_at_once() -> None:
    class Checked(BaseModel):
        model_config = ConfigDict(extra="forbid")
        name: str

        @field_validator("name")
        @classmethod
        def _upper(cls, value: str) -> str:
            return value.upper()

    class Aliased(BaseModel):
        name: str = Field(alias="Name")

    for model in (Checked, Aliased):
        with pytest.raises(TypeError, match="store header"):
            derive_struct(model)
