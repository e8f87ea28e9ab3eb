"""Question files for batch research, and the file-safe names of their ids.

A question file is JSON Lines of `{id, question}`, the format `citeloop eval --dataset FILE`
reads (its other fields, `answer`, `type`, `gold`, are the evaluation's and are ignored
here). This module owns reading one (`read_questions`: every line checked, errors naming
the file and line) and `safe_name`, which turns an id or a policy into one file-name
component, so that batch research and the evaluation harness name run files the same way.
It sits in the runtime layer because batch research must not import the evaluation.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from citeloop.trajectories.errors import ErrorWording, validation_message
from citeloop.trajectories.jsonl import read_json_lines


class QuestionFileError(ValueError):
    """A question file cannot be used; the message names the file (and line) and the problem."""


@dataclass(frozen=True)
class BatchQuestion:
    id: str
    """The question's id in its file: the run file's name."""
    question: str


class _Row(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    question: str


_WORDING = ErrorWording(whole="row")


def read_questions(path: str | Path) -> list[BatchQuestion]:
    """The questions of the JSONL file at `path`, in file order; ids must be unique."""
    path = Path(path)
    if not path.exists():
        raise QuestionFileError(f"{path}: question file not found")
    if not path.is_file():
        raise QuestionFileError(f"{path}: is a directory, not a question file")
    questions: list[BatchQuestion] = []
    first_line: dict[str, int] = {}
    try:
        with path.open(encoding="utf-8") as handle:
            for lineno, value in read_json_lines(handle, str(path), QuestionFileError):
                where = f"{path}:{lineno}"
                try:
                    row = _Row.model_validate(value)
                except ValidationError as exc:
                    raise QuestionFileError(f"{where}: {validation_message(exc, _WORDING)}") from None
                if not row.id.strip() or not row.question.strip():
                    raise QuestionFileError(f"{where}: empty {'id' if not row.id.strip() else 'question'}")
                if row.id in first_line:
                    raise QuestionFileError(f"{where}: duplicate question id {row.id!r} "
                                            f"(first on line {first_line[row.id]})")
                first_line[row.id] = lineno
                questions.append(BatchQuestion(row.id, row.question))
    except UnicodeDecodeError as exc:
        raise QuestionFileError(f"{path}: not a UTF-8 text file (byte {exc.start})") from None
    if not questions:
        raise QuestionFileError(f"{path}: no questions (one JSON object per line: {{\"id\": ..., \"question\": ...}})")
    return questions


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str, limit: int = 80) -> str:
    """`name` as one file-name component: unchanged when it is already safe, else its safe
    characters plus 8 hex digits of its SHA-256 (so two names never meet on one file)."""
    safe = _UNSAFE.sub("_", name).strip("._-")[:limit]
    if safe == name:
        return name
    return f"{safe or 'x'}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"


__all__ = ["BatchQuestion", "QuestionFileError", "read_questions", "safe_name"]
