"""Choosing the next hop's entity: which name in a hop's evidence the following hop is about.

A bridge question ("the director of the film shot in Leland") is answered one article at a
time; after each hop the engine must pick, among the names its evidence mentions, the one
the next hop should read about. `rank_bridge_candidates` scores names by the evidence
that mentions them (anchor articles first), by whether the searches returned an article of
that title, and by how close the name stands to the question's relation words
("directed by", "the son of"). `focus_terms` serves the same matching; whether a page or a
card is about an entity at all is decided in `citeloop.runtime.entity_titles`, and the parents
a sentence names are read in `citeloop.runtime.parentage`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from citeloop.runtime.answer_places import after_place_word, is_country
from citeloop.runtime.entity_titles import is_namesake, names_title
from citeloop.runtime.memo import memo
from citeloop.runtime.parentage import parent_bonus, parents_named
from citeloop.runtime.place_forms import of_kind_by_form
from citeloop.runtime.plan_gate import SLOT
from citeloop.runtime.relations import (
    ATTRIBUTE_CUES,
    PLACE_RELATIONS,
    RELATION_CUES,
    relation_path,
)
from citeloop.runtime.text import (
    STOPWORDS,
    content_terms,
    entity_spans,
    first_term,
    fold_accents,
    regex,
    tokenize,
)
from citeloop.trajectories.models import EvidenceCard, Plan

CALENDAR_WORDS = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)


KIND_WEIGHT = 0.8
"""Bonus for a name standing right next to the word for what its hop looks for."""
HOP_RELATION_WEIGHT = 0.8
"""Bonus for a name standing next to a word of the relation its own hop asks ("directed by X" for "X director")."""
MODIFIER_PENALTY = 0.6
"""Taken off a name that the sentence only uses to describe a noun ("an Indian Bengali drama film")."""
PLACE_FOR_PERSON = 0.6
"""Taken off a place (a country, or a name after "in", "at", "near", "from" or "to") when the hop
asks for a person by a relation ("the author of Brand": not "first performed in Stockholm")."""


_WORD_AFTER = re.compile(r"\s+([a-z][a-z\-]*)")
_DESCRIBED_BEFORE = re.compile(r"(?:\b(?:a|an|the)|\d{3,4})\s+$")
"""An article or a year right before a name used as a describing word."""


def describes_noun(quote: str, name: str) -> bool:
    """Does the sentence use the name only as a describing word ("an Indian Bengali drama
    film", "a 1972 Turkish drama film", "the Hong Kong duo")? Every use of it stands after an
    article or a year and before a lower-case content word that is no verb in the past
    ("a Hank Williams song", but not "the Coens directed ..."). Such a name is an attribute
    of the subject, not the entity the next hop should read about."""
    uses = _uses(quote, name)
    if not uses:
        return False
    for start in uses:
        after = _WORD_AFTER.match(quote, start + len(name))
        if not _DESCRIBED_BEFORE.search(quote, 0, start) or after is None:
            return False
        word = after.group(1)
        if word in STOPWORDS or word.endswith("ed"):
            return False
    return True


def _uses(text: str, name: str) -> list[int]:
    """Where `name` starts in `text`, left to right, uses not overlapping (as `re.finditer`
    of the escaped name finds them); none for an empty name."""
    starts: list[int] = []
    at = text.find(name) if name else -1
    while at >= 0:
        starts.append(at)
        at = text.find(name, at + len(name))
    return starts


def term_positions(text: str, terms: set[str] | frozenset[str]) -> list[int]:
    """Positions of the words of `tokenize(text)` that are, or stem to, one of `terms`. Each
    word's stem is looked up once per text: a quote is measured against several term sets,
    and quotes recur across runs."""
    return [i for i, (w, t) in enumerate(zip(tokenize(text), word_stems(text))) if w in terms or t in terms]


@memo("bridging.word_stems")
def word_stems(text: str) -> tuple[str | None, ...]:
    """`first_term` of each of `tokenize(text)`'s words (None for a stopword or a number)."""
    return tuple(first_term(w) for w in tokenize(text))


def proximity(quote: str, name: str, question_terms: set[str]) -> float:
    """1.0 when a question word sits right next to the name ("the soap opera Neighbours"), less further away."""
    return nearness(tokenize(quote), name, term_positions(quote, question_terms))


def nearness(words: list[str], name: str, hits: list[int]) -> float:
    """`proximity` of the name to the words at `hits` (`term_positions` of the quote whose
    tokens are `words`), for a caller that measures many names against one quote."""
    name_words = tokenize(name)
    if not name_words or not hits:
        return 0.0
    starts = [i for i in range(len(words)) if words[i : i + len(name_words)] == name_words]
    if not starts:
        return 0.0
    gap = min(abs(h - s) if h < s else abs(h - (s + len(name_words) - 1)) for s in starts for h in hits)
    return 1.0 / gap if gap else 0.0


def focus_terms(query: str, entities: list[str], text: str) -> list[str]:
    """Key terms of `query` for judging `text`: names the text does not mention are left out.

    A next-hop query carries several candidate names; judging a document by all of them
    would dilute the relevance of the one article that matters.
    """
    return list(_focus_terms((query, tuple(entities), text)))


@memo("bridging.focus_terms", maxsize=1 << 16)
def _focus_terms(key: tuple[str, tuple[str, ...], str]) -> tuple[str, ...]:
    query, entities, text = key
    folded = fold_accents(text).lower()
    lacking = tuple(name for name in entities if name and fold_accents(name).lower() not in folded)
    return _query_without((query, lacking))


@memo("bridging.query_without", maxsize=1 << 14)
def _query_without(key: tuple[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The content terms of the query less the names, in turn (most pages of a search lack
    the same names)."""
    query, names = key
    for name in names:
        query = without_name(query, name)
    return tuple(content_terms(query))


def without_name(text: str, name: str) -> str:
    """`text` with each occurrence of `name`, in any case, replaced by a space. ASCII text is
    searched in lower case with `str.find` (names are too many to compile a pattern each);
    other text through a case-insensitive pattern, whose case rules lower() does not share."""
    if name and text.isascii() and name.isascii():
        low, key, parts, start = text.lower(), name.lower(), [], 0
        while (found := low.find(key, start)) >= 0:
            parts.append(text[start:found])
            start = found + len(key)
        parts.append(text[start:])
        return " ".join(parts)
    return _name_pattern(name).sub(" ", text)


@memo("bridging.name_pattern", maxsize=1 << 12)
def _name_pattern(name: str) -> re.Pattern[str]:
    # Compiled once per name: names are too many for `re`'s own cache of patterns.
    return re.compile(re.escape(name), flags=re.IGNORECASE)


def relation_cue_terms(terms: set[str]) -> set[str]:
    """`terms` with the words articles use for the same relations and attributes ("director"
    -> "directed"; "death" -> "died")."""
    out = set(terms)
    for cue_terms in _cue_term_sets():
        if terms & cue_terms:
            out |= cue_terms
    return out


@cache
def _cue_term_sets() -> tuple[frozenset[str], ...]:
    """The stemmed words of each relation's and attribute's cue list, computed once."""
    return tuple(frozenset(content_terms(" ".join(words)))
                 for words in [*RELATION_CUES.values(), *([k, *v] for k, v in ATTRIBUTE_CUES.items())])


@cache
def _attribute_stems() -> dict[str, frozenset[str]]:
    """Stemmed attribute or relation word -> the stems a biography states it with ("death" ->
    "die", "spouse" -> "married")."""
    out: dict[str, set[str]] = {}
    for key, words in [*ATTRIBUTE_CUES.items(), *RELATION_CUES.items()]:
        for stem in content_terms(key):
            out.setdefault(stem, set()).update(content_terms(" ".join(words)))
    return {k: frozenset(v) for k, v in out.items()}


@cache
def _hop_relations(hop_query: str) -> tuple[str, ...]:
    """The relations of `RELATION_CUES` a hop's query names ("Gull Point director" -> "director");
    none for a hop whose words are a clause of the question."""
    terms = set(content_terms(SLOT.sub(" ", hop_query)))
    return tuple(relation for relation in RELATION_CUES if terms & set(content_terms(relation)))


@cache
def hop_relation_words(hop_query: str) -> tuple[str, ...]:
    """The stemmed relation words a hop's query names ("Lady Rose McLaren spouse" -> "spous"):
    what a sentence must state for the hop, whatever query found it."""
    return tuple(dict.fromkeys(t for relation in _hop_relations(hop_query) for t in content_terms(relation)))


@cache
def _hop_relation_cues(hop_query: str) -> frozenset[str]:
    """The words articles state a hop's relations with ("director" -> "directed", "director")."""
    return frozenset(t for relation in _hop_relations(hop_query)
                     for t in content_terms(" ".join([relation, *RELATION_CUES[relation]])))


def with_attribute_cues(key_terms: Iterable[str], sentence_terms: Iterable[str]) -> list[str]:
    """A sentence's terms plus each key term that it states in a biography's words: a key
    "death" is met by "he died in ..." (`ATTRIBUTE_CUES`), so the sentence that states a
    place of death is not outranked by one that only repeats the word "place"."""
    terms = list(sentence_terms)
    have = set(terms)
    return terms + [k for k, cues in _attribute_keys(tuple(key_terms)) if k not in have and cues & have]


@memo("bridging.attribute_keys", maxsize=1 << 12)
def _attribute_keys(key_terms: tuple[str, ...]) -> tuple[tuple[str, frozenset[str]], ...]:
    """The key terms that name an attribute or relation, with the stems that state it, in
    order, once each: a page's every sentence is measured against the same key."""
    stems = _attribute_stems()
    return tuple((k, stems[k]) for k in dict.fromkeys(key_terms) if k in stems)


def relation_terms(plan: Plan) -> set[str]:
    """Words that express the question's relations: the ones a bridge name stands next to."""
    question_terms = content_terms(plan.question)
    entity_terms = {t for e in plan.entities for t in content_terms(e)}
    terms = {t for t in question_terms if t not in entity_terms}
    terms |= {t for t in tokenize(plan.question) if t.isdigit()}  # "(1986)" pins the right film
    path = relation_path(plan.question)
    for relation in path.relations if path else []:
        # "director" in the question, "directed by" in the article
        terms |= set(content_terms(" ".join(RELATION_CUES.get(relation, ()))))
    return terms


def kind_nearness(quote: str, name: str, finds: str) -> float:
    """How close the name stands to the word for what the hop looks for: "the television
    series "Charmed"" is a series, "Lifetime's "Army Wives"" is not said to be one. A name
    that ends with that word is one by its name ("Avery County", "DeCavalcante crime family"),
    and a place may be one by the form it is written in (`of_kind_by_form`)."""
    if not finds:
        return 0.0
    if of_kind_by_form(quote, name, finds):
        return 1.0
    return proximity(quote, name, set(content_terms(finds)))


def rank_bridge_candidates(plan: Plan, cards: Iterable[EvidenceCard], seen_titles: set[str],
                           hop_query: str = "", finds: str = "") -> list[str]:
    """The names of `rank_bridge_evidence`, best first."""
    return [name for name, _, _ in rank_bridge_evidence(plan, cards, seen_titles, hop_query, finds)]


REGNAL_NUMBER = re.compile(r"[IVXLC]+")
"""A name that is only a regnal number ("IV" of "Charles I and IV") names no one."""
_SUBJECT_BRACKET = re.compile(r"^[^()]{1,150}?\(\s*([^()\d]*?)\s*(?:;|,?\s*born\b|,?\s*b\.)")


def subject_aliases(quote: str) -> str:
    """The other names a sentence gives its subject in the bracket after it, before a ";" or
    "born" ("Prince Jacques of Orléans (Jacques Jean Jaroslaw Marie; born 25 June 1941 ...)"):
    those name the subject, never someone else ("(Dresden, 13 August 1614 - ...)" is a place
    and a date, not a name). The text of that part ("" when there is none)."""
    found = _SUBJECT_BRACKET.match(quote)
    head = quote[: found.start(1)] if found else ""
    return found.group(1) if found and not regex(r"\b(?:is|was|are|were)\b").search(head) else ""


def _at_agent(words: list[str], positions: list[int]) -> list[int]:
    """Relation word positions, each moved onto a "by" that follows it: in "directed by Louis
    Ralph" the agent stands right at the relation, as "director Ken Hall" does."""
    return [p + 1 if p + 1 < len(words) and words[p + 1] == "by" else p for p in positions]


LEADING_ARTICLES = frozenset({"the", "a", "an"})


_INDEFINITE = re.compile(r"\b(?:a|an)\s+((?:[a-z][\w-]*\s+)??[a-z][\w-]*)(?=\s+(?:in|of|on|at|by|from|for|that|which|who|"
                         r"where|located|based|founded|known|named|called)\b)")


def indefinite_nouns(question: str) -> set[str]:
    """The words of the lower-case noun phrases the question opens with "a" or "an" before a
    preposition or a relative word: "a residential hall in a university located in" ->
    {residential, hall, university}. Such a phrase describes an entity the question does not
    name, so a name holding its words ("Australian National University") is no question name."""
    return {w for m in _INDEFINITE.finditer(question) for w in tokenize(m.group(1))}


def another_person(tokens: list[str], subjects: list[str], question_tokens: set[str]) -> bool:
    """Is the name (its tokens) another person who shares one name with a name the question
    gives: its family name ("Louis Armstrong" beside the question's "Lil Hardin Armstrong",
    "Antara Mali" beside "Jagdish Mali") or its first name ("James Stockdale" beside "James
    Woods"), with no other word of it in the question ("Professor Abraham Van Helsing" is the
    question's "Abraham Van Helsing")? Such a name shares half its words with the question but
    is not its subject."""
    if len(tokens) < 2 or sum(t in question_tokens for t in tokens) != 1:
        return False
    for subject in subjects:
        own = tokenize(fold_accents(subject))
        if len(own) >= 2 and (own[-1] == tokens[-1]) != (own[0] == tokens[0]):
            return True
    return False


def rank_bridge_evidence(plan: Plan, cards: Iterable[EvidenceCard], seen_titles: set[str],
                         hop_query: str = "", finds: str = "") -> list[tuple[str, float, EvidenceCard]]:
    """Names the cards mention that the question does not, best next-hop subject first.

    A candidate scores the relevance of the best card naming it, plus bonuses when that
    card comes from an anchor article (titled with an entity the question names), for
    names inside a quote (not just a document title), for multi-word names, for names that
    are titles the searches returned, for standing next to a relation word, less when the card
    only uses the name to describe a noun (`describes_noun`), and (when the hop
    asks for a mother or father, `hop_query`) for the parent's place in "the son of A and B",
    and for standing next to the word for what the hop looks for (`finds`: "the series X").
    """
    # A title's qualifier tells it from its namesakes and may name the bridge itself: in
    # "the performer of song Evolution (Ayumi Hamasaki Song)" the performer is still the next hop.
    # Accents folded on both sides: "Aschenbrödel" is the question's "Aschenbrodel".
    question_tokens = set(tokenize(fold_accents(re.sub(r"\([^)]*\)", " ", plan.question))))
    question_names = {e.lower() for e in plan.entities}
    relations = relation_terms(plan)
    titles = {t.split(" (")[0]: t for t in sorted(seen_titles)}
    asked = set(tokenize(hop_query))
    parent = "mother" if "mother" in asked else "father" if "father" in asked else None
    hop_relation = _hop_relation_cues(hop_query)
    finds_terms = relation_cue_terms(set(content_terms(finds)))  # "actress": also "starring"
    person_hop = bool(set(_hop_relations(hop_query)) - PLACE_RELATIONS)  # an author, a director, a parent ...
    # the word for the asked kind, and a noun the question puts after "a" or "an" ("a residential
    # hall in a university"), describe the entity looked for, not one the question names
    kind_words = set(tokenize(finds)) | indefinite_nouns(plan.question)
    best: dict[str, float] = {}
    source: dict[str, EvidenceCard] = {}
    order: list[str] = []
    for card in sorted(cards, key=lambda c: -c.grade.relevance):
        if is_namesake(card.title, plan.entities):
            continue  # another film of the same name names no one in this chain
        anchor = 0.5 if names_title(card.title, question_names) else 0.0
        own = card.title.split(" (")[0]
        named_titles = [short for short in titles if len(short) > 3 and short != own and short in card.quote]
        parents = parents_named(card.quote)
        quote_names = [*named_titles, *entity_spans(card.quote), *(parents or ())]
        # Where the relation, hop-relation and kind words stand in the quote, once per card.
        words = tokenize(card.quote)
        near_relation = term_positions(card.quote, relations)
        near_hop = _at_agent(words, term_positions(card.quote, hop_relation))
        near_kind = term_positions(card.quote, finds_terms) if finds else []
        aliases = subject_aliases(card.quote)  # the card's subject's other names name no one else
        for name in dict.fromkeys([*quote_names, card.title]):
            tokens = tokenize(name)
            if not tokens or name.isdigit() or name.lower() in CALENDAR_WORDS or REGNAL_NUMBER.fullmatch(name) \
                    or name in aliases:
                continue
            in_place = parent_bonus(card.quote, name, parent)
            # A parent is often named after the child ("Adolf of Velm", father of "Egbert III
            # of Velm"): in the parent's place only the question's own entities are excluded.
            if in_place:
                excluded = name.lower() in question_names
            else:
                # the word for the asked kind is no sign of a question name ("McDowell County"),
                # nor is a title's leading article ("The Jetsons": every question has a "the")
                folded = tokenize(fold_accents(name))
                own_words = folded[1:] if len(folded) > 1 and folded[0] in LEADING_ARTICLES else folded
                excluded = sum(t in question_tokens and t not in kind_words for t in own_words) / len(own_words) >= 0.5 \
                    and not another_person(folded, plan.entities, question_tokens)
            if excluded:
                continue
            score = card.grade.relevance + anchor + in_place
            score += 0.5 if name in quote_names else 0.0
            score += 0.3 if len(tokens) > 1 else 0.0
            score += 0.4 if name in titles or name in seen_titles else 0.0
            score += 0.3 * nearness(words, name, near_relation)
            score += HOP_RELATION_WEIGHT * nearness(words, name, near_hop)
            if finds:
                by_form = of_kind_by_form(card.quote, name, finds)
                score += KIND_WEIGHT * (1.0 if by_form else nearness(words, name, near_kind))
            if describes_noun(card.quote, name):
                score -= MODIFIER_PENALTY
            if person_hop and (is_country(name) or after_place_word(card.quote, name)):
                score -= PLACE_FOR_PERSON  # "first performed in Stockholm" names no author
            if name not in best:
                order.append(name)
            if score > best.get(name, float("-inf")):
                best[name], source[name] = score, card
    ranked = sorted(order, key=lambda n: (-best[n], order.index(n)))
    return [(name, round(best[name], 4), source[name]) for name in ranked]
