"""Relation paths in questions: "the director of film X", "X's maternal grandfather".

A relation word names the link from one entity to the next (X -> its director -> that
person's birthplace). The planner turns a path into a chain of hops, one article per
entity; the engine uses `RELATION_CUES` to find, in an article, the name that stands next
to the words that express the relation ("directed by ...", "the son of ...").
Kinship terms that compose several relations (maternal grandfather = mother's father)
are expanded here so each hop reads one article.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# relation -> words an article uses to express it (verb forms the stemmer does not join)
RELATION_CUES: dict[str, tuple[str, ...]] = {
    "father": ("father", "son", "daughter", "child"),
    "mother": ("mother", "son", "daughter", "child"),
    "husband": ("husband", "married", "marriage", "wife", "spouse"),
    "wife": ("wife", "married", "marriage", "husband", "spouse"),
    "spouse": ("spouse", "married", "marriage", "wife", "husband"),
    "child": ("child", "son", "daughter", "father", "mother"),
    "son": ("son", "child", "father", "mother"),
    "daughter": ("daughter", "child", "father", "mother"),
    "director": ("director", "directed"),
    "performer": ("performer", "performed", "singer", "sung", "recorded", "by"),
    "composer": ("composer", "composed", "music"),
    "writer": ("writer", "written", "wrote"),
    "author": ("author", "written", "wrote"),
    "producer": ("producer", "produced"),
    "creator": ("creator", "created"),
    "founder": ("founder", "founded"),
    "birthplace": ("birthplace", "born"),
    "actress": ("actress", "starring", "starred", "stars", "cast", "featuring"),
    "actor": ("actor", "starring", "starred", "stars", "cast", "featuring"),
}
PLACE_RELATIONS = frozenset({"birthplace"})
"""Relations that lead to a place, not a person ("X's birthplace")."""
# attribute word in a question -> the words a biography states it with ("place of death" ->
# "he died in ..."): words a hop's answer stands next to (citeloop.runtime.answer.hop_relation).
ATTRIBUTE_CUES: dict[str, tuple[str, ...]] = {
    "death": ("died",),
    "died": ("death",),
    "die": ("died", "death"),
    "birth": ("born",),
    "born": ("birth",),
    "burial": ("buried", "interred", "entombed"),
    "buried": ("burial", "interred", "entombed"),
    "founded": ("established",),
    "released": ("release",),
    "graduate": ("studied", "educated", "alumnus", "degree"),
    "study": ("graduated", "educated", "alumnus", "degree", "student"),
    "educated": ("studied", "graduated", "alumnus"),
    "attend": ("studied", "graduated", "educated", "alumnus"),
    "work": ("employed", "professor", "lecturer", "editor", "correspondent", "joined"),
    "teach": ("taught", "professor", "lecturer"),
    "charge": ("president", "leader", "head", "prime minister", "premier", "governor", "ruler", "chief minister",
               "chancellor", "mayor"),
}
DEATH_WORDS = frozenset({"died", "death", "dead", "die", "dies"})
LIFE_WORDS = DEATH_WORDS | {"born", "birth", "birthday", "older", "younger", "oldest", "youngest", "age"}
"""Question words that ask for the dates of a life (a birth, a death, or who is older)."""
KINSHIP: dict[str, list[str]] = {
    "maternal grandfather": ["mother", "father"],
    "paternal grandfather": ["father", "father"],
    "maternal grandmother": ["mother", "mother"],
    "paternal grandmother": ["father", "mother"],
    "grandfather": ["father", "father"],
    "grandmother": ["father", "mother"],
    "father-in-law": ["spouse", "father"],
    "mother-in-law": ["spouse", "mother"],
    "stepmother": ["father", "spouse"],
    "stepfather": ["mother", "spouse"],
}
WORK_KINDS = r"(?:film|song|album|novel|book|play|series|show|single|opera|painting|the film|the song)"
_RELATION_WORDS = sorted([*KINSHIP, *RELATION_CUES], key=len, reverse=True)
_RELATION = r"(?P<rel>" + "|".join(re.escape(r) for r in _RELATION_WORDS) + r")s?"
"""A relation word, singular or plural: "the performers of Brother" are its performer."""
# A short lower-case word inside a title ("Jump for Glory", "Rose in Bloom") joins the name
# only when a capitalised word follows it.
_CONNECTOR = (r"(?:of|the|de|du|von|van|la|le|del|der|di|and)\b|&"
              r"|(?:for|in|on|to|a|an|with|at|from|by)\b(?=\s+[A-Z])")
# A capital in any Latin, Greek or Cyrillic script ("Şalvar Davası", "Łódź"), or a digit.
_CAPITAL = "A-Z0-9" + "".join(re.escape(c) for c in map(chr, range(0xC0, 0x530)) if c.isupper())
# After its first word a title may hold a dash ("Oss 117 – Double Agent") or a clipped word
# ("Keep 'Em Rolling").
_NAME = (r"(?P<name>(?:[" + _CAPITAL + r"][^\s?]*|\([^)]*\)|" + _CONNECTOR + r")"
         r"(?:,?\s+(?:[" + _CAPITAL + r"(][^\s?]*|\([^)]*\)|[–—-]|['’][" + _CAPITAL + r"][^\s?]*|" + _CONNECTOR
         + r"))*)")
OF_PATTERN = re.compile(r"\bthe\s+" + _RELATION + r"\s+of\s+(?:" + WORK_KINDS + r"\s+)?(?!the\s)" + _NAME)
NESTED_OF = re.compile(r"\bthe\s+" + _RELATION + r"\s+of\s+(?=the\s)")
_MODIFIER = r"(?:(?:main|principal|late|first|current|former|eldest|youngest|only)\s+)?"
"""A word between an owner and the relation that changes no hop: "Big Eye's main director"."""
POSSESSIVE_PATTERN = re.compile(_NAME + r"['’]s\s+" + _MODIFIER + _RELATION + r"\b")
OF_POSSESSIVE = re.compile(r"\bof\s+" + _NAME + r"['’]s\s+" + _MODIFIER + _RELATION + r"\b")
"""A possessive inside an "of": "the spouse of Big Eye's main director" is "the spouse of the
director of Big Eye" (the inner relation is the possessive's)."""
EITHER_OR = re.compile(r",\s*" + _NAME.replace("name", "a") + r"\s+or\s+" + _NAME.replace("name", "b") + r"\s*\??$")
# "Was A or B born first?": the options stand between the opening verb and the first lower-case word.
OPENING_OR = re.compile(r"^(?i:was|were|is|are|did|does|do|has|have|had)\s+(?P<a>[" + _CAPITAL + r"][^?]*?)\s+or\s+"
                        r"(?P<b>[" + _CAPITAL + r"][^?]*?)\s+(?=[a-z])")
# "Are [both] [the movies] A and B [,] both / from / located ...": the options stand between the
# opening verb and the first lower-case word after the second.
OPENING_AND = re.compile(r"^(?i:are|were|is|was|do|does|did)\s+(?:both\s+)?(?:the\s+[a-z]+\s+)?"
                         + _NAME.replace("name", "a") + r"\s+and\s+" + _NAME.replace("name", "b") + r",?\s+(?=[a-z])")
# "Are A and B both ...?": with "both" after them, B is every word up to it ("Escape from the Dark").
BOTH_AFTER = re.compile(r"^(?i:are|were|is|was)\s+(?P<a>[" + _CAPITAL + r"][^?]*?)\s+and\s+(?P<b>[" + _CAPITAL
                        + r"][^?]*?),?\s+both\s+(?=[a-z])")
_TRAILING_CONNECTORS = {"of", "the", "de", "du", "von", "van", "la", "le", "del", "der", "di", "and", "&"}


@dataclass(frozen=True)
class RelationPath:
    bases: list[str]
    """The entity the path starts from; two or more for "which film has the director born first, A or B"."""
    relations: list[str]
    """Relation steps in order, kinship terms expanded."""
    relation_text: str
    """The relation as the question wrote it."""
    attribute: str
    """The question's remaining words: what is asked of the last entity (may be empty)."""


def _clean(name: str) -> str:
    words = name.split()
    while words and words[-1].lower() in _TRAILING_CONNECTORS:
        words.pop()
    while words and words[0].lower() in {"of", "and"}:
        words.pop(0)
    return " ".join(words).strip(" ,")


def either_or_options(question: str) -> list[str]:
    """The two options a question names: "..., A or B?" or "Was A or B born first?"."""
    body = question.strip().rstrip("?").strip()
    for pattern, text in ((EITHER_OR, body + "?"), (OPENING_OR, body)):
        match = pattern.search(text)
        if match is not None:
            options = [_clean(" ".join(match.group(g).split())) for g in ("a", "b")]
            if all(o and (o[0].isupper() or o[0].isdigit()) for o in options):
                return options
    return []


_ANY_CAPITAL = re.compile(r"[" + _CAPITAL + r"]")


def both_and_options(question: str) -> list[str]:
    """The two things "Are A and B both ...?" compares, whole ("Hellraiser: Revelations",
    "Volovo, Lipetsk Oblast"); [] when the question is not of that shape."""
    match = BOTH_AFTER.search(question.strip()) or OPENING_AND.search(question.strip())
    if match is None or _ANY_CAPITAL.search(question[match.end():]):
        return []  # "Are Frozen and Escape from the Dark from ...": B went on past a lower-case word
    options = [_clean(" ".join(match.group(g).split())) for g in ("a", "b")]
    return options if all(options) else []


_WORKS = r"(?:films?|songs?|albums?|novels?|books?)"
_RELATION_NAMES = "|".join(RELATION_CUES)
_REL_OF_WORKS = r"(?:the\s+)?(?:both\s+)?(?P<{g}>" + _RELATION_NAMES + r")s?\s+of\s+(?:both\s+)?" + _WORKS + r"\s+"
# "Are the directors of films A and B ...", "Do director of film A and director of film B ...",
# "Do both films A and B have the directors ...", "Do both A and B films have the directors ...".
BOTH_WORKS = re.compile(
    r"^(?i:are|were|is|was|do|does|did)\s+(?:both\s+)?(?:" + _REL_OF_WORKS.format(g="rel") + r"|(?P<works>"
    + _WORKS + r"),?\s+)?(?P<a>[" + _CAPITAL + r"(].*?),?\s+and\s+(?:" + _REL_OF_WORKS.format(g="rel2") + r")?(?P<b>["
    + _CAPITAL + r"(].*?),?\s+(?:(?P<after>" + _WORKS + r")\s+)?(?:have|share|both|from|are|were)\b")


def _both_works_path(body: str) -> RelationPath | None:
    """"Are the directors of films A and B both from the same country?": one chain per work,
    through the relation the question names before the works or after them ("... have the
    directors from the same country"), to what is asked of the related entities."""
    match = BOTH_WORKS.search(body)
    if match is None:
        return None
    rel = match.group("rel")
    if rel is None and (match.group("works") or match.group("after")):
        later = re.search(r"\b(?:have|share)\s+the\s+(?P<rel>" + _RELATION_NAMES + r")s?\b", body[match.end("b"):])
        rel = later.group("rel") if later else None
    bases = [_clean(match.group(g)) for g in ("a", "b")]
    if rel is None or not all(bases):
        return None
    rest = body[match.end("b"):]
    attribute = " ".join(w for w in _attribute_words(rest).split()
                         if w.rstrip("s") not in RELATION_CUES and not re.fullmatch(_WORKS, w)
                         and w not in {"both", "same", "share", "from", "have"})
    return RelationPath(bases, [rel.lower()], rel.lower(), attribute)


def relation_path(question: str) -> RelationPath | None:
    """The relation path of a question, or None when it names no relation of a named entity."""
    body = question.strip().rstrip("?").strip()
    both = _both_works_path(body)
    if both is not None:
        return both
    either = EITHER_OR.search(body + "?")
    # The relation is asked before the options: "Her Husband's Trademark" names a film, not a husband.
    relation = re.search(r"\b" + _RELATION + r"\b", body[: either.start()] if either else body, re.IGNORECASE)
    if either and relation:
        # "Which film has the director born first, A or B?": one chain per compared work.
        bases = [_clean(either.group("a")), _clean(either.group("b"))]
        if all(bases):
            rel = relation.group("rel").lower()
            head = body[: either.start()]
            attribute = head[relation.end():]
            return RelationPath(bases, KINSHIP.get(rel, [rel]), rel, _compared_attribute(_attribute_words(attribute)))
    body = OF_POSSESSIVE.sub(lambda m: f"of the {m.group('rel')} of {m.group('name')}", body)
    for pattern in (OF_PATTERN, POSSESSIVE_PATTERN):
        match = pattern.search(body)
        if match is None:
            continue
        start = match.start()
        raw = match.group("name")
        if pattern is POSSESSIVE_PATTERN:
            # "the bomb on Akinoshu Kenji's birthplace": the owner's name starts at its capital
            owner = _LEADING_LOWER.match(raw)
            start += owner.end() if owner else 0
            raw = raw[owner.end():] if owner else raw
        name = _clean(raw)
        if not name or not name[0].isupper() and not name[0].isdigit():
            continue
        rel = match.group("rel").lower()
        relations = KINSHIP.get(rel, [rel])
        # "the spouse of the director of film X": outer relations apply after inner ones.
        for outer in reversed([m for m in NESTED_OF.finditer(body) if m.end() <= start]):
            if outer.end() != start:
                break
            relations = relations + KINSHIP.get(outer.group("rel").lower(), [outer.group("rel").lower()])
            rel = f"{outer.group('rel').lower()} of the {rel}"
            start = outer.start()
        # ", who was the daughter of ..." after the name describes the one asked for; it asks nothing
        after = body[match.end():]
        if match.group("name").endswith(","):  # the name's comma opens the clause
            after = _DESCRIBING_CLAUSE.sub("", after)
        place = _PLACE_AROUND.search(body[:start])
        if place is not None:
            # "the country where the composer of X was a citizen", "the birth place of the director
            # of X": a place of the last entity is a hop of its own, when more is asked of it.
            noun = PLACE_STEPS[" ".join(place.group("noun").lower().split())]
            attribute = _attribute_words(body[:place.start()] + " " + after)
            if set(attribute.split()) - set(noun.split()):
                return RelationPath([name], [*relations, noun], f"{noun} of the {rel}", attribute)
        rest = body[:start] + " " + after
        return RelationPath([name], relations, rel, _attribute_words(rest))
    return None


PLACE_STEPS = {"country": "country", "city": "city", "state": "state", "continent": "continent",
               "birthplace": "birthplace", "birth place": "birthplace", "place of birth": "birthplace"}
"""Places of an entity a question asks something of ("the main airport in the birth place of
X"), as the relation step that finds them."""
PLACE_KINDS = frozenset({"country", "city", "state", "continent"})
"""The place steps whose hop looks for a name of that kind (its `finds`); a birthplace hop
looks for a town (the planner gives it "city": "born in Fredericton, New Brunswick" is
Fredericton's birth, not the province's)."""
_PLACE_AROUND = re.compile(r"\b(?:the\s+)?(?P<noun>country|city|state|continent|birthplace|birth\s+place|place\s+of\s+birth)"
                           r"\s+(?:of|where|in\s+which|in|that)\s*\Z", re.IGNORECASE)
"""The place a relation phrase is wrapped in: "the country where " before "the composer of X"."""


_LEADING_LOWER = re.compile(r"(?:[a-z][\w'-]*\s+)+")
"""Lower-case words a possessive's match may start with ("on " of "on Akinoshu Kenji's")."""
_DESCRIBING_CLAUSE = re.compile(r"^\s*,?\s*(?:who|whom|whose)\b.*$")
"""A clause after the relation's name that says who the answer is ("Name the mother of X, who was
the daughter of Y"): the hop's answer is the entity itself, read in its own article."""


def _compared_attribute(attribute: str) -> str:
    """What a compared chain's last hop searches for: a life's dates are searched as the
    words articles state them with ("whose director is younger", "born later" -> "born";
    "died first" -> "died"), not as the comparison words, which no article uses."""
    words = set(attribute.split())
    if words & DEATH_WORDS:
        return "died"
    if words & LIFE_WORDS:
        return "born"
    return attribute


def _attribute_words(text: str) -> str:
    """What is asked of the last entity: 'place of death', 'born', 'country ... from'."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
    skip = {"who", "what", "where", "when", "which", "is", "was", "are", "were", "the", "of", "did", "does", "do",
            "a", "an", "has", "have", "had", "film", "whose", "that", "song", "by", "in", "on", "name"}
    return " ".join(w.lower() for w in words if w.lower() not in skip)
