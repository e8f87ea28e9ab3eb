"""Data blocks: how retrieved text reaches a model, fenced off from the instructions.

This module owns the delimiters (`DATA_BLOCK_OPEN`, `DATA_BLOCK_CLOSE`) and `as_data_block`,
which strips invisible characters and defuses anything in the text (or in its source and date
header) that could open or close a block, visually or lexically.
"""

from __future__ import annotations

import json
import re

from citeloop.runtime.injection_strip import strip_invisible

DATA_BLOCK_OPEN = "<<<UNTRUSTED_EVIDENCE"
DATA_BLOCK_CLOSE = "<<<END_UNTRUSTED_EVIDENCE>>>"
# Angle-bracket look-alikes that NFKC folds onto "<" / ">" (full-width, small form).
_LT_RUN = re.compile(r"[<\uFF1C\uFE64]{3,}")
_GT_RUN = re.compile(r"[>\uFF1E\uFE65]{3,}")
_MARKER = re.compile(r"(end_)?untrusted_evidence", re.IGNORECASE)


def _neutralise(text: str) -> str:
    """Make the text unable to open or close a data block, visually or lexically."""
    text = _LT_RUN.sub(lambda m: "\u2039" * len(m.group()), text)
    text = _GT_RUN.sub(lambda m: "\u203A" * len(m.group()), text)
    return _MARKER.sub(lambda m: m.group().replace("_", " "), text)


def _header_value(value: str | None) -> str:
    if value is None:
        return "unknown"
    # JSON quoting keeps spaces, quotes and newlines from breaking the header line.
    return json.dumps(_neutralise(strip_invisible(value)), ensure_ascii=False)


def as_data_block(text: str, source: str, date: str | None) -> str:
    """Wrap retrieved text in explicit delimiters that mark it as data, not instructions."""
    body = _neutralise(strip_invisible(text))
    return (
        f"{DATA_BLOCK_OPEN} source={_header_value(source)} date={_header_value(date)}>>>\n"
        f"{body}\n"
        f"{DATA_BLOCK_CLOSE}"
    )
