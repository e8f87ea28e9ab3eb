"""Answer scores: whether a run states its short answer, whether it is right, and the
question-relative coverage and gold-free run score built on it.

- `answer_stated`: the report's answer is `answered` and every claim it names survived in
  the report (an answer no kept claim binds is not stated).
- `answer_em` / `answer_f1` / `answer_correct`: the stated answer against the gold answer and
  its aliases, after HotpotQA's normalisation (lower case, no punctuation, no articles):
  exact match, token F1, and "correct" as METRICS.md defines it, the normalised gold answer
  contained (as whole words) in the normalised answer (until 2026-12-02 `answer_correct`
  was the exact match);
  yes/no questions are judged from the answer object, never by finding "yes" in a claim.
  A run with no stated answer scores 0; a question without gold, None.
- `question_coverage`: what the question asks, covered: half for a stated answer, half for
  the share of the plan's expected claims stated (`plan_coverage`). A report whose answer
  is empty covers at most half of the question.
- `run_score`: the gold-free run score in [0, 1] that `export pairs`, `headroom` and the RL
  reward fall back on where no gold is given (training/outcomes.py), a weighted sum of five
  features divided by the weights' total (1.1), so that it stays in [0, 1]:

      0.1 x min(1, pages with kept evidence / 10)
    + 0.3 x min(1, chained pages / 2)
    + 0.2 x citation correctness
    + 0.1 x share of the plan's sub-questions satisfied
    + 0.4 x the answer's confidence (strong 1, moderate 0.5, weak 0.25; 0 when none is stated)

  (a missing term counts 0). A chained page (`chained_pages`) is a page read whose title a card
  of another page names: the run followed a name its evidence gave, which is how a multi-hop
  question's second page is found. The weights were chosen by `citeloop.eval.score_weights`
  (a grid over eight gold-free features, maximising how often the score orders two runs of one
  question as their gold recall does) on all three shared sets at 9204c3d; held out (weights
  chosen on the other two sets), on `bench_runtime`'s pairs of heuristic, naive and
  naive-policies runs, they agree with gold on 90.0 / 87.4 / 96.9 % of pairs (HotpotQA /
  MuSiQue / 2Wiki), against 90.0 / 77.2 / 91.9 % for the earlier breadth-led score (0.4 evidence
  pages, 0.2 cited pages, 0.2 chained pages, 0.1 answer stated, 0.1 citation correctness). The
  answer's confidence leads since an answer is stated only from a sentence that states what is
  asked: a run that states a supported answer is, far more often than not, the one that read
  the gold pages.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from typing import NamedTuple

from citeloop.filters import citations, intermediate
from citeloop.filters.view import RunView
from citeloop.runtime.text import fold_accents

_PUNCTUATION = set(string.punctuation)


def normalise_answer(text: str) -> str:
    """SQuAD/HotpotQA answer normalisation: lower case, no punctuation, no articles."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def stated_answer(view: RunView) -> str | None:
    """The report's answer text when it is answered and bound to claims the report keeps."""
    report = view.report
    answer = getattr(report, "answer", None) if report is not None else None
    if answer is None or answer.status != "answered" or not answer.text:
        return None
    kept = {c.claim_id for section in report.sections for c in section.claims}
    if not answer.claim_ids or not set(answer.claim_ids) <= kept:
        return None
    return answer.text


def answer_stated(view: RunView) -> bool | None:
    if view.report is None:
        return None
    return stated_answer(view) is not None


def _f1(prediction: str, gold: str) -> float:
    pred, true = prediction.split(), gold.split()
    if not pred or not true:
        return float(pred == true)
    if {prediction, gold} & {"yes", "no"} and prediction != gold:
        return 0.0
    common = sum((Counter(pred) & Counter(true)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(true)
    return 2 * precision * recall / (precision + recall)


class AnswerMatch(NamedTuple):
    """A stated answer against the gold answers, each score the best over the aliases."""

    em: float
    """Exact match after normalisation."""
    f1: float
    """Token F1 (HotpotQA's official scorer)."""
    correct: bool
    """"Answer correct" as METRICS.md defines it: a normalised gold answer stands, as whole
    words, in the normalised answer ("john lennon" in "john lennon of beatles"). Yes/no
    answers must equal the gold."""


def answer_match(prediction: str | None, gold: Sequence[str]) -> AnswerMatch | None:
    """The prediction against the best of the gold answers; None without gold."""
    answers = [a for a in map(normalise_answer, gold) if a]
    if not answers:
        return None
    if prediction is None:
        return AnswerMatch(0.0, 0.0, False)
    pred = normalise_answer(prediction)
    return AnswerMatch(max(float(pred == a) for a in answers), max(_f1(pred, a) for a in answers),
                       any(_contains(pred, a) for a in answers))


def _contains(prediction: str, gold: str) -> bool:
    if {prediction, gold} & {"yes", "no"}:
        return prediction == gold
    return f" {gold} " in f" {prediction} "


def plan_coverage(view: RunView) -> float | None:
    return intermediate.coverage(view)


def question_coverage(view: RunView) -> float | None:
    plan = plan_coverage(view)
    stated = answer_stated(view)
    if plan is None or stated is None:
        return None
    return round(0.5 * stated + 0.5 * plan, 4)


EVIDENCE_PAGES = 10
"""Pages with kept evidence at which the breadth term of `run_score` is full."""
CITED_PAGES = 6
"""Pages cited at which the citation-breadth term of `run_score` is full."""


CHAINED_PAGES = 2
"""Chained pages at which the chain term of `run_score` is full."""


def chained_pages(view: RunView) -> set[str]:
    """Pages read whose title (less a bracketed qualifier, at least four letters) a card from
    another page names, accents and case folded: "Arko Sen" read after the card "Velm Harbour
    is a 1972 film directed by Arko Sen"."""
    quotes = [(card.doc_id, fold_accents(card.quote).lower()) for card in view.cards.values()]
    chained = set()
    for read in view.of("document_read"):
        title = fold_accents(read.title).lower().split(" (")[0].strip()
        if len(title) >= 4 and any(doc != read.doc_id and title in quote for doc, quote in quotes):
            chained.add(read.doc_id)
    return chained


def cited_pages(view: RunView) -> set[str]:
    if view.report is None:
        return set()
    return {view.cards[c].doc_id for section in view.report.sections for claim in section.claims
            for c in claim.citations if c in view.cards}


RUN_SCORE_WEIGHTS = {"evidence pages": 0.1, "chained pages": 0.3, "citation correctness": 0.2,
                     "sub-questions satisfied": 0.1, "answer confidence": 0.4}
"""`run_score`'s weights (module docstring), by the names of `GOLD_FREE_FEATURES`."""
ANSWER_CONFIDENCE = {"strong": 1.0, "moderate": 0.5, "weak": 0.25}
"""The answer's confidence label as a number (`answer_confidence`)."""


def subquestions_satisfied(view: RunView) -> float:
    """The share of the plan's sub-questions whose last status is `satisfied`."""
    status: dict[str, str] = {}
    for event in view.of("subq_status_changed"):
        status[event.subq] = event.new
    plans = view.of("plan_created")
    n = len(plans[0].plan.sub_questions) if plans else len(status)
    return sum(s == "satisfied" for s in status.values()) / max(1, n)


def answer_confidence(view: RunView) -> float:
    """The stated answer's confidence as a number (`ANSWER_CONFIDENCE`); 0 with no answer."""
    answer = view.report.answer if view.report is not None else None
    return ANSWER_CONFIDENCE.get(answer.confidence, 0.0) if answer is not None and answer.status == "answered" else 0.0


GOLD_FREE_FEATURES: dict[str, Callable[[RunView], float]] = {
    "evidence pages": lambda v: min(1.0, len({c.doc_id for c in v.cards.values()}) / EVIDENCE_PAGES),
    "cited pages": lambda v: min(1.0, len(cited_pages(v)) / CITED_PAGES),
    "chained pages": lambda v: min(1.0, len(chained_pages(v)) / CHAINED_PAGES),
    "answer stated": lambda v: float(bool(answer_stated(v))),
    "citation correctness": lambda v: citations.citation_correctness(v) or 0.0,
    "plan coverage": lambda v: intermediate.coverage(v) or 0.0,
    "sub-questions satisfied": subquestions_satisfied,
    "answer confidence": answer_confidence,
}
"""A run's gold-free features, each in [0, 1] (a missing one 0): `run_score` weighs five of them
(`RUN_SCORE_WEIGHTS`), and `citeloop.eval.score_weights` searches weights over all eight."""


def run_score(view: RunView) -> float | None:
    """The gold-free run score (module docstring)."""
    if answer_stated(view) is None:
        return None
    total = sum(w * GOLD_FREE_FEATURES[name](view) for name, w in RUN_SCORE_WEIGHTS.items())
    return round(total / sum(RUN_SCORE_WEIGHTS.values()), 4)
