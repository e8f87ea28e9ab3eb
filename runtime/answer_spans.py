"""Candidate answers in cited sentences: with the cue words (`citeloop.runtime.answer_cues`)
and dates and numbers with sortable values (`citeloop.runtime.mentions`), the name, date,
number or role a sentence gives for the relation a hop asks (`best_span`), with the tests that
decide which names can answer (a name of the question's own subject, an office, an adjective;
where a name stands and at which level a place is named: `citeloop.runtime.answer_places`;
what the question asks: `citeloop.runtime.question_asks`). `citeloop.runtime.answer` builds the
report's short answer from these."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from citeloop.runtime.answer_cues import Cues, cues  # noqa: F401 - part of this module's API
from citeloop.runtime.answer_places import (
    INSTITUTION_BEFORE,
    LOCATIVE_BEFORE,
    ORIGIN_BORN,
    after_place_word,
    born_there,
    is_country,
    place_level,
    where_it_lies,
)
from citeloop.runtime.answer_sentences import counts_stated
from citeloop.runtime.answer_slots import (
    SLOT_LEAD,
    after_lead,
    ends_with_slot,
    follows_lead,
    slot_lead,
    typed_reader,
)
from citeloop.runtime.bridging import (
    CALENDAR_WORDS,
    KIND_WEIGHT,
    LEADING_ARTICLES,
    REGNAL_NUMBER,
    another_person,
    kind_nearness,
    names_title,
    proximity,
    subject_aliases,
    term_positions,
)
from citeloop.runtime.countries import countries_named
from citeloop.runtime.datafiles import read_data_yaml
from citeloop.runtime.mentions import (  # noqa: F401 - part of this module's API for its callers
    Mention,
    date_mentions,
    frequency_mentions,
    is_life_date,
    life_place,
    life_role,
    number_mentions,
)
from citeloop.runtime.parentage import parent_slot, parents_named
from citeloop.runtime.place_forms import of_kind_by_form
from citeloop.runtime.question_asks import (
    asked_life,
    asks_institution,
    asks_place,
    asks_times,
    has_phrase,
)
from citeloop.runtime.text import (
    STOPWORDS,
    content_terms,
    entity_spans,
    fold_accents,
    name_in_context,
    tokenize,
)
from citeloop.trajectories.models import AnswerKind, EvidenceCard, ReportClaim

# --------------------------------------------------------------------------- values in sentences


DESCRIBES = 0.5
"""Added to a date or number that the sentence gives as the subject's own ("X (1940)", "X is a
1961 film", "X (born 10 January 1960)"), over one that dates some other event it mentions."""
_DESCRIBING_WORDS = frozenset({"is", "was", "a", "an", "born", "b"})


def describes(sentence: str, name: str, start: int) -> bool:
    """Does the value at token `start` follow `name` (less a "(disambiguation)"), with nothing
    between them but words that say what the name is ("is a", "born")?"""
    name_words = tokenize(name.split(" (")[0])
    words = tokenize(sentence)
    n = len(name_words)
    if not n:
        return False
    for i in range(max(0, start - n - 3), start - n + 1):
        if words[i:i + n] == name_words and set(words[i + n:start]) <= _DESCRIBING_WORDS:
            return True
    return False


def _nearness(sentence: str, start: int, relation: set[str]) -> float:
    """1 for a value right at a word of the relation, less further away."""
    hits = term_positions(sentence, relation)
    if not hits:
        return 0.0
    gap = min(abs(h - start) for h in hits)
    return 1.0 / (1 + gap)


def _name_words(name: str) -> list[str]:
    """A name's words less a leading article: "The Hague" is a name of one word, "Artatama I"
    one of two."""
    words = tokenize(name)
    return words[1:] if len(words) > 1 and words[0] in LEADING_ARTICLES else words


def _is_subject(name: str, subjects: list[str], question_tokens: set[str], by_words: bool = True,
                of_kind: bool = False) -> bool:
    """Is the name the question's own subject (or no name at all)? By its words (half of them
    in the question) unless `by_words` is off, for a parent named after the child ("Engelbert
    II of the Mark" for "Engelbert III of the Mark"), who is a subject only by the whole name.
    A name of the asked kind by its form (`of_kind`) is a subject only by the whole name too:
    "Wilmington International Airport" answers "the airport in Wilmington"."""
    tokens = tokenize(name)
    if not tokens or name.isdigit() or name.lower() in CALENDAR_WORDS:
        return True
    # by its own words: "of" and "the" stand in every question ("Province of Canada of the
    # Anglican Church of Canada" shares only "church" with "Of what church is ...?")
    words = [t for t in tokens if t not in STOPWORDS] or tokens
    if by_words and sum(t in question_tokens for t in words) / len(words) >= 0.5 \
            and not another_person(tokens, subjects, question_tokens):
        return True
    folded = fold_accents(name).lower()
    if of_kind:
        return any(folded == fold_accents(s).lower() for s in subjects if s)
    if not by_words:
        # the parent's whole name may hold a part of the child's ("Count of Dreux" of "Robert
        # I, Count of Dreux"): only a name inside a subject's is that subject
        return any(folded in fold_accents(s).lower() for s in subjects if s)
    return any(folded in own or (own in folded and not _named_after(folded, own))
               for own in (fold_accents(s).lower() for s in subjects if s))


def _named_after(name: str, subject: str) -> bool:
    """Is `name` (folded) another entity named after `subject`: the subject's name, then two
    words or more without a comma ("Windhoek Country Club Resort" after "Windhoek"; not
    "Gerard III, Count of Guelders" after "Gerard III", which is Gerard III)?"""
    rest = name[len(subject):]
    return name.startswith(f"{subject} ") and "," not in rest and len(rest.split()) >= 2


def _is_modifier(sentence: str, name: str) -> bool:
    """A single capitalised word directly before a lower-case word: an adjective ("American film").
    The pattern `\\bNAME\\s+[a-z]`, matched with `str.find` (a pattern per name costs a compile):
    a word boundary before the name, then white space and a lower-case ASCII letter."""
    if len(name.split()) != 1:
        return False
    at = sentence.find(name)
    while at >= 0:
        before = sentence[at - 1] if at else ""
        if _is_word(before) != _is_word(name[0]):
            rest = sentence[at + len(name):]
            spaces = len(rest) - len(rest.lstrip())
            if spaces and len(rest) > spaces and "a" <= rest[spaces] <= "z":
                # lstrip() strips what `\\s` matches, up to the first other character
                return True
        at = sentence.find(name, at + 1)
    return False


def _is_word(ch: str) -> bool:
    """Is `ch` a character of `\\w` (an empty string is not)?"""
    return ch.isalnum() or ch == "_"


def is_office(name: str) -> bool:
    """"Emperor of Austria", "President of Somalia": an office and where it is held, which names
    no one (`runtime/data/offices.yaml`)."""
    return _office_pattern().fullmatch(name) is not None


@cache
def _office_pattern() -> re.Pattern[str]:
    offices = sorted(read_data_yaml("offices.yaml")["office_words"], key=len, reverse=True)
    words = "|".join(re.escape(w) for w in offices)
    return re.compile(r"(?:the\s+)?(?:" + words + r")\s+of\s+.+", re.IGNORECASE)


PARENT_SLOT = 0.5
"""Added to a name in the place of the parent asked ("the son of A and B": A is the father), taken from one in the other place."""


@dataclass(frozen=True)
class Found:
    text: str
    score: float
    claim: ReportClaim
    card: EvidenceCard


_PRONOUN_AFTER = re.compile(r"\.\s+(?:He|She|It|They|His|Her|Its|Their|The|This|In)\b.*$")


@cache
def _style_pattern() -> re.Pattern[str]:
    styles = sorted(read_data_yaml("offices.yaml")["style_words"], key=len, reverse=True)
    words = "|".join(re.escape(w.capitalize()) for w in styles)
    place = r"[A-Z\u00c0-\u00de][\w'-]*"
    return re.compile(r",\s+((?:\d+(?:st|nd|rd|th|St|Nd|Rd|Th)\s+)?(?:" + words + r")\b"
                      r"(?:\s+(?:of\s+)?(?:the\s+)?" + place + r"(?:\s+(?:(?:and|of|the|de|von|upon)\s+)?" + place + r")*)?)")


def with_style(quote: str, name: str) -> str:
    """The name with the hereditary style the sentence writes after it, if any: "Sir Edward
    Buxton, 2nd Baronet", "Garsenda, Heiress of Bigorre" (`runtime/data/offices.yaml`). A
    peer's name is written with the style; without it, "Sir Edward Buxton" could be any
    holder of the name."""
    found = name_in_context(quote, name, after=_style_pattern())
    return f"{name}, {found[1].group(1)}" if found and found[1] is not None else name


FREQUENCY = 0.5
"""Added to a count of times ("twice") when the question asks how many times: a plain number
in the same sentence ("a 1998 Pro Bowl") counts something else."""


def _is_person_by_form(name: str) -> bool:
    """Is the name a person's by its form: a word of address first ("King Sancho I of
    Portugal") or a regnal number last ("Muawiyah I")?"""
    words = name.split()
    return len(words) > 1 and (words[0].lower() in cues().address_words or bool(REGNAL_NUMBER.fullmatch(words[-1])))


def with_unit(quote: str, number: str) -> str:
    """The number with the unit of measure written right after it ("6.8 inches"), or as it is."""
    found = re.search(rf"(?<![\w.,]){re.escape(number)}\s+([A-Za-z]+)\b", quote)
    return f"{number} {found.group(1)}" if found and found.group(1).lower() in cues().measure_units else number


def _names_in(quote: str, titles: set[str]) -> list[str]:
    """Name spans of a sentence, cut where a new sentence starts ("Artatama I. He ..."), and
    grown to the title of a page read in the run that the sentence names ("Gerard III" ->
    "Gerard III, Count of Guelders")."""
    named_titles = [t for t in titles if len(t) > 3 and t in quote]
    names = []
    for span in entity_spans(quote):
        span = _PRONOUN_AFTER.sub("", span).strip()
        longer = [t for t in named_titles if span in t and span != t]
        if longer:
            names.append(max(longer, key=len))
        else:
            # "NBA TV's NBA Inside Stuff": the owner and the thing owned are two names (but
            # "People's Republic of China" is one: the owner must be a name of two words).
            parts = re.split(r"['’]s\s+", span, maxsplit=1)
            names += parts if len(parts) == 2 and len(parts[0].split()) >= 2 else [span]
    return list(dict.fromkeys([*names, *(t for t in named_titles if t not in names)]))


def described_as(name: str, finds: str, described: dict[str, list[str]]) -> bool:
    """Does a card from the name's own article call it a `finds` ("Sandra Oh ... is a
    Canadian actress")? `described`: short page title -> quotes of its cards."""
    if not finds:
        return False
    stem = set(content_terms(finds))
    return any(stem & set(content_terms(q)) for q in described.get(name, ()))


LIFE_PLACE = 0.5
"""Added to a place the sentence ties to the birth or death asked ("(Sopron, 5 April 1824 -
Nasice, 7 April 1901)", "born in Sopron"), over one it only names after a place word ("influential
in the Kingdom of Croatia-Slavonia")."""

OWN_ARTICLE = 0.3
"""Added to an answer found in a sentence of the subject's own article ("Somalia" for the
country a chain led to), over one from a page that mentions the subject in passing."""


def best_span(kind: AnswerKind, sentences: list[tuple[ReportClaim, EvidenceCard]], relation: set[str],
              subjects: list[str], question: str, titles: set[str] = frozenset(), finds: str = "",
              described: dict[str, list[str]] | None = None, parent: str | None = None) -> list[Found]:
    """Candidate answers in the cited sentences, best first. `titles`: pages read in the run;
    `finds`: the word for what the question asks ("station"), next to which the answer stands
    or which its own article's cards (`described`) call it; `parent`: the parent the hop asks
    for (`asked_parent`), whose place in "the son of A and B" counts."""
    # The words for what is asked do not make a name the question's own subject: "what crime
    # family" is answered by "DeCavalcante crime family", "what county" by "Avery County".
    question_tokens = set(tokenize(question)) - set(tokenize(finds))
    role = asked_life(question)
    lead = slot_lead(question)
    typed = typed_reader(question)
    person = has_phrase(question, ("who", "whom")) and not asks_place(question)
    times = kind == "number" and asks_times(question)
    subject_keys = {fold_accents(s).lower() for s in subjects if s}
    found: dict[str, Found] = {}
    for rank, (claim, card) in enumerate(sentences):
        quote = card.quote
        candidates: list[tuple[str, float]] = []
        if kind == "date":
            dates = date_mentions(quote)
            for d in dates:
                if role is not None and life_role(quote, d) != role:
                    continue  # "When was X born?" is not answered by a film's year or a death
                near = _nearness(quote, d.start, relation)
                own = DESCRIBES * any(describes(quote, s, d.start) for s in subjects if s)
                candidates.append((d.text, near + 0.2 * (d.value[1] > 0) + own))
        elif kind == "number":
            for n, often in counts_stated(quote, times):
                if often:  # "How many times ...?" is answered by "twice", "a two-time ..."
                    candidates.append((n.text, _nearness(quote, n.start, relation) + FREQUENCY))
                else:
                    own = DESCRIBES * any(describes(quote, s, n.start) for s in subjects if s)
                    candidates.append((with_unit(quote, n.text), _nearness(quote, n.start, relation) + own))
        elif typed is not None:
            candidates = typed(quote)  # "What position does X play?" is answered by a role, not a name
        else:
            if lead and ends_with_slot(question):
                # "... known for his precisionist depictions of what?": what follows the same words
                # in the sentence, a name or not ("... depictions of urban landscapes that ...")
                after = after_lead(quote, lead)
                if after:
                    candidates.append((after, 1.0 + SLOT_LEAD))
            place, origin = asks_place(question), has_phrase(question, cues().origin_cues)
            institution = asks_institution(question)
            place = place and not institution
            aliases = subject_aliases(quote)
            parents = parents_named(quote) if parent is not None else None
            for name in dict.fromkeys([*_names_in(quote, titles), *(parents or ())]):
                # "the daughter of FATHER and MOTHER": the parent asked stands in its place.
                slot = parent_slot(quote, name) if parent is not None else None
                asked_slot = slot is not None and slot in (parent, "parent")
                if asked_slot and parents and name not in parents:
                    continue  # "Ernest, Duke of Bavaria" is answered whole, not "Duke of Bavaria"
                of_kind = bool(finds) and of_kind_by_form(quote, name, finds)
                if _is_subject(name, subjects, question_tokens, by_words=not asked_slot, of_kind=of_kind):
                    continue
                if REGNAL_NUMBER.fullmatch(name) or name in aliases:
                    continue  # "Charles I and IV" names no "IV"; "X (Jacques Jean Marie; born ...)" is X
                if origin and not is_country(name):
                    continue  # "What nationality is ...?" is answered by a country or its adjective
                if is_office(name):
                    continue  # "the last Emperor of Austria" names an office, not who held it
                if person and (is_country(name) or life_place(quote, name) is not None
                               or after_place_word(quote, name, LOCATIVE_BEFORE)):
                    continue  # "written by who?" is not answered by "(born 1975 in Montreal)"
                name = with_style(quote, name)
                name, level = place_level(quote, name, finds, place and not origin)
                # a name of the asked kind by its form says the asked word itself ("... Airport")
                near = 1.0 if of_kind else proximity(quote, name, relation)
                score = near + 0.3 * (len(_name_words(name)) > 1) + level \
                    + KIND_WEIGHT * max(kind_nearness(quote, name, finds),
                                        float(described_as(name, finds, described or {})))
                if slot is not None:
                    score += PARENT_SLOT if asked_slot else -PARENT_SLOT
                if lead and follows_lead(quote, name, lead):
                    score += SLOT_LEAD  # "a second campus in San Diego" for "a second campus in which city"
                if origin and "from" in question_tokens and born_there(quote, name):
                    score += ORIGIN_BORN  # "Which country is X from?": "a New Zealand-born American actor"
                if _is_modifier(quote, name):
                    # "an American actress": a word that describes a noun names no one, unless
                    # the question asks where someone is from.
                    if not (origin or place) and countries_named(name):
                        continue  # a nationality word never answers "which actor?"
                    score += 0.5 if origin else -0.6
                if place and not origin:
                    if _is_person_by_form(name):
                        continue  # "consort to King Sancho I of Portugal" names no place
                    side = life_place(quote, name) if role is not None else None
                    if side is not None and side != role:
                        continue  # the birthplace does not answer where someone died
                    if side is None and not of_kind and not after_place_word(quote, name):
                        # "Where ...?" is answered by a name that follows in, at, near or from, or
                        # by one of the asked kind by its form ("mayor of New York City")
                        continue
                    score += 0.6 + LIFE_PLACE * (side is not None)
                    name = where_it_lies(quote, name, finds, subjects)
                elif institution:
                    if not after_place_word(quote, name, INSTITUTION_BEFORE):
                        continue  # "Where did she study?" is answered by a name after at, of, from or for
                    score += 0.6 + 0.5 * bool(set(tokenize(name)) & cues().institution_nouns)
                    name = where_it_lies(quote, name, finds, subjects)  # "University of California, Los Angeles"
                candidates.append((name, score))
        own = OWN_ARTICLE if names_title(fold_accents(card.title), subject_keys) else 0.0
        for text, score in candidates:
            total = score + 0.2 * card.grade.relevance - 0.05 * rank + own
            if text not in found or found[text].score < total:
                found[text] = Found(text, total, claim, card)
    return sorted(found.values(), key=lambda f: -f.score)
