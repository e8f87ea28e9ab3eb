"""The output audit (seed 001 section 14.3, third line of defence): before a report is
final, every citation in it is checked against the source text it claims to quote.

Pure string comparison, no model: the card must be in the ledger, its document must have
been read in this run, the card's quote must appear in that document's text (after
invisible-character stripping and whitespace folding), and the card's URL and publisher
must be the document's. A citation that fails is removed (`citation_removed`); a claim left
with no citation leaves the report and is listed as dropped. A claim whose text carries a web
address loses all its citations, whatever its quotes: a report's links come from its
citations only, so a link in a claim is text an injection planted (the last line behind the
ingest filter, whatever the injection's wording).

Polluted mirrors (seed 14.4: a page copied with something planted in it). Page B copies
page A when B holds at least 80% of A's sentences (60 characters or more of them). A quote
B has and A lacks is something B added; when A's evidence type ranks above B's (authority:
high, medium, low, unknown) and both were read in this run, that citation is removed,
whatever the sentence says. Copies of equal standing are not judged: neither can be told to
be the original.

The report shows of each card only what was checked: its quote. A card's context (the
sentences around the quote, which no check reads) stays in the trajectory's `card_created`
event; in the report it would carry a planted neighbour sentence past every check.

Every citation checked counts in `run_meta.checks` (`audit`, `audit_link`, `audit_mirror`),
so each check's firing rate is known.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from citeloop.runtime.injection import strip_invisible, web_address
from citeloop.runtime.ledger import AUTHORITY, Ledger
from citeloop.runtime.recorder import Recorder
from citeloop.trajectories.events import CitationRemoved
from citeloop.trajectories.models import (
    Disagreement,
    EvidenceCard,
    ReadResponse,
    Report,
    ReportSection,
)

SourceLookup = Callable[[str], ReadResponse | None]
"""Doc id -> the document as the read tool returned it in this run (None: never read)."""


def _fold(text: str) -> str:
    return " ".join(strip_invisible(text).split())


def citation_problem(card: EvidenceCard | None, source: ReadResponse | None) -> str | None:
    """Why the citation cannot stand, or None when its source bears it out."""
    if card is None:
        return "the cited card is not in the evidence ledger"
    if source is None or source.status != "ok":
        return f"source document {card.doc_id} was not read in this run"
    text = _fold(" ".join(s.text for s in source.sentences))
    if not card.quote.strip() or _fold(card.quote) not in text:
        return f"the quote does not appear in the text of {card.doc_id}"
    if source.url and card.url != source.url:
        return f"card URL {card.url} is not the source's {source.url}"
    if source.publisher and card.publisher != source.publisher:
        return f"card publisher {card.publisher!r} is not the source's {source.publisher!r}"
    return None


_RANK = {"high": 3, "medium": 2, "low": 1, "unknown": 0}


def _rank(source: ReadResponse) -> int:
    return _RANK[AUTHORITY.get(source.source_type or "", "unknown")]


def _sentences(page: ReadResponse) -> set[str]:
    return {_fold(s.text) for s in page.sentences}


def copies(page: ReadResponse, other: ReadResponse) -> bool:
    """Does `page` hold at least 80% of `other`'s sentences, and 60 characters or more of them
    (about ten words: a whole sentence, not a stock phrase)?"""
    theirs = _sentences(other)
    shared = theirs & _sentences(page)
    return bool(theirs) and len(shared) >= 0.8 * len(theirs) and sum(map(len, shared)) >= 60


def original_of(source: ReadResponse, pages: Sequence[ReadResponse]) -> ReadResponse | None:
    """The page read in this run that `source` copies and that is graded above it, if any."""
    for other in pages:
        if other.doc_id != source.doc_id and other.status == "ok" and _rank(other) > _rank(source) \
                and copies(source, other):
            return other
    return None


def mirror_problem(card: EvidenceCard, source: ReadResponse, pages: Sequence[ReadResponse]) -> str | None:
    """Why the quote is what a lower-graded copy added to a page read in this run, or None."""
    original = original_of(source, pages)
    if original is None or _fold(card.quote) in _fold(" ".join(s.text for s in original.sentences)):
        return None
    return (f"the quote is only in {card.doc_id}, a copy of {original.doc_id} graded below it: what a "
            "mirror adds to a page is not evidence")


def quote_only(card: EvidenceCard) -> EvidenceCard:
    """The card as the report shows it: its context (neighbouring sentences nobody checked)
    cut back to the quote the audit checked."""
    return card if card.context == card.quote else card.model_copy(update={"context": card.quote})


def audit_report(report: Report, ledger: Ledger, source_of: SourceLookup, rec: Recorder,
                 pages: Sequence[ReadResponse] = ()) -> Report:
    """The report with every citation its source does not bear out removed (and recorded).
    `pages`: every page read in this run, for the polluted-mirror check."""
    pages = [p for p in pages if p.status == "ok"]
    verdicts: dict[str, str | None] = {}

    def bad(card_id: str) -> str | None:
        if card_id not in verdicts:
            card = ledger.cards.get(card_id)
            source = source_of(card.doc_id) if card else None
            verdicts[card_id] = citation_problem(card, source)
            rec.check("audit", verdicts[card_id] is not None)
            if verdicts[card_id] is None and card is not None and source is not None and pages:
                verdicts[card_id] = mirror_problem(card, source, pages)
                rec.check("audit_mirror", verdicts[card_id] is not None)
        return verdicts[card_id]

    removed_claims: list[str] = []
    linked = False
    sections = []
    for section in report.sections:
        claims = []
        for claim in section.claims:
            link = web_address(claim.text)
            rec.check("audit_link", link is not None)
            linked = linked or link is not None
            keep = [] if link is not None else [c for c in claim.citations if bad(c) is None]
            for card_id in claim.citations:
                if card_id not in keep:
                    reason = (f"the claim carries a web address ({link}): a report's links come from its citations "
                              "only") if link is not None else verdicts[card_id] or ""
                    rec.emit(CitationRemoved, claim_id=claim.claim_id, card_id=card_id, reason=reason,
                             claim_removed=not keep)
            if keep:
                claims.append(claim if keep == claim.citations else claim.model_copy(update={"citations": keep}))
            else:
                removed_claims.append(claim.claim_id)
        sections.append(ReportSection(axis=section.axis, title=section.title, claims=claims))
    disagreements: list[Disagreement] = []
    for d in report.disagreements:
        cards = [c for c in d.card_ids if bad(c) is None]
        counters = [c for c in d.counter_card_ids if bad(c) is None]
        for card_id in [*d.card_ids, *d.counter_card_ids]:
            if card_id not in cards and card_id not in counters:
                rec.emit(CitationRemoved, claim_id=d.claim_id, card_id=card_id, reason=verdicts[card_id] or "",
                         claim_removed=not cards)
        if cards:
            disagreements.append(d.model_copy(update={"card_ids": cards, "counter_card_ids": counters}))
        else:
            removed_claims.append(d.claim_id)
    cited = {c for s in sections for claim in s.claims for c in claim.citations} | \
            {c for d in disagreements for c in [*d.card_ids, *d.counter_card_ids]}
    evidence = [quote_only(card) for card in report.evidence if card.card_id in cited]
    if not linked and not any(v is not None for v in verdicts.values()) and evidence == report.evidence:
        return report
    return report.model_copy(update={
        "sections": sections,
        "disagreements": disagreements,
        "dropped": [*report.dropped, *removed_claims],
        "evidence": evidence,
    })
