"""Sentence splitting for documents that arrive without a gold sentence split.

Sentence ids (`{doc_id}#s{index}`) are what evidence cards cite, so the split must be
deterministic and conservative: a missed boundary only makes a quote longer, while a
false boundary (after "Dr." or inside "3.5") cuts a citable fact in half.
"""

from __future__ import annotations

import re

from citeloop.runtime.memo import memo

# Lower-cased, without the final period. Titles and Latin abbreviations are almost never
# sentence ends in encyclopedic text; ambiguous ones ("etc.", "Inc.", "no.") are left out
# and handled by the lowercase-continuation rule below instead.
ABBREVIATIONS: frozenset[str] = frozenset(
    {
        "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "rev", "hon", "gen", "col",
        "lt", "sgt", "capt", "cmdr", "gov", "sen", "rep", "pres", "mt", "ft", "vs", "cf",
        "approx", "e.g", "i.e", "u.s", "u.k", "u.n", "u.s.a", "a.m", "p.m", "ph.d",
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)

# A candidate boundary: Latin terminal punctuation, optional closing quotes/brackets, then
# whitespace; or CJK terminal punctuation, which needs no following space.
_BOUNDARY = re.compile(
    r"(?P<latin>[.!?]+[\"'\u201d\u2019)\]]*)(?=\s)"
    r"|(?P<cjk>[\u3002\uff01\uff1f]+[\u300d\u300f\u201d\u2019\uff09)]*)"
)
_LAST_TOKEN = re.compile(r"(\S+)$")
_DOTTED = re.compile(r"^(?:[a-z]\.)+[a-z]$")  # "u.s", "e.g", "j.r.r" (final dot consumed)
_LEADING_PUNCT = "([{\"'\u201c\u2018"


def _is_abbreviation(text_before: str) -> bool:
    match = _LAST_TOKEN.search(text_before)
    if not match:
        return False
    token = match.group(1).lstrip(_LEADING_PUNCT).lower()
    if len(token) == 1 and token.isalpha():  # initials: "J. R. R. Tolkien"
        return True
    return token in ABBREVIATIONS or bool(_DOTTED.match(token))


def split_sentences(text: str) -> list[str]:
    """Split `text` into stripped, non-empty sentences."""
    return list(_sentences(text))


@memo("sentences.split_sentences")
def _sentences(text: str) -> tuple[str, ...]:
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        if match.group("latin") is not None:
            following = text[end:].lstrip()
            # A lowercase continuation ("etc. and", "Yahoo! is") is not a new sentence.
            if following[:1].islower():
                continue
            if match.group("latin").startswith(".") and _is_abbreviation(
                text[start : match.start()]
            ):
                continue
        piece = text[start:end].strip()
        if piece:
            sentences.append(piece)
        start = end
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return tuple(sentences)
