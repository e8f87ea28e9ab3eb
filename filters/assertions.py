"""The assertion detector: does a report sentence make a factual assertion?

Seed 001 section 11.3: the unsupported-claim rate counts only sentences that carry a
factual assertion. Transitions, headings, summaries, opinions, gap statements, questions,
assumptions and statements about the research process need no evidence; counting them
would keep the rate high and meaningless. The rules are explicit and ordered; the first
that matches names the kind. Everything else is an `assertion`.

A sentence that merely opens with a transition ("Moreover, X was founded in 1990.") is
judged by what follows the transition: prefixing a fact with "Moreover" must not hide an
unsupported fact. A summary opener ("In summary, ...") marks a summary sentence, which
restates what came before and is not counted (seed 11.3).
"""

from __future__ import annotations

import re
from typing import Literal

from citeloop.runtime.text import STOPWORDS, tokenize

SentenceKind = Literal[
    "assertion", "empty", "heading", "question", "transition", "summary", "opinion", "gap",
    "assumption", "status", "reference", "fragment",
]
"""What a report sentence does; only `assertion` needs bound evidence."""

SectionKind = Literal["title", "body", "claims", "disagreements", "gaps", "premises", "assumptions", "references"]
"""The kind of report section a sentence sits in, read from its heading."""

NON_ASSERTION_SECTIONS: dict[str, SentenceKind] = {
    "assumptions": "assumption",
    "gaps": "gap",
    "premises": "status",
    "references": "reference",
}
"""Sections whose lines are, by the report's structure, not factual assertions: stated
assumptions, gap notes, premise check results and the evidence appendix (quotes of the
sources themselves)."""

_MARKDOWN = re.compile(r"(\*\*|__|`|^[-*+]\s+|^\d+[.)]\s+|^>\s*)")
_HEADING = re.compile(r"^#{1,6}\s")
_SUMMARY = re.compile(
    r"^(in summary|in conclusion|to summari[sz]e|to sum up|in short|in brief|all in all|overall|to conclude|"
    r"summing up)\b", re.IGNORECASE)
_TRANSITION = re.compile(
    r"^(moreover|furthermore|in addition|additionally|however|also|besides|next|then|finally|"
    r"first(?:ly)?|second(?:ly)?|third(?:ly)?|meanwhile|on the other hand|by contrast|in contrast|"
    r"similarly|likewise|consequently|therefore|thus|hence|as a result|for example|for instance|"
    r"that said|nevertheless|nonetheless|still|indeed|in particular|notably|importantly)\b[,:]?\s*",
    re.IGNORECASE)
_META = re.compile(
    r"\b(let(?:'s| us) (?:now )?(?:turn|look|consider|move|examine)|we (?:now )?(?:turn|move) to|"
    r"the (?:following|next) section|this section|as (?:discussed|noted|mentioned|shown) (?:above|below|earlier)|"
    r"more on (?:this|that) below|see (?:above|below))\b", re.IGNORECASE)
_OPINION = re.compile(
    r"\b((?:i|we) (?:think|believe|feel|recommend|suggest|argue|would|prefer)|i'd|we'd|"
    r"in (?:my|our) (?:view|opinion)|it (?:is|would be) (?:recommended|advisable|wise|better|best)|"
    r"it seems|seems to me|arguably|should|ought to|preferably|hopefully)\b", re.IGNORECASE)
_GAP = re.compile(
    r"(\bnot (?:yet )?found\b|\bno (?:evidence|information|source|data)\b|\b(?:could|can)(?:not|n't| not) be "
    r"(?:determined|found|verified|established|confirmed)\b|\b(?:could|did)(?:not|n't| not) (?:find|determine|verify)\b|"
    r"\bunable to (?:find|determine|verify|confirm)\b|\b(?:information|evidence|knowledge|data|research) gaps?\b|"
    r"\ban? gap\b|\bgaps? (?:in|remain)|\bgaps?:|\bdead[- ]ends?\b|\bremains? (?:unclear|unknown|open|unanswered)\b|"
    r"\bis unknown\b|\bnot verified\b|\bunverified\b|\binsufficient evidence\b|\bnot (?:yet )?answered\b|"
    r"\bnone states it\b|\bnot evidence that\b|\binfrastructure failure\b)", re.IGNORECASE)
_ASSUMPTION = re.compile(
    r"(^(?:we |i )?assum(?:e|ing)\b|\b(?:is|are|was|were) assumed\b|\bassumptions?\b|\btaken as stated\b|"
    r"^we take\b|\bwe (?:will )?treat\b)", re.IGNORECASE)
_STATUS = re.compile(
    r"(^searched\b|^queries tried\b|^corpus cut-?off\b|\bentities found along the way\b|^dropped by the verifier\b|"
    r"\bsurvived verification\b|\bevery sub-question found evidence\b|:\s*verified\.?$|^sq\d+\s*->)", re.IGNORECASE)


def strip_markdown(text: str) -> str:
    """The sentence without list bullets, emphasis markers and code ticks."""
    text = text.strip()
    previous = None
    while previous != text:
        previous = text
        text = _MARKDOWN.sub("", text).strip()
    return text.strip("_*").strip()


def _words(text: str) -> list[str]:
    """Non-stopword tokens, numbers included ("He died in 1990." has two)."""
    return [t for t in tokenize(text) if t not in STOPWORDS]


def classify_sentence(sentence: str, section: SectionKind | None = None) -> SentenceKind:
    """The kind of a report sentence; only `assertion` needs evidence.

    `section` is the kind of report section the sentence sits in (from its heading);
    sections listed in `NON_ASSERTION_SECTIONS` decide the kind on their own.
    """
    raw = sentence.strip()
    if _HEADING.match(raw):
        return "heading"
    text = strip_markdown(raw)
    if not any(ch.isalnum() for ch in text):
        return "empty"
    if section in NON_ASSERTION_SECTIONS:
        return NON_ASSERTION_SECTIONS[section]
    if raw.startswith(("**", "__")) and raw.rstrip(".:").endswith(("**", "__")) and len(_words(text)) <= 8:
        return "heading"  # a bold line on its own ("**Answer**") is a heading
    if text.rstrip().endswith(("?", "？")):
        return "question"
    if _SUMMARY.match(text):
        return "summary"
    if _GAP.search(text):
        return "gap"
    if _OPINION.search(text):
        return "opinion"
    if _ASSUMPTION.search(text):
        return "assumption"
    if _STATUS.search(text):
        return "status"
    rest = text
    while (match := _TRANSITION.match(rest)) and match.end() > 0:
        rest = rest[match.end():]
    if _META.search(rest):
        return "transition"
    if len(_words(rest)) < 2:
        return "transition" if rest != text else "fragment"
    return "assertion"


def is_assertion(sentence: str, section: SectionKind | None = None) -> bool:
    """True when the sentence makes a factual assertion that needs bound evidence."""
    return classify_sentence(sentence, section) == "assertion"


def section_kind(heading: str, level: int) -> SectionKind:
    """The kind of a section from its heading text (`level` 1 is the report title)."""
    if level == 1:
        return "title"
    low = heading.lower()
    if "disagree" in low or "conflict" in low or "contradict" in low:
        return "disagreements"
    if "gap" in low or "dead end" in low or "limitation" in low or "open question" in low:
        return "gaps"
    if "premise" in low:
        return "premises"
    if "assumption" in low:
        return "assumptions"
    if low.strip() in {"evidence", "references", "sources", "bibliography", "citations"}:
        return "references"
    return "body"
