"""Answer scores: whether a run states its short answer, whether it is right, and the
question-relative coverage and gold-free run score built on it.

- `answer_stated`: the report's answer is `answered` and every claim it names survived in
  the report (an answer no kept claim binds is not stated).
- `answer_em` / `answer_f1` / `answer_correct`: the stated answer against the gold answer and
  its aliases, after HotpotQA's normalisation (lower case, no punctuation, no articles);
  yes/no questions are judged from the answer object, never by finding "yes" in a claim.
  A run with no stated answer scores 0; a question without gold, None.
- `question_coverage`: what the question asks, covered: half for a stated answer, half for
  the share of the plan's expected claims stated (`plan_coverage`). A report whose answer
  is empty covers at most half of the question.
- `run_score`: a gold-free run score in [0, 1], meant for the filters and `export pairs` once its
  agreement with gold is measured (`eval/bench_pairs`; not done yet, so nothing ranks by it):

      0.4 x answer stated and bound
    + 0.2 x citation correctness
    + 0.2 x min(1, independent sources cited / 2)
    + 0.2 x (1 - unsupported-claim rate)

  (a missing term counts 0).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

from citeloop.filters import citations, intermediate
from citeloop.filters.view import RunView

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


def answer_match(prediction: str | None, gold: Sequence[str]) -> tuple[float, float] | None:
    """(exact match, F1) of a prediction against the best of the gold answers; None without gold."""
    answers = [a for a in map(normalise_answer, gold) if a]
    if not answers:
        return None
    if prediction is None:
        return 0.0, 0.0
    pred = normalise_answer(prediction)
    return max(float(pred == a) for a in answers), max(_f1(pred, a) for a in answers)


def plan_coverage(view: RunView) -> float | None:
    return intermediate.coverage(view)


def question_coverage(view: RunView) -> float | None:
    plan = plan_coverage(view)
    stated = answer_stated(view)
    if plan is None or stated is None:
        return None
    return round(0.5 * stated + 0.5 * plan, 4)


def cited_sources(view: RunView) -> set[str]:
    """Same-source clusters of the cards the report cites."""
    if view.report is None:
        return set()
    return {view.cards[c].cluster_id for section in view.report.sections for claim in section.claims
            for c in claim.citations if c in view.cards}


def run_score(view: RunView) -> float | None:
    """The gold-free run score (module docstring)."""
    stated = answer_stated(view)
    if stated is None:
        return None
    correctness = citations.citation_correctness(view) or 0.0
    sources = len(cited_sources(view))
    unsupported = citations.unsupported_claim_rate(view)
    supported = 1.0 - unsupported if unsupported is not None else 0.0
    return round(0.4 * stated + 0.2 * correctness + 0.2 * min(1.0, sources / 2) + 0.2 * supported, 4)
