"""A report as a list of sentences, each with its citations and its assertion kind.

Scorers judge sentences, not report objects. `report_sentences` renders the report to
Markdown (`citeloop.runtime.report.render_markdown`) and walks its lines, so headings, gap notes,
premise results and assumptions are present and classified like any other line. Claim
and disagreement lines are taken from the report object itself: each claim is one
sentence with its card ids as citations, exactly as the runtime bound them. The evidence
appendix is the bibliography and yields no sentences.

`markdown_sentences` does the same for Markdown alone (e.g. a report a model wrote),
reading `[n]` / `[n, m]` markers as citations; a marker run after a sentence's full stop
belongs to that sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict, Field

from citeloop.filters.assertions import SectionKind, SentenceKind, classify_sentence, section_kind, strip_markdown
from citeloop.runtime.report import citation_numbers, render_markdown
from citeloop.runtime.sentences import split_sentences
from citeloop.trajectories.models import Report, Verdict

MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
# The rendering's note after a claim's markers: " — entail, weak evidence, 1 independent source(s)".
_ANNOTATION = re.compile(r"\s+—\s+(?:entail|partial|conflict|irrelevant|undecidable),\s.*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_LEADING_MARKERS = re.compile(r"^\s*(?:\[\d+(?:\s*,\s*\d+)*\]\s*)+")


class ReportSentence(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int
    """Position among the report's sentences."""
    text: str
    """The sentence without citation markers or Markdown."""
    citations: list[str] = Field(default_factory=list)
    """Cited card ids in order; a marker that maps to no card is kept as `[n]` (invalid)."""
    section: SectionKind
    """Kind of section the sentence sits in."""
    kind: SentenceKind
    """What the sentence does (see `filters.assertions`); only `assertion` needs evidence."""
    source: str = "line"
    """`claim` or `disagreement` when taken from the report object, `line` otherwise."""
    claim_id: str | None = None
    verdict: Verdict | None = None
    """The verdict the run recorded for this claim, if it is one."""
    counter_citations: list[str] = Field(default_factory=list)
    """For a disagreement: the cards that contradict it (shown, not cited as support)."""

    @property
    def needs_evidence(self) -> bool:
        return self.kind == "assertion"


def _markers(text: str, by_number: dict[int, str]) -> list[str]:
    ids = []
    for group in MARKER.findall(text):
        for raw in group.split(","):
            n = int(raw.strip())
            ids.append(by_number.get(n, f"[{n}]"))
    return ids


def _line_sentences(line: str, by_number: dict[int, str]) -> list[tuple[str, list[str]]]:
    """(text, citations) for each sentence of one Markdown line."""
    body = _ANNOTATION.sub("", strip_markdown(line))
    out: list[tuple[str, list[str]]] = []
    for piece in split_sentences(body) or [body]:
        lead = _LEADING_MARKERS.match(piece)
        if lead and out:
            # "King. [1][2] It was..." splits after the full stop: the run of markers that
            # opens the next piece belongs to the sentence before it.
            prev_text, prev_cites = out[-1]
            out[-1] = (prev_text, prev_cites + _markers(lead.group(0), by_number))
            piece = piece[lead.end():]
        cites = _markers(piece, by_number)
        text = " ".join(MARKER.sub("", piece).split())
        text = re.sub(r"\s+([.,;:!?])", r"\1", text)
        if not any(ch.isalnum() for ch in text):
            if out:
                prev_text, prev_cites = out[-1]
                out[-1] = (prev_text, prev_cites + cites)
            continue
        out.append((text, cites))
    return out


def _walk(markdown: str) -> Iterator[tuple[str, str | None, int]]:
    """(line, heading text or None, heading level) for each non-blank line."""
    for line in markdown.splitlines():
        if not line.strip():
            continue
        match = _HEADING.match(line.strip())
        if match:
            yield line, match.group(2).strip(), len(match.group(1))
        else:
            yield line, None, 0


def markdown_sentences(markdown: str, numbers: dict[int, str] | None = None) -> list[ReportSentence]:
    """Sentences of a Markdown report; `numbers` maps marker numbers to card ids."""
    by_number = numbers or {}
    out: list[ReportSentence] = []
    section: SectionKind = "body"
    for line, heading, level in _walk(markdown):
        if heading is not None:
            section = section_kind(heading, level)
            out.append(ReportSentence(index=len(out), text=heading, section=section, kind="heading"))
            continue
        if section == "references":
            continue
        for text, cites in _line_sentences(line, by_number):
            out.append(ReportSentence(index=len(out), text=text, citations=cites, section=section,
                                      kind=classify_sentence(text, section)))
    return out


def _renderable(report: Report) -> Report:
    """The report with citations of cards missing from its appendix left out, so it can be
    rendered; the claims' own citations (invalid ones included) are read from the object."""
    known = {card.card_id for card in report.evidence}
    sections = [s.model_copy(update={"claims": [c.model_copy(update={"citations": [i for i in c.citations if i in known]})
                                                for c in s.claims]}) for s in report.sections]
    disagreements = [d.model_copy(update={"card_ids": [i for i in d.card_ids if i in known],
                                          "counter_card_ids": [i for i in d.counter_card_ids if i in known]})
                     for d in report.disagreements]
    return report.model_copy(update={"sections": sections, "disagreements": disagreements})


def report_sentences(report: Report) -> list[ReportSentence]:
    """The report's sentences: its Markdown rendering's lines, with claims taken structurally."""
    numbers = citation_numbers(report)
    by_number = {n: card_id for card_id, n in numbers.items()}
    claims = [c for section in report.sections for c in section.claims]
    disagreements = list(report.disagreements)
    out: list[ReportSentence] = []
    section: SectionKind = "body"
    level2 = 0
    for line, heading, level in _walk(render_markdown(_renderable(report))):
        if heading is not None:
            if level == 2:
                level2 += 1
            # The first len(sections) second-level headings are the claim sections, in order.
            section = "claims" if level == 2 and level2 <= len(report.sections) else section_kind(heading, level)
            out.append(ReportSentence(index=len(out), text=heading, section=section, kind="heading"))
            continue
        bullet = line.lstrip().startswith("- ")
        if section == "claims" and bullet and claims:
            c = claims.pop(0)
            out.append(ReportSentence(index=len(out), text=c.text, citations=list(c.citations), section=section,
                                      kind=classify_sentence(c.text, section), source="claim",
                                      claim_id=c.claim_id, verdict=c.verdict))
            continue
        if section == "disagreements" and bullet and disagreements:
            d = disagreements.pop(0)
            # The line states the claim with its own evidence and shows what contradicts it;
            # its support is its own evidence, the counter cards are not cited as support.
            out.append(ReportSentence(index=len(out), text=d.text, citations=list(d.card_ids), section=section,
                                      kind=classify_sentence(d.text, "body"), source="disagreement",
                                      claim_id=d.claim_id, verdict="conflict",
                                      counter_citations=list(d.counter_card_ids)))
            continue
        if section == "references":
            continue
        for text, cites in _line_sentences(line, by_number):
            out.append(ReportSentence(index=len(out), text=text, citations=cites, section=section,
                                      kind=classify_sentence(text, section)))
    return out
