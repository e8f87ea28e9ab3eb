"""Word-level text handling shared by the planner, the ledger and the verifier.

Owns the one definition of a "term" in citeloop: how text is tokenised, which words are
stopwords, how terms are stemmed, and how named-entity-like spans are picked out by rule.
Everything here is deterministic and model-free, so two runs over the same text always
agree on what a claim's content terms are.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

from citeloop.runtime.memo import memo

STOPWORDS: frozenset[str] = frozenset(
    """
    a an the and or but if then else so as than too very just only also even both either
    of at by for with about against between into through during before after above below
    to from up down in out on off over under again further once here there all any each
    few more most other some such own same this that these those such
    i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves
    what who whom whose which where when why how whatever whoever whichever
    is am are was were be been being have has had having do does did doing done
    will would shall should can could may might must ought
    isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't
    shan't shouldn't can't cannot couldn't mustn't mightn't needn't
    not no nor never neither none without
    s t d ll m o re ve y
    there's that's what's who's it's let's
    upon via per among amongst within onto toward towards
    hundred thousand million billion trillion bn percent cent
    """.split()
) | frozenset("的 了 是 在 和 与 及 或 也 都 就 而 之 其 这 那 有".split())
"""English function words, question words (what/who/which/where/when/how/whose) and
auxiliaries, plus a handful of Chinese function characters. Negation words are stopwords
too: they carry polarity, not topic, and the verifier checks polarity separately. Scale
and percent words belong to numbers, which `runtime.numbers` compares by value."""

# Curly apostrophes are normalised so "Nolan’s" and "Nolan's" are one token.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})

# A Latin/Cyrillic/... word with internal apostrophes or hyphens ("o'brien", "well-known"),
# a number (internal separators kept so "1,234" stays one token), or one Han/kana character:
# without a segmenter, single CJK characters are the only unit we can split on safely.
_TOKEN = re.compile(
    r"[^\W\d_\u3040-\u30ff\u3400-\u9fff]+(?:['\-][^\W\d_\u3040-\u30ff\u3400-\u9fff]+)*"
    r"|\d+(?:[.,]\d+)*"
    r"|[\u3040-\u30ff\u3400-\u9fff]"
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def normalize(text: str) -> str:
    """NFKC (full-width letters and digits become ASCII) plus straight apostrophes."""
    if text.isascii():  # NFKC leaves ASCII alone and the apostrophes to straighten are not ASCII
        return text
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)


def fold_accents(text: str) -> str:
    """"Akinoshū" and "Akinoshu" must meet: users type names without their diacritics. So must
    "Saxe- Weissenfels" and "Saxe-Weissenfels": some exports put a space after a name's hyphen."""
    if text.isascii() and "- " not in text:  # NFKD leaves ASCII alone and it holds no combining marks
        return text
    return _folded(text)


_HYPHEN_SPACE = re.compile(r"(?<=[A-Za-z])- (?=[A-Z])")


@memo("text.fold_accents")
def _folded(text: str) -> str:
    if "- " in text:
        text = _HYPHEN_SPACE.sub("-", text)
    decomposed = unicodedata.normalize("NFKD", text)
    if decomposed.isascii():
        return decomposed
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokenize(text: str) -> list[str]:
    """Lowercase word tokens; hyphenated words and contractions stay one token."""
    return list(_tokens(text))


@memo("text.tokenize")
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(normalize(text).lower()))  # the pattern has no groups: whole matches


@lru_cache(maxsize=1 << 14)
def regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile`, kept for the process. Patterns built per name ("in Tenby", "X, Oregon")
    are too many for `re`'s own cache of 512, and evicting them there also evicts the fixed
    patterns, which then compile again on every call."""
    return re.compile(pattern, flags)


def name_in_context(text: str, name: str, before: re.Pattern[str] | None = None,
                    after: re.Pattern[str] | None = None) -> tuple[re.Match[str] | None, re.Match[str] | None] | None:
    """The first place `name` stands in `text`, as written, with `before` matching the text up
    to it (a pattern ending in `\\Z`, searched in `text[:start]` with lookbehinds seeing the
    text before) and `after` matching right after it: `re.search(BEFORE + re.escape(name) +
    AFTER, text)` for a pattern with `name` as its only literal part, without compiling a
    pattern per name (a run meets hundreds of names; a compile costs more than the search).
    Returns (before's match, after's match), or None."""
    for found in _places(text, name, before, after):
        return found
    return None


def names_in_context(text: str, name: str, before: re.Pattern[str] | None = None,
                     after: re.Pattern[str] | None = None) -> list[tuple[re.Match[str] | None, re.Match[str] | None]]:
    """Every place as `name_in_context` finds the first, left to right and not overlapping, as
    `finditer` would find them."""
    return list(_places(text, name, before, after))


def _places(text: str, name: str, before: re.Pattern[str] | None, after: re.Pattern[str] | None):
    taken = 0  # where the last place found ends: the next one's match starts there or later
    start = text.find(name) if name else -1
    while start >= 0:
        b = before.search(text, taken, start) if before is not None else None
        a = after.match(text, start + len(name)) if after is not None and (before is None or b) else None
        if (before is None or b) and (after is None or a):
            yield b, a
            taken = a.end() if a is not None else start + len(name)
            start = text.find(name, max(taken, start + 1))
        else:
            start = text.find(name, start + 1)


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def _stem_word(token: str) -> str:
    return _stemmer().stemWord(token)


stem = memo("text.stem")(_stem_word)
"""The Snowball English stem of one word (memoised: a corpus has few distinct words)."""


def term_pairs(text: str) -> list[tuple[str, str]]:
    """(stemmed term, surface word) for each distinct content term, first occurrence first.

    Numbers are not terms: `runtime.numbers` compares them by value, so "1,234" and
    "1234" agree there, whereas as terms they would count as a miss. Hyphenated words
    are split into their parts so "well-known" matches "well known".
    """
    return list(_term_pairs(text))


@memo("text.term_pairs")
def _term_pairs(text: str) -> tuple[tuple[str, str], ...]:
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for token in _tokens(text):
        for part in token.split("-"):
            # A number starts with a decimal digit (`\d`): only then is the pattern asked.
            if not part or part in STOPWORDS or (part[0].isdecimal() and _NUMBER.fullmatch(part)):
                continue
            term = stem(fold_accents(part))  # "Aschenbrödel" and "Aschenbrodel" are one term
            if term and term not in seen:
                seen.add(term)
                pairs.append((term, part))
    return tuple(pairs)


def content_terms(text: str) -> list[str]:
    """Stemmed non-stopword terms, deduplicated, in order of first appearance."""
    return list(_content_terms(text))


@memo("text.content_terms")
def _content_terms(text: str) -> tuple[str, ...]:
    return tuple(term for term, _ in _term_pairs(text))


def first_term(text: str) -> str | None:
    """The first content term of `text` (of a word: its stem), None when it has none."""
    terms = _content_terms(text)
    return terms[0] if terms else None


def term_overlap(a_terms: Iterable[str], b_terms: Iterable[str]) -> float:
    """Share of `a_terms` present in `b_terms`; 0.0 when `a_terms` is empty."""
    a = set(a_terms)
    if not a:
        return 0.0
    return len(a & set(b_terms)) / len(a)


# --------------------------------------------------------------------------- entities

SENTENCE_OPENERS: frozenset[str] = frozenset(
    "unlike despite following according including besides alongside although though whereas while since until "
    "throughout regarding concerning considering however meanwhile moreover furthermore nevertheless "
    "nonetheless therefore thus hence instead otherwise afterwards".split())
"""Prepositions, conjunctions and linking adverbs (not among the stopwords) that open a sentence
as grammar, not as a name: "Unlike U.S. states, ..." names "U.S", not "Unlike U.S"; "However,
Strauss died" names Strauss. Not those that open titles and names too ("Near East", "Beyond the
Sea", "Inside Out")."""
# Lowercase words allowed inside a name ("Bank of America", "Ludwig van Beethoven").
# "and" is deliberately absent: "Nolan and Kalathil" is two names, not one.
CONNECTORS: frozenset[str] = frozenset({"of", "the", "de", "del", "la", "von", "van", "du", "der", "di"})
# The same and a few more that stand inside a name once it is known to be one ("Carlos, Duke of
# Madrid", "Francisco de la Torre y Lopez"), though they do not start a run of name words.
NAME_PARTICLES: frozenset[str] = CONNECTORS | {"le", "da", "y"}
# Abbreviations a name goes on after ("St. Louis", "Ft. Worth", "Dr. Dre").
NAME_ABBREVIATIONS: frozenset[str] = frozenset({"St", "Ste", "Mt", "Ft", "Dr", "Mr", "Mrs", "Ms", "Jr", "Sr"})

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+|-(?!(?:born|made|held|run|built|grown|known|[a-z]+ed|[a-z]+ing)\b)"
                   r"[^\W\d_]+)*")
"""A word, with its apostrophes and hyphens ("O'Neill", "Jin-pyo", "Weston-super-Mare"), but not a
participle hyphened to a name: "New Zealand-born", "London-based", "French-held", "English-speaking"
end the name before it."""
_DIGITS = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_QUOTED = re.compile(r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|(?<![\w'])'([^']+)'(?!\w)")
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f:;\n][\"')\]\s]*$")


def _is_capitalised(word: str) -> bool:
    return word[0].isupper()


def _at_sentence_start(text: str, pos: int) -> bool:
    before = text[:pos].rstrip(" \t\"'(\u201c")
    return not before or bool(_SENTENCE_END.search(before))


def _capitalised_runs(text: str) -> list[tuple[int, str]]:
    """Runs of capitalised words, broken by punctuation, with connectors inside."""
    words = list(_WORD.finditer(text))
    # joined[i]: only whitespace separates word i from word i-1; punctuation ends a name.
    # An initial ("Robert G. Vignola") or a short title ("St. John's", "Mt. Hood") keeps the
    # name going across its full stop.
    joined = [
        i > 0 and (not text[words[i - 1].end():w.start()].strip()
                   or ((len(words[i - 1].group(0)) == 1 and words[i - 1].group(0).isupper()
                        or words[i - 1].group(0) in NAME_ABBREVIATIONS)
                       and text[words[i - 1].end():w.start()].strip() == "."))
        for i, w in enumerate(words)
    ]
    runs: list[tuple[int, str]] = []
    i = 0
    while i < len(words):
        if not _is_capitalised(words[i].group(0)):
            i += 1
            continue
        end = i + 1  # exclusive end of the run
        while end < len(words) and joined[end]:
            if _is_capitalised(words[end].group(0)):
                end += 1
                continue
            # Connectors join only when a capitalised word follows them, possibly after
            # more connectors ("University of the Arts").
            k = end
            while k < len(words) and joined[k] and words[k].group(0) in CONNECTORS:
                k += 1
            if k == end or k == len(words) or not joined[k] or not _is_capitalised(words[k].group(0)):
                break
            end = k + 1
        runs.append(_clean_run(text, words[i:end]))
        i = end
    return [r for r in runs if r[1]]


_SENTENCE_ADVERB = re.compile(r"[A-Z][a-z]{3,}(?:al|ent|ant|ous|ive|ate|ular|ing|ed|ful)ly")
"""A sentence-opening adverb by its ending ("Currently a solo artist, he ...", "Originally",
"Subsequently"): grammar, not a name. Names that end in "ly" do not end so ("Italy", "Kelly",
"Donnelly", "Beverly")."""


def _clean_run(text: str, run: list[re.Match[str]]) -> tuple[int, str]:
    # A capitalised stopword or adverb at a sentence start ("The", "Who", "Currently") is
    # grammar, not a name; elsewhere a lone stopword ("I") is not a name either.
    if _at_sentence_start(text, run[0].start()):
        while run and (run[0].group(0).lower() in STOPWORDS or run[0].group(0).lower() in SENTENCE_OPENERS
                       or _SENTENCE_ADVERB.fullmatch(run[0].group(0))):
            run = run[1:]
    while run and run[-1].group(0).lower() in CONNECTORS:
        run = run[:-1]
    if len(run) == 1 and run[0].group(0).lower() in STOPWORDS:
        run = []
    if not run:
        return (0, "")
    span = text[run[0].start():run[-1].end()]
    # A possessive is followed by what is owned ("Franklin's 1968 album"); an "'s" before a
    # comma ends a name ("born in St. John's, Newfoundland").
    if span.endswith("'s") and not text.startswith(",", run[-1].end()):
        span = span[:-2]
    return (run[0].start(), span)


QUOTED_TITLE_MAX_WORDS = 20
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
"""In quotation marks, Chinese or Japanese text is a quotation, not a title (titles go in 《》)."""


def _not_a_title(span: str) -> bool:
    """A quoted span that is not a title: someone's words (a clause of five words or more,
    "... the field notes," she said, or longer than any title; "MD, D.Ph., etc." stays a
    name; Chinese text in quotation marks), or a phrase that starts in lower case ('the new
    model of X'). Its names are still found as capitalised runs. Page text taken for a
    title would become a next-hop search query."""
    words = len(span.split())
    return (words > QUOTED_TITLE_MAX_WORDS or (span[-1] in ",.;" and words >= 5) or span[0].islower()
            or bool(_CJK.search(span)))


def entity_spans(text: str) -> list[str]:
    """Named-entity-like spans found by rule, deduplicated, in order of appearance.

    Covers capitalised name runs ("North Carolina", "Bank of America"), digit spans such
    as years ("1986"), and quoted titles (not quoted speech: a page's quoted sentence would
    otherwise become a next-hop search query). Recall over precision: a sentence-initial
    content word ("Directors of ...") can slip in; the planner only uses these as hints.
    """
    return list(_entity_spans(text))


@memo("text.entity_spans")
def _entity_spans(text: str) -> tuple[str, ...]:
    text = normalize(text)
    found: list[tuple[int, str]] = []
    quoted: list[tuple[int, int]] = []
    for m in _QUOTED.finditer(text):
        group = next(g for g in range(1, 4) if m.group(g) is not None)
        span = m.group(group).strip()
        if span and not _not_a_title(span):
            found.append((m.start(group), span))
            quoted.append((m.start(), m.end()))
    for start, span in _capitalised_runs(text):
        if not any(a <= start < b for a, b in quoted):  # already covered by the title
            found.append((start, span))
    for m in _DIGITS.finditer(text):
        found.append((m.start(), m.group(0)))
    spans: list[str] = []
    for _, span in sorted(found, key=lambda item: item[0]):
        if span not in spans:
            spans.append(span)
    return tuple(spans)
