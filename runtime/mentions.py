"""Dates and numbers a sentence states, with sortable values, and what a date or a place is
of a life ("(Madrid, 23 June 1862 - Munich, 4 December 1946)": a birth and a death). Used by
the answer finder (`citeloop.runtime.answer_spans`) and the answer-sentence tests."""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeloop.runtime.memo import memo
from citeloop.runtime.numbers import WORD_NUMBERS, extract_numbers
from citeloop.runtime.text import name_in_context, tokenize

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"]
_MONTH = r"(?P<month>" + "|".join(m.capitalize() for m in MONTHS) + r"|" + "|".join(
    m[:3].capitalize() for m in MONTHS) + r")\.?"
# A year ends at a word boundary, or where the next date of a life starts with no dash
# between them, as some articles print it: "(21 March 192011 January 2010)"; the next date
# then starts right after a digit.
_YEAR_END = r"(?:\b|(?=\d{1,2}\s+[A-Z][a-z]+\s+\d)|(?=(?:" + "|".join(m.capitalize() for m in MONTHS) + r")\b))"
# An era written before or after a year ("AD 23", "13 BC"): with it, a year of one or two
# digits is a year; BC years count down (their value is negative).
_AD = r"(?:AD|A\.D\.)"
_ERA = r"(?P<era>BC|BCE|B\.C\.|AD|CE|A\.D\.)(?![\w.])"
_ERA_BEFORE = r"(?:" + _AD + r"\s+)?"
_ERA_AFTER = r"(?:\s+" + _ERA + r")?"
DATE_PATTERNS = [
    re.compile(r"(?:\b|(?<=\d))(?P<day>\d{1,2})\s+" + _MONTH + r",?\s+" + _ERA_BEFORE + r"(?P<year>\d{3,4})"
               + _YEAR_END + _ERA_AFTER),
    re.compile(r"(?:\b|(?<=\d))" + _MONTH + r"\s+(?P<day>\d{1,2}),?\s+" + _ERA_BEFORE + r"(?P<year>\d{3,4})"
               + _YEAR_END + _ERA_AFTER),
    re.compile(r"\b" + _MONTH + r"\s+(?P<year>\d{3,4})\b" + _ERA_AFTER),
    # a day and month before a year of one or two digits, or any year with its era
    re.compile(r"\b(?P<day>\d{1,2})\s+" + _MONTH + r",?\s+" + _ERA_BEFORE + r"(?P<year>\d{1,2})\b" + _ERA_AFTER),
    re.compile(r"\b" + _AD + r"\s+(?P<year>\d{1,4})\b"),
    re.compile(r"\b(?P<year>\d{1,4})\s+" + _ERA),
    re.compile(r"(?<![\d,.])\b(?P<year>1\d{3}|20\d{2})\b(?![,.]\d)"),
]
_BEFORE_CHRIST = {"BC", "BCE", "B.C."}
_DEATH_MARKS = {"died", "death", "d"}
_LIFE_MARKS = _DEATH_MARKS | {"born", "birth", "b"}
_PARENS = re.compile(r"\(([^()]*)\)")
_AFTER_BORN = re.compile(r"\bborn\s+\Z")
"""Right before a birth name: "(born Kovelamudi Raghavendra Rao on 23 May 1942)"."""


@dataclass(frozen=True)
class Mention:
    text: str
    start: int
    """Token position in the sentence (for nearness to the relation's words)."""
    value: tuple[float, ...] = ()
    """Sortable value of a date (year, month, day) or a number."""


def date_mentions(sentence: str) -> list[Mention]:
    """The dates the sentence states, in the order they stand."""
    return list(_date_mentions(sentence))


@memo("mentions.dates", maxsize=1 << 16)
def _date_mentions(sentence: str) -> tuple[Mention, ...]:
    # Kept by sentence: a run asks it of the same cards for every answer test and span.
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Mention]] = []
    for pattern in DATE_PATTERNS:
        for m in pattern.finditer(sentence):
            if any(a <= m.start() < b or a < m.end() <= b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            parts = m.groupdict()
            month = parts.get("month")
            month_no = next((i + 1 for i, name in enumerate(MONTHS) if month and name.startswith(month.lower()[:3])),
                            0)
            year = float(parts["year"]) * (-1 if parts.get("era") in _BEFORE_CHRIST else 1)
            value = (year, float(month_no), float(parts.get("day") or 0))
            found.append((m.start(), Mention(m.group(0), len(tokenize(sentence[: m.start()])), value)))
    return tuple(mention for _, mention in sorted(found, key=lambda item: item[0]))


def _bracket_groups(sentence: str) -> list[str]:
    """The texts in brackets, innermost first, then one level out with the inner ones taken
    away: "(April 27, 1672 (some say 1671) in Bordeaux - April 11, 1743)" gives both."""
    return _PARENS.findall(sentence) + _PARENS.findall(_PARENS.sub(" ", sentence))


def life_role(sentence: str, date: Mention) -> str | None:
    """"birth", "death" or None: what this date is of a life. In brackets that date a life,
    the first date is the birth and the second the death ("(March 10, 1925 - August 21,
    1988)"), or a mark inside says which ("(born 10 January 1930 in Ajmer)", "(d. 1953)");
    elsewhere the nearest of "born", "died", "birth" or "death" within four words before it
    ("after his death in 2010"), or within eight with no other date between. A film's year
    ("The Housemaid (1960)") is neither. Brackets may hold brackets: "(April 27, 1672 (some
    say 1671) in Bordeaux - April 11, 1743)"."""
    for group in _bracket_groups(sentence):
        if date.text not in group:
            continue
        inner = [d.text for d in date_mentions(group)]
        dash = re.search(r"[\u2013\u2014-]", group)
        if len(inner) >= 2:
            return "birth" if inner[0] == date.text else "death"
        marks = [w for w in tokenize(group) if w in _LIFE_MARKS]
        if marks:
            return "death" if marks[-1] in _DEATH_MARKS else "birth"
        if dash:
            return "birth" if group.index(date.text) < dash.start() else "death"
    words = tokenize(sentence)
    marks = [i for i in range(max(0, date.start - LIFE_MARK_REACH), min(date.start, len(words)))
             if words[i] in _LIFE_MARKS]
    if not marks:
        return None
    mark = marks[-1]
    # Beyond four words only when no other date stands between ("He died of complications
    # after eye surgery in 1750"): the first date after the mark is its date.
    if date.start - mark > 4 and any(mark < d.start < date.start for d in date_mentions(sentence)):
        return None
    return "death" if words[mark] in _DEATH_MARKS else "birth"


LIFE_MARK_REACH = 8
"""How many words before a date a life mark ("died") may stand when no other date is between."""


_DASH = re.compile(r"\s[\u2013\u2014-]\s|[\u2013\u2014]")


def life_place(sentence: str, name: str) -> str | None:
    """"birth" or "death" for a place that a life's brackets give on that side of the dash
    ("(Madrid, 23 June 1862 - Munich, 4 December 1946)", "(May 8, 1889 in Seattle - May 14,
    1967 in Los Angeles)"); None for a name outside such brackets, or before a semicolon in
    them, where a birth name stands ("(born Vladimir Breslav; 13 May 1898 in Rezekne - ...)"), or
    right after "born" ("(born Kovelamudi Raghavendra Rao on 23 May 1942)")."""
    for whole in _bracket_groups(sentence):
        for part in whole.split(";"):
            # "(born 25 March 1908 in Düsseldorf; died 20 April 1980 in Castellina in Chianti)":
            # each part says whose side it is; "(born Vladimir Breslav; ...)" is a birth name, no place.
            marks = [w for w in tokenize(part)[:2] if w in _LIFE_MARKS]
            if marks and name in part and name_in_context(part, name, _AFTER_BORN) is not None:
                return None  # "(born Kovelamudi Raghavendra Rao on 23 May 1942)": a birth name
            if marks and name in part and date_mentions(part):
                return "death" if marks[0] in _DEATH_MARKS else "birth"
        group = whole.rsplit(";", 1)[-1]
        if name not in group:
            continue
        dash = _DASH.search(group)
        if dash is not None and any(life_role(sentence, d) for d in date_mentions(group)):
            return "birth" if group.index(name) < dash.start() else "death"
    return None


def is_life_date(sentence: str, date: Mention) -> bool:
    """Is this date a birth or a death (`life_role`)?"""
    return life_role(sentence, date) is not None


def life_span(sentence: str) -> float | None:
    """Years between the birth and the death one sentence dates ("(6 May 1813 - 25 December
    1882)": 69.6), to the month and day where both dates give them; None without both."""
    dates = date_mentions(sentence)
    birth = next((d for d in dates if life_role(sentence, d) == "birth"), None)
    # the last death date: "(January 25, 1881 or 1884 - January 12, 1960)" dies in 1960
    death = next((d for d in reversed(dates) if life_role(sentence, d) == "death"), None)
    if birth is None or death is None:
        return None
    years = death.value[0] - birth.value[0]
    if birth.value[1] and death.value[1]:
        years += (death.value[1] - birth.value[1]) / 12
        if birth.value[2] and death.value[2]:
            years += (death.value[2] - birth.value[2]) / 365
    return years


_NOT_A_COUNT = re.compile(r"(?:st|nd|rd|th)\b|\s*[°′″]")
"""After a number: an ordinal's suffix (a rank) or a degree or minute sign (a coordinate)."""


def number_mentions(sentence: str) -> list[Mention]:
    """The counts and amounts a sentence states, by token position: not a rank ("Ranked 35th",
    "the 3rd largest"), which orders things and counts none of them, nor a coordinate ("102 ° 3 ′ W")."""
    out = []
    for n in extract_numbers(sentence):
        try:
            value = float(n.value)
        except ValueError:
            continue
        if _NOT_A_COUNT.match(sentence, n.span[1]):
            continue
        out.append(Mention(n.raw, len(tokenize(sentence[: n.span[0]])), (value,)))
    return out


_FREQUENCY = re.compile(r"\b(?:(?P<once>once|twice|thrice)|(?P<n>\d{1,3}|" + "|".join(WORD_NUMBERS) +
                        r")(?:-time\b|\s+times\b))", re.IGNORECASE)
_ONCE = {"once": 1, "twice": 2, "thrice": 3}


def frequency_mentions(sentence: str) -> list[Mention]:
    """How often a sentence says something happened: "twice", "three times", "a two-time Pro
    Bowl selection", "3-time champion" (the answer to "how many times ...?")."""
    out = []
    for m in _FREQUENCY.finditer(sentence):
        word = (m.group("once") or m.group("n")).lower()
        value = _ONCE.get(word, WORD_NUMBERS.get(word))
        out.append(Mention(m.group(0), len(tokenize(sentence[: m.start()])), (float(value if value is not None else word),)))
    return out
