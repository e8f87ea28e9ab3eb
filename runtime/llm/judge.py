"""The verdict judge's model step (seed 002): one extraction call, the verdict decided in code.

Only when the deterministic pre-stage (`runtime.verifier`) cannot tell (`undecidable`) does
the judge pay for one call, which asks the model to copy, verbatim, the evidence sentences
that bear on the claim. It never asks for a verdict. A copied line counts only if it
appears verbatim (up to whitespace) in one evidence sentence; the rest are recorded as
rejected, so a model that invents or paraphrases a sentence cannot overturn anything. The
verdict then follows from the counted sentences by the same kinds of rules the lexical
verifier uses (term support, negation, numbers). The pre-stage fires only in its gray zone
(support between `irrelevant_below` and `partial_support`), where the quoted sentences alone
can never reach the lexical thresholds; there, verbatim quotes that hold every number of the
claim make it `partial`, which the claim loop weakens once and re-checks.

Whenever the step cannot be trusted (a failed call, an unparsable reply, nothing counted,
counted sentences that settle nothing) the deterministic verdict stands and the record
says why: a check that cannot judge lets the claim through as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from citeloop.runtime.injection import strip_invisible
from citeloop.runtime.llm.client import ChatClient, ModelReply
from citeloop.runtime.llm.prompts import DataItem, PromptLibrary, RenderedPrompt
from citeloop.runtime.llm.record import record_reply
from citeloop.runtime.numbers import numbers_match
from citeloop.runtime.recorder import Recorder
from citeloop.runtime.text import content_terms, term_overlap
from citeloop.runtime.verifier import VerifierConfig, is_negated
from citeloop.trajectories.models import VerdictRecord

EXTRACT_PROMPT = "verdict_extract"
NONE_ANSWER = "none"
MIN_QUOTE_CHARS = 20
"""A copied fragment shorter than this counts only when it is a whole evidence sentence:
short strings ("the film") occur verbatim almost anywhere."""
_LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+")
_WRAPPING_QUOTES = "\"'\u201c\u201d\u2018\u2019`"


class EvidenceSentence(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    sid: str
    """Sentence id (`{doc_id}#s{index}`) or card id: what a counted quote points at."""
    text: str
    date: str | None = None


class Extraction(BaseModel):
    """What the extraction call gave, after the verbatim check."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    outcome: Literal["quoted", "none", "fallback"]
    """`quoted`: at least one line counted; `none`: the model said no sentence bears on the
    claim (the pre-stage verdict stands); `fallback`: nothing usable came back (see `reason`)."""
    counted: list[str] = Field(default_factory=list)
    """Ids of evidence sentences quoted verbatim, in evidence order."""
    rejected: list[str] = Field(default_factory=list)
    """Copied lines that appear nowhere in the evidence verbatim."""
    reason: str = ""
    reply_status: str = "ok"


class JudgeResult(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    record: VerdictRecord
    """The verdict that stands: from the counted quotes, or the deterministic one."""
    extraction: Extraction | None = None
    """None when the pre-stage decided and no call was made."""
    fallback: bool = False
    """The model step ran but the deterministic verdict stands."""
    model_call_seq: int | None = None
    """Seq of the recorded `model_call` event, when a recorder was given."""


def _squash(text: str) -> str:
    return " ".join(strip_invisible(text).split())


def _clean_line(line: str) -> str:
    line = _LIST_MARKER.sub("", line.strip())
    return _squash(line.strip(_WRAPPING_QUOTES + " "))


def count_quotes(reply_text: str, evidence: Sequence[EvidenceSentence]) -> tuple[list[str], list[str]]:
    """(ids of evidence sentences quoted verbatim, lines that matched none): decided in code."""
    squashed = [(ev.sid, _squash(ev.text)) for ev in evidence]
    counted: set[str] = set()
    rejected: list[str] = []
    for raw in reply_text.splitlines():
        line = _clean_line(raw)
        if not line:
            continue
        hits = [sid for sid, text in squashed
                if line == text or (len(line) >= MIN_QUOTE_CHARS and line in text)]
        if hits:
            counted.update(hits)
        else:
            rejected.append(raw.strip())
    return [ev.sid for ev in evidence if ev.sid in counted], rejected


def render_extraction(claim: str, evidence: Sequence[EvidenceSentence],
                      library: PromptLibrary | None = None) -> RenderedPrompt:
    spec = (library or PromptLibrary()).get(EXTRACT_PROMPT)
    items = [DataItem(text=ev.text, source=ev.sid, date=ev.date) for ev in evidence]
    return spec.render(claim=claim, evidence=items)


def read_extraction(reply: ModelReply, evidence: Sequence[EvidenceSentence]) -> Extraction:
    if not reply.ok:
        return Extraction(outcome="fallback", reply_status=reply.status,
                          reason=f"model call failed ({reply.status}: {reply.error or 'no detail'})")
    if _clean_line(reply.text).casefold().rstrip(".") == NONE_ANSWER:
        return Extraction(outcome="none", reason="the model copied no sentence")
    counted, rejected = count_quotes(reply.text, evidence)
    if not counted:
        return Extraction(outcome="fallback", rejected=rejected,
                          reason=f"none of the {len(rejected)} copied line(s) appears verbatim in the evidence")
    return Extraction(outcome="quoted", counted=counted, rejected=rejected,
                      reason=f"{len(counted)} sentence(s) quoted verbatim, {len(rejected)} line(s) rejected")


def decide_from_quotes(claim_id: str, claim: str, quoted: Sequence[EvidenceSentence],
                       config: VerifierConfig) -> VerdictRecord | None:
    """The verdict the counted sentences support, or None when they settle nothing."""
    terms = content_terms(claim)
    if not quoted or not terms:
        return None
    claim_negated = is_negated(claim)
    for ev in quoted:
        overlap = term_overlap(terms, content_terms(ev.text))
        if overlap >= config.partial_support and is_negated(ev.text) != claim_negated:
            return VerdictRecord(claim_id=claim_id, verdict="conflict", checker="extraction_negation",
                                 reason=f"quoted sentence {ev.sid} states the opposite polarity",
                                 support=round(overlap, 4))
    joined = " ".join(ev.text for ev in quoted)
    union: set[str] = set()
    for ev in quoted:
        union.update(content_terms(ev.text))
    support = term_overlap(terms, union)
    missing_terms = [t for t in terms if t not in union]
    missing_numbers = numbers_match(claim, joined)
    ids = ", ".join(ev.sid for ev in quoted)
    if support >= config.entail_support and not missing_numbers:
        return VerdictRecord(claim_id=claim_id, verdict="entail", checker="extraction",
                             reason=f"quoted sentences {ids} carry the claim's terms and numbers",
                             support=round(support, 4), missing_terms=missing_terms)
    if support >= config.partial_support:
        return VerdictRecord(claim_id=claim_id, verdict="partial", checker="extraction",
                             reason=f"quoted sentences {ids} carry part of the claim",
                             support=round(support, 4), missing_terms=missing_terms,
                             missing_numbers=missing_numbers)
    if support >= config.irrelevant_below and not missing_numbers:
        # The gray zone the pre-stage could not call: the model picked these sentences as
        # bearing on the claim, code found them verbatim with every number of the claim.
        # That settles "partial": the claim is weakened once and checked again (seed 7.3),
        # so the model's pick never keeps a claim by itself.
        return VerdictRecord(claim_id=claim_id, verdict="partial", checker="extraction_gray",
                             reason=f"quoted sentences {ids} bear on the claim and hold all its numbers, "
                                    f"but only {support:.0%} of its terms",
                             support=round(support, 4), missing_terms=missing_terms)
    return None


def judge_claim(claim_id: str, claim: str, evidence: Sequence[EvidenceSentence], deterministic: VerdictRecord,
                client: ChatClient, *, config: VerifierConfig | None = None, library: PromptLibrary | None = None,
                recorder: Recorder | None = None, parent: int | None = None,
                subq: str | None = None) -> JudgeResult:
    """Seed 002's three parts: the pre-stage verdict (given), one extraction call only when it
    is `undecidable`, then the verdict decided in code from what was quoted verbatim."""
    if deterministic.verdict != "undecidable" or not evidence:
        return JudgeResult(record=deterministic)
    prompt = render_extraction(claim, evidence, library)
    reply = client.chat(prompt)
    seq = None
    if recorder is not None:
        seq = record_reply(recorder, prompt, reply, client.sampling, parent=parent, subq=subq).seq
    extraction = read_extraction(reply, evidence)
    if extraction.outcome == "none":
        # Nothing was quoted, so code has nothing to decide from: the pre-stage verdict
        # stands. (A model's "none" is a judgement, and judgements do not overturn verdicts.)
        record = deterministic.model_copy(update={"reason": f"{deterministic.reason} (extraction: the model "
                                                            f"copied no sentence)"})
        return JudgeResult(record=record, extraction=extraction, model_call_seq=seq)
    if extraction.outcome == "quoted":
        by_id = {ev.sid: ev for ev in evidence}
        decided = decide_from_quotes(claim_id, claim, [by_id[s] for s in extraction.counted],
                                     config or VerifierConfig())
        if decided is not None:
            return JudgeResult(record=decided, extraction=extraction, model_call_seq=seq)
        extraction = extraction.model_copy(update={"reason": extraction.reason + "; they settle nothing"})
    fallback = deterministic.model_copy(update={"reason": f"{deterministic.reason} (extraction fallback: "
                                                          f"{extraction.reason})"})
    return JudgeResult(record=fallback, extraction=extraction, fallback=True, model_call_seq=seq)
