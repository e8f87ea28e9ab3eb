"""What the HTML viewer shows of one run, as plain JSON-ready data.

`run_view_data` turns a loaded run file into the dict the viewer's script renders: the
header facts, the plan's sub-questions, the report with citation numbers, every evidence
card with the claims that cite it, every claim with its verdicts, rewrites, drop and the
searches behind it, the documents read (text and sentence offsets, so a card can be shown
inside its document), and the event stream with a round, a phase and a one-line summary
per event. Everything here is derived from events; nothing is re-run. Text in this data
comes from the corpus and is untrusted: the page inserts it as text, never as markup.
"""

from __future__ import annotations

from typing import Any

from citeloop.trajectories.events import DECISION_TYPES, BaseEvent, event_to_dict
from citeloop.trajectories.runfile import RunFile

LLM_FIELDS = ("prompt", "completion", "logprobs")
"""Fields an LLM policy's decision may carry; shown by the decision inspector when present."""


def _short(text: str, n: int = 140) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def event_summary(e: BaseEvent) -> str:
    """One line for people, per event kind (the timeline and the event list show it)."""
    d: Any = e
    t = e.type
    if t == "plan_created":
        return (f"plan: {len(d.plan.sub_questions)} sub-question(s) on {len(d.plan.axes)} axis/axes "
                f"({d.plan.question_type}); planner {d.planner.name} {d.planner.version}")
    if t == "subq_added":
        return f"added {d.sub_question.id}: {_short(d.sub_question.question)} ({d.reason})"
    if t == "subq_status_changed":
        query = f"; query: {_short(d.resolved_query, 80)}" if d.resolved_query else ""
        return f"{d.subq}: {d.old} → {d.new} ({_short(d.reason)}){query}"
    if t == "angle_decision":
        chosen = d.candidates[d.choice] if 0 <= d.choice < len(d.candidates) else "?"
        angle = d.angles[d.choice] if 0 <= d.choice < len(d.angles) else "?"
        return f"angle {angle} of {len(d.candidates)}: {_short(chosen, 90)} ({d.policy.name}: {_short(d.reason, 80)})"
    if t == "read_decision":
        return (f"read {len(d.choice)} of {len(d.candidates)} hit(s): {', '.join(d.choice) or 'none'} "
                f"({d.policy.name}: {_short(d.reason, 80)})")
    if t == "keep_decision":
        return (f"keep {len(d.choice)} of {len(d.candidates)} sentence(s) of {d.doc_id} "
                f"({d.policy.name}: {_short(d.reason, 80)})")
    if t == "stop_decision":
        s = d.state
        return (f"{d.choice} after round {s.round} ({d.policy.name}: {_short(d.reason, 90)}); coverage "
                f"{s.coverage:.2f}/{s.coverage_target:.2f}, searches {s.searches_used}/{s.searches_max}, "
                f"reads {s.reads_used}/{s.reads_max}")
    if t == "follow_decision":
        chosen = d.candidates[d.choice].names if 0 <= d.choice < len(d.candidates) else ["?"]
        return (f"follow {' + '.join(chosen)} ({len(d.candidates)} option(s) from {d.dep}; "
                f"{d.policy.name}: {_short(d.reason, 80)})")
    if t == "hard_limit":
        return f"hard limit after round {d.round}: {d.limit} ({_short(d.reason, 90)})"
    if t == "query_issued":
        return f"query [{d.angle}]: {_short(d.query, 120)}"
    if t == "search_result":
        r = d.response
        top = "; ".join(_short(h.title, 40) for h in r.hits[:3])
        retries = f", {len(d.attempts)} attempts" if len(d.attempts) > 1 else ""
        err = f" ({_short(r.error, 60)})" if r.error else ""
        return f"{r.status}{err}: {len(r.hits)} hit(s){retries}{': ' + top if top else ''}"
    if t == "text_blob":
        return f"text {d.digest[:12]}… ({len(d.text)} characters)"
    if t == "document_read":
        err = f" ({_short(d.error, 60)})" if d.error else ""
        return f"read {d.doc_id} [{d.status}{err}]: {_short(d.title, 80)}, {len(d.sentences)} sentence(s)"
    if t == "card_created":
        return f"card accepted ({d.card.doc_id}): “{_short(d.card.quote, 110)}”"
    if t == "card_rejected":
        return f"rejected ({d.rejected.reason}) {', '.join(d.rejected.sentence_ids)}: {_short(d.rejected.detail, 100)}"
    if t == "conflict_marked":
        return f"conflict {d.card_id} ↔ {d.other_card_id}: {_short(d.reason, 100)}"
    if t == "claim_drafted":
        return f"claim {d.claim.claim_id}: {_short(d.claim.text, 120)}"
    if t == "evidence_bound":
        return f"claim {d.claim_id} bound to {len(d.card_ids)} card(s)"
    if t == "verdict_reached":
        r = d.record
        return f"verdict {r.verdict} for {r.claim_id} by {r.checker} (support {r.support:.2f}, pass {d.pass_})"
    if t == "claim_rewritten":
        return f"rewrite {d.claim_id}: {_short(d.old_text, 60)} → {_short(d.new_text, 60)}"
    if t == "claim_dropped":
        return f"dropped {d.claim_id} ({d.verdict}): {_short(d.reason, 100)}"
    if t == "dead_end":
        return f"dead end after {len(d.queries_tried)} query(ies): {_short(d.reason, 100)}"
    if t == "report_written":
        claims = sum(len(s.claims) for s in d.report.sections)
        return f"report: {claims} claim(s), {len(d.report.gaps)} gap(s), {len(d.report.evidence)} cited card(s)"
    if t == "run_finished":
        return f"{d.outcome.status}: {d.outcome.stop_reason}"
    if t == "run_meta":
        return f"wall time {d.wall_ms:.0f} ms"
    return t


def _event_record(e: BaseEvent) -> dict[str, Any]:
    """The event as JSON, without what the page holds elsewhere (document text, spans)."""
    d = event_to_dict(e)
    if e.type == "text_blob":
        d["text"] = f"({len(d['text'])} characters; shown with the document)"
    elif e.type == "document_read":
        d["sentences"] = f"({len(d['sentences'])} sentence spans; shown with the document)"
    return d


def _phases(events: list[BaseEvent]) -> list[tuple[str, int]]:
    """(phase, round) per event: `plan`, then `round` 1..n, then `verify` after the final stop.

    Only decisions and queries name their round; a status change between a `continue`
    and the next round's first angle belongs to that next round.
    """
    out = []
    phase, rnd = "plan", 0
    for e in events:
        if phase == "plan" and e.type != "plan_created":
            phase, rnd = "round", 1
        if e.type in ("angle_decision", "stop_decision", "follow_decision"):
            rnd = e.state.round  # type: ignore[attr-defined]
        elif e.type in ("query_issued", "hard_limit"):
            rnd = e.round  # type: ignore[attr-defined]
        out.append((phase, rnd if phase == "round" else 0))
        if e.type == "hard_limit" or e.type == "stop_decision" and e.choice == "stop":  # type: ignore[attr-defined]
            phase = "verify"
        elif e.type == "stop_decision":
            rnd += 1
    return out


def _docs(run: RunFile) -> dict[str, Any]:
    blobs = run.blobs()
    docs: dict[str, Any] = {}
    for e in run.of_type("document_read"):
        d: Any = e
        if d.status != "ok":
            continue
        docs[d.doc_id] = {
            "title": d.title, "url": d.url, "publisher": d.publisher, "published": d.published,
            "source_type": d.source_type, "text": blobs.get(d.text_digest or "", ""),
            "sentences": [[s.sid, s.start, s.end] for s in d.sentences],
        }
    return docs


def _claims(events: list[Any], report: Any) -> dict[str, Any]:
    claims: dict[str, Any] = {}
    queries_by_subq: dict[str, list[str]] = {}
    for e in events:
        if e.type == "query_issued" and e.subq:
            queries_by_subq.setdefault(e.subq, [])
            if e.query not in queries_by_subq[e.subq]:
                queries_by_subq[e.subq].append(e.query)
        elif e.type == "claim_drafted":
            c = e.claim
            claims[c.claim_id] = {"claim_id": c.claim_id, "subq": c.subq, "text": c.text, "drafted_text": c.text,
                                  "card_ids": list(c.card_ids), "verdicts": [], "rewrites": [], "dropped": None,
                                  "seq": e.seq}
        elif e.type == "evidence_bound" and e.claim_id in claims:
            claims[e.claim_id]["card_ids"] = list(e.card_ids)
        elif e.type == "verdict_reached" and e.record.claim_id in claims:
            claims[e.record.claim_id]["verdicts"].append({**e.record.model_dump(mode="json"), "pass": e.pass_,
                                                          "seq": e.seq})
        elif e.type == "claim_rewritten" and e.claim_id in claims:
            claims[e.claim_id]["rewrites"].append({"old_text": e.old_text, "new_text": e.new_text,
                                                   "reason": e.reason, "seq": e.seq})
            claims[e.claim_id]["text"] = e.new_text
        elif e.type == "claim_dropped" and e.claim_id in claims:
            claims[e.claim_id]["dropped"] = {"verdict": e.verdict, "reason": e.reason, "seq": e.seq}
    in_report = {c.claim_id: c for s in (report.sections if report else []) for c in s.claims}
    for cid, c in claims.items():
        c["searches"] = queries_by_subq.get(c["subq"], [])
        rc = in_report.get(cid)
        c["in_report"] = rc is not None
        c["weakened"] = bool(rc.weakened) if rc else bool(c["rewrites"])
        c["independent_sources"] = rc.independent_sources if rc else None
        c["confidence"] = rc.confidence if rc else None
        c["final_verdict"] = c["verdicts"][-1] if c["verdicts"] else None
    return claims


def run_view_data(run: RunFile, label: str = "") -> dict[str, Any]:
    """Everything the viewer renders for one run (see the module docstring)."""
    events: list[Any] = list(run.events)
    spec = run.header.spec
    plan = next((e.plan for e in events if e.type == "plan_created"), None)
    added = [e.sub_question for e in events if e.type == "subq_added"]
    report = next((e.report for e in reversed(events) if e.type == "report_written"), None)
    finished = next((e for e in events if e.type == "run_finished"), None)
    citations = {card.card_id: i for i, card in enumerate(report.evidence, start=1)} if report else {}
    cards: dict[str, Any] = {}
    for e in events:
        if e.type == "card_created":
            cards[e.card.card_id] = {**e.card.model_dump(mode="json"), "seq": e.seq, "number": citations.get(e.card.card_id)}
    if report:
        for card in report.evidence:  # a card of a resumed or foreign run may only be in the report
            cards.setdefault(card.card_id, {**card.model_dump(mode="json"), "seq": None,
                                            "number": citations.get(card.card_id)})
    claims = _claims(events, report)
    for cid, c in claims.items():
        for card_id in c["card_ids"]:
            if card_id in cards:
                cards[card_id].setdefault("cited_by", []).append(cid)
    subqs = {sq.id: {**sq.model_dump(mode="json"), "statuses": []} for sq in [*(plan.sub_questions if plan else []), *added]}
    for e in events:
        if e.type == "subq_status_changed" and e.subq in subqs:
            subqs[e.subq]["statuses"].append({"old": e.old, "new": e.new, "reason": e.reason, "seq": e.seq})
    records = []
    for e, (phase, rnd) in zip(events, _phases(events)):
        rec = {"seq": e.seq, "type": e.type, "subq": e.subq, "parent_seq": e.parent_seq, "phase": phase,
               "round": rnd, "summary": event_summary(e), "decision": e.type in DECISION_TYPES,
               "data": _event_record(e)}
        records.append(rec)
    return {
        "label": label,
        "run_id": run.run_id,
        "question": spec.question,
        "source": str(run.path) if run.path else None,
        "torn": run.torn,
        "problem": run.problem,
        "header": {
            "schema_version": run.header.schema_version, "seed": spec.seed,
            "planner": f"{spec.planner.name} {spec.planner.version}",
            "policies": {k: f"{v.name} {v.version}" for k, v in spec.policies.items()},
            "verifier": f"{spec.verifier.name} {spec.verifier.version}",
            "corpus": spec.corpus_source, "corpus_fingerprint": spec.corpus_fingerprint,
            "corpus_cutoff": spec.corpus_cutoff, "config_digest": spec.config_digest,
            "branch": spec.branch.model_dump(mode="json") if spec.branch else None,
        },
        "plan": plan.model_dump(mode="json") if plan else None,
        "subqs": subqs,
        "report": report.model_dump(mode="json", exclude={"evidence"}) if report else None,
        "citations": citations,
        "cards": cards,
        "claims": claims,
        "docs": _docs(run),
        "outcome": finished.outcome.model_dump(mode="json") if finished else None,
        "events": records,
    }
