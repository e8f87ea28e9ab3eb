"""Writing systems of a page's sentences: finds sentences written in another script than the
rest of their page ("script islands").

A real encyclopedia page in English names things in other scripts inside English sentences
("Wangliang (魍魎 or 罔两) is ..."), but it does not switch to whole sentences of Chinese. A
sentence that does is text planted by someone else (seed 14.1: instructions and planted
statements in a second language, aimed at a reader that reads both). The engine keeps such a
sentence out of evidence, as it keeps out what the injection filter flags.

Letters are weighed by script: a Latin letter counts 1, a Chinese, Japanese or Korean
character 3 (one of them carries about as much as three Latin letters), any other letter 1.
A sentence's `foreign share` is the weight of its non-Latin letters over all its letters.
Measured on the embedded corpus and 2WikiMultiHopQA's (32,149 sentences): the highest share
of a real sentence is 0.35 (a film title given in Chinese twice); a Chinese sentence naming
an English title and one English name scores about 0.65.
"""

from __future__ import annotations

import re

ISLAND_SHARE = 0.5
"""A sentence at or above this foreign share is in another script than Latin, and below it
in Latin; so is the rest of a page."""
MIN_PAGE_LETTERS = 40
"""The rest of the page needs this many letters (weighed) before it says which script the
page is in."""
_CJK = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CJK_WEIGHT = 3
_LATIN_END = "\u0250"  # Basic Latin through Latin Extended-B; IPA and beyond are not Latin letters


def _weights(text: str) -> tuple[int, int]:
    """(weighed non-Latin letters, weighed letters) of `text`."""
    foreign = total = 0
    for ch in text:
        if not ch.isalpha():
            continue
        if ch < _LATIN_END:
            total += 1
        else:
            w = _CJK_WEIGHT if _CJK.match(ch) else 1
            foreign += w
            total += w
    return foreign, total


def foreign_share(text: str) -> float:
    """The weighed share of `text`'s letters that are not Latin (0.0 for a text without letters)."""
    foreign, total = _weights(text)
    return foreign / total if total else 0.0


def script_islands(sentences: list[str]) -> dict[int, str]:
    """Index -> why, for each sentence written in another script than the rest of its page."""
    weights = [_weights(s) for s in sentences]
    all_foreign = sum(f for f, _ in weights)
    all_total = sum(t for _, t in weights)
    islands: dict[int, str] = {}
    for i, (foreign, total) in enumerate(weights):
        rest_total = all_total - total
        if not total or rest_total < MIN_PAGE_LETTERS:
            continue
        share = foreign / total
        rest_share = (all_foreign - foreign) / rest_total
        if (share >= ISLAND_SHARE) != (rest_share >= ISLAND_SHARE):
            islands[i] = (f"script island: a sentence {share:.0%} in non-Latin script in a page "
                          f"{rest_share:.0%} so")
    return islands
