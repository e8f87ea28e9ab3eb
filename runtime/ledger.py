"""The evidence ledger: documents become graded, deduplicated, source-clustered evidence cards.

Seed 001 sections 5 and 6. Three layers of dedup: canonical URL, near-duplicate content
(MinHash over word shingles, datasketch), and exact quote repeats. Documents that share a
canonical URL or are near-duplicates form one same-source cluster; independent-source
counts are numbers of distinct clusters, computed here and never taken from a model.
The four grading dimensions stay separate. Conflicts are marked when a card enters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlparse, urlunparse

from datasketch import MinHash

from citeloop.runtime.config import LedgerSettings
from citeloop.runtime.memo import memo
from citeloop.runtime.text import tokenize
from citeloop.runtime.verifier import EvidenceText, Verifier, conflict_reason
from citeloop.trajectories.header import content_digest
from citeloop.trajectories.models import EvidenceCard, EvidenceType, Grade, ReadResponse

TRACKING_PARAMS = frozenset(
    {"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "gclid", "fbclid", "spm", "ref", "from",
     "sessionid", "sid", "phpsessid"}
)
EVIDENCE_TYPES: frozenset[str] = frozenset(EvidenceType.__args__)  # type: ignore[attr-defined]
PRIMACY: dict[str, str] = {
    "primary_document": "primary",
    "primary_experiment": "primary",
    "firsthand_account": "primary",
    "independent_measurement": "independent",
    "news_report": "secondary",
    "reference_work": "secondary",
    "secondary_summary": "secondary",
    "community_discussion": "secondary",
}
AUTHORITY: dict[str, str] = {
    "primary_document": "high",
    "primary_experiment": "high",
    "independent_measurement": "high",
    "firsthand_account": "medium",
    "news_report": "medium",
    "reference_work": "medium",
    "secondary_summary": "low",
    "community_discussion": "low",
}


@memo("ledger.canonical_url", maxsize=1 << 16)
def canonical_url(url: str) -> str:
    """Seed 5.2 layer one: drop tracking and session parameters, case, www, trailing slash, scheme.
    (Kept per address: every run that reads a page registers its address again.)"""
    parts = urlparse(url.strip())
    query = sorted((k, v) for k, v in parse_qsl(parts.query) if k.lower() not in TRACKING_PARAMS)
    host = parts.netloc.lower().removeprefix("www.").removeprefix("m.")
    path = re.sub(r"/+$", "", parts.path) or "/"
    # http and https copies of a page are the same source
    return urlunparse(("https", host, path, "", urlencode(query), ""))


@memo("ledger.text_signature", maxsize=1 << 14)
def text_signature(key: tuple[str, int, int]) -> MinHash:
    """The MinHash of (text, words per shingle, permutations). Shared by every ledger that
    reads the text, so it is never updated after it is made: ledgers only compare signatures."""
    text, k, num_perm = key
    words = tokenize(text)
    shingles = {" ".join(words[i : i + k]) for i in range(max(1, len(words) - k + 1))}
    # A fixed seed keeps signatures, and so clusters, identical across runs.
    signature = MinHash(num_perm=num_perm, seed=1)
    # One batch: the same arithmetic as a call of `update` per shingle, and a minimum is a minimum.
    signature.update_batch([shingle.encode("utf-8") for shingle in sorted(shingles)])
    return signature


@dataclass
class DocumentInfo:
    doc_id: str
    canonical: str
    cluster_id: str
    minhash: MinHash


@dataclass
class Ledger:
    settings: LedgerSettings
    verifier: Verifier
    cutoff: str | None = None
    documents: dict[str, DocumentInfo] = field(default_factory=dict)
    cards: dict[str, EvidenceCard] = field(default_factory=dict)
    _quotes: dict[tuple[str, str], str] = field(default_factory=dict)
    _texts: dict[str, EvidenceText] = field(default_factory=dict)

    # ------------------------------------------------------------------ documents

    def register(self, doc: ReadResponse) -> DocumentInfo:
        """Place a read document in a same-source cluster (URL first, then near-duplicate text)."""
        if doc.doc_id in self.documents:
            return self.documents[doc.doc_id]
        canonical = canonical_url(doc.url) if doc.url else f"doc:{doc.doc_id}"
        signature = self._minhash(" ".join(s.text for s in doc.sentences))
        cluster = None
        for other in self.documents.values():
            if other.canonical == canonical:
                cluster = other.cluster_id
                break
            if other.minhash.jaccard(signature) >= self.settings.near_duplicate_jaccard:
                cluster = other.cluster_id
                break
        if cluster is None:
            cluster = "cl-" + content_digest(canonical)[:10]
        info = DocumentInfo(doc.doc_id, canonical, cluster, signature)
        self.documents[doc.doc_id] = info
        return info

    def mirrors_of(self, doc_id: str) -> list[str]:
        cluster = self.documents[doc_id].cluster_id
        return sorted(d for d, info in self.documents.items() if info.cluster_id == cluster and d != doc_id)

    def _minhash(self, text: str) -> MinHash:
        return text_signature((text, self.settings.shingle_words, self.settings.minhash_permutations))

    # ------------------------------------------------------------------ cards

    def duplicate_of(self, subq: str, quote: str) -> str | None:
        """Card id already holding this exact quote for this sub-question (a mirror's copy)."""
        return self._quotes.get((subq, " ".join(tokenize(quote))))

    def make_card(
        self, subq: str, doc: ReadResponse, indices: list[int], relevance: float, context_sentences: int
    ) -> EvidenceCard:
        info = self.register(doc)
        sentences = doc.sentences
        quote = " ".join(sentences[i].text for i in indices)
        lo = max(0, min(indices) - context_sentences)
        hi = min(len(sentences), max(indices) + context_sentences + 1)
        evidence_type = doc.source_type if doc.source_type in EVIDENCE_TYPES else "unknown"
        sids = [sentences[i].sid for i in indices]
        return EvidenceCard(
            card_id="card-" + content_digest({"subq": subq, "sids": sids})[:12],
            subq=subq,
            doc_id=doc.doc_id,
            sentence_ids=sids,
            quote=quote,
            context=" ".join(s.text for s in sentences[lo:hi]),
            title=doc.title,
            url=doc.url or info.canonical,
            publisher=doc.publisher or "unknown",
            published=doc.published,
            evidence_type=evidence_type,  # type: ignore[arg-type]
            grade=Grade(
                authority=AUTHORITY.get(evidence_type, "unknown"),  # type: ignore[arg-type]
                freshness=self._freshness(doc.published),
                primacy=PRIMACY.get(evidence_type, "unknown"),  # type: ignore[arg-type]
                relevance=round(relevance, 4),
            ),
            cluster_id=info.cluster_id,
            mirrors=self.mirrors_of(doc.doc_id),
        )

    def _freshness(self, published: str | None) -> str:
        if not published:
            return "undated"
        if self.cutoff and published[:4].isdigit() and self.cutoff[:4].isdigit():
            # Within two years of the corpus cut-off counts as current for fast-moving claims.
            return "current" if int(self.cutoff[:4]) - int(published[:4]) <= 2 else "historical"
        return "historical"

    def add(self, card: EvidenceCard) -> tuple[EvidenceCard, list[tuple[str, str]]]:
        """Enter a card; returns it as stored and (card id, reason) for each card it conflicts with."""
        conflicts = []
        for other in self.cards.values():
            if other.subq != card.subq or other.cluster_id == card.cluster_id:
                continue
            reason = conflict_reason(self.verifier, card.card_id, card.quote, self.evidence_text(other.card_id),
                                     card.title)
            if reason is not None:
                conflicts.append((other.card_id, reason))
        if conflicts:
            card = card.model_copy(update={"conflicts_with": [c for c, _ in conflicts]})
            for other_id, _ in conflicts:
                other = self.cards[other_id]
                self.cards[other_id] = other.model_copy(
                    update={"conflicts_with": [*other.conflicts_with, card.card_id]}
                )
        self.cards[card.card_id] = card
        self._quotes[(card.subq, " ".join(tokenize(card.quote)))] = card.card_id
        return card, conflicts

    def evidence_text(self, card_id: str) -> EvidenceText:
        """The card's quote as the verifier reads it, made once per card (a claim is checked
        against every other card, and a card's quote never changes)."""
        text = self._texts.get(card_id)
        if text is None:
            text = self._texts[card_id] = EvidenceText.from_card(self.cards[card_id])
        return text

    def cards_for(self, subq: str) -> list[EvidenceCard]:
        return [c for c in self.cards.values() if c.subq == subq]

    def cards_for_doc(self, subq: str, doc_id: str) -> list[EvidenceCard]:
        return [c for c in self.cards.values() if c.subq == subq and c.doc_id == doc_id]

    def independent_sources(self, card_ids: list[str]) -> int:
        return len({self.cards[c].cluster_id for c in card_ids if c in self.cards})

    def confidence(self, card_ids: list[str]) -> str:
        """Seed 6.4: strong needs several independent sources including a primary one."""
        sources = self.independent_sources(card_ids)
        primary = any(self.cards[c].grade.primacy == "primary" for c in card_ids if c in self.cards)
        if sources >= 2 and primary:
            return "strong"
        if sources >= 2 or primary:
            return "moderate"
        return "weak"
