"""How a question's words are read into hops: where a relative clause opens (`RELATIVE`) and
ends (`split_clause_end`), a clause written without its pronoun (`with_relative_pronoun`),
the noun a question word asks for (`asked_noun`) and what a question asks of the entity its
named one leads to (`after_bridge`). The rule planner (`citeloop.runtime.planner`) builds
its hops from these.
"""

from __future__ import annotations

import re
from functools import cache

from citeloop.runtime.answer_cues import cues
from citeloop.runtime.text import STOPWORDS, entity_spans, regex, tokenize

# A relative pronoun opens a hop only after a noun: "the film that ...", not "to which ..." or "is who".
RELATIVE = re.compile(
    r"(?<!\bto)(?<!\bin)(?<!\bof)(?<!\bby)(?<!\bfor)(?<!\bwith)(?<!\bat)(?<!\bfrom)(?<!\bon)"
    r"(?<!\bis)(?<!\bwas)(?<!\bare)(?<!\bwere)(?<!ed)"  # "starred which actress" asks, it does not relate
    r"\s(?:,\s*)?\b(that|which|who|whose|where|when)\b\s",
    re.IGNORECASE,
)
# The question word of a clause (after its opening relative pronoun): "that aired on what station".
ASKED = re.compile(r"\b(what|which|who|whom|whose|when|where|how)\b", re.IGNORECASE)


NOUN_PREPOSITIONS = "of|in|at|on|for|near"
"""The prepositions after a noun a question word asks for ("the most popular hotel in")."""


def question_names(text: str) -> list[str]:
    """Named entities of a text, less a capitalised first word ("The state")."""
    return [e for e in entity_spans(text) if e.lower() not in STOPWORDS and not e.isdigit()]


def query_words(text: str) -> str:
    """Query words of a text: its tokens without stopwords, in order."""
    return " ".join(t for t in tokenize(text) if t not in STOPWORDS)


def last_sentence_opener(question: str) -> str:
    """The first word of the question's last sentence, lower case: "The director Armando
    Iannucci has an OBE. Does the director Puneet Sira also have one?" asks yes or no."""
    last = re.split(r"(?<=\w[.!])\s+(?=[A-Z])", question.strip())[-1]
    words = tokenize(last)
    return words[0] if words else ""


_BETWEEN = re.compile(r"^between\s+(?P<a>\S.*?)\s+and\s+(?P<b>\S.*?),\s*(?P<ask>(?:which|who|whom|what)\b[^?]*)\??$",
                      re.IGNORECASE)


def options_last(question: str) -> str:
    """A question that names its options before it asks, written with them after it:
    "Between Iain Banks and Irwin Shaw, which writer ...?" -> "Which writer ..., Iain Banks or
    Irwin Shaw?", the form comparisons are planned and answered in; any other question as it is."""
    match = _BETWEEN.match(question.strip())
    if match is None:
        return question
    ask = match.group("ask").strip()
    return f"{ask[0].upper()}{ask[1:]}, {match.group('a')} or {match.group('b')}?"


def asked_noun(text: str) -> str:
    """The noun a question word asks for: "on what station" -> "station", "which California
    city" -> "city" (names are skipped), "what crime family" -> "family", "what is the name of
    the airport" -> "airport", "what is the population of" -> "population", "what is the most
    popular hotel in" -> "hotel"; "" for "what is a ..."."""
    # "What is the name of the airport ..." asks for an airport, as "what airport" does.
    # "What is the most popular hotel in ..." asks for a hotel: the noun before the preposition.
    match = re.search(r"\b(?:what|which)\s+(?:(?:is|was|are|were)\s+the\s+(?:name\s+of\s+(?:the\s+)?|(?=\w+\s+of\b)"
                      rf"|(?:most\s+)?(?=(?:[a-z]+\s+){{0,2}}[a-z]+\s+(?:{NOUN_PREPOSITIONS})\b)))?"
                      r"([^?,;:()]+)", text, re.IGNORECASE)
    if match is None:
        return ""
    noun = ""
    words = match.group(1).split()[:7]
    for i, word in enumerate(words[:6]):
        bare = word.strip("'\"")
        following = words[i + 1].lower() if i + 1 < len(words) else ""
        if (bare[:1].isupper() or bare.isdigit()) and (not noun or _goes_on(following)):
            # "which Queensland Senator ...", "which 1988 Telugu comedy ...": a name or a year
            # before the noun; "what low budget British comedy ...": a name inside the phrase
            continue
        low = bare.lower()
        if low in STOPWORDS or not low.isalpha() or bare[:1].isupper():
            break
        if noun and low.endswith(("ed", "s")) and following in _VERB_FOLLOWERS:
            break  # "what currency predated the Euro", "what river flows through": a verb
        noun = low
    return noun


_VERB_FOLLOWERS = frozenset("a an the through into with from by on in at to".split())


def _goes_on(word: str) -> bool:
    """Does the noun phrase go on after a name inside it: a lower-case word that is no
    stopword ("British comedy"), not the end of the phrase ("city Paris is ...")."""
    bare = word.strip("'\"")
    return bare.isalpha() and bare.islower() and bare not in STOPWORDS


_BRIDGE_PHRASE = re.compile(
    r"\b(?:a|an)\s+((?:[\w'&-]+\s+){0,4}?[\w'&-]+?)(?=\s+(?:\w+ed|born|known|written|made|run|held|built|sung|"
    r"shot|set|in|of|by|from|for|with|on|at|whose|which|that|who|where)\b)")


def after_bridge(text: str) -> str:
    """What the question asks of the entity its named one leads to: the words after the last
    "a ..." before the question word ("Kate Ramsay is a fictional character from an Australian
    soap opera created by who?" -> "created by who?"); "" when no such phrase stands there."""
    asked = ASKED.search(text)
    end = asked.start() if asked else len(text)
    phrases = [m for m in _BRIDGE_PHRASE.finditer(text) if m.end() <= end]
    return text[phrases[-1].end():] if phrases else ""


# A clause whose own subject stands before its verb "is" ends there, or after the participle
# that places it: in "What time does the state [where Greenfield-Central High is] stop
# selling booze?" the words after "is" are the outer question's own verb.
_PLACED = "located|situated|based|set|found|headquartered"
_PARTICIPLES = "born|held|made|built|known|shot|written|sung|taken|given|fought|won|seen|run"
_PARTICIPLE_WORDS = frozenset(_PARTICIPLES.split("|"))
_CLAUSE_END = re.compile(
    rf"^(?P<clause>(?:where|that|which)\s+(?!(?:is|was|are|were|has|have|had)\b)[^,]+?\s(?:is|was|are|were|will\s+be)"
    rf"(?:\s+(?:{_PLACED}|{_PARTICIPLES}))?)"
    rf"\s*,?\s+(?P<rest>(?!(?:in|on|at|of|to|by|for|from|with|near|during|along|a|an|the|as|"
    rf"{_PLACED}|{_PARTICIPLES})\b)(?![a-z]+ed\b)[a-z].*)$",
    re.IGNORECASE,
)


# A head that inverts its auxiliary before its subject ("When was the country", "What did the
# individual") has not said its own verb yet: the clause after it ends where that verb stands.
_INVERTED_HEAD = re.compile(
    r"^(?:when|where|what|how|why|who|whom|which)\b(?:\s+[a-z]+){0,2}?\s+(?P<aux>did|does|do|was|were|is|are)"
    r"\s+(?:the|a|an)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}$", re.IGNORECASE)
# The outer verb right after a name the clause ends with: "that produced Fist Power [taken by
# the British]", "who prepared "the Grand Model" [use as a basis for ...]".
_AFTER_NAME = re.compile(r"(?:\b[A-Z0-9][\w'.-]*|[\"\u201d)])\s+(?P<verb>[a-z][a-z-]*)\b")


def _outer_verb_end(clause: str, aux: str) -> int | None:
    """Where the outer question's own verb starts in `clause`, or None: the first lower-case
    word right after a name that is a passive participle when the head's auxiliary is a form
    of "be" ("taken by", "founded" at the end) or a bare verb when it is "do" ("use",
    "leave"); prepositions, articles and auxiliaries belong to the clause ("Fist Power in 2000")."""
    be = aux.lower() in ("was", "were", "is", "are")
    for match in _AFTER_NAME.finditer(clause):
        verb = match.group("verb")
        if verb in STOPWORDS:
            continue  # "and", "which", "in", "was": the clause goes on
        # "-ed" is a participle only where a passive stands: at the end or before "by"
        # ("founded", "taken by"); "James Hetfield responded to" is the clause's own past verb
        after = clause[match.end():].split()[:1]
        participle = verb in _PARTICIPLE_WORDS or (
            verb.endswith(("ed", "en")) and after in ([], ["by"]))
        if (participle if be else not verb.endswith(("ed", "ing", "s"))):
            return match.start("verb")
    return None


def split_clause_end(clause: str, head: str = "") -> tuple[str, str]:
    """(the clause, the words after its end that belong to the outer question): "where
    Greenfield-Central High is stop selling booze" -> ("where Greenfield-Central High is",
    "stop selling booze"); (clause, "") when the clause runs to the end ("where the Bubye
    River is found", "that Jiménez is a part"). After a `head` that inverts its auxiliary
    ("When was the country"), the outer verb after the clause's name ends it too: "that
    produced Fist Power taken by the British" -> ("that produced Fist Power", "taken by the
    British")."""
    match = _CLAUSE_END.match(clause)
    if match is not None:
        return match.group("clause"), match.group("rest")
    inverted = _INVERTED_HEAD.match(head.strip())
    start = _outer_verb_end(clause, inverted.group("aux")) if inverted else None
    if start is None:
        return clause, ""
    return clause[:start].rstrip(" ,"), clause[start:]


@cache
def kind_nouns() -> str:
    """The nouns for kinds of place and organisation (`runtime/data/answer_cues.yaml`), as
    one alternation."""
    c = cues()
    return "|".join(sorted(c.region_nouns | c.town_nouns | c.institution_nouns | c.organisation_nouns))


def with_relative_pronoun(body: str) -> str:
    """A relative clause written without its pronoun, given one: "the country Signmark is from"
    -> "the country that Signmark is from", "the county in which Johnnycake is located" ->
    "the county where Johnnycake is located", "the country containing Nugegoda" -> "the
    country where Nugegoda is located". Only after a noun for a kind of place or
    organisation and before a name and its verb, so "the late President of ... was" stays."""
    kinds = kind_nouns()
    body = regex(rf"\bthe ({kinds}) in which (?=(?:the )?[A-Z])").sub(r"the \1 where ", body)
    # "the country containing Nugegoda" -> "the country where Nugegoda is located"
    body = regex(rf"\bthe ({kinds}) containing ((?:the )?[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*)").sub(
        r"the \1 where \2 is located", body)
    name = r"(?:the\s+)?[A-Z][\w'.-]*(?:,?\s+(?:[A-Z][\w'.-]*|of|de|the|and))*?"
    return regex(rf"\bthe ({kinds}) (?={name}\s+(?:is|was|are|were|played|plays)\b)").sub(r"the \1 that ", body)
