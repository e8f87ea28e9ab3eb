"""Whether a page or an evidence card is about an entity: a title that names it ("The Pulse of
Life" for "pulse of life"), a title of the entity and the thing a hop asks ("Prague astronomical
clock"), a card whose title or quote holds the name, and a page about a namesake of an entity the
question pins down ("Ek Hi Bhool" when the question asks about "Ek Hi Bhool (1940 Film)"). Used by
the bridge ranking (`citeloop.runtime.bridging`), the engine's on-topic tests and the answer."""

from __future__ import annotations

import re
from collections.abc import Iterable

from citeloop.runtime.memo import memo
from citeloop.runtime.text import content_terms, fold_accents, name_in_context, names_in_context
from citeloop.trajectories.models import EvidenceCard


def names_title(title: str, names: set[str]) -> bool:
    """Does this document title name one of `names` (lowercase)? Ignores a "(disambiguation)"
    suffix, a leading article and one leading word of address, so "The Pulse of Life" names
    "pulse of life" and "Victor Emmanuel III of Italy" names "king victor emmanuel iii of italy"."""
    title = title.lower()
    short = title.split(" (")[0]
    bare = {n.removeprefix("the ") for n in names}
    if title in names or short in names or short.removeprefix("the ") in bare or title in bare:
        return True
    # "King Victor Emmanuel III of Italy" is named by the title "Victor Emmanuel III of Italy":
    # a title of several words that ends the name, after a word of address.
    return len(short.split()) >= 2 and any(n.endswith(" " + short) and len(n.split()) == len(short.split()) + 1
                                           for n in names)


def titles_asked_thing(title: str, names: set[str], query: str) -> bool:
    """Is this the page of the thing a hop asks about one of its entities: a title that names
    the entity (lowercase, in `names`) as whole words and otherwise only words of the hop's query
    ("Prague astronomical clock" for "Prague astronomical clock built city")?"""
    low = fold_accents(title).lower()
    title_terms = set(content_terms(title))
    for name in names:
        if not name or name_in_context(low, fold_accents(name), _NO_WORD_BEFORE, _NO_WORD_AFTER) is None:
            continue
        rest = title_terms - set(content_terms(name))
        if rest and rest <= set(content_terms(query)):
            return True
    return False


def names_entity(card: EvidenceCard, names: list[str]) -> bool:
    """Does the card name one of `names` (folded, lower case)? In its title or quote, or by
    being from that entity's own article (`names_title`): "Victor Emmanuel III of Italy" is the
    article of "King Victor Emmanuel III of Italy", and its sentence "He died in Alexandria" is
    about him. A number is named as a word: "4" of "4 Minute Mile" is not in "1914"."""
    return _names_entity((card.title, card.quote, tuple(names)))


def _number_in(text: str, number: str) -> bool:
    """Does the text hold the number whole (no digit just before or after it)?"""
    return name_in_context(text, number, _NO_DIGIT_BEFORE, _NO_DIGIT_AFTER) is not None


_NO_WORD_BEFORE = re.compile(r"(?<!\w)\Z")
_NO_WORD_AFTER = re.compile(r"(?!\w)")
_NO_DIGIT_BEFORE = re.compile(r"(?<!\d)\Z")
_NO_DIGIT_AFTER = re.compile(r"(?!\d)")


@memo("entity_titles.names_entity", maxsize=1 << 16)
def _names_entity(key: tuple[str, str, tuple[str, ...]]) -> bool:
    # Kept by (title, quote, names): a run asks it of the same cards after every round.
    title, quote, names = key
    written = fold_accents(f"{title} {quote}")
    text = written.lower()
    return any(_number_in(text, n) if n.isdigit() else
               _proper_word_in(written, text, n) if n.isalpha() else _word_in(text, n) for n in names) \
        or names_title(fold_accents(title), set(names))


def _proper_word_in(written: str, text: str, name: str) -> bool:
    """Does the text name a one-word name (`name` lower case, `text` the lower-cased `written`)
    as a name: a whole word written with a capital ("Privilege" names the album; "a privilege
    granted to few" does not)?"""
    if len(written) != len(text):  # lower-casing moved the offsets: compare as words only
        return _word_in(text, name)
    return any(b is not None and written[b.end()].isupper()
               for b, _ in names_in_context(text, name, _NO_WORD_BEFORE, _NO_WORD_AFTER))


def _word_in(text: str, name: str) -> bool:
    """Does the text hold the name as whole words ("brand" is not in "branding startup")?"""
    return name in text and name_in_context(text, name, _NO_WORD_BEFORE, _NO_WORD_AFTER) is not None


_DISAMBIGUATED = re.compile(r"^(?P<name>.+?)\s*\((?P<what>[^()]+)\)$")


def is_namesake(title: str, entities: Iterable[str]) -> bool:
    """Is the page about a namesake of an entity the question pins down ("Ek Hi Bhool (1940
    Film)")? Its title is the bare name ("Ek Hi Bhool", the 1981 film) or the name with another
    qualifier ("Ek Hi Bhool (1981 film)"), not the pinned one."""
    return _is_namesake((title, tuple(entities)))


@memo("entity_titles.is_namesake", maxsize=1 << 16)
def _is_namesake(key: tuple[str, tuple[str, ...]]) -> bool:
    title, entities = key
    page = title.lower().strip()
    page_name = page.split(" (")[0]
    for entity in entities:
        pinned = _DISAMBIGUATED.match(entity.strip())
        if pinned and pinned.group("name").lower() == page_name and page != entity.lower().strip():
            return True
    return False
