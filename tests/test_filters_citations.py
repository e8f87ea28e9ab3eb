"""Citation correctness, ALCE citation recall/precision and the unsupported-claim rate.

Hand-built trajectories for every edge case, and a model-free self-check on SciFact's
gold rationales (the judge must prefer a claim's gold evidence to random sentences).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from citeloop.filters.errors import UnknownNameError
from citeloop.filters.judge import LexicalJudge, resolve_judge
from citeloop.filters.metrics import score_run
from citeloop.filters.synthetic import TrajectoryBuilder

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"

SENTENCE = "Stephen King directed Maximum Overdrive in North Carolina."
PART_A = "Stephen King directed Maximum Overdrive."  # partial alone
PART_B = "It was filmed in North Carolina."  # irrelevant alone; A + B entail
WHOLE = "Stephen King directed Maximum Overdrive in North Carolina."  # entails alone
OFF_TOPIC = ["Paris is the capital of France.", "The Nile flows through Egypt.", "Bananas grow in tropical climates.",
             "Copper conducts electricity well."]


class YesJudge:
    """Entails when some evidence text says YES: a judge under the test's control."""

    name = "yes"
    version = "1"

    def judge(self, sentence: str, evidence: list[str]) -> str:
        return "entail" if any("YES" in e for e in evidence) else "irrelevant"


def _run(citations: list[list[str]], texts: dict[str, str], verdict: str = "entail") -> TrajectoryBuilder:
    """One sub-question; one claim per entry of `citations`, each citing those card keys."""
    b = TrajectoryBuilder()
    b.plan({"sq1": ["States the director"]})
    ids = {key: b.card("sq1", text, card_id=f"card-{key}") for key, text in texts.items()}
    built = []
    for cites in citations:
        claim_id = b.claim("sq1", SENTENCE, [ids.get(c, c) for c in cites], verdict)
        built.append(b.report_claim(claim_id))
    b.report({"Answer": built})
    b.finish()
    return b


def _score(b: TrajectoryBuilder, **kwargs):
    return score_run(b.events, header=b.header, **kwargs)


def test_single_entailing_citation_scores_one_everywhere() -> None:
    s = _score(_run([["w"]], {"w": WHOLE}))
    assert (s.citation_correctness, s.partial_rate) == (1.0, 0.0)
    assert (s.citation_recall_alce, s.citation_precision_alce) == (1.0, 1.0)
    assert s.unsupported_claim_rate == 0.0
    assert s.verdict_counts == {"entail": 1}


def test_joint_support_needs_both_citations_and_both_are_precise() -> None:
    s = _score(_run([["a", "b"]], {"a": PART_A, "b": PART_B}))
    assert s.citation_correctness == 1.0
    assert s.citation_recall_alce == 1.0
    assert s.citation_precision_alce == 1.0, "each citation is needed: without it the rest do not entail"


def test_redundant_citations_are_irrelevant_for_alce_precision() -> None:
    # [A, B, W]: W alone entails; A and B alone do not, and the others without each still entail.
    s = _score(_run([["a", "b", "w"]], {"a": PART_A, "b": PART_B, "w": WHOLE}))
    assert s.citation_recall_alce == 1.0
    assert s.citation_precision_alce == pytest.approx(1 / 3, abs=1e-4)


def test_only_the_first_three_of_five_citations_are_scored() -> None:
    texts = {f"x{i}": t for i, t in enumerate(OFF_TOPIC)} | {"w": WHOLE}
    s = _score(_run([["x0", "x1", "x2", "w", "x3"]], texts))
    assert s.citation_correctness == 1.0, "correctness reads all cited evidence"
    assert s.citation_recall_alce == 0.0, "ALCE truncates to the first 3, which do not entail"
    assert s.citation_precision_alce == 0.0
    # Precision's denominator holds 3 citations, not 5: one more good sentence gives 1/(3+1).
    s2 = _score(_run([["x0", "x1", "x2", "w", "x3"], ["w"]], texts))
    assert s2.citation_precision_alce == pytest.approx(1 / 4, abs=1e-4)


def test_invalid_citation_ids_count_against_recall_only() -> None:
    s = _score(_run([["w", "card-missing"]], {"w": WHOLE}))
    assert s.invalid_citations == 1
    assert s.citation_recall_alce == 0.0, "ALCE: a citation out of range makes the sentence unsupported"
    assert s.citation_precision_alce is None, "ALCE scores no citation of such a sentence"
    assert s.citation_correctness == 1.0, "the judge sees the evidence that exists"
    assert s.unsupported_claim_rate == 0.0, "one valid citation is bound evidence"

    only_invalid = _score(_run([["card-missing"]], {"w": WHOLE}))
    assert only_invalid.citation_correctness == 0.0
    assert only_invalid.unsupported_claim_rate == 1.0


def test_no_citations_leaves_citation_metrics_uncomputed_and_every_claim_unsupported() -> None:
    s = _score(_run([[], []], {"w": WHOLE}))
    assert s.citation_correctness is None and s.partial_rate is None
    assert s.citation_precision_alce is None
    assert s.citation_recall_alce == 0.0, "an uncited assertion is an ALCE sentence with recall 0"
    assert s.unsupported_claim_rate == 1.0
    assert "no_evidence_closure" in s.diagnosis_codes


def test_empty_report_is_none_not_zero() -> None:
    b = TrajectoryBuilder()
    b.plan({"sq1": ["States the director"]})
    b.report({"Answer": []}, gaps=["sq1"])
    b.finish()
    s = _score(b)
    for name in ("citation_correctness", "partial_rate", "citation_recall_alce", "citation_precision_alce",
                 "unsupported_claim_rate"):
        assert getattr(s, name) is None, name
    assert s.coverage == 0.0, "the plan expected a claim; the report states none"
    assert s.diagnosis_codes[0] == "retrieval_irrelevant"


def test_partial_only_report() -> None:
    s = _score(_run([["a"], ["a"]], {"a": PART_A}, verdict="partial"))
    assert s.citation_correctness == 0.0, "partial counts 0 for correctness"
    assert s.partial_rate == 1.0
    assert s.citation_recall_alce == 0.0 and s.citation_precision_alce == 0.0
    assert s.plan_coverage == 1.0, "a partial claim with bound evidence still states the expected claim"


def test_unsupported_rate_ignores_non_assertions_and_counts_uncited_facts() -> None:
    b = _run([["w"]], {"w": WHOLE})
    report = b.events[-2].report
    sections = [report.sections[0].model_copy(update={"claims": [
        *report.sections[0].claims,
        b.report_claim("claim-sq1-1", citations=[], text="The film cost nine million dollars to make."),
        b.report_claim("claim-sq1-1", citations=[], text="In summary, King directed the film."),
        b.report_claim("claim-sq1-1", citations=[], text="We recommend reading the primary sources."),
    ]})]
    mutated = report.model_copy(update={"sections": sections, "assumptions": ["Names refer to the best-known film."]})
    events = [e if e.type != "report_written" else e.model_copy(update={"report": mutated}) for e in b.events]
    s = score_run(events, header=b.header)
    assert s.assertion_sentences == 2 and s.unsupported_sentences == 1
    assert s.unsupported_claim_rate == 0.5


def test_judge_is_pluggable_by_instance_and_by_path() -> None:
    b = _run([["y"], ["n"]], {"y": "YES it is so.", "n": "no."})
    assert _score(b, judge=YesJudge()).citation_correctness == 0.5
    assert _score(b, judge="test_filters_citations:YesJudge").citation_correctness == 0.5
    with pytest.raises(UnknownNameError, match="lexical"):
        resolve_judge("oracle")


def test_judge_sees_only_the_cited_evidence() -> None:
    # The uncited card states the sentence exactly; the cited one does not. Correctness is 0.
    b = TrajectoryBuilder()
    b.plan({"sq1": ["States the director"]})
    b.card("sq1", WHOLE)
    off = b.card("sq1", OFF_TOPIC[0])
    b.report({"Answer": [b.report_claim(b.claim("sq1", SENTENCE, [off]))]})
    assert score_run(b.events, header=b.header).citation_correctness == 0.0


# --------------------------------------------------------------------------- SciFact self-check


def _scifact_pairs(limit: int) -> list[tuple[str, list[str]]]:
    corpus = {}
    with open(SCIFACT / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            corpus[str(doc["doc_id"])] = doc["abstract"]
    pairs = []
    with open(SCIFACT / "claims_train.jsonl", encoding="utf-8") as handle:
        for line in handle:
            claim = json.loads(line)
            for doc_id, sets in claim["evidence"].items():
                for ev in sets:
                    if ev["label"] == "SUPPORT" and len(pairs) < limit:
                        pairs.append((claim["claim"], [corpus[doc_id][i] for i in ev["sentences"]]))
    return pairs, [s for abstract in corpus.values() for s in abstract]


@pytest.mark.skipif(not (SCIFACT / "corpus.jsonl").exists(), reason="shared SciFact data not present")
def test_scifact_gold_rationales_are_judged_entailed_more_often_than_random_sentences() -> None:
    pairs, sentences = _scifact_pairs(limit=250)
    rng = random.Random(0)
    judge = LexicalJudge()
    gold = [judge.judge(claim, evidence) for claim, evidence in pairs]
    rand = [judge.judge(claim, rng.sample(sentences, len(evidence))) for claim, evidence in pairs]
    share = lambda verdicts, ok: sum(v in ok for v in verdicts) / len(verdicts)
    assert share(gold, {"entail"}) > share(rand, {"entail"})
    assert share(gold, {"entail", "partial"}) >= 0.25
    assert share(rand, {"entail", "partial"}) <= 0.05


@pytest.mark.skipif(not (SCIFACT / "corpus.jsonl").exists(), reason="shared SciFact data not present")
def test_scifact_trajectory_scores_gold_citations_above_random_ones() -> None:
    pairs, sentences = _scifact_pairs(limit=60)
    rng = random.Random(1)

    def build(gold: bool) -> TrajectoryBuilder:
        b = TrajectoryBuilder(question="SciFact claims")
        b.plan({"sq1": ["the claims"]})
        claims = []
        for claim, evidence in pairs:
            texts = evidence if gold else rng.sample(sentences, len(evidence))
            cards = [b.card("sq1", t) for t in texts]
            claims.append(b.report_claim(b.claim("sq1", claim, cards)))
        b.report({"Claims": claims})
        return b

    good, bad = _score(build(True)), _score(build(False))
    assert good.citation_recall_alce > bad.citation_recall_alce
    assert good.partial_rate > bad.partial_rate
    assert good.citation_correctness >= bad.citation_correctness
