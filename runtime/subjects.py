"""What a sentence is about: the name it opens with, or else the page it comes from.

The verifier's reverse check counts another card as counter-evidence when it states enough
of a claim and gives a rival number or the opposite polarity. Two sentences can share most
of their words and still be about different things: "La Carapate is a 1978 French comedy
film directed by Gérard Oury" and "The Umbrella Coup is a 1980 French comedy film directed by
Gérard Oury" do not disagree about a year, nor do two brothers' life dates. `same_subject`
tells such pairs apart; where either side's subject is unknown, it answers yes, so the check
stays as strict as before.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citeloop.runtime.text import NAME_PARTICLES, fold_accents, tokenize

# The words before the first bracket, comma, colon or "is/was": "Humphrey Napier Sturt, ..."
_OPENING = re.compile(r"^\W*(?:The\s+)?(?P<name>[A-Z][^(),;:]*?)\s*(?:\(|（|,|;|:|\s(?:is|was|are|were|has|had)\s)")
_CONNECTORS = NAME_PARTICLES | {"and"}
_NOT_NAMES = frozenset({"it", "he", "she", "they", "this", "these", "that", "there", "his", "her", "its",
                        "their", "in", "on", "at", "after", "before", "during", "a", "an", "as", "when",
                        "while", "from", "by", "since", "following", "however", "although"})
_NUMBER = re.compile(r"^(?:\d+(?:st|nd|rd|th)?|[ivxlc]+)$")
"""A token that tells one of a series from another: "2", "3rd", "III"."""


@lru_cache(maxsize=1 << 14)
def sentence_subject(sentence: str) -> str | None:
    """The name a sentence opens with ("Prince Feodor Alexandrovich of Russia (23 December
    1898 ...)" -> "Prince Feodor Alexandrovich of Russia"), or None when it opens with a
    pronoun, a preposition or lower-case words ("It was entered ...", "As of the census ...")."""
    match = _OPENING.match(sentence)
    if match is None:
        return None
    words = match.group("name").split()
    if not words or words[0].lower() in _NOT_NAMES:
        return None
    if not all(w[0].isupper() or w[0].isdigit() or w.lower() in _CONNECTORS or not w[0].isalpha() for w in words):
        return None
    return match.group("name")


def page_subject(title: str) -> str | None:
    """A page title without its disambiguation: "Pyar Ka Karz (film)" -> "Pyar Ka Karz"."""
    title = re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()
    return title or None


def subject_of(sentence: str, title: str = "") -> str | None:
    """The sentence's own subject, else its page's; None when neither is known."""
    return sentence_subject(sentence) or (page_subject(title) if title else None)


@lru_cache(maxsize=1 << 14)
def same_subject(a: str | None, b: str | None) -> bool:
    """Could two subjects name the same thing? Yes when either is unknown, when their words
    are equal, or when one's words hold the other's ("Oscar Wilde" in "Oscar Fingal
    O'Flahertie Wills Wilde") and the extra words tell no one of a series apart ("La Boum 2"
    is not "La Boum"; "Henry Ford II" is not "Henry Ford")."""
    if not a or not b:
        return True
    words_a = set(tokenize(fold_accents(a))) - _CONNECTORS
    words_b = set(tokenize(fold_accents(b))) - _CONNECTORS
    if not words_a or not words_b:
        return True
    if words_a <= words_b or words_b <= words_a:
        return not any(_NUMBER.match(w) for w in words_a ^ words_b)
    return False
