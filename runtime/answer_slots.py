"""What the words around a question's slot say about its answer, and which kind of thing
other than a name it asks for.

The slot: the words right before its last "which" or "what" (`slot_lead`), which the answer
follows in a sentence ("a second campus in San Diego" for "a second campus in which city?"), or,
when the question ends with its slot, which are followed in the sentence by the answer itself
("depictions of urban landscapes" for "depictions of what?", `after_lead`); and the content
words around a slot inside the question (`slot_terms`). The kinds (`typed_reader`): a century
(`asks_century`, `centuries_in`), a cause of death, the words after a cause phrase
(`asks_cause`, `causes_in`), an award, a name holding an award word (`asks_award`,
`awards_in`), a role, the words after "as a" or "is a" (`asks_role`, `roles_in`), and an
abbreviation, a word in capitals (`asks_abbreviation`, `abbreviations_in`). Used by
`citeloop.runtime.answer_spans` and `citeloop.runtime.answer_hops`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from citeloop.runtime.answer_cues import cues
from citeloop.runtime.countries import countries_named
from citeloop.runtime.text import STOPWORDS, content_terms, entity_spans, tokenize

SLOT_LEAD = 0.5
"""Added to a name that follows the words the question puts before its "which" ("a second campus
in which California city?": "second campus in San Diego", over "main campus is located in Arden
Hills")."""
_SLOT_LEAD = re.compile(r"\b((?:[\w'-]+\s+){2}[\w'-]+)\s+(?:which|what)\b", re.IGNORECASE)


def slot_lead(question: str) -> tuple[str, ...]:
    """The three words right before the question's last "which" or "what" (a slot inside the
    question: "... a second campus in which city?"), when one of them is a content word, else ()."""
    leads = _SLOT_LEAD.findall(question)  # the last one: an earlier "which" opens a clause
    if not leads:
        return ()
    words = tuple(tokenize(leads[-1]))
    return words if len(words) == 3 and any(w not in STOPWORDS for w in words) else ()


_INNER_SLOT = re.compile(r"((?:[\w'-]+\s+){0,3})\b(?:which|what)\b((?:\s+[\w'-]+){0,3})", re.IGNORECASE)


def slot_terms(question: str) -> set[str]:
    """The content words around a slot inside the question, its last "which" or "what" that
    is not its first word: up to three words before it and three after it, within the clause
    ("is father to which Bollywood actress?" -> father, bollywood, actress; "developed by what
    company?" -> develop, company). Empty when the question opens with its slot."""
    found = [m for m in _INNER_SLOT.finditer(question) if m.start(0) + len(m.group(1)) > 0 and m.group(1).strip()]
    if not found:
        return set()
    m = found[-1]
    return set(content_terms(f"{m.group(1)} {m.group(2)}"))


_OPEN_SLOT = re.compile(r"\b(?:what|which)\s*\??\s*\Z", re.IGNORECASE)


def ends_with_slot(question: str) -> bool:
    """Does the question end with its slot ("... depictions of what?"): no noun says what is asked?"""
    return _OPEN_SLOT.search(question) is not None


_PHRASE_ENDS = frozenset("that which who whom whose where when while and or but in on at by with from for since "
                         "during as than is was are were".split())


def after_lead(quote: str, lead: tuple[str, ...]) -> str:
    """The words that follow the slot's lead in the sentence, up to a clause's or a phrase's
    end and at most four ("urban landscapes" of "... depictions of urban landscapes that are
    ..." for the lead "precisionist depictions of"), or ""."""
    match = re.search(r"(?<![\w-])" + r"\W+".join(re.escape(w) for w in lead) + r"\s+", quote, re.IGNORECASE)
    return _phrase_at(quote[match.end():], 4) if match else ""


def _phrase_at(text: str, most: int) -> str:
    """The phrase that opens `text`: its first words up to punctuation or a word that ends a
    phrase, at most `most` of them; "" when they are all stop words."""
    words: list[str] = []
    for word in re.split(r"[,.;:()\"]", text, maxsplit=1)[0].split()[:most]:
        if word.lower() in _PHRASE_ENDS:
            break
        words.append(word)
    return " ".join(words) if any(w.lower() not in STOPWORDS for w in words) else ""


def _asked_noun(words: list[str], nouns: frozenset[str], the_that: bool = False) -> bool:
    """Does one of `nouns` stand right after "which" or "what" ("which award"), or, with
    `the_that`, between "the" and "that" ("the award that X received")?"""
    return any(w in nouns and i > 0 and (words[i - 1] in ("which", "what")
                                         or the_that and words[i - 1] == "the" and words[i + 1:i + 2] == ["that"])
               for i, w in enumerate(words))


def asks_award(question: str) -> bool:
    """Does the question ask for an award: "award" (or prize, medal) right after "which" or
    "what", or "the award that ..."?"""
    return _asked_noun(tokenize(question), cues().award_nouns, the_that=True)


_AWARD_CATEGORY = re.compile(
    r"\s+for\s+(?:Best|Outstanding|Most)(?:\s+(?:[A-Z&][\w&'.-]*|in|a|an|the|of|or|and|by)(?=\s|$|[,.;:)]))*")
"""An award's category after its name: " for Best R&B Album", " for Best Actor in a Supporting Role"."""


def awards_in(quote: str) -> list[tuple[str, float]]:
    """The names of awards a sentence gives ("Filmfare Awards South", "two Nandi Awards"): its
    name spans that hold an award word, with a score; a category written after the name is part
    of it ("Grammy Award for Best R&B Album")."""
    nouns = cues().award_nouns
    out = []
    for span in entity_spans(quote):
        if set(tokenize(span)) & nouns:
            at = quote.find(span)
            category = _AWARD_CATEGORY.match(quote, at + len(span)) if at >= 0 else None
            tail = category.group(0).rstrip(" .,;:") if category else ""
            # the category ends on one of its capitalised words ("... in a Supporting Role")
            while tail and tail.split()[-1][:1].islower():
                tail = tail.rsplit(" ", 1)[0].rstrip()
            out.append((span + tail if len(tail.split()) >= 3 else span, 1.0))  # "for Best" + a word at least
    return out


_CENTURY = re.compile(r"\b(?:(?:early|mid|late)[- ])?(\d{1,2}(?:st|nd|rd|th))[- ]century\b", re.IGNORECASE)


def asks_century(question: str) -> bool:
    """"... developed during which century?": a century, not a name or a year, answers it."""
    return _asked_noun(tokenize(question), frozenset({"century"}))


def centuries_in(quote: str) -> list[tuple[str, float]]:
    """The centuries a sentence names, as centuries: "19th century" of "the mid-19th century"
    (the question asks which century, not which part of it)."""
    return [(f"{m.group(1)} century", 1.0) for m in _CENTURY.finditer(quote)]


def asks_cause(question: str) -> bool:
    """Does the question ask of what someone died ("What is the cause of death of X?", "Why did
    X die?")? Such a question is answered by a cause (`causes_in`), not by a name."""
    words = tokenize(question)
    low = f" {' '.join(words)} "
    return any(f" {c} " in low for c in cues().cause_cues) or ("why" in words and "die" in words)


_DIED_THEN_CAUSE = re.compile(r"\bdied\b(?:\s+[\w,]+){0,5}?\s+(?:of|from)\s+", re.IGNORECASE)
"""A death and its cause a few words apart: "died on August 2, 2015 from ..."."""


def causes_in(quote: str) -> list[tuple[str, float]]:
    """The causes of death a sentence states, with a score: the words after a cause phrase
    ("suffered from a form of multiple sclerosis", "died of virulent typhoid"; `cause_phrases`
    in `answer_cues.yaml`) or after a death and its "of" or "from" ("died on August 2, 2015
    from Parkinson's disease")."""
    found: dict[str, float] = {}
    for phrase in cues().cause_phrases:
        for m in re.finditer(r"\b" + re.escape(phrase) + r"\s+", quote, re.IGNORECASE):
            cause = _phrase_at(quote[m.end():], 5)
            if cause:
                found.setdefault(cause, 1.0)
    for m in _DIED_THEN_CAUSE.finditer(quote):
        cause = _phrase_at(quote[m.end():], 5)
        if cause:
            found.setdefault(cause, 0.8)
    return list(found.items())


def follows_lead(quote: str, name: str, lead: tuple[str, ...]) -> bool:
    """Does the name stand right after the lead's words somewhere in the quote?"""
    at = quote.find(name)
    while at >= 0:
        if tuple(tokenize(quote[:at])[-len(lead):]) == lead:
            return True
        at = quote.find(name, at + 1)
    return False


_ROLE_ENDS = r"(?=\s+(?:who|that|which|for|of|in|at|with|and|from|since|until|during)\b|\s*[,;.()]|$)"
_AS_ROLE = re.compile(r"\bas\s+(?:a|an|the)\s+((?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*)" + _ROLE_ENDS)
_IS_ROLE = re.compile(r"\b(?:is|was)\s+(?:a|an)\s+((?:[\w-]+\s+){0,3}?[a-z][\w-]*)" + _ROLE_ENDS)


def asks_role(question: str) -> bool:
    """Does the question ask for a role, a position or a trade: "what" or "which" with a role
    noun among the next three words ("What was the profession of Amy Johnson?", "What role did
    X perform?")? Such a question is answered by a role (`roles_in`), not by a name."""
    words = tokenize(question)
    nouns = cues().role_nouns
    return any(w in ("what", "which") and nouns & set(words[i + 1:i + 4]) for i, w in enumerate(words))


def roles_in(quote: str) -> list[tuple[str, float]]:
    """The roles a sentence gives someone, with a score: "as a central defender" (what one
    plays or serves as, 1.0) before "was a pioneering British aviator" (what one is, 0.5)."""
    found = [(m.group(1), 1.0) for m in _AS_ROLE.finditer(quote)]
    return found + [(m.group(1), 0.5) for m in _IS_ROLE.finditer(quote) if m.group(1) not in dict(found)]


def asks_abbreviation(question: str) -> bool:
    """Does the question ask for an abbreviation or an acronym ("What is the abbreviation to the
    magazine that ...?")? Such a question is answered by a word in capitals (`abbreviations_in`)."""
    return bool({"abbreviation", "acronym", "abbreviated", "initialism"} & set(tokenize(question)))


_CAPITALS = re.compile(r"(?<![\w-])([A-Z][A-Z0-9&]{1,6})(?![\w-])")
_NAMES_ABBREVIATION = re.compile(r"(?:abbreviated\s+(?:to|as)|acronym|known\s+as|short\s+for|\()\s*$", re.IGNORECASE)


def abbreviations_in(quote: str) -> list[tuple[str, float]]:
    """The words in capitals a sentence holds ("LXF", "TBI"; not a country's: "UK"), with a score:
    1.0 right after words that give an abbreviation ("is commonly abbreviated to LXF", "(TBI)"),
    else 0.5."""
    found: dict[str, float] = {}
    for m in _CAPITALS.finditer(quote):
        if countries_named(m.group(1)):
            continue  # "the UK's first Linux magazine": a country's short name is no one's abbreviation
        score = 1.0 if _NAMES_ABBREVIATION.search(quote, 0, m.start()) else 0.5
        found[m.group(1)] = max(found.get(m.group(1), 0.0), score)
    return list(found.items())


Reader = Callable[[str], list[tuple[str, float]]]
_TYPED: tuple[tuple[Callable[[str], bool], Reader], ...] = (
    (asks_century, centuries_in), (asks_cause, causes_in), (asks_award, awards_in), (asks_role, roles_in),
    (asks_abbreviation, abbreviations_in))


def typed_reader(question: str) -> Reader | None:
    """The reader of the one kind of thing other than a name that the question asks for (a
    century, a cause of death, an award, a role, an abbreviation), first match in that order;
    None for a name."""
    return next((reader for asks, reader in _TYPED if asks(question)), None)
