"""The assertion detector on hand-made sentences, and report rendering into sentences."""

from __future__ import annotations

import pytest

from citeloop.filters.assertions import classify_sentence, is_assertion
from citeloop.filters.sentences import markdown_sentences, report_sentences
from citeloop.filters.synthetic import TrajectoryBuilder


@pytest.mark.parametrize("sentence", [
    "Maximum Overdrive is a 1986 film directed by Stephen King.",
    "He died in 1990.",
    "Moreover, the film was shot in Leland, North Carolina.",  # a transition does not hide a fact
    "- The company was founded in 1990 [1].",
    "The gap between the two bridges is 40 metres.",  # "gap" as a word, not a gap statement
    "Consequently, the dam was closed in 2003.",
])
def test_factual_sentences_are_assertions(sentence: str) -> None:
    assert is_assertion(sentence), classify_sentence(sentence)


@pytest.mark.parametrize(("sentence", "kind"), [
    ("In summary, the film was directed by Stephen King.", "summary"),
    ("In conclusion, both are film directors.", "summary"),
    ("Moreover.", "transition"),
    ("Furthermore, let us now turn to the director.", "transition"),
    ("However, this is not the end.", "transition"),
    ("## Answer", "heading"),
    ("**Findings**", "heading"),
    ("I think the second source is more reliable.", "opinion"),
    ("We recommend checking the primary records.", "opinion"),
    ("Readers should treat this figure with caution.", "opinion"),
    ("The director's birthplace was not found in the corpus.", "gap"),
    ("There is no evidence that the film was remade.", "gap"),
    ("The exact date could not be determined.", "gap"),
    ("This remains an information gap in this corpus.", "gap"),
    ("Who directed the film?", "question"),
    ("We assume that dates are given in the Gregorian calendar.", "assumption"),
    ("Searched: `maximum overdrive director`", "status"),
    ("Yes.", "fragment"),
    ("", "empty"),
])
def test_non_assertions_are_recognised(sentence: str, kind: str) -> None:
    assert classify_sentence(sentence) == kind
    assert not is_assertion(sentence)


def test_section_decides_for_assumptions_and_appendix() -> None:
    text = "Each named entity refers to its most prominent referent in the corpus."
    assert is_assertion(text)  # on its own it reads as a fact...
    assert classify_sentence(text, "assumptions") == "assumption"  # ...under "## Assumptions" it is not
    assert classify_sentence('"Maximum Overdrive is a film." — Wikipedia', "references") == "reference"


def test_markdown_report_sentences_and_markers() -> None:
    md = (
        "# Who directed Maximum Overdrive?\n\n"
        "## Answer\n"
        "Maximum Overdrive was directed by Stephen King. [1][2] It was released in 1986 [3].\n"
        "Moreover, it was filmed in Wilmington, North Carolina.\n"
        "In summary, King directed it.\n\n"
        "## Gaps\n"
        "- The budget of the film was not found.\n\n"
        "## Assumptions\n"
        "- Each name refers to its most prominent referent.\n\n"
        "## Evidence\n"
        "- [1] \"Maximum Overdrive is a 1986 film directed by Stephen King.\" — Wikipedia\n"
    )
    sentences = markdown_sentences(md, {1: "card-a", 2: "card-b"})
    by_text = {s.text: s for s in sentences}
    first = by_text["Maximum Overdrive was directed by Stephen King."]
    assert first.citations == ["card-a", "card-b"], "markers after the full stop belong to the sentence"
    assert by_text["It was released in 1986."].citations == ["[3]"], "an unknown marker is kept as invalid"
    assertions = [s.text for s in sentences if s.needs_evidence]
    assert assertions == ["Maximum Overdrive was directed by Stephen King.", "It was released in 1986.",
                          "Moreover, it was filmed in Wilmington, North Carolina."]
    assert not any("Stephen King.\"" in s.text for s in sentences), "the evidence appendix yields no sentences"


def test_report_sentences_take_claims_structurally_and_classify_other_lines() -> None:
    b = TrajectoryBuilder()
    b.plan({"sq1": ["States the director"], "sq2": ["States the year"]})
    card = b.card("sq1", "Maximum Overdrive is a 1986 film directed by Stephen King.")
    claim = b.claim("sq1", "Maximum Overdrive is a 1986 film directed by Stephen King.", [card])
    report = b.report(gaps=["sq2"], assumptions=["Each named entity refers to its most prominent referent."])
    sentences = report_sentences(report)
    claims = [s for s in sentences if s.source == "claim"]
    assert [(s.claim_id, s.citations, s.verdict) for s in claims] == [(claim, [card], "entail")]
    kinds = {s.kind for s in sentences if s.source == "line"}
    assert "heading" in kinds and "gap" in kinds and "assumption" in kinds
    assert [s.text for s in sentences if s.needs_evidence] == [claims[0].text]
