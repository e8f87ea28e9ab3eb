"""Rescoring saved runs offline: judge what a run already holds with another scorer,
without calling a single tool.

A `RunScorer` takes a loaded run and returns, per claim, the recorded verdict and its own.
Scorers are resolved by name from `SCORERS`, then `trained:ENDPOINT` (the trained verdict
model behind the lexical pre-stage), then as a `module:attr` path (a run scorer, or a
verifier, which is wrapped). The built-in scorers are the verifiers: each drafted
claim, in its final wording (after a rewrite, if any), is re-checked against the quotes of
the cards it is bound to, with every other card of the run as the counter-evidence pool,
exactly as the claim loop checked it. The filters layer can add its scorers to `SCORERS`
(or be named by path) later; runtime never imports filters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from citeloop.runtime.verifier import VERIFIERS, EvidenceText, Verifier, VerifierConfig, resolve_verifier
from citeloop.trajectories.diff import final_verdicts
from citeloop.trajectories.runfile import RunFile
from citeloop.runtime.registry import load_object as load_named


class ScorerError(ValueError):
    """Unknown or unusable scorer name."""


class ClaimScore(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    claim_id: str
    text: str
    before: str | None
    """The verdict the run recorded for this wording; None if it recorded none."""
    after: str
    reason: str


class RunRescore(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    run_id: str
    scorer: str
    before: dict[str, int]
    """Verdict counts as recorded."""
    after: dict[str, int]
    """Verdict counts from the scorer."""
    changed: list[ClaimScore]
    claims: list[ClaimScore]


@runtime_checkable
class RunScorer(Protocol):
    name: str
    version: str

    def rescore(self, run: RunFile) -> RunRescore: ...


class VerifierScorer:
    """Re-checks every drafted claim with a verifier built from the run's own verifier config
    (by `build`, default `resolve_verifier` of the scorer's name), or with a fixed one."""

    version = "1"

    def __init__(self, name: str, verifier: Verifier | None = None,
                 build: Callable[[str, VerifierConfig], Verifier] | None = None) -> None:
        self.name = name
        self._fixed = verifier
        self._build = build or resolve_verifier

    def _verifier(self, run: RunFile) -> Verifier:
        if self._fixed is not None:
            return self._fixed
        config = VerifierConfig.model_validate(run.header.spec.config.get("verifier", {}))
        return self._build(self.name, config)

    def rescore(self, run: RunFile) -> RunRescore:
        verifier = self._verifier(run)
        cards = {e.card.card_id: e.card for e in run.events if e.type == "card_created"}  # type: ignore[attr-defined]
        texts = {e.claim.claim_id: e.claim.text for e in run.events if e.type == "claim_drafted"}  # type: ignore[attr-defined]
        bound = {e.claim.claim_id: list(e.claim.card_ids) for e in run.events if e.type == "claim_drafted"}  # type: ignore[attr-defined]
        for e in run.events:
            if e.type == "claim_rewritten":
                texts[e.claim_id] = e.new_text  # type: ignore[attr-defined]
            elif e.type == "evidence_bound":
                bound[e.claim_id] = list(e.card_ids)  # type: ignore[attr-defined]
        recorded = final_verdicts(run.events)
        scores = []
        for claim_id, text in texts.items():
            evidence = [EvidenceText.from_card(cards[c]) for c in bound[claim_id] if c in cards]
            others = [EvidenceText.from_card(c) for c in cards.values() if c.card_id not in bound[claim_id]]
            record = verifier.check(claim_id, text, evidence, others)
            scores.append(ClaimScore(claim_id=claim_id, text=text, before=recorded.get(claim_id), after=record.verdict,
                                     reason=record.reason))
        return RunRescore(
            run_id=run.run_id, scorer=self.name,
            before=dict(sorted(Counter(s.before for s in scores if s.before is not None).items())),
            after=dict(sorted(Counter(s.after for s in scores).items())),
            changed=[s for s in scores if s.before != s.after], claims=scores,
        )


SCORERS: dict[str, Callable[[], RunScorer]] = {name: (lambda n=name: VerifierScorer(n)) for name in VERIFIERS}
"""Built-in scorers by name. Verifiers for now; the filters layer's scorers belong here later."""


def resolve_scorer(name: str) -> RunScorer:
    """A scorer by name: a built-in one, `trained:ENDPOINT` (the trained verifier, served at
    ENDPOINT, checking each run with the run's verifier config), or a `module:attr` path."""
    if name in SCORERS:
        return SCORERS[name]()
    if name.startswith("trained:"):
        from citeloop.runtime.llm.parts import LLMPartsError, make_verifier

        try:
            make_verifier(name)  # fail on a bad endpoint before any run is read
        except LLMPartsError as exc:
            raise ScorerError(str(exc)) from exc
        return VerifierScorer(name, build=make_verifier)
    valid = ", ".join(sorted(SCORERS))
    target = load_named(name, ScorerError, "scorer", valid)
    obj = target() if isinstance(target, type) else target
    if isinstance(obj, RunScorer):
        return obj
    if isinstance(obj, Verifier):
        return VerifierScorer(name, obj)
    raise ScorerError(f"{name!r} is neither a run scorer (name, version, rescore()) nor a verifier (check())")
