"""The evidence a report's short answer is read from: the claims that survived the audit, by
sub-question, with the cards they cite and the titles of every page the run read
(`citeloop.runtime.answer` reads answers from it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from citeloop.runtime.entity_titles import names_title
from citeloop.runtime.text import fold_accents
from citeloop.trajectories.models import EvidenceCard, Report, ReportClaim


@dataclass(frozen=True)
class ReportEvidence:
    """The surviving claims of a report by sub-question, with the cards they cite."""

    claims: dict[str, list[ReportClaim]]
    cards: dict[str, EvidenceCard]
    read_titles: frozenset[str] = frozenset()
    """Titles of every page the run read, cited or not."""

    @classmethod
    def of(cls, report: Report, claim_subq: dict[str, str], read_titles: Iterable[str] = ()) -> ReportEvidence:
        claims: dict[str, list[ReportClaim]] = {}
        for section in report.sections:
            for claim in section.claims:
                if claim.verdict in ("entail", "partial") and claim.claim_id in claim_subq:
                    claims.setdefault(claim_subq[claim.claim_id], []).append(claim)
        return cls(claims, {c.card_id: c for c in report.evidence}, frozenset(read_titles))

    def titles(self) -> set[str]:
        """Short titles of the pages read (a name a cited sentence gives in part grows to one:
        "the DeCavalcante crime family of Newark" names the page "DeCavalcante crime family",
        read in the run though the report cites another)."""
        return {title.split(" (")[0] for title in [*self.read_titles, *(c.title for c in self.cards.values())]}

    def described(self) -> dict[str, list[str]]:
        """Short page title -> the quotes of its cards (what its own article says it is)."""
        out: dict[str, list[str]] = {}
        for card in self.cards.values():
            out.setdefault(card.title.split(" (")[0], []).append(card.quote)
        return out

    def about_options(self, options: list[tuple[str, str]]) -> ReportEvidence:
        """Each compared option's claims less those only citing another option's own article
        that do not name this option: "Nick Hexum ... is an American singer", read while looking
        for Mark King, says nothing of Mark King."""
        def short(name: str) -> str:
            return fold_accents(name.split(" (")[0]).lower()

        claims = dict(self.claims)
        for name, sid in options:
            others = {short(other) for other, _ in options if other != name}
            own = short(name)

            def about(claim: ReportClaim) -> bool:
                cards = [self.cards[c] for c in claim.citations if c in self.cards]
                return not cards or any(not names_title(fold_accents(card.title), others)
                                        or own in fold_accents(card.quote).lower() for card in cards)
            claims[sid] = [c for c in self.claims.get(sid, []) if about(c)]
        return ReportEvidence(claims, self.cards, self.read_titles)

    def sentences(self, sid: str) -> list[tuple[ReportClaim, EvidenceCard]]:
        return [(c, self.cards[cid]) for c in self.claims.get(sid, []) for cid in c.citations if cid in self.cards]
