"""The report: a structured object built from the plan, the ledger and checked claims.

Sections follow the plan's axes; every claim carries its citations, verdict and a
confidence computed from the ledger. Gaps say what was searched and why it stopped
("dead end" and "not found yet" are different), disagreements are shown rather than
smoothed, and the default assumptions and corpus cut-off are stated. Markdown is one
rendering; JSON is `Report.model_dump_json`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from citeloop.runtime.claims import CheckedClaim
from citeloop.runtime.ledger import Ledger
from citeloop.runtime.planner import SLOT
from citeloop.trajectories.models import Disagreement, Gap, Plan, Report, ReportClaim, ReportSection, SubQuestionStatus


@dataclass
class SubQuestionOutcome:
    """What the loop knows about one sub-question at the end."""

    status: SubQuestionStatus
    queries: list[str] = field(default_factory=list)
    tool_errors: list[str] = field(default_factory=list)
    blocked_on: list[str] = field(default_factory=list)


def _gap_note(status: str, outcome: SubQuestionOutcome) -> str:
    if outcome.tool_errors:
        kinds = ", ".join(sorted(set(outcome.tool_errors)))
        return (f"{len(outcome.tool_errors)} tool call(s) failed ({kinds}); this is an infrastructure failure, "
                "not evidence that the information does not exist")
    if status == "dead_end":
        return (f"searched {len(outcome.queries)} distinct angle(s) and found related material, but none states it: "
                "an information gap in this corpus")
    if status == "blocked":
        return f"never searched: it waits on {', '.join(outcome.blocked_on)}, which found no answer entity"
    if status == "exhausted":
        return "not found yet within this run's budget; more searching might find it"
    return "the run stopped before this was answered; not found yet"


def fill_slots(text: str, resolved: dict[str, str]) -> str:
    """A sub-question's text for a reader: `{sq1}` becomes the entity sq1 resolved to, or
    "the entity sq1 was to find" when it found none."""
    return SLOT.sub(lambda m: resolved.get(m.group(1)) or f"the entity {m.group(1)} was to find", text)


def build_report(
    plan: Plan,
    outcomes: dict[str, SubQuestionOutcome],
    ledger: Ledger,
    claims: list[CheckedClaim],
    dropped: list[str],
    resolved: dict[str, str],
    corpus_cutoff: str | None,
) -> Report:
    numbers: dict[str, int] = {}
    sections = []
    for axis in plan.axes:
        section_claims = []
        for checked in claims:
            sq = next(s for s in plan.sub_questions if s.id == checked.claim.subq)
            if sq.axis != axis.id or checked.verdict == "conflict":
                continue
            for card_id in checked.claim.card_ids:
                numbers.setdefault(card_id, len(numbers) + 1)
            section_claims.append(
                ReportClaim(
                    claim_id=checked.claim.claim_id,
                    text=checked.claim.text,
                    citations=list(checked.claim.card_ids),
                    verdict=checked.verdict,  # type: ignore[arg-type]
                    confidence=ledger.confidence(checked.claim.card_ids),  # type: ignore[arg-type]
                    independent_sources=ledger.independent_sources(checked.claim.card_ids),
                    weakened=checked.weakened,
                )
            )
        sections.append(ReportSection(axis=axis.id, title=axis.title, claims=section_claims))
    disagreements = []
    for checked in claims:
        if checked.verdict == "conflict":
            for card_id in [*checked.claim.card_ids, *checked.counter_card_ids]:
                numbers.setdefault(card_id, len(numbers) + 1)
            disagreements.append(
                Disagreement(claim_id=checked.claim.claim_id, text=checked.claim.text,
                             card_ids=list(checked.claim.card_ids), counter_card_ids=checked.counter_card_ids)
            )
    gaps = [
        Gap(subq=sq.id, question=fill_slots(sq.question, resolved), status=outcomes[sq.id].status,
            queries_tried=outcomes[sq.id].queries, note=_gap_note(outcomes[sq.id].status, outcomes[sq.id]))
        for sq in plan.sub_questions
        if outcomes[sq.id].status != "satisfied"
    ]
    premises = {p.text: outcomes[p.subq].status == "satisfied" for p in plan.premises}
    return Report(
        question=plan.question,
        sections=sections,
        gaps=gaps,
        disagreements=disagreements,
        dropped=dropped,
        assumptions=list(plan.assumptions),
        corpus_cutoff=corpus_cutoff,
        evidence=[ledger.cards[c] for c in numbers],
        resolved_entities=resolved,
        premises=premises,
    )


def citation_numbers(report: Report) -> dict[str, int]:
    return {card.card_id: i for i, card in enumerate(report.evidence, start=1)}


def answer_line(report: Report) -> str:
    """`**Answer:** Luis Mandoki [1]`, or why there is no answer."""
    answer = report.answer
    assert answer is not None
    if answer.status != "answered":
        shown = f" (candidates: {', '.join(answer.candidates)})" if answer.candidates else ""
        return f"**Answer:** {answer.status.replace('_', ' ')}: {answer.reason}{shown}"
    num = citation_numbers(report)
    cited = {cid: claim for section in report.sections for claim in section.claims
             if claim.claim_id in answer.claim_ids for cid in claim.citations}
    marks = "".join(f"[{num[c]}]" for c in sorted(cited, key=lambda c: num.get(c, 0)) if c in num)
    return f"**Answer:** {answer.text} {marks} — {answer.confidence} evidence; {answer.reason}"


def render_markdown(report: Report) -> str:
    num = citation_numbers(report)
    out = [f"# {report.question}", ""]
    if report.answer is not None:
        out += [answer_line(report), ""]
    if report.resolved_entities:
        chain = "; ".join(f"{sq} -> {name}" for sq, name in report.resolved_entities.items())
        out += [f"**Entities found along the way:** {chain}", ""]
    for section in report.sections:
        if not section.claims:
            continue  # what it did not find is listed under gaps and dead ends
        out.append(f"## {fill_slots(section.title, report.resolved_entities)}")
        for c in section.claims:
            marks = "".join(f"[{num[cid]}]" for cid in c.citations)
            flags = " _(weakened)_" if c.weakened else ""
            out.append(f"- {c.text} {marks} — {c.verdict}, {c.confidence} evidence, "
                       f"{c.independent_sources} independent source(s){flags}")
        out.append("")
    if report.disagreements:
        out.append("## Disagreements")
        for d in report.disagreements:
            marks = "".join(f"[{num[c]}]" for c in d.card_ids)
            counter = "".join(f"[{num[c]}]" for c in d.counter_card_ids)
            out.append(f"- {d.text} {marks} is contradicted by {counter or 'its own evidence'}")
        out.append("")
    out.append("## Gaps and dead ends")
    if not report.gaps:
        out.append("_Every sub-question found evidence._")
    for g in report.gaps:
        tried = "; ".join(f"`{q}`" for q in g.queries_tried) or "nothing"
        out.append(f"- **{g.subq}** ({g.status}) {g.question} — {g.note}. Searched: {tried}")
    out.append("")
    if report.premises:
        out.append("## Premises")
        for text, ok in report.premises.items():
            out.append(f"- {text}: {'verified' if ok else 'not verified'}")
        out.append("")
    out.append("## Assumptions")
    out += [f"- {a}" for a in report.assumptions]
    out.append(f"- Corpus cut-off: {report.corpus_cutoff or 'undated corpus (no publication dates)'}")
    out.append("")
    out.append("## Evidence")
    for card in report.evidence:
        g = card.grade
        out.append(f"- [{num[card.card_id]}] \"{card.quote}\" — {card.title}, {card.publisher}"
                   f"{', ' + card.published if card.published else ''} <{card.url}> "
                   f"({card.evidence_type}; authority {g.authority}, {g.freshness}, {g.primacy}, relevance {g.relevance:.2f})")
    if report.dropped:
        out += ["", f"_Dropped by the verifier: {', '.join(report.dropped)}_"]
    return "\n".join(out) + "\n"
