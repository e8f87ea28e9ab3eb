"""What changed between two runs of one question: the diff `replay --swap/--branch` and
`citeloop diff` print.

It reads only events, so any two run files compare, whichever runtime wrote them:
where the event streams first part (ignoring `run_id`, which always differs), the queries
each issued, the evidence each kept (cards by doc id and sentence ids), each claim's final
verdict, where each stopped, and the outcome counts and metrics of both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from citeloop.trajectories.events import NONDETERMINISTIC_TYPES, BaseEvent, event_to_dict
from citeloop.trajectories.header import RunHeader


class DiffError(ValueError):
    """The two runs cannot be compared (e.g. they answer different questions)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FirstDivergence(_Model):
    seq: int
    """First position where the two event streams differ (run ids aside)."""
    before_type: str | None
    """Event type in the first run at `seq`; None when that run ended earlier."""
    after_type: str | None
    fields: list[str]
    """Top-level fields that differ when both events have the same type."""


class EvidenceKey(_Model):
    doc_id: str
    sentence_ids: list[str]


class VerdictChange(_Model):
    claim_id: str
    before: str | None
    """Final verdict in the first run; None when it drafted no such claim."""
    after: str | None


class StopPoint(_Model):
    round: int | None
    """Round of the final stop decision; None when the run has none (torn)."""
    choice: str | None
    policy: str | None
    reason: str | None
    """The outcome's stop reason (or the last stop decision's reason)."""


class RunDiff(_Model):
    question: str
    before_run_id: str
    after_run_id: str
    identical: bool
    """The deterministic event streams are equal apart from run ids."""
    first_divergence: FirstDivergence | None
    queries_added: list[str]
    queries_removed: list[str]
    evidence_gained: list[EvidenceKey]
    evidence_lost: list[EvidenceKey]
    verdicts_changed: list[VerdictChange]
    stop_before: StopPoint
    stop_after: StopPoint
    counts_before: dict[str, int]
    counts_after: dict[str, int]
    metrics_before: dict[str, float | None]
    metrics_after: dict[str, float | None]


def _comparable(events: Sequence[BaseEvent]) -> list[dict[str, Any]]:
    out = []
    for e in events:
        if e.type in NONDETERMINISTIC_TYPES:
            continue
        d = event_to_dict(e)
        d.pop("run_id")
        out.append(d)
    return out


def first_divergence(before: Sequence[BaseEvent], after: Sequence[BaseEvent]) -> FirstDivergence | None:
    a, b = _comparable(before), _comparable(after)
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x == y:
            continue
        fields = sorted(k for k in {*x, *y} if x.get(k) != y.get(k)) if x and y and x["type"] == y["type"] else []
        return FirstDivergence(seq=i, before_type=x["type"] if x else None, after_type=y["type"] if y else None,
                               fields=fields)
    return None


def _queries(events: Sequence[BaseEvent]) -> list[str]:
    return list(dict.fromkeys(e.query for e in events if e.type == "query_issued"))  # type: ignore[attr-defined]


def _evidence(events: Sequence[BaseEvent]) -> dict[tuple[str, tuple[str, ...]], EvidenceKey]:
    out = {}
    for e in events:
        if e.type == "card_created":
            card = e.card  # type: ignore[attr-defined]
            out.setdefault((card.doc_id, tuple(card.sentence_ids)),
                           EvidenceKey(doc_id=card.doc_id, sentence_ids=list(card.sentence_ids)))
    return out


def final_verdicts(events: Sequence[BaseEvent]) -> dict[str, str]:
    """Each claim's last verdict (a rewritten claim's second check overrides its first)."""
    out: dict[str, str] = {}
    for e in events:
        if e.type == "verdict_reached":
            out[e.record.claim_id] = e.record.verdict  # type: ignore[attr-defined]
    return out


def _stop(events: Sequence[BaseEvent]) -> StopPoint:
    stops = [e for e in events if e.type == "stop_decision"]
    finished = next((e for e in events if e.type == "run_finished"), None)
    last = stops[-1] if stops else None
    reason = finished.outcome.stop_reason if finished else (last.reason if last else None)  # type: ignore[attr-defined]
    return StopPoint(round=last.state.round if last else None, choice=last.choice if last else None,  # type: ignore[attr-defined]
                     policy=last.policy.name if last else None, reason=reason)  # type: ignore[attr-defined]


def _outcome(events: Sequence[BaseEvent]) -> tuple[dict[str, int], dict[str, float | None]]:
    finished = next((e for e in events if e.type == "run_finished"), None)
    if finished is None:
        return {}, {}
    return dict(finished.outcome.counts), dict(finished.outcome.metrics)  # type: ignore[attr-defined]


def diff_runs(before_header: RunHeader, before: Sequence[BaseEvent],
              after_header: RunHeader, after: Sequence[BaseEvent]) -> RunDiff:
    if before_header.spec.question != after_header.spec.question:
        raise DiffError(f"the runs answer different questions ({before_header.spec.question!r} vs "
                        f"{after_header.spec.question!r}); a diff compares runs of one question")
    qa, qb = _queries(before), _queries(after)
    ea, eb = _evidence(before), _evidence(after)
    va, vb = final_verdicts(before), final_verdicts(after)
    claims = list(dict.fromkeys([*va, *vb]))
    ca, ma = _outcome(before)
    cb, mb = _outcome(after)
    divergence = first_divergence(before, after)
    return RunDiff(
        question=before_header.spec.question,
        before_run_id=before_header.run_id,
        after_run_id=after_header.run_id,
        identical=divergence is None,
        first_divergence=divergence,
        queries_added=[q for q in qb if q not in set(qa)],
        queries_removed=[q for q in qa if q not in set(qb)],
        evidence_gained=[v for k, v in eb.items() if k not in ea],
        evidence_lost=[v for k, v in ea.items() if k not in eb],
        verdicts_changed=[VerdictChange(claim_id=c, before=va.get(c), after=vb.get(c))
                          for c in claims if va.get(c) != vb.get(c)],
        stop_before=_stop(before),
        stop_after=_stop(after),
        counts_before=ca, counts_after=cb, metrics_before=ma, metrics_after=mb,
    )


def render_diff(diff: RunDiff, console: Any) -> None:
    """Print a diff for people (a rich Console); `--json` prints `diff.model_dump_json()` instead."""
    from rich.table import Table

    console.print(f"[bold]diff[/bold] {diff.before_run_id} -> {diff.after_run_id}: {diff.question}")
    if diff.identical:
        console.print("event streams identical (apart from run ids)")
    elif diff.first_divergence is not None:
        d = diff.first_divergence
        fields = f" in {', '.join(d.fields)}" if d.fields else ""
        console.print(f"first divergence at seq {d.seq}: {d.before_type or '(ended)'} -> {d.after_type or '(ended)'}{fields}")
    for label, items in (("queries added", diff.queries_added), ("queries removed", diff.queries_removed)):
        for q in items:
            console.print(f"{label}: {q}")
    for label, keys in (("evidence gained", diff.evidence_gained), ("evidence lost", diff.evidence_lost)):
        by_doc: dict[str, list[str]] = {}
        for k in keys:
            by_doc.setdefault(k.doc_id, []).extend(s.rpartition("#")[2] for s in k.sentence_ids)
        for doc_id, sentences in by_doc.items():
            console.print(f"{label}: {doc_id} {','.join(sentences)}")
    for v in diff.verdicts_changed:
        console.print(f"verdict {v.claim_id}: {v.before or '-'} -> {v.after or '-'}")
    sb, sa = diff.stop_before, diff.stop_after
    console.print(f"stop: round {sb.round} ({sb.reason}) -> round {sa.round} ({sa.reason})")
    table = Table("metric", "before", "after")
    before = {**diff.counts_before, **diff.metrics_before}
    after = {**diff.counts_after, **diff.metrics_after}
    for key in dict.fromkeys([*before, *after]):
        x, y = before.get(key), after.get(key)
        mark = "" if x == y else " *"
        table.add_row(key, "-" if x is None else str(x), ("-" if y is None else str(y)) + mark)
    console.print(table)
