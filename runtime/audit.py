"""The output audit (seed 001 section 14.3, third line of defence): before a report is
final, every citation in it is checked against the source text it claims to quote.

Pure string comparison, no model: the card must be in the ledger, its document must have
been read in this run, the card's quote must appear in that document's text (after
invisible-character stripping and whitespace folding), and the card's URL and publisher
must be the document's. A citation that fails is removed (`citation_removed`); a claim left
with no citation leaves the report and is listed as dropped. A claim whose text carries a web
address loses all its citations, whatever its quotes: a report's links come from its
citations only, so a link in a claim is text an injection planted (the last line behind the
ingest filter, whatever the injection's wording). Every citation checked counts
in `run_meta.checks["audit"]`, so its firing rate is known.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.injection import strip_invisible, web_address
from runtime.ledger import Ledger
from runtime.recorder import Recorder
from trajectories.events import CitationRemoved
from trajectories.models import (
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


def audit_report(report: Report, ledger: Ledger, source_of: SourceLookup, rec: Recorder) -> Report:
    """The report with every citation its source does not bear out removed (and recorded)."""
    verdicts: dict[str, str | None] = {}

    def bad(card_id: str) -> str | None:
        if card_id not in verdicts:
            card = ledger.cards.get(card_id)
            verdicts[card_id] = citation_problem(card, source_of(card.doc_id) if card else None)
            rec.check("audit", verdicts[card_id] is not None)
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
    if not linked and not any(v is not None for v in verdicts.values()):
        return report
    cited = {c for s in sections for claim in s.claims for c in claim.citations} | \
            {c for d in disagreements for c in [*d.card_ids, *d.counter_card_ids]}
    return report.model_copy(update={
        "sections": sections,
        "disagreements": disagreements,
        "dropped": [*report.dropped, *removed_claims],
        "evidence": [card for card in report.evidence if card.card_id in cited],
    })
