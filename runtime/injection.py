"""Untrusted-text hygiene (seed 14): the page check of the prompt-injection filter run before
evidence is ingested, and the public names of the filter's parts.

This module owns the check itself: which cues must fire together for the rules to flag a
sentence (`detect_injection`), the letter-level rules (look-alike letters of another script,
letters spaced apart, an HTML comment), a page's findings with script islands and the learned
filter behind the rules (`page_findings`, `findings_by_line`, `rule_findings`), and the
sentences that stay in the ledger but are inert (`suspected`). Its parts live beside it:
invisible-character stripping and the folded forms the cues read (`runtime.injection_strip`),
the cue catalogue, data in `runtime/data/injection_cues.yaml` (`runtime.injection_cues`), data
blocks for prompts (`runtime.injection_blocks`) and the learned filter
(`runtime.injection_model`). Their public names are importable from here.

The filter is the cheap first pass of seed 14.3's second line of defence: it catches
low-cost, bulk injections. It is not a proof of safety; data blocks (isolation) and the
citation audit are the other two lines.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from citeloop.runtime.injection_blocks import DATA_BLOCK_CLOSE, DATA_BLOCK_OPEN, as_data_block
from citeloop.runtime.injection_cues import catalogue, found
from citeloop.runtime.injection_model import shipped_model
from citeloop.runtime.injection_strip import cased, normalise, strip_invisible
from citeloop.runtime.memo import memo
from citeloop.runtime.scripts import script_islands

__all__ = [
    "DATA_BLOCK_CLOSE", "DATA_BLOCK_OPEN", "InjectionFinding", "as_data_block", "detect_injection",
    "findings_by_line", "page_findings", "rule_findings", "speaks_of_derived_text", "strip_invisible",
    "suspected", "web_address",
]


class InjectionFinding(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    cues: list[str]
    """The cue phrases found, in rule order."""
    reason: str


# Look-alike letters from other scripts inside a Latin word ("sumаry" with a Cyrillic а).
_OTHER_SCRIPT = re.compile(r"[\u0370-\u03ff\u0400-\u04ff]")
_MIXED_SCRIPT = re.compile(r"\b(?=\w*[a-z])(?=\w*[\u0370-\u03ff\u0400-\u04ff])\w+\b")


def _homoglyph_word(norm: str) -> str | None:
    """A word of mostly Latin letters with some Greek or Cyrillic ones (a Greek word with a
    stray Latin `o`, or IPA, is not one)."""
    if not _OTHER_SCRIPT.search(norm):
        return None
    for m in _MIXED_SCRIPT.finditer(norm):
        word = m.group()
        other = len(_OTHER_SCRIPT.findall(word))
        if sum("a" <= c <= "z" for c in word) > other:
            return word
    return None


# Letters spaced out to dodge word matching ("e v i l . c o m").
_SPACED = re.compile(r"(?<!\S)(?:[a-z0-9.] ){5,}[a-z0-9.](?!\S)")


def web_address(text: str) -> str | None:
    """The first web address in `text` (a URL, a domain with a path, or a `www.` name)."""
    norm = normalise(text)
    cues = catalogue()
    address = cues.url.search(norm) or cues.www.search(norm)
    return address.group() if address else None


def _structural(norm: str, cased_text: str) -> InjectionFinding | None:
    """The word-class rules: an injection tells whoever turns the page into something else (a
    summary, an answer, a citation) what to put in it; these are word classes, not phrases."""
    cues = catalogue()
    if "<!--" in norm:
        return InjectionFinding(cues=["html comment"], reason="an HTML comment: markup a page's readers never see")
    if "/" in norm and cues.url.search(norm):
        return InjectionFinding(cues=["url"], reason="carries a web address: retrieved text never supplies a "
                                                     "report's links")
    mixed = _homoglyph_word(norm)
    if mixed:
        return InjectionFinding(cues=["mixed script"], reason=f"look-alike letters of another script in {mixed!r}")
    spaced = _SPACED.search(norm)
    if spaced:
        return InjectionFinding(cues=["spaced letters"], reason=f"letters spaced out: {spaced.group()!r}")
    downstream, oblige = cues.downstream(norm, cased_text), cues.oblige(norm, cased_text)
    if downstream and oblige:
        return InjectionFinding(cues=[downstream, oblige],
                                reason=f"tells whoever uses the page what to do ({downstream!r}, {oblige!r})")
    you = (cues.second_person(norm, cased_text) or cues.address(norm, cased_text)) if oblige or downstream else None
    if you:
        other = oblige or downstream
        return InjectionFinding(cues=[you, other], reason=f"addresses its reader ({you!r}, {other!r})")
    domain = cues.domain.search(norm)
    reader = cues.reader(norm, cased_text) if domain and not (oblige or downstream) else None
    if domain and (oblige or downstream or reader):
        cue = oblige or downstream or reader
        return InjectionFinding(cues=["domain", cue], reason=f"a web address ({domain.group()!r}) with a "
                                                             f"directive cue ({cue!r})")
    return None


def speaks_of_derived_text(text: str) -> str | None:
    """The cue, when a sentence talks about texts made from the page or about their readers
    ("summaries of this article", "any answer about", "readers", "restated"): half of an
    injection, not enough to flag it. Such a sentence is kept as evidence but is never a
    claim's (`citeloop.runtime.claims.select_cards`): it states something about write-ups, not about
    the subject, and it is where an instruction that slipped past the rules hides."""
    return catalogue().downstream(normalise(text), cased(text))


def suspected(text: str) -> str | None:
    """Why a sentence the filter let into evidence is still suspect, or None: it talks about
    texts made from the page (`speaks_of_derived_text`: half of an injection), or the learned
    filter half suspects it (a score at or above its `suspect_at`, below its threshold). A
    suspect card stays in the ledger but is inert: it names no bridge, counts as no source and
    is no claim's quote (`runtime.engine`, `citeloop.runtime.claims.select_cards`)."""
    return _suspected(text)


@memo("injection.suspected")
def _suspected(text: str) -> str | None:
    derived = speaks_of_derived_text(text)
    if derived:
        return f"speaks of texts made from the page ({derived!r})"
    model = shipped_model()
    score = model.suspects(strip_invisible(text))
    if score is not None:
        return f"learned filter: score {score:.2f} (suspect at {model.suspect_at:.2f})"
    return None


def detect_injection(text: str) -> InjectionFinding | None:
    """Rule-based injection check; None when no rule fires."""
    return _detected(text)


@memo("injection.detect_injection")
def _detected(text: str) -> InjectionFinding | None:
    cues = catalogue()
    norm = normalise(text)
    strong = found(cues.strong, norm)
    if strong:
        return InjectionFinding(cues=strong, reason=f"instruction cue {strong[0]!r}")
    cased_text = cased(text)
    structural = _structural(norm, cased_text)
    if structural is not None:
        return structural
    redirect = cues.redirect(norm, cased_text)
    if redirect:
        return InjectionFinding(cues=[redirect], reason=f"tells the research where to look instead ({redirect!r})")
    weak = found(cues.weak, norm)
    if len(weak) >= 2:
        return InjectionFinding(
            cues=weak, reason=f"{len(weak)} weak cues together: {', '.join(map(repr, weak))}"
        )
    return None


def page_findings(sentences: list[str]) -> dict[int, str]:
    """Index -> why, for each sentence of one page (invisible characters already stripped)
    that is kept out of evidence: flagged by the rules, a script island in its page, or
    scored at or above its threshold by the learned filter (`runtime.injection_model`)."""
    return {i: why for i, (_, why) in findings_by_line(sentences).items()}


def findings_by_line(sentences: list[str]) -> dict[int, tuple[str, str]]:
    """`page_findings`, each with the line of the filter that found it: `rules` (a rule or
    a script island; the learned filter only sees what they pass) or `learned`."""
    return dict(_findings_by_line(tuple(sentences)))


@memo("injection.findings_by_line")
def _findings_by_line(sentences: tuple[str, ...]) -> tuple[tuple[int, tuple[str, str]], ...]:
    flagged = {i: ("rules", why) for i, why in _rule_findings(sentences)}
    model = shipped_model()
    for i, sentence in enumerate(sentences):
        if i not in flagged and (score := model.flags(sentence)) is not None:
            flagged[i] = ("learned", f"learned filter: score {score:.2f} (threshold {model.threshold:.2f})")
    return tuple(sorted(flagged.items()))


def rule_findings(sentences: list[str]) -> dict[int, str]:
    """Index -> why, for each sentence of one page the rules flag or that is a script
    island in its page (the first line of the filter)."""
    return dict(_rule_findings(tuple(sentences)))


@memo("injection.rule_findings")
def _rule_findings(sentences: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    islands = script_islands(list(sentences))
    flagged: list[tuple[int, str]] = []
    for i, sentence in enumerate(sentences):
        finding = detect_injection(sentence)
        why = finding.reason if finding is not None else islands.get(i)
        if why is not None:
            flagged.append((i, why))
    return tuple(flagged)
