"""Citation judges: does this evidence entail this sentence?

A judge sees one sentence and the texts of the evidence cited for it, nothing else
(seed 001 section 11.1: the rest of the report would bias it). The default judge is the
runtime's deterministic `LexicalVerifier` without the reverse check (that check reads
uncited evidence, which a citation judge must not see). Judges are pluggable: a
`CitationJudge` protocol and a registry keyed by name, or a `module:attr` path.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from citeloop.filters.errors import UnknownNameError
from citeloop.runtime.verifier import EvidenceText, LexicalVerifier, VerifierConfig
from citeloop.trajectories.models import Verdict
from citeloop.runtime.registry import load_object as import_object


@runtime_checkable
class CitationJudge(Protocol):
    name: str
    version: str

    def judge(self, sentence: str, evidence: list[str]) -> Verdict:
        """The relation of the concatenated `evidence` to `sentence`."""
        ...


class LexicalJudge:
    """Term overlap with negation and number checks (`citeloop.runtime.verifier.LexicalVerifier`)."""

    name = "lexical"
    version = "1"

    def __init__(self, config: VerifierConfig | None = None) -> None:
        self.verifier = LexicalVerifier(config)

    def judge(self, sentence: str, evidence: list[str]) -> Verdict:
        texts = [EvidenceText(card_id=f"e{i}", text=t) for i, t in enumerate(evidence)]
        return self.verifier.check("sentence", sentence, texts).verdict


class CachedJudge:
    """Remembers verdicts by (sentence, evidence): ALCE precision asks the same pairs again."""

    def __init__(self, inner: CitationJudge) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self._cache: dict[tuple[str, tuple[str, ...]], Verdict] = {}
        self.calls = 0
        """Calls that reached the inner judge."""

    def judge(self, sentence: str, evidence: list[str]) -> Verdict:
        key = (sentence, tuple(evidence))
        if key not in self._cache:
            self.calls += 1
            self._cache[key] = self.inner.judge(sentence, list(evidence))
        return self._cache[key]


JUDGES: dict[str, type] = {"lexical": LexicalJudge}


def load_object(name: str, registry: dict[str, object], what: str) -> object:
    """A registered object by name, or the attribute a `module:attr` path names."""
    if name in registry:
        return registry[name]
    return import_object(name, UnknownNameError, what, ", ".join(sorted(registry)))


def resolve_judge(judge: str | CitationJudge | None = None) -> CitationJudge:
    """A judge instance from a registry name, a `module:attr` path, or an instance (None: lexical)."""
    if judge is None:
        return LexicalJudge()
    if not isinstance(judge, str):
        return judge
    target = load_object(judge, JUDGES, "judge")  # type: ignore[arg-type]
    instance = target() if isinstance(target, type) else target
    if not isinstance(instance, CitationJudge):
        raise UnknownNameError(f"{judge!r} is not a citation judge (needs name, version, judge()); "
                               f"valid names: {', '.join(sorted(JUDGES))}")
    return instance
