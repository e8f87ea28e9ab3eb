"""Polarity and direction of a text, read by rule for the lexical verifier.

Owns how citeloop decides that a text denies something and which way it says an effect
goes. A negation cue ("not", "no", "lack of", "failed to", "n't", 不) negates the terms that
follow it in its clause, up to a scope breaker ("but", "whereas") or a fixed number of
tokens, so the "no" of "which has no elevator" says nothing about the year the tower was
completed. A word that is a negation by itself ("unchanged") denies its whole clause, and
a prefixed word whose remainder is a term of the other text ("uninvolved" against
"involved") is that term, negated. A term counts as negated only when every occurrence
of it is, so "X users versus those who never took X" still states X. Direction words
("increases", "reverses") outside a negation say which way the terms they govern go, and
a sentence that asks ("To determine whether ...") is marked, since its polarity is no
finding.

The word lists are data: `runtime/data/verifier_cues.yaml`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from citeloop.runtime.datafiles import read_data_yaml
from citeloop.runtime.memo import memo
from citeloop.runtime.text import STOPWORDS, normalize, stem, tokenize

__all__ = ["Cues", "cues", "Direction", "Reading", "read", "is_negated", "opposite_directions", "polarity_cues", "turns"]

Phrase = tuple[str, ...]


@dataclass(frozen=True)
class Cues:
    negation: frozenset[Phrase]
    """Cues that negate what follows them (English words and the Chinese characters)."""
    negating: frozenset[Phrase]
    """Words and phrases that deny what follows them ("lack of", "failed to")."""
    negative_words: frozenset[str]
    """Words that deny their whole clause ("unchanged")."""
    negative_prefixes: tuple[str, ...]
    adjective_prefixes: tuple[str, ...]
    adjective_endings: tuple[str, ...]
    not_negation: frozenset[Phrase]
    """Phrases that hold a negation cue without negating ("not only", 不同)."""
    negating_scope_tokens: int
    scope_breakers: frozenset[str]
    scope_tokens: int
    inquiry: frozenset[Phrase]
    """Phrases that make a sentence ask rather than state ("whether", "to determine")."""
    inquiry_headings: re.Pattern[str]
    """Structured-abstract headings, in capitals ("OBJECTIVE", "DESIGN")."""
    direction_targets: int
    up: frozenset[str]
    down: frozenset[str]



def _phrases(words: Iterable[str]) -> frozenset[Phrase]:
    # Tokenised like the text they are matched against: a Chinese word becomes its characters.
    return frozenset(tuple(tokenize(w)) for w in words if tokenize(w))


@cache
def cues() -> Cues:
    """The cue lists of `runtime/data/verifier_cues.yaml`, loaded once."""
    data = read_data_yaml("verifier_cues.yaml")
    return Cues(
        negation=_phrases([*data["negation"], *data["cjk_negation"]]),
        negating=_phrases(data["negating"]),
        negative_words=frozenset(data["negative_words"]),
        negative_prefixes=tuple(sorted(data["negative_prefixes"], key=len, reverse=True)),
        adjective_prefixes=tuple(sorted(data["adjective_prefixes"], key=len, reverse=True)),
        adjective_endings=tuple(data["adjective_endings"]),
        not_negation=_phrases([*data["not_negation"], *data["cjk_not_negation"]]),
        negating_scope_tokens=int(data["negating_scope_tokens"]),
        scope_breakers=frozenset(data["scope_breakers"]),
        scope_tokens=int(data["scope_tokens"]),
        inquiry=_phrases(data["inquiry"]),
        inquiry_headings=re.compile(r"\b(?:" + "|".join(re.escape(h) for h in data["inquiry_headings"]) + r")\b"),
        direction_targets=int(data["direction_targets"]),
        up=frozenset(data["up"]),
        down=frozenset(data["down"]),
    )


# A clause ends at these; a comma only when a space follows, so "1,234" stays whole.
_CLAUSE_BREAK = re.compile(r"[;:()\[\]!?\u3002\uff0c\uff1b]|,(?=\s)|\s[-\u2013\u2014]\s|\.(?=\s|$)")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(frozen=True, slots=True)
class _Token:
    surface: str
    terms: tuple[tuple[str, str], ...]
    """(stemmed term, surface part) for the token's content parts, as `text.term_pairs` splits them."""
    base: str | None
    """For a prefixed word ("uninvolved", "non-toxic"), the stem of its remainder ("involv")."""

    def __reduce__(self) -> tuple:
        # A token is a pure function of its surface: pickled (a corpus's stored readings,
        # `runtime.doc_features`) it is its surface, and it unpickles to the one object the
        # memo shares, so a corpus's readings hold each distinct word once.
        return _token_of, (self.surface,)


def _base(word: str) -> str | None:
    c = cues()
    for prefix in c.negative_prefixes:
        rest = word[len(prefix):].lstrip("-")
        if word.startswith(prefix) and len(rest) >= 4:
            return stem(rest)
    for prefix in c.adjective_prefixes:
        rest = word[len(prefix):].lstrip("-")
        if word.startswith(prefix) and len(rest) >= 4 and rest.endswith(c.adjective_endings):
            return stem(rest)
    return None


@memo("polarity.token")
def _token(surface: str) -> _Token:
    parts = [p for p in surface.split("-") if p and p not in STOPWORDS and not _NUMBER.fullmatch(p)]
    terms = tuple((t, p) for t, p in ((stem(p), p) for p in parts) if t)
    return _Token(surface, terms, _base(surface) if terms else None)


def _token_of(surface: str) -> _Token:
    """`_token`, for unpickling (a memo is no module-level function)."""
    return _token(surface)


@memo("polarity.clauses")
def _clauses(text: str) -> tuple[tuple[_Token, ...], ...]:
    """The text's clauses as tokens, computed once per text (the reverse check reads the
    same evidence for every claim)."""
    return tuple(tuple(_token(t) for t in tokenize(clause))
                 for clause in _CLAUSE_BREAK.split(normalize(text).lower()))


def _match(tokens: tuple[_Token, ...], i: int, phrases: frozenset[Phrase]) -> int:
    """Length of the longest phrase of `phrases` starting at token i (0: none)."""
    best = 0
    for phrase in _by_first_word(phrases).get(tokens[i].surface, ()):
        n = len(phrase)
        if n > best and tuple(t.surface for t in tokens[i:i + n]) == phrase:
            best = n
    return best


@lru_cache(maxsize=16)
def _by_first_word(phrases: frozenset[Phrase]) -> dict[str, tuple[Phrase, ...]]:
    index: dict[str, list[Phrase]] = {}
    for phrase in phrases:
        index.setdefault(phrase[0], []).append(phrase)
    return {word: tuple(found) for word, found in index.items()}


def _negation_cues(tokens: tuple[_Token, ...]) -> list[tuple[int, int, int]]:
    """(cue start, scope start, scope length) for each negation cue of a clause."""
    c = cues()
    found = []
    i = 0
    while i < len(tokens):
        skip = _match(tokens, i, c.not_negation)
        if skip:
            i += skip
            continue
        particle = _match(tokens, i, c.negation) or (1 if tokens[i].surface.endswith("n't") else 0)
        negating = 0 if particle else _match(tokens, i, c.negating)
        length = particle or negating
        if length:
            found.append((i, i + length, c.scope_tokens if particle else c.negating_scope_tokens))
            i += length
        else:
            i += 1
    return found


def _scope(tokens: tuple[_Token, ...], start: int, limit: int) -> range:
    breakers = cues().scope_breakers
    end = start
    while end < len(tokens) and end - start < limit and tokens[end].surface not in breakers:
        end += 1
    return range(start, end)


def _targets(tokens: tuple[_Token, ...], i: int, terms: list[tuple[str, ...]]) -> frozenset[str]:
    """The content terms a direction word at token i governs: the next few in its clause,
    or, when none follow ("mortality declined"), the ones before it."""
    n = cues().direction_targets
    after = [t for ts in terms[i + 1:] for t in ts][:n]
    return frozenset(after or [t for ts in terms[:i] for t in ts][-n:])


@dataclass(frozen=True)
class Direction:
    word: str
    """The stem of the direction word ("increas")."""
    sign: int
    """+1 up, -1 down."""
    targets: frozenset[str]
    """The terms it says go up or down."""


@dataclass(frozen=True)
class Reading:
    """What one text says, term by term: which terms it states, which it denies, and which
    way its direction words point."""

    terms: frozenset[str]
    """Content terms (stems); a prefixed word whose remainder is a term of the other text
    stands for that remainder ("uninvolved" -> "involv")."""
    negated: frozenset[str]
    """Terms every occurrence of which is under a negation."""
    directions: tuple[Direction, ...]
    """The direction words outside a negation, in order."""
    surfaces: dict[str, str]
    """Each term -> the word it was first read from, in order of first appearance."""
    inquiry: bool
    """The text asks or describes a study ("To determine whether ...") rather than states a finding."""


@dataclass(frozen=True, slots=True)
class _Clause:
    tokens: tuple[_Token, ...]
    denied: tuple[int, ...]
    """Positions under a negation, in order (a tuple: few, and a corpus holds many clauses)."""
    directions: tuple[tuple[int, int], ...]
    """(position, sign) of each direction word outside a negation."""


@memo("polarity.analyse")
def _analyse(text: str) -> tuple[tuple[_Clause, ...], bool]:
    """The part of a reading that does not depend on the other text, computed once per text
    (the reverse check and the ledger read the same evidence for every claim)."""
    c = cues()
    inquiry = bool(c.inquiry_headings.search(text))
    clauses = []
    for tokens in _clauses(text):
        in_scope: set[int] = set()
        for _, start, limit in _negation_cues(tokens):
            in_scope.update(_scope(tokens, start, limit))
        if any(t.surface in c.negative_words for t in tokens):
            in_scope.update(range(len(tokens)))
        inquiry = inquiry or any(_match(tokens, i, c.inquiry) for i in range(len(tokens)))
        directions = tuple((i, 1 if t.surface in c.up else -1) for i, t in enumerate(tokens)
                           if (t.surface in c.up or t.surface in c.down) and i not in in_scope)
        clauses.append(_Clause(tokens, tuple(sorted(in_scope)), directions))
    return tuple(clauses), inquiry


def read(text: str, against: Iterable[str] = ()) -> Reading:
    """Read `text`'s polarity; `against` is the other text's terms, which decide whether a
    prefixed word ("ineffective") is the negation of one of them ("effect"): it is, when
    the other text has the remainder and not the word itself."""
    other = against if isinstance(against, (set, frozenset)) else frozenset(against)
    # `against` matters only through which prefixed words it turns into their remainder, so
    # the reading is kept per (text, those words): the verifier reads the same evidence
    # sentence against claim after claim.
    turned = tuple(turns(token.base, token.terms, other) for token in _prefixed_words(text))  # type: ignore[arg-type]
    return _reading((text, turned))


@memo("polarity.possible_terms")
def possible_terms(text: str) -> frozenset[str]:
    """Every term a reading of `text` can hold, whatever the other text: each token's terms and
    each prefixed word's remainder (`citeloop.runtime.alignment.may_reach` bounds overlaps with it)."""
    terms: set[str] = set()
    for clause in _analyse(text)[0]:
        for token in clause.tokens:
            terms.update(term for term, _ in token.terms)
            if token.base is not None:
                terms.add(token.base)
    return frozenset(terms)


@memo("polarity.prefixed_words")
def _prefixed_words(text: str) -> tuple[_Token, ...]:
    """The text's tokens that are prefixed words (with a `base`), in reading order."""
    clauses, _ = _analyse(text)
    return tuple(token for clause in clauses for token in clause.tokens if token.base is not None)


@memo("polarity.read", maxsize=1 << 16)
def _reading(key: tuple[str, tuple[bool, ...]]) -> Reading:
    """The reading of the text with the prefixed words `turned` marks read as their remainder
    (one flag per `_prefixed_words` token). Shared by every caller: never mutated."""
    text, turned = key
    flags = iter(turned)
    seen: Counter[str] = Counter()
    denied: Counter[str] = Counter()
    directions: list[Direction] = []
    surfaces: dict[str, str] = {}
    clauses, inquiry = _analyse(text)
    for clause in clauses:
        terms: list[tuple[str, ...]] = []
        for i, token in enumerate(clause.tokens):
            prefixed = token.base is not None and next(flags)
            pairs = ((token.base, token.surface),) if prefixed else token.terms
            terms.append(tuple(t for t, _ in pairs))
            for term, surface in pairs:
                seen[term] += 1
                surfaces.setdefault(term, surface)
                if prefixed or i in clause.denied:
                    denied[term] += 1
        for i, sign in clause.directions:
            directions.append(Direction(stem(clause.tokens[i].surface), sign, _targets(clause.tokens, i, terms)))
    return Reading(terms=frozenset(seen), negated=frozenset(t for t, n in seen.items() if denied[t] == n),
                   directions=tuple(directions), surfaces=surfaces, inquiry=inquiry)


def polarity_cues(text: str) -> tuple[bool, tuple[tuple[str, tuple[tuple[str, str], ...]], ...], bool]:
    """What any reading of `text` can use to disagree with another text: (a negation's scope
    holds a word, the prefixed words as (remainder, own (term, surface) pairs), a direction
    word outside a negation). A prefixed word denies only when read as its remainder
    (`turns`)."""
    clauses, _ = _analyse(text)
    prefixed = tuple((token.base, token.terms) for token in _prefixed_words(text))
    return any(clause.denied for clause in clauses), prefixed, any(clause.directions for clause in clauses)  # type: ignore[return-value]


def turns(base: str, terms: tuple[tuple[str, str], ...], other: frozenset[str] | set[str]) -> bool:
    """Is a prefixed word (its remainder `base`, its own (term, surface) pairs) read as the
    denial of its remainder against the other text's terms? When the other text has the
    remainder and none of the word's own terms ("uninvolved" against "involved")."""
    return base in other and not any(t in other for t, _ in terms)


def is_negated(text: str) -> bool:
    """True when the text carries a negation cue ("not", "n't", 不; "not only" is none).

    The coarse whole-text test the model judge and the critic use; the verifier itself
    reads scoped polarity with `read`."""
    c = cues()
    return any(_match(tokens, i, c.negation) or tokens[i].surface.endswith("n't")
               for tokens in _clauses(text) for i, _, _ in _negation_cues(tokens))


def opposite_directions(a: Reading, b: Reading) -> bool:
    """Do the two texts move a term they share in opposite directions, and none in the same
    one? Direction words both texts use ("activation of X") are their topic, not a
    difference, and are left out."""
    a_words = {d.word for d in a.directions}
    b_words = {d.word for d in b.directions}
    a_way = _ways([d for d in a.directions if d.word not in b_words])
    b_way = _ways([d for d in b.directions if d.word not in a_words])
    agreements = [a_way[t] * b_way[t] for t in a_way.keys() & b_way.keys() if a_way[t] and b_way[t]]
    return bool(agreements) and all(x < 0 for x in agreements)


def _ways(directions: list[Direction]) -> Counter[str]:
    way: Counter[str] = Counter()
    for d in directions:
        for t in d.targets:
            way[t] += d.sign
    return way
