"""Untrusted-text hygiene (seed 14): invisible-character stripping, a rule-based prompt
injection filter run before evidence is ingested, and data blocks that fence retrieved
text off from instructions.

The filter is the cheap first pass of seed 14.3's second line of defence: it catches
low-cost, bulk injections. It is not a proof of safety; data blocks (isolation) and the
citation audit are the other two lines.
"""

from __future__ import annotations

import json
import re
import unicodedata

from pydantic import BaseModel, ConfigDict

_INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x200B, 0x200F),  # zero-width space/joiners, LRM/RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0x2066, 0x2069),  # bidi isolates
    (0xFEFF, 0xFEFF),  # zero-width no-break space / BOM
    (0xE0000, 0xE007F),  # Unicode tag characters ("ASCII smuggling")
)
_STRIP_TABLE = {cp: None for lo, hi in _INVISIBLE_RANGES for cp in range(lo, hi + 1)}


def strip_invisible(text: str) -> str:
    """Remove characters that render as nothing but can carry or split hidden text."""
    return text.translate(_STRIP_TABLE)


# Any one of these is an instruction aimed at the model reading the page.
STRONG_CUES: tuple[str, ...] = (
    "ignore previous instructions",
    "ignore all previous",
    "ignore the previous",
    "ignore prior instructions",
    "disregard the above",
    "disregard previous",
    "disregard all previous",
    "you are now",
    "new instructions:",
    "system prompt",
    "as an ai",
    "do not mention",
    "in your report, say",
    "in your summary, say",
    "忽略以上",
    "忽略之前",
    "新的指令",
    "请在报告末尾",
    "请在总结",
    # Directives to whoever writes the report (seed 14.2: the goal is narrative control);
    # found by the injection benchmark, none occurs in the clean corpus.
    "add this link",
    "include this link",
    "add the following link",
    "in your report",
    "in your summary",
    "in your answer",
    "to your report",
    "when summarising",
    "when summarizing",
    "always mention",
    "system note",
    "系统提示",
    "你现在是",
    "在报告中",
    "在回答中",
)
# Ordinary words that are suspicious only together (an encyclopedia has "assistant coach").
WEAK_CUES: tuple[str, ...] = (
    "instructions",
    "assistant",
    "must say",
    "respond with",
    "language model",
    "chatbot",
    "ai model",
    "override",
    "prompt",
    "助手",
    "指令",
)


class InjectionFinding(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    cues: list[str]
    """The cue phrases found, in rule order."""
    reason: str


def _cue_pattern(cue: str) -> re.Pattern[str]:
    escaped = re.escape(cue).replace(r"\ ", r"\s+")
    if cue.isascii():
        # Word boundaries keep "as an ai" out of "as an aide" and "prompt" out of "prompted";
        # a cue ending in punctuation ("new instructions:") needs none on that side.
        start = r"\b" if cue[0].isalnum() else ""
        end = r"\b" if cue[-1].isalnum() else ""
        return re.compile(start + escaped + end)
    return re.compile(escaped)  # CJK has no word boundaries


_STRONG = [(cue, _cue_pattern(cue)) for cue in STRONG_CUES]
_WEAK = [(cue, _cue_pattern(cue)) for cue in WEAK_CUES]


def _normalise(text: str) -> str:
    # NFKC folds full-width and styled letters ("ｉｇｎｏｒｅ") onto plain ones; casefold
    # after it so folded capitals are lowered too.
    return unicodedata.normalize("NFKC", strip_invisible(text)).casefold()


# A link the text tells its reader (a person or a model) to use is the payload of seed 14.2's
# narrative control ("add this link to the report"), however the request is phrased. A full
# URL inside a sentence is never the fact a report cites (the card carries its source's URL),
# so one is enough; a bare `www.` name is flagged only when the text addresses its reader.
_URL = re.compile(r"\bhttps?://\S")
_LINK = re.compile(r"https?://|\bwww\.")
_READER = re.compile(r"\b(?:you|your|yours|readers?|models?|assistants?|agents?|bots?|llms?)\b|你|您|各位|模型|助手")


def detect_injection(text: str) -> InjectionFinding | None:
    """Rule-based injection check; None when no rule fires."""
    norm = _normalise(text)
    strong = [cue for cue, pattern in _STRONG if pattern.search(norm)]
    if strong:
        return InjectionFinding(cues=strong, reason=f"instruction cue {strong[0]!r}")
    url = _URL.search(norm)
    if url:
        return InjectionFinding(cues=["url"], reason="carries a URL: retrieved text never supplies a report's links")
    reader = _READER.search(norm)
    if reader and _LINK.search(norm):
        return InjectionFinding(cues=["link", reader.group()],
                                reason=f"a link addressed to the reader ({reader.group()!r})")
    weak = [cue for cue, pattern in _WEAK if pattern.search(norm)]
    if len(weak) >= 2:
        return InjectionFinding(
            cues=weak, reason=f"{len(weak)} weak cues together: {', '.join(map(repr, weak))}"
        )
    return None


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
