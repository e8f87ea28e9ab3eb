"""Reading JSON Lines data files (corpora, question sets, gold files) with errors that name
the file and line.

Run files have their own torn-tolerant reader (`trajectories.runfile`); this one is for
data a user hands citeloop, where a bad line is an error to fix, not a tail to resume
from. It owns line numbering (from 1, blank lines skipped but counted) and the JSON and
"one object per line" checks; what a line must hold is the caller's. The wording of the
two checks is data (format templates), since each file kind has its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


def read_json_lines(lines: Iterable[str], source: str, error: type[Exception] = ValueError, *,
                    invalid: str = "invalid JSON ({msg})",
                    not_object: str | None = "expected a JSON object") -> Iterator[tuple[int, Any]]:
    """`(line number, value)` for each non-blank line of `lines`.

    A line that is not JSON raises `error("SOURCE:LINE: " + invalid)`, with `{msg}` (the JSON
    decoder's message) and `{col}` (its column) filled in; a value that is not an object raises
    `error("SOURCE:LINE: " + not_object)`, with `{type}` (the value's Python type name); None
    lets any JSON value through.
    """
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{source}:{lineno}: " + invalid.format(msg=exc.msg, col=exc.colno)) from None
        if not_object is not None and not isinstance(value, dict):
            raise error(f"{source}:{lineno}: " + not_object.format(type=type(value).__name__)) from None
        yield lineno, value


__all__ = ["read_json_lines"]
