"""What the injection filter reads: text with invisible characters stripped, and the folded
forms its cues match against.

This module owns the invisible-character table (`strip_invisible`, applied to everything
retrieved before it is read or shown to a model) and the two normalised forms of a sentence
the rules search (`normalise`: NFKC and casefolded; `cased`: NFKC with case kept), both with
the spaces between CJK characters removed.
"""

from __future__ import annotations

import re
import unicodedata

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


_CJK_GAP = re.compile(r"(?<=[\u3000-\u30ff\u4e00-\u9fff\uff01-\uff1f]) +(?=[\u3000-\u30ff\u4e00-\u9fff\uff01-\uff1f])")


def cased(text: str) -> str:
    """The text as the cased cues read it: invisible characters stripped, NFKC, no spaces
    between CJK characters (like `normalise`, without casefolding)."""
    return _CJK_GAP.sub("", unicodedata.normalize("NFKC", strip_invisible(text)))


def normalise(text: str) -> str:
    """The text as the cues read it. NFKC folds full-width and styled letters ("ｉｇｎｏｒｅ")
    onto plain ones; casefold after it so folded capitals are lowered too. Chinese is written
    without spaces, so spaces between two CJK characters ("请 在 结 论") are an evasion and go."""
    return _CJK_GAP.sub("", unicodedata.normalize("NFKC", strip_invisible(text)).casefold())
