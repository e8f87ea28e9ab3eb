"""The parents a sentence names: "the son of John and Elizabeth Dickens" -> (father, mother)
(`parents_named`), which place a name stands in (`parent_slot`, `parent_bonus`), and whether a
sentence names its own subject's parents or a spouse's (`own_parentage`, and
`about_another_person` for a "She ..." on his page). Used by the bridge
ranking (`citeloop.runtime.bridging`), the hops and the answer finder.
"""

from __future__ import annotations

import re
from functools import cache

from citeloop.runtime.datafiles import read_data_yaml
from citeloop.runtime.memo import memo
from citeloop.runtime.text import NAME_PARTICLES, entity_spans

# "the son of A and B": by the convention of biographies the father is named first.
# "born in Wolfratshausen to A and B" names them the same way.
_KIN_OF = r"(?:son|daughter|child|children|sons|daughters)(?:\s+and\s+(?:heir|successor))?\s+of"
"""A child's word and its "of" ("the eldest son and successor of")."""
_SPOUSE_WORDS = (r"(?:his\s+(?:(?:first|second|third)\s+)?(?:wife|consort|queen),?\s+|"
                 r"(?:queen|the\s+)?\s*consort\s+|the\s+(?=[A-Z]))?")
"""What may stand before the mother's name: "and his wife", "and his consort", "and queen consort",
or the article of her style ("and the Countess Palatine Anna Magdalena")."""
_PARENTS = re.compile(r"(?:\b" + _KIN_OF + r"\s+(?P<first>(?:(?!\s+and\s).)+?)|"
                      r"\bborn\b[^.;()]*?\bto\s+"
                      r"(?P<born_first>[A-Z].+?))\s+and\s+" + _SPOUSE_WORDS + r"(?P<second>[A-Z][^,.;()]*)")


_PARENTS_BY = re.compile(r"\b" + _KIN_OF + r"\s+(?P<first>[A-Z][^;()]*?),?\s+by\s+"
                         r"(?:his\s+(?:(?:first|second|third)\s+)?wife,?\s+)?(?P<second>[A-Z][^,.;()]*)")
"""The mother after "by": "the eldest son of George Rodney, 2nd Baron Rodney, by Anne Harley", "the son
of Admiral George Rodney, by his first wife Lady Jane Compton"."""


_PARENTS_SERIAL = re.compile(r"\b" + _KIN_OF + r"\s+(?P<first>[A-Z][^,;()]*,\s+[A-Z][^,;()]*\sand\s[A-Z][^,;()]*),"
                             r"\s+and\s+" + _SPOUSE_WORDS + r"(?P<second>[A-Z][^,.;()]*)")
"""The parents parted by a comma's "and" when the father's style holds an "and" of its own:
"the son of Gozlin, Count of Bidgau and Methingau, and Oda of Metz"."""


_OWN_PARENT = re.compile(r"\b(?:(?:son|daughter|child|heir)\s+of|(?:his|her|their)\s+(?:father|mother))\b",
                         re.IGNORECASE)
_MARRIAGE_WORD = re.compile(r"\b(?:married|marriage|marry|wife|husband|widow|widower|consort|spouse)\b", re.IGNORECASE)


def own_parentage(quote: str) -> bool:
    """Does the sentence name its subject's parents: a "son of" (daughter, child, heir) or a "her
    father" with no word of marriage before it? After one, the parents are the spouse's."""
    child = _OWN_PARENT.search(quote)
    return child is not None and _MARRIAGE_WORD.search(quote, 0, child.start()) is None


@memo("parentage.parents_named", maxsize=1 << 14)
def parents_named(quote: str) -> tuple[str, str] | None:
    """(father, mother) of "the son of FATHER and MOTHER", a shared family name given to both:
    "the son of John and Elizabeth Dickens" -> ("John Dickens", "Elizabeth Dickens")."""
    match = _not_of_a_spouse(_PARENTS, quote)
    by = _not_of_a_spouse(_PARENTS_BY, quote)
    if by is not None and (match is None or by.start() <= match.start()):
        match = by
    if match is None:
        return None
    serial = _not_of_a_spouse(_PARENTS_SERIAL, quote)
    if serial is not None and serial.start() == match.start():
        match = serial
    # "the son of Francis Baring, 3rd Baron Ashburton (1800-1868), and ...": the name, not its dates
    first = re.sub(r"\s*\([^)]*\)", "", match.group("first") or match.group("born_first")).strip(" ,")
    first = _without_description(first)
    second = match.group("second").strip(" ,")
    spans = [span for span in entity_spans(second) if not span.isdigit()]
    second = spans[0] if spans and second.startswith(spans[0]) else second  # "Elizabeth Dickens and was ..."
    words = second.split()
    if re.fullmatch(r"[A-Z][a-z]+", first) and len(words) >= 2 and all(w[:1].isupper() for w in words):
        first = f"{first} {words[-1]}"
    if _female_styled(first) and not _female_styled(second):
        return second, first  # "... of Princess Madeleine and Christopher O'Neill": her style says she is the mother
    return first, second


@cache
def _female_styles() -> frozenset[str]:
    return frozenset(read_data_yaml("answer_cues.yaml")["female_styles"])


def _female_styled(name: str) -> bool:
    """Does the name carry a woman's style ("Princess", "Countess"; `female_styles`) as a word?"""
    return any(w in _female_styles() for w in re.findall(r"[a-z]+", name.lower()))


_NAME_WORD = re.compile(r"[A-Z0-9\W]|(?:" + "|".join(sorted(NAME_PARTICLES)) + r")$")


def _without_description(name: str) -> str:
    """A parent's name less what a comma adds about them: "Carlos, Duke of Madrid, Carlist
    claimant to the throne of Spain" -> "Carlos, Duke of Madrid" (a title is capitalised, a
    description has lower-case words)."""
    parts = name.split(", ")
    kept = [parts[0]]
    for part in parts[1:]:
        if not all(_NAME_WORD.match(w) for w in part.split()):
            break
        kept.append(part)
    return ", ".join(kept)


_CHILD_OF = re.compile(r"\b" + _KIN_OF + r"\s+(?:the\s+)?(?:[a-z]+\s+)?(?P<name>[A-Z][^,.;()]*)")
"""A child's words and the one parent they name, after a word for what the parent was, if any
("The son of actress Jayachitra")."""
_MARRIED = re.compile(r"\bmarried\b")


def _not_of_a_spouse(pattern: re.Pattern[str], quote: str) -> re.Match[str] | None:
    """The first match of a child's words in the sentence, less one that follows "married":
    in "In 1160, Rotrou married Matilda, daughter of Theobald II" the parents are the wife's."""
    for match in pattern.finditer(quote):
        if not _MARRIED.search(quote, 0, match.start()):
            return match
    return None


def parent_slot(quote: str, name: str) -> str | None:
    """"father" or "mother" when `name` stands in that place of "the child of FATHER and
    MOTHER"; "parent" when it is the one parent a sentence names ("the son of Henry Ford and
    president of ...")."""
    parents = parents_named(quote)
    if parents is not None:
        if name in parents[0]:
            return "father"
        return "mother" if name in parents[1] else None
    single = _not_of_a_spouse(_CHILD_OF, quote)
    return "parent" if single is not None and single.group("name").startswith(name) else None


def parent_bonus(quote: str, name: str, parent: str | None) -> float:
    """0.5 when `name` is the parent the hop asks for in "the child of FATHER and MOTHER", or
    the one parent a sentence names."""
    if parent not in ("father", "mother"):
        return 0.0
    return 0.5 if parent_slot(quote, name) in (parent, "parent") else 0.0


_SUBJECT_SEX = re.compile(r"\b(?:(?:was|is)\s+(?:an?|the)\s+(?:[a-z]+\s+){0,2}?"
                          r"(?:(?P<male>son|brother|husband)|(?P<female>daughter|sister|wife))\b"
                          r"|(?<![\w,]\s)(?:(?P<he>He|His)|(?P<she>She|Her))\b)")
"""What the page says its subject is: "was a son of", "is the eldest daughter of", or a sentence
opening with "He" or "She" ("his mother" names someone else's sex)."""
_OPENING_PRONOUN = re.compile(r"^\s*(?:(?P<male>He|His)|(?P<female>She|Her))\b")


def about_another_person(opening: str, sentence: str) -> bool:
    """Does the sentence open with a pronoun of the other sex than the page's subject, as the
    page's opening (its first two sentences) gives it (`_SUBJECT_SEX`: "John II ... was a son of
    ..."): "She was the daughter of Henry III" on his page is about his wife, and names her
    parents, not his?"""
    pronoun = _OPENING_PRONOUN.match(sentence)
    subject = _SUBJECT_SEX.search(opening)
    if pronoun is None or subject is None:
        return False
    male = subject.group("male") is not None or subject.group("he") is not None
    return (pronoun.group("male") is not None) != male
