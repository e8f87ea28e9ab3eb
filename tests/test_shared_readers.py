"""The helpers written once for every layer: validation-error wording (trajectories/errors.py),
JSON Lines reading (trajectories/jsonl.py), package versions (runtime/session.py), the
multihop question loaders (eval/datasets.py), and the replay modules' shared names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from citeloop.trajectories.errors import ErrorWording, error_location, error_message, validation_message
from citeloop.trajectories.jsonl import read_json_lines


class _Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    r: int = 1
    alpha: int = 2


class _Outer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    size: int = 0
    inner: _Inner = _Inner()

    @field_validator("size")
    @classmethod
    def _even(cls, value: int) -> int:
        if value % 2:
            raise ValueError(f"size must be even, got {value}")
        return value


def _error(data: object) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        _Outer.model_validate(data)
    return info.value


# --------------------------------------------------------------------------- validation messages


def test_the_plain_wording_is_location_then_the_validators_own_words() -> None:
    exc = _error({"name": "n", "size": 3, "inner": {"r": "x"}})
    assert [error_location(e) for e in exc.errors()] == ["size", "inner.r"]
    assert error_message(exc.errors()[0]) == "size must be even, got 3"  # no "Value error, " wrapper
    assert validation_message(exc) == ("size: size must be even, got 3; "
                                       "inner.r: Input should be a valid integer, unable to parse string as an integer")
    assert validation_message(exc, first_only=True) == "size: size must be even, got 3"


def test_unknown_keys_name_their_section_and_the_valid_keys() -> None:
    valid = {"": ["inner", "name", "size"], "inner": ["alpha", "r"]}
    wording = ErrorWording(unknown="unknown key '{key}'{place}{valid}", missing="missing key '{loc}'",
                           top_level="at top level", valid_keys=lambda section: valid.get(section, []))
    exc = _error({"nmae": "n", "inner": {"rank": 4}})
    assert validation_message(exc, wording) == (  # in pydantic's order: fields, then extra keys
        "missing key 'name'; unknown key 'rank' in section 'inner' (valid: alpha, r); "
        "unknown key 'nmae' at top level (valid: inner, name, size)")


def test_grouped_unknown_keys_come_first_one_phrase_per_section() -> None:
    wording = ErrorWording(other="{loc}: {msg}", unknown="unknown config key{s} {keys}{place}",
                           group_unknown=True, top_level="at top level")
    exc = _error({"name": "n", "size": 1, "a": 1, "b": 2, "inner": {"c": 3}})
    assert validation_message(exc, wording) == ("unknown config key 'c' in section 'inner'; "
                                                "unknown config keys 'a', 'b' at top level; "
                                                "size: size must be even, got 1")


def test_each_kind_of_error_has_its_template_and_an_empty_location_its_name() -> None:
    wording = ErrorWording(other="wrong type for field '{loc}': {msg}", unknown="unknown field '{loc}'",
                           missing="missing field '{loc}'", value="field '{loc}': {msg}", whole="document")
    assert validation_message(_error({"size": 2, "x": 1}), wording) == "missing field 'name'; unknown field 'x'"
    assert validation_message(_error({"name": 5, "size": 1}), wording) == (
        "wrong type for field 'name': Input should be a valid string; field 'size': size must be even, got 1")
    assert validation_message(_error([1]), wording) == (
        "wrong type for field 'document': Input should be a valid dictionary or instance of _Outer")
    assert validation_message(_error([1])) == "Input should be a valid dictionary or instance of _Outer"
    assert validation_message(_error([1]), ErrorWording(whole="row")) == (
        "row: Input should be a valid dictionary or instance of _Outer")


def test_the_config_files_keep_their_messages(tmp_path: Path) -> None:
    from citeloop.filters.errors import FilterConfigError
    from citeloop.filters.gates import load_filter_config
    from citeloop.runtime.config import ConfigError, load_config

    with pytest.raises(ConfigError, match=r"^defaults with budget.a, budget.b, budget.max_reads set: "
                                          r"unknown config keys 'a', 'b' in section 'budget' "
                                          r"\(valid: max_reads, max_rounds, max_searches, per_subq_reads, "
                                          r"per_subq_searches\); budget.max_reads: Input should be greater"):
        load_config(overrides={"budget.a": 1, "budget.b": 2, "budget.max_reads": 0})
    path = tmp_path / "filter.yaml"
    path.write_text("zz: 1\n", encoding="utf-8")
    with pytest.raises(FilterConfigError, match=r": unknown key 'zz' at top level$"):
        load_filter_config(path)


# --------------------------------------------------------------------------- JSON Lines


def test_json_lines_are_numbered_from_one_counting_blank_lines() -> None:
    lines = ['{"a": 1}', "", "   ", '{"b": 2}']
    assert list(read_json_lines(lines, "f.jsonl")) == [(1, {"a": 1}), (4, {"b": 2})]
    assert list(read_json_lines(["[1, 2]", "3"], "f.jsonl", not_object=None)) == [(1, [1, 2]), (2, 3)]


class _FileError(ValueError):
    pass


def test_bad_json_lines_raise_the_callers_error_with_file_and_line() -> None:
    with pytest.raises(_FileError, match=r"^f.jsonl:3: invalid JSON \(Expecting value\)$"):
        list(read_json_lines(['{"a": 1}', "", "oops"], "f.jsonl", _FileError))
    with pytest.raises(_FileError, match=r"^f.jsonl:1: not JSON \(Expecting ',' delimiter\) at column 9$"):
        list(read_json_lines(['{"a": 1 "b": 2}'], "f.jsonl", _FileError, invalid="not JSON ({msg}) at column {col}"))
    with pytest.raises(_FileError, match=r"^f.jsonl:2: expected a JSON object, got list$"):
        list(read_json_lines(["{}", "[1]"], "f.jsonl", _FileError, not_object="expected a JSON object, got {type}"))


def test_each_data_file_reports_its_bad_line(tmp_path: Path) -> None:
    from citeloop.eval.datasets import DatasetError, load_user_set
    from citeloop.filters.gold import GoldFileError, GoldSet
    from citeloop.runtime.corpus import CorpusError, load_corpus

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "d1", "title": "T", "text": "One."}) + "\n\n" + '{"id": "d2",\n',
                      encoding="utf-8")
    with pytest.raises(CorpusError, match=r"corpus.jsonl:3: invalid JSON \(.* at column \d+\)$"):
        load_corpus(corpus)
    questions = tmp_path / "questions.jsonl"
    questions.write_text('{"id": "q1", "question": "Why?"}\n"just a string"\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"questions.jsonl:2: expected a JSON object$"):
        load_user_set(questions)
    questions.write_text('{"id": "q1", "question": "Why?", "gold": [{"doc": "x"}]}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"questions.jsonl:1: gold.0.doc_id: Field required; "
                                           r"gold.0.doc: Extra inputs are not permitted$"):
        load_user_set(questions)
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"question": "q", "units": []}\nnope\n', encoding="utf-8")
    with pytest.raises(GoldFileError, match=r"gold.jsonl:2: not JSON \(Expecting value\)$"):
        GoldSet.read(gold)


# --------------------------------------------------------------------------- package versions


def test_package_versions_of_any_list() -> None:
    from importlib import metadata

    from citeloop.runtime.session import PACKAGES, code_digest, package_versions

    assert list(package_versions()) == list(PACKAGES)
    assert package_versions()["citeloop"].endswith(f"+src.{code_digest()}")
    versions = package_versions(["pydantic", "no-such-package-citeloop"])
    assert versions == {"pydantic": metadata.version("pydantic"), "no-such-package-citeloop": "not-installed"}


# --------------------------------------------------------------------------- multihop questions


def test_the_benchmarks_gold_questions_are_the_data_sets_questions() -> None:
    from citeloop.eval.datasets import load_hotpotqa, load_musique
    from citeloop.eval.gold import shared_multihop
    from citeloop.runtime.corpus import load_embedded_corpus

    corpus = load_embedded_corpus()
    sets = [load_hotpotqa(corpus=corpus), load_musique(corpus=corpus)]
    expected = [(q.id, q.question, q.answer, frozenset(q.gold), s.level) for s in sets for q in s.questions]
    shared = shared_multihop(None, corpus)
    assert [(g.qid, g.question, g.answer, g.gold, g.level) for g in shared] == expected
    assert len(shared) == 200 and {g.level for g in shared[:100]} == {"sentence"}
    assert all(g.gold for g in shared)


# --------------------------------------------------------------------------- replay modules


def test_replay_names_are_the_split_modules_own() -> None:
    from citeloop.runtime import rebuild, replay, replay_runs

    for name in ("ReplayError", "Components", "build_components", "config_from_spec", "policy_spec_of",
                 "scripted_policies", "branch_policies", "model_parts", "make_verifier", "corpus_cutoff"):
        assert getattr(replay, name) is getattr(rebuild, name)
    for name in ("ReplayRun", "LiveCorpus", "execute", "recorded_tools", "write_run"):
        assert getattr(replay, name) is getattr(replay_runs, name)
    assert set(replay.__all__) <= set(dir(replay))
