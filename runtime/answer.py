"""The short answer a report states first, extracted in code from the claims that survived.

`answer_kind` reads which shape of answer the question asks for (a name, a date, a number,
yes/no, or one of the options it names); `find_answer` takes the finished (audited) report
and returns an `Answer`:

- one answer hop (single-hop questions, the last hop of a bridge chain): the answer is a
  span of a cited sentence of that hop's kept claims: the name, date or number standing
  closest to the words of the relation the question asks ("directed by X", "born in X").
  A hop that only reads the article of the entity the previous hop found ("Who is X's
  mother?": find the name, then read her article) answers with that entity;
- compared options ("Which film came out first, A or B?", "Are A and B both American?"):
  one value per option is read from its own hop's cited sentences (dates and numbers after
  normalisation, or whether the asked attribute is stated), and the answer is computed
  from those values, citing both sides.

No answer is guessed: when no kept claim states it the answer is `not_found` (or `dead_end`
when the hop that would state it was searched to a dead end), with the reason. The cue
words live in `runtime/data/answer_cues.yaml`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from citeloop.runtime.bridging import CALENDAR_WORDS, KIND_WEIGHT, kind_nearness, proximity, relation_cue_terms, relation_terms, term_positions
from citeloop.runtime.numbers import extract_numbers
from citeloop.runtime.planner import SLOT
from citeloop.runtime.relations import EITHER_OR, either_or_options
from citeloop.runtime.text import content_terms, entity_spans, fold_accents, tokenize
from citeloop.trajectories.models import Answer, AnswerKind, EvidenceCard, Plan, Report, ReportClaim

MONTHS = ("january february march april may june july august september october november december").split()
_MONTH = r"(?P<month>" + "|".join(m.capitalize() for m in MONTHS) + r"|" + "|".join(
    m[:3].capitalize() for m in MONTHS) + r")\.?"
DATE_PATTERNS = [
    re.compile(r"\b(?P<day>\d{1,2})\s+" + _MONTH + r",?\s+(?P<year>\d{3,4})\b"),
    re.compile(r"\b" + _MONTH + r"\s+(?P<day>\d{1,2}),?\s+(?P<year>\d{3,4})\b"),
    re.compile(r"\b" + _MONTH + r"\s+(?P<year>\d{3,4})\b"),
    re.compile(r"(?<![\d,.])\b(?P<year>1\d{3}|20\d{2})\b(?![,.]\d)"),
]
DEATH_WORDS = {"died", "death", "dead", "die", "dies"}


@dataclass(frozen=True)
class Cues:
    yes_no_openers: frozenset[str]
    date_cues: tuple[str, ...]
    number_cues: tuple[str, ...]
    lowest_wins: frozenset[str]
    highest_wins: frozenset[str]
    date_comparisons: frozenset[str]
    shared_value_cues: frozenset[str]
    place_cues: tuple[str, ...]
    origin_cues: tuple[str, ...]
    region_nouns: frozenset[str]
    town_nouns: frozenset[str]


@cache
def cues() -> Cues:
    data = yaml.safe_load(resources.files("citeloop.runtime").joinpath("data", "answer_cues.yaml")
                          .read_text(encoding="utf-8"))
    return Cues(frozenset(data["yes_no_openers"]), tuple(data["date_cues"]), tuple(data["number_cues"]),
                frozenset(data["lowest_wins"]), frozenset(data["highest_wins"]),
                frozenset(data["date_comparisons"]), frozenset(data["shared_value_cues"]),
                tuple(data["place_cues"]), tuple(data["origin_cues"]), frozenset(data["region_nouns"]),
                frozenset(data["town_nouns"]))


def _has_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    low = f" {' '.join(tokenize(text))} "
    return any(f" {p} " in low for p in phrases)


question_options = either_or_options
"""The options a question names: "..., A or B?" or "Was A or B born first?" -> [A, B]."""


def answer_kind(question: str, plan: Plan | None = None) -> AnswerKind:
    c = cues()
    words = tokenize(question)
    if EITHER_OR.search(question.strip().rstrip("?").strip() + "?") and (not words or words[0] not in c.yes_no_openers):
        return "choice"
    compares = bool(set(words) & (c.lowest_wins | c.highest_wins)) and "or" in words
    if plan is not None and plan.question_type == "comparison" and compares and len(option_hops(plan)) >= 2:
        return "choice"  # "Was A or B born first?"
    if words and words[0] in c.yes_no_openers:
        return "yes_no"
    if plan is not None and plan.question_type == "comparison" and len(option_hops(plan)) >= 2:
        return "choice"
    if _has_phrase(question, c.date_cues):
        return "date"
    if _has_phrase(question, c.number_cues):
        return "number"
    return "entity"


# --------------------------------------------------------------------------- values in sentences


@dataclass(frozen=True)
class Mention:
    text: str
    start: int
    """Token position in the sentence (for nearness to the relation's words)."""
    value: tuple[float, ...] = ()
    """Sortable value of a date (year, month, day) or a number."""


def date_mentions(sentence: str) -> list[Mention]:
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
            value = (float(parts["year"]), float(month_no), float(parts.get("day") or 0))
            found.append((m.start(), Mention(m.group(0), len(tokenize(sentence[: m.start()])), value)))
    return [mention for _, mention in sorted(found, key=lambda item: item[0])]


def number_mentions(sentence: str) -> list[Mention]:
    out = []
    for n in extract_numbers(sentence):
        try:
            value = float(n.value)
        except ValueError:
            continue
        out.append(Mention(n.raw, len(tokenize(sentence[: n.span[0]])), (value,)))
    return out


def _nearness(sentence: str, start: int, relation: set[str]) -> float:
    """1 for a value right at a word of the relation, less further away."""
    hits = term_positions(tokenize(sentence), relation)
    if not hits:
        return 0.0
    gap = min(abs(h - start) for h in hits)
    return 1.0 / (1 + gap)


# --------------------------------------------------------------------------- hops and claims


def option_hops(plan: Plan) -> list[tuple[str, str]]:
    """(option name, sub-question id) per compared axis: the last original hop of each axis."""
    out = []
    for axis in plan.axes:
        hops = [sq.id for sq in plan.sub_questions if sq.axis == axis.id and not sq.expansion]
        if hops:
            out.append((axis.title, hops[-1]))
    return out


def answer_hops(plan: Plan) -> list[str]:
    """The hops the answer is read from: each compared option's, or the last original hop."""
    kind = answer_kind(plan.question, plan)
    options = option_hops(plan)
    if kind in ("choice", "yes_no") and len(options) >= 2:
        return [sid for _, sid in options]
    return [answer_hop(plan)]


def answer_hop(plan: Plan) -> str:
    originals = [sq for sq in plan.sub_questions if not sq.expansion]
    return originals[-1].id


@dataclass(frozen=True)
class ReportEvidence:
    """The surviving claims of a report by sub-question, with the cards they cite."""

    claims: dict[str, list[ReportClaim]]
    cards: dict[str, EvidenceCard]

    @classmethod
    def of(cls, report: Report, claim_subq: dict[str, str]) -> ReportEvidence:
        claims: dict[str, list[ReportClaim]] = {}
        for section in report.sections:
            for claim in section.claims:
                if claim.verdict in ("entail", "partial") and claim.claim_id in claim_subq:
                    claims.setdefault(claim_subq[claim.claim_id], []).append(claim)
        return cls(claims, {c.card_id: c for c in report.evidence})

    def titles(self) -> set[str]:
        return {card.title.split(" (")[0] for card in self.cards.values()}

    def described(self) -> dict[str, list[str]]:
        """Short page title -> the quotes of its cards (what its own article says it is)."""
        out: dict[str, list[str]] = {}
        for card in self.cards.values():
            out.setdefault(card.title.split(" (")[0], []).append(card.quote)
        return out

    def sentences(self, sid: str) -> list[tuple[ReportClaim, EvidenceCard]]:
        return [(c, self.cards[cid]) for c in self.claims.get(sid, []) for cid in c.citations if cid in self.cards]


def hop_relation(plan: Plan, sid: str) -> set[str]:
    """The words of the relation a hop asks for: its query less slots and named entities,
    with the words articles use for the same relation ("director" -> "directed by")."""
    sq = next(s for s in plan.sub_questions if s.id == sid)
    entity_terms = {t for e in plan.entities for t in content_terms(e)}
    terms = {t for t in content_terms(SLOT.sub(" ", sq.search_query)) if t not in entity_terms}
    return relation_cue_terms(terms) or relation_terms(plan)


def _subject_names(plan: Plan, sid: str, resolved: dict[str, str]) -> list[str]:
    sq = next(s for s in plan.sub_questions if s.id == sid)
    return [resolved[d] for d in sq.depends_on if resolved.get(d)] + list(plan.entities)


def _is_subject(name: str, subjects: list[str], question_tokens: set[str]) -> bool:
    tokens = tokenize(name)
    if not tokens or name.isdigit() or name.lower() in CALENDAR_WORDS:
        return True
    if sum(t in question_tokens for t in tokens) / len(tokens) >= 0.5:
        return True
    folded = fold_accents(name).lower()
    return any(folded in fold_accents(s).lower() or fold_accents(s).lower() in folded for s in subjects if s)


PLACE_WORDS = r"(?:in|at|near|from|to)"


def _is_modifier(sentence: str, name: str) -> bool:
    """A single capitalised word directly before a lower-case word: an adjective ("American film")."""
    if len(name.split()) != 1:
        return False
    return re.search(r"\b" + re.escape(name) + r"\s+[a-z]", sentence) is not None


def _after_place_word(sentence: str, name: str) -> bool:
    """"in Tenby", "from the Bronx", "in southeastern Jiangsu" (one word of direction or size
    between), or the region after a town: "from Portland, Oregon"."""
    town = r"(?:[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*,\s+)?"
    return re.search(r"\b" + PLACE_WORDS + r"\s+(?:the\s+)?(?:[a-z]+ern\s+|central\s+)?" + town + re.escape(name),
                     sentence) is not None


def states_kind(kind: AnswerKind, question: str, relation: set[str], quote: str) -> bool:
    """Could this sentence state an answer of this kind? (Used to choose the answer hop's claims.)

    Apart from dates, it must use a word of the hop's relation, not only hold a value of the
    right shape: "17 years" in a sentence about something else is no answer to "which is
    larger" (and such a sentence is a favourite shape of a planted statement)."""
    if kind == "date":
        return bool(date_mentions(quote))  # a life's dates stand in brackets, with no word of the relation
    if not relation & set(content_terms(quote)):
        return False
    if kind == "number":
        return bool(number_mentions(quote))
    if kind == "entity" and _has_phrase(question, cues().place_cues):
        return re.search(r"\b" + PLACE_WORDS + r"\s+(?:the\s+)?[A-Z]", quote) is not None
    return True


@dataclass(frozen=True)
class Found:
    text: str
    score: float
    claim: ReportClaim
    card: EvidenceCard


_PRONOUN_AFTER = re.compile(r"\.\s+(?:He|She|It|They|His|Her|Its|Their|The|This|In)\b.*$")


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


def _place_level(quote: str, name: str, finds: str) -> tuple[str, float]:
    """A place as the question asks it: "Portland, Oregon" answers "what state" with Oregon
    (the name after the comma) and "what city" with all of it ("Canton, Massachusetts")."""
    c = cues()
    if finds in c.town_nouns:
        grown = re.search(re.escape(name) + r",\s+([A-Z][\w.]*(?:\s+[A-Z][\w.]*)*)", quote)
        return (f"{name}, {grown.group(1).rstrip('.')}", 0.3) if grown else (name, 0.0)
    if finds in c.region_nouns:
        if re.search(r"[A-Z][\w.]*,\s+" + re.escape(name) + r"\b", quote):
            return name, 0.6  # the region after a town's name
        if re.search(re.escape(name) + r",\s+[A-Z]", quote):
            return name, -0.3  # the town before its region
    return name, 0.0


def _described_as(name: str, finds: str, described: dict[str, list[str]]) -> bool:
    """Does a card from the name's own article call it a `finds` ("Sandra Oh ... is a
    Canadian actress")? `described`: short page title -> quotes of its cards."""
    if not finds:
        return False
    stem = set(content_terms(finds))
    return any(stem & set(content_terms(q)) for q in described.get(name, ()))


def best_span(kind: AnswerKind, sentences: list[tuple[ReportClaim, EvidenceCard]], relation: set[str],
              subjects: list[str], question: str, titles: set[str] = frozenset(), finds: str = "",
              described: dict[str, list[str]] | None = None) -> list[Found]:
    """Candidate answers in the cited sentences, best first. `titles`: pages read in the run;
    `finds`: the word for what the question asks ("station"), next to which the answer stands
    or which its own article's cards (`described`) call it."""
    question_tokens = set(tokenize(question))
    death = bool(DEATH_WORDS & question_tokens)
    found: dict[str, Found] = {}
    for rank, (claim, card) in enumerate(sentences):
        quote = card.quote
        candidates: list[tuple[str, float]] = []
        if kind == "date":
            dates = date_mentions(quote)
            for i, d in enumerate(dates):
                near = _nearness(quote, d.start, relation | (DEATH_WORDS if death else set()))
                # A life's dates stand first in a biography: birth first, death second.
                order = (1.0 if i == 1 else 0.0) if death else (1.0 if i == 0 else 0.0)
                candidates.append((d.text, near + 0.5 * order + 0.2 * (d.value[1] > 0)))
        elif kind == "number":
            years = {d.text for d in date_mentions(quote)}
            for n in number_mentions(quote):
                if n.text not in years:
                    candidates.append((n.text, _nearness(quote, n.start, relation)))
        else:
            place, origin = _has_phrase(question, cues().place_cues), _has_phrase(question, cues().origin_cues)
            for name in _names_in(quote, titles):
                if _is_subject(name, subjects, question_tokens):
                    continue
                name, level = _place_level(quote, name, finds)
                score = proximity(quote, name, relation) + 0.3 * (len(tokenize(name)) > 1) + level \
                    + KIND_WEIGHT * max(kind_nearness(quote, name, finds),
                                        float(_described_as(name, finds, described or {})))
                if _is_modifier(quote, name):
                    # "an American actress": a word that describes a noun names no one, unless
                    # the question asks where someone is from.
                    score += 0.5 if origin else -0.6
                if place and not origin:
                    if not _after_place_word(quote, name):
                        continue  # "Where ...?" is answered by a name that follows in, at, near or from
                    score += 0.6
                candidates.append((name, score))
        for text, score in candidates:
            total = score + 0.2 * card.grade.relevance - 0.05 * rank
            if text not in found or found[text].score < total:
                found[text] = Found(text, total, claim, card)
    return sorted(found.values(), key=lambda f: -f.score)


# --------------------------------------------------------------------------- the answer


def comparison_value(question: str) -> tuple[AnswerKind, bool] | None:
    """(what is compared, whether the highest wins) for "Which came out first, A or B?"
    ("date", False); None when the question names no one direction."""
    c = cues()
    words = set(tokenize(question))
    lowest, highest = bool(words & c.lowest_wins), bool(words & c.highest_wins)
    if lowest == highest:
        return None
    return ("date" if words & c.date_comparisons else "number"), highest


def answer_sentence_tests(plan: Plan) -> dict[str, Callable[[str], bool]]:
    """Sub-question id -> a test for sentences that could state its part of the answer: the
    answer hop's claims are written from those first, so the sentence that holds the date or
    the name is not crowded out by a neighbour that only names the subject."""
    kind = answer_kind(plan.question, plan)
    options = option_hops(plan)
    if kind == "choice" and len(options) >= 2:
        compared = comparison_value(plan.question)
        if compared is None:
            return {}
        value_kind = compared[0]
        return {sid: (lambda q, sid=sid: states_kind(value_kind, plan.question, hop_relation(plan, sid), q))
                for _, sid in options}
    if kind not in ("entity", "date", "number"):
        return {}
    sid = answer_hop(plan)
    relation = hop_relation(plan, sid)
    return {sid: lambda q: states_kind(kind, plan.question, relation, q)}


ConfidenceOf = Callable[[list[str]], str]


def find_answer(plan: Plan, report: Report, claim_subq: dict[str, str], statuses: dict[str, str],
                resolved: dict[str, str], confidence: ConfidenceOf) -> Answer:
    """The report's short answer, from its surviving claims (see the module docstring)."""
    kind = answer_kind(plan.question, plan)
    evidence = ReportEvidence.of(report, claim_subq)
    options = option_hops(plan)
    if kind in ("choice", "yes_no") and len(options) >= 2:
        named = question_options(plan.question)
        if named and len(named) == len(options):
            options = [(name, sid) for name, (_, sid) in zip(named, options)]
        return _compared(plan, kind, options, evidence, statuses, confidence)
    return _single(plan, kind, answer_hop(plan), evidence, statuses, resolved, confidence)


def _answered(kind: AnswerKind, text: str, claims: list[ReportClaim], reason: str, confidence: ConfidenceOf,
              runners_up: list[str] = ()) -> Answer:
    ids = list(dict.fromkeys(c.claim_id for c in claims))
    cards = [cid for c in claims for cid in c.citations]
    return Answer(status="answered", kind=kind, text=text, claim_ids=ids, confidence=confidence(cards),
                  reason=reason, candidates=list(runners_up)[:3])


def _missing(kind: AnswerKind, sids: list[str], statuses: dict[str, str], what: str) -> Answer:
    dead = [s for s in sids if statuses.get(s) == "dead_end"]
    if dead:
        return Answer(status="dead_end", kind=kind, reason=f"{what}: {', '.join(dead)} was searched to a dead end "
                                                            "(related material, but no sentence states it)")
    return Answer(status="not_found", kind=kind, reason=f"{what}: no kept claim states it")


def _single(plan: Plan, kind: AnswerKind, sid: str, evidence: ReportEvidence, statuses: dict[str, str],
            resolved: dict[str, str], confidence: ConfidenceOf) -> Answer:
    sq = next(s for s in plan.sub_questions if s.id == sid)
    article_of = SLOT.fullmatch(sq.search_query.strip())
    if article_of is not None and kind == "entity":
        # The hop reads the article of the entity the previous hop found: that entity answers.
        prev = article_of.group(1)
        name = resolved.get(prev, "")
        folded = fold_accents(name).lower()
        stating = [c for s in (prev, sid) for c, card in evidence.sentences(s)
                   if folded and folded in fold_accents(f"{card.title} {card.quote}").lower()]
        if stating:
            return _answered(kind, name, stating, f"the entity {prev} resolved to, read in its own article", confidence)
        return _missing(kind, [prev, sid], statuses, f"no kept claim names what {prev} resolved to")
    sentences = evidence.sentences(sid)
    if kind == "yes_no":
        return _yes_no_single(plan, sid, sentences, statuses, confidence)
    found = best_span(kind, sentences, hop_relation(plan, sid), _subject_names(plan, sid, resolved), plan.question,
                      evidence.titles(), sq.finds, evidence.described())
    if not found:
        return _missing(kind, [sid], statuses, f"no {kind} in the cited sentences of {sid}")
    best = found[0]
    return _answered(kind, best.text, [best.claim], f"the {kind} nearest the question's relation words in a cited "
                     f"sentence of {sid}", confidence, [f.text for f in found[1:]])


def _attribute_terms(plan: Plan, options: list[str]) -> set[str]:
    """What is asked of the options: the question's content words less the options' own."""
    option_terms = {t for o in options for t in content_terms(o)}
    return {t for t in content_terms(plan.question) if t not in option_terms} - {
        t for w in cues().shared_value_cues for t in content_terms(w)}


def _states(sentences: list[tuple[ReportClaim, EvidenceCard]], terms: set[str]) -> list[ReportClaim]:
    return [c for c, card in sentences if terms and terms <= set(content_terms(card.quote))]


def _yes_no_single(plan: Plan, sid: str, sentences, statuses, confidence) -> Answer:  # noqa: ANN001
    terms = _attribute_terms(plan, list(plan.entities))
    stating = _states(sentences, terms)
    if stating:
        return _answered("yes_no", "yes", stating, f"a cited sentence of {sid} states {' '.join(sorted(terms))}",
                         confidence)
    if sentences:
        return _answered("yes_no", "no", [c for c, _ in sentences], f"the cited sentences of {sid} do not state "
                         f"{' '.join(sorted(terms))}", confidence)
    return _missing("yes_no", [sid], statuses, f"no kept claim about {sid}")


def _compared(plan: Plan, kind: AnswerKind, options: list[tuple[str, str]], evidence: ReportEvidence,
              statuses: dict[str, str], confidence: ConfidenceOf) -> Answer:
    words = set(tokenize(plan.question))
    missing = [sid for _, sid in options if not evidence.sentences(sid)]
    if missing:
        return _missing(kind, missing, statuses, "an option has no kept claim")
    compared = comparison_value(plan.question)
    if kind == "choice" and compared is not None:
        value_kind, highest = compared
        values = []
        for name, sid in options:
            found = best_span(value_kind, evidence.sentences(sid), hop_relation(plan, sid), [name], plan.question)
            if not found:
                return _missing(kind, [sid], statuses, f"no {value_kind} stated for {name}")
            value = (date_mentions(found[0].text) or number_mentions(found[0].text))[0].value
            values.append((value, name, found[0]))
        ordered = sorted(values, key=lambda v: v[0], reverse=highest)
        if ordered[0][0] == ordered[1][0]:
            return Answer(status="conflict", kind=kind, candidates=[n for _, n, _ in ordered],
                          reason=f"the options have the same {value_kind} ({ordered[0][2].text})")
        claims = [f.claim for _, _, f in values]
        shown = ", ".join(f"{n}: {f.text}" for _, n, f in values)
        return _answered(kind, ordered[0][1], claims, f"compared {value_kind}s ({shown})", confidence)
    terms = _attribute_terms(plan, [n for n, _ in options])
    stated = {name: _states(evidence.sentences(sid), terms) for name, sid in options}
    all_claims = [cl for _, sid in options for cl, _ in evidence.sentences(sid)]
    if kind == "choice":
        holders = [n for n, claims in stated.items() if claims]
        if len(holders) == 1:
            return _answered(kind, holders[0], stated[holders[0]], f"only {holders[0]}'s cited sentences state "
                             f"{' '.join(sorted(terms))}", confidence)
        return Answer(status="conflict" if holders else "not_found", kind=kind, candidates=holders,
                      reason=f"{'every' if holders else 'no'} option's cited sentences state {' '.join(sorted(terms))}")
    same_what = re.search(r"\bsame\s+([a-z]+)", plan.question.lower())
    place = same_what.group(1) if same_what else ""
    # "The same country" is usually a nationality ("both American"): shared values decide that.
    if place in (cues().region_nouns | cues().town_nouns) - {"country", "nation"}:
        return _same_place(kind, place, options, evidence, all_claims, statuses, confidence)
    if words & {"same"} or not terms:
        shared = _shared_values(options, evidence)
        text = "yes" if shared else "no"
        why = f"both state {', '.join(sorted(shared))}" if shared else "their cited sentences share no value"
        return _answered(kind, text, all_claims, why, confidence)
    every = all(stated.values())
    why = f"{'every' if every else 'not every'} option's cited sentences state {' '.join(sorted(terms))}"
    return _answered(kind, "yes" if every else "no", all_claims, why, confidence)


def _same_place(kind: AnswerKind, place: str, options: list[tuple[str, str]], evidence: ReportEvidence,
                claims: list[ReportClaim], statuses: dict[str, str], confidence: ConfidenceOf) -> Answer:
    """"Are A and B in the same state?": each option's place at the level asked (the name after
    a place word, the region after a town's comma), compared; not any name both happen to share."""
    values = []
    for name, sid in options:
        found = best_span("entity", evidence.sentences(sid), set(), [name], f"where {place}", evidence.titles(),
                          place)
        if not found:
            return _missing(kind, [sid], statuses, f"no {place} stated for {name}")
        values.append((name, found[0].text))
    same = len({fold_accents(v).lower() for _, v in values}) == 1
    shown = ", ".join(f"{n}: {v}" for n, v in values)
    return _answered(kind, "yes" if same else "no", claims, f"compared {place}s ({shown})", confidence)


def _shared_values(options: list[tuple[str, str]], evidence: ReportEvidence) -> set[str]:
    """Capitalised words (nationalities, places) or years every option's sentences state."""
    per_option = []
    for name, sid in options:
        own = set(tokenize(name))
        values: set[str] = set()
        for _, card in evidence.sentences(sid):
            for span in entity_spans(card.quote):
                values |= {w for w in tokenize(span) if w not in own and w not in set(tokenize(card.title))}
        per_option.append(values)
    return set.intersection(*per_option) if per_option else set()
