"""The short answer a report states first, extracted in code from the claims that survived.

`citeloop.runtime.answer_hops` reads which shape of answer the question asks for (a name, a
date, a number, yes/no, or one of the options it names) and which hops state it; `find_answer`
takes the finished (audited) report and returns an `Answer`:

- one answer hop (single-hop questions, the last hop of a bridge chain): the answer is a
  span of a cited sentence of that hop's kept claims: the name, date or number standing
  closest to the words of the relation the question asks ("directed by X", "born in X").
  A hop that only reads the article of the entity the previous hop found ("Who is X's
  mother?": find the name, then read her article) answers with that entity. The hops before
  the answer hop are read too, ranked lower: a background hop (a factoid the plan could not
  tell from two hops) may state the answer, and in a chain the sentence that found the bridge
  may already say what is asked of it, when the answer hop's own sentences give nothing;
- compared options ("Which film came out first, A or B?", "Are A and B both American?"):
  one value per option is read from its own hop's cited sentences (dates and numbers after
  normalisation, or whether the asked attribute is stated), and the answer is computed
  from those values, citing both sides.

No answer is guessed: when no kept claim states it the answer is `not_found` (or `dead_end`
when the hop that would state it was searched to a dead end), with the reason; a name or value
found only in sentences that do not state the asked relation is shown as a candidate of a
`not_found` answer, not stated. Candidate
spans and the cue words are `citeloop.runtime.answer_spans`'.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from citeloop.runtime.answer_hops import (
    answer_hop,
    answer_kind,
    asks_lifespan,
    asks_same_country,
    comparison_value,
    hop_relation,
    option_hops,
    option_question,
    question_options,
    without_options,
)
from citeloop.runtime.answer_sentences import states_kind
from citeloop.runtime.answer_spans import (
    Found,
    best_span,
    cues,
    date_mentions,
    described_as,
    number_mentions,
)
from citeloop.runtime.countries import (
    countries_named,
    is_country_word,
    nationalities_stated,
)
from citeloop.runtime.entity_titles import names_title
from citeloop.runtime.mentions import frequency_mentions, life_span
from citeloop.runtime.place_forms import of_kind_by_form
from citeloop.runtime.planner import SLOT
from citeloop.runtime.question_asks import (
    asked_life,
    asked_parent,
    asks_in_common,
    asks_times,
    has_phrase,
)
from citeloop.runtime.report_evidence import ReportEvidence
from citeloop.runtime.text import (
    content_terms,
    entity_spans,
    fold_accents,
    tokenize,
)
from citeloop.trajectories.models import (
    Answer,
    AnswerKind,
    EvidenceCard,
    Plan,
    Report,
    ReportClaim,
)

# --------------------------------------------------------------------------- hops and claims


def _subject_names(plan: Plan, sid: str, resolved: dict[str, str]) -> list[str]:
    """The names a hop's answer is about, never the answer itself: the entities its
    dependencies resolved to and the question's own. In a background plan (a factoid) the
    entity the background led to is no subject when its name is of the asked kind ("New York
    City" for "what city ..."): the background found the answer itself."""
    sq = next(s for s in plan.sub_questions if s.id == sid)
    bridges = [resolved[d] for d in sq.depends_on if resolved.get(d)]
    if plan.question_type == "factoid" and sq.finds:
        bridges = [b for b in bridges if not of_kind_by_form("", b, sq.finds)]
    return bridges + list(plan.entities)


# --------------------------------------------------------------------------- the answer


ConfidenceOf = Callable[[list[str]], str]


def find_answer(plan: Plan, report: Report, claim_subq: dict[str, str], statuses: dict[str, str],
                resolved: dict[str, str], confidence: ConfidenceOf, read_titles: Iterable[str] = ()) -> Answer:
    """The report's short answer, from its surviving claims (see the module docstring);
    `read_titles`: the titles of the pages the run read."""
    kind = answer_kind(plan.question, plan)
    evidence = ReportEvidence.of(report, claim_subq, read_titles)
    options = option_hops(plan)
    if asks_in_common(plan.question) and len(options) >= 2:
        return _in_common(options, evidence, statuses, confidence)
    if kind in ("choice", "yes_no") and len(options) >= 2:
        named = question_options(plan.question)
        if named and len(named) == len(options):
            options = [(name, sid) for name, (_, sid) in zip(named, options)]
        return _compared(plan, kind, options, evidence.about_options(options), statuses, confidence)
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
    relation, parent = hop_relation(plan, sid), asked_parent(SLOT.sub(" ", sq.search_query))
    found = best_span(kind, sentences, relation, _subject_names(plan, sid, resolved), plan.question,
                      evidence.titles(), sq.finds, evidence.described(), parent)
    if statuses.get(sid) in ("satisfied", "dead_end", "exhausted"):
        # Only once the answer hop has searched: until then the bridge is not confirmed.
        found = _with_earlier_hops(plan, kind, sid, found, evidence, relation, resolved, parent)
    if kind == "number" and asks_times(plan.question):
        # "How many times ...?" is answered by how often a cited sentence says it happened, in
        # whichever hop, before any other count ("a two-time Pro Bowl selection" of the
        # background over "won by the score of 23 to 17"); the order is kept within each.
        found = sorted(found, key=lambda f: not frequency_mentions(f.text))
    if not found:
        return _missing(kind, [sid], statuses, f"no {kind} in the cited sentences of {sid}")
    stating = [f for f in found if _says_relation(plan.question, kind, relation, f)]
    if not stating:
        # A name or a value next to words of another relation is no answer ("France was one
        # of the founding members of NATO" for "What is the capital of France?"): shown as
        # a candidate, not stated.
        return Answer(status="not_found", kind=kind, candidates=[f.text for f in found[:3]],
                      reason=f"the cited sentences of {sid} name {found[0].text!r}, but none states what is "
                             f"asked ({_asked_words(sq.search_query, relation)})")
    best = stating[0]
    hop = next((s for s, claims in evidence.claims.items() if best.claim in claims), sid)
    return _answered(kind, _as_asked(plan.question, best.text), [best.claim], f"the {kind} nearest the question's "
                     f"relation words in a cited sentence of {hop}", confidence,
                     [f.text for f in found if f is not best])


def _asked_words(query: str, relation: set[str]) -> str:
    """The words of a hop's query that ask its relation, as the query spells them."""
    words = [w for w in tokenize(SLOT.sub(" ", query)) if set(content_terms(w)) & relation]
    return " ".join(dict.fromkeys(words)) or "its relation"


def _says_relation(question: str, kind: AnswerKind, relation: set[str], found: Found) -> bool:
    """Does the sentence a candidate answer comes from state the relation asked
    (`answer_sentences.states_kind`; for "how many times", a sentence saying how often does)?"""
    if not relation:
        return True
    if kind == "date" and asked_life(question) is None and not relation & set(content_terms(found.card.quote)):
        return False  # any date has a date's form; "began on 5 January 1968" says nothing of a dissolution
    return states_kind(kind, question, relation, found.card.quote)


EARLIER_HOP = 0.5
"""Taken from the score of an answer found in an earlier hop's sentence than the answer hop's."""


def _earlier_hops(plan: Plan, sid: str) -> list[str]:
    """The hops the answer hop depends on, nearest first."""
    by_id = {s.id: s for s in plan.sub_questions}
    out: list[str] = []
    todo = list(by_id[sid].depends_on)
    while todo:
        dep = todo.pop(0)
        if dep not in out:
            out.append(dep)
            todo += by_id[dep].depends_on
    return out


def _with_earlier_hops(plan: Plan, kind: AnswerKind, sid: str, found: list[Found], evidence: ReportEvidence,
                       relation: set[str], resolved: dict[str, str], parent: str | None) -> list[Found]:
    """The answer hop's candidates, and those of the hops before it whose sentences state the
    asked relation, ranked lower (`EARLIER_HOP`). An earlier hop often says it already: "Two
    Dollar Radio is a publishing house based in Columbus, Ohio" was read while finding the
    house, and the hop about the house found only a namesake; "Charles Andrews ... graduated
    from Hebron Academy" answers the background hop of a question the plan could not tell
    from two hops. In a background plan (a factoid) the entity the background named may be
    the answer itself; in a chain of hops it is the bridge, never the answer."""
    sq = next(s for s in plan.sub_questions if s.id == sid)
    background = plan.question_type == "factoid"
    if found and not background:
        return found
    bridges = {fold_accents(resolved[d]).lower() for d in sq.depends_on if resolved.get(d)}
    described = evidence.described()
    led_to: set[str] = set()
    if background:
        stating = [states_kind(kind, plan.question, relation, f.card.quote) for f in found]
        if any(stating):
            # The answer hop says the asked relation of the entity the background led to: that
            # entity is a bridge, unless its own article calls it what the question asks
            # ("Hebron Academy ... is a school").
            short = {fold_accents(k).lower(): v for k, v in described.items()}  # keyed like `bridges`
            led_to = {b for b in bridges if not described_as(b, sq.finds, short)}
        # A sentence of the answer hop that does not say the relation ranks below the background's that do.
        found = [f if says else replace(f, score=f.score - 2 * EARLIER_HOP) for f, says in zip(found, stating)]
    shown = {f.text for f in found}
    more: list[Found] = []
    for dep in _earlier_hops(plan, sid):
        # In a chain, an earlier sentence answers only about the bridge: from its own article or naming it first.
        sentences = [(c, card) for c, card in evidence.sentences(dep)
                     if states_kind(kind, plan.question, relation, card.quote)
                     and (background or names_title(fold_accents(card.title), bridges)
                          or any(fold_accents(card.quote).lower().startswith(b) for b in bridges))]
        subjects = [*plan.entities, *led_to] if background else _subject_names(plan, sid, resolved)
        for f in best_span(kind, sentences, relation, subjects, plan.question, evidence.titles(), sq.finds,
                           described, parent):
            if f.text not in shown:
                shown.add(f.text)
                more.append(replace(f, score=f.score - EARLIER_HOP))
    return sorted([*found, *more], key=lambda f: -f.score)


def _as_asked(question: str, text: str) -> str:
    """"What country was the author of Brand a citizen of?" is answered "Norway" where the
    sentence says "Norwegian"; "In what year ...?" by the year of "17 July 1949"; other
    answers stand as the sentence words them, less a word of office before a name
    ("Emperor Minh Mạng" -> "Minh Mạng")."""
    first, _, rest = text.partition(" ")
    if first.lower() in cues().address_words and len(rest.split()) >= 2 and rest[:1].isupper():
        return rest
    if has_phrase(question, cues().year_cues):
        years = [d.value[0] for d in date_mentions(text)]
        if len(years) == 1:
            return str(int(years[0])) if years[0] > 0 else f"{int(-years[0])} BC"
    if has_phrase(question, cues().country_cues) and is_country_word(text):
        named = countries_named(text)
        if len(named) == 1:
            return next(iter(named))
    return text


def _attribute_terms(plan: Plan, options: list[str]) -> set[str]:
    """What is asked of the options: the question's content words less the options' own."""
    option_terms = {t for o in options for t in content_terms(o)}
    return {t for t in content_terms(plan.question) if t not in option_terms} - {
        t for w in cues().shared_value_cues for t in content_terms(w)}


def _states(sentences: list[tuple[ReportClaim, EvidenceCard]], terms: set[str],
            countries: set[str] = frozenset()) -> list[ReportClaim]:
    """The claims whose sentence has every term and, when `countries` is given, names one of them."""
    if countries:
        return [c for c, card in sentences
                if terms <= set(content_terms(card.quote)) and countries_named(card.quote) & countries]
    return [c for c, card in sentences if terms and terms <= set(content_terms(card.quote))]


def _country_words(question: str, country: str) -> list[str]:
    """The words of the question that name `country` ("American" for the United States)."""
    return [w for w in re.findall(r"[A-Z][\w.]*", question) if countries_named(w) == {country}]


def _yes_no_single(plan: Plan, sid: str, sentences, statuses, confidence) -> Answer:
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
        if asks_lifespan(plan.question):
            return lifespans(kind, options, evidence, highest, statuses, confidence)
        values = []
        for name, sid in options:
            found = best_span(value_kind, evidence.sentences(sid), hop_relation(plan, sid), [name],
                              option_question(plan.question, name))
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
    asked = countries_named(without_options(plan.question, [n for n, _ in options]))
    if asked:
        # "both American directors": the country is stated as any of its words ("U.S.").
        terms -= {t for c in asked for w in _country_words(plan.question, c) for t in content_terms(w)}
    stated = {name: _states(evidence.sentences(sid), terms, asked) for name, sid in options}
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
    if asks_same_country(plan.question):
        return _same_country(kind, options, evidence, all_claims, statuses, confidence)
    if words & {"same"} or not terms:
        shared = _shared_values(options, evidence)
        text = "yes" if shared else "no"
        why = f"both state {', '.join(sorted(shared))}" if shared else "their cited sentences share no value"
        return _answered(kind, text, all_claims, why, confidence)
    every = all(stated.values())
    why = f"{'every' if every else 'not every'} option's cited sentences state {' '.join(sorted(terms))}"
    return _answered(kind, "yes" if every else "no", all_claims, why, confidence)


def lifespans(kind: AnswerKind, options: list[tuple[str, str]], evidence: ReportEvidence, longest: bool,
              statuses: dict[str, str], confidence: ConfidenceOf) -> Answer:
    """"Who lived longer, A or B?": each option's years from the first cited sentence that dates
    both its birth and its death (`mentions.life_span`), the longer (or shorter) life wins."""
    spans = []
    for name, sid in options:
        dated = [(life_span(card.quote), claim) for claim, card in evidence.sentences(sid)]
        dated = [(years, claim) for years, claim in dated if years is not None]
        if not dated:
            return _missing(kind, [sid], statuses, f"no sentence dates both the birth and the death of {name}")
        spans.append((dated[0][0], name, dated[0][1]))
    ordered = sorted(spans, key=lambda v: v[0], reverse=longest)
    if round(ordered[0][0], 2) == round(ordered[1][0], 2):
        return Answer(status="conflict", kind=kind, candidates=[n for _, n, _ in ordered],
                      reason=f"the options lived the same time ({ordered[0][0]:.1f} years)")
    shown = ", ".join(f"{n}: {years:.1f} years" for years, n, _ in spans)
    return _answered(kind, ordered[0][1], [c for _, _, c in spans], f"compared lifespans ({shown})", confidence)


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


def _same_country(kind: AnswerKind, options: list[tuple[str, str]], evidence: ReportEvidence,
                  claims: list[ReportClaim], statuses: dict[str, str], confidence: ConfidenceOf) -> Answer:
    """"Are A and B from the same country?": each option's countries, as its cited sentences
    name them ("American", "U.S.", "in Hamar, Norway": `citeloop.runtime.countries`), compared. An
    option whose sentences name no country leaves the answer open: saying "no" would claim a
    difference nothing shows."""
    named = {name: set().union(*(countries_named(card.quote) for _, card in evidence.sentences(sid)))
             for name, sid in options}
    missing = [sid for name, sid in options if not named[name]]
    if missing:
        units = set.intersection(*(_administrative_units(evidence.sentences(sid)) for _, sid in options))
        if units:
            return _answered(kind, "yes", claims, f"both in {sorted(units)[0]}, one country's own unit", confidence)
        return _missing(kind, missing, statuses, "no country is named for an option")
    shared = set.intersection(*named.values())
    shown = "; ".join(f"{n}: {', '.join(sorted(c))}" for n, c in named.items())
    return _answered(kind, "yes" if shared else "no", claims, f"compared countries ({shown})", confidence)


def _in_common(options: list[tuple[str, str]], evidence: ReportEvidence, statuses: dict[str, str],
               confidence: ConfidenceOf) -> Answer:
    """"What do A and B have in common?": the country every option's cited sentences give it
    (`nationalities_stated`), in the word the first option's sentence writes ("an American
    writer" and "an American poet" -> "American"); cites one sentence of each option."""
    missing = [sid for _, sid in options if not evidence.sentences(sid)]
    if missing:
        return _missing("entity", missing, statuses, "an option has no kept claim")
    stated = [[(c, nationalities_stated(card.quote)) for c, card in evidence.sentences(sid)] for _, sid in options]
    shared = set.intersection(*({country for _, found in option for country, _ in found} for option in stated))
    if not shared:
        return _missing("entity", [sid for _, sid in options], statuses, "no nationality stated for every option")
    cited = [next((c, found) for c, found in option if {country for country, _ in found} & shared) for option in stated]
    country, word = next((country, word) for country, word in cited[0][1] if country in shared)
    return _answered("entity", word, [c for c, _ in cited], f"the nationality every option is given ({country})",
                     confidence)


def _administrative_units(sentences: list[tuple[ReportClaim, EvidenceCard]]) -> set[str]:
    """The units of a country's administration the sentences name ("Cusco Region"), folded."""
    units = cues().administrative_units
    return {fold_accents(span).lower() for _, card in sentences for span in entity_spans(card.quote)
            if len(span.split()) > 1 and span.split()[-1].lower() in units}


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
