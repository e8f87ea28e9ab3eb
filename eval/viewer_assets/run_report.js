// citeloop viewer, part 2 of 5: the report, its citations and the evidence panel.
"use strict";

function citeButton(run, cardId, claimId) {
  const card = run.cards[cardId];
  const number = run.citations[cardId] || (card && card.number) || "?";
  return el("button", {class: "cite", dataset: {card: cardId, claim: claimId || ""}, title: cardId,
                       text: "[" + number + "]", onclick: (ev) => {
                         for (const b of document.querySelectorAll("button.cite.selected")) b.classList.remove("selected");
                         ev.currentTarget.classList.add("selected");
                         openEvidence(run, cardId, claimId);
                       }});
}

function claimLine(run, rc) {
  const claim = run.claims[rc.claim_id] || {};
  const final = claim.final_verdict;
  return el("li", {class: "claim", dataset: {claim: rc.claim_id}},
    el("span", {class: "claim-text", text: rc.text}), " ",
    rc.citations.map((cid) => citeButton(run, cid, rc.claim_id)), " ",
    el("div", {class: "small muted"}, verdictBadge(rc.verdict),
       badge(rc.confidence + " evidence"), rc.independent_sources + " independent source(s)",
       final ? " · checker " + final.checker : "",
       rc.weakened ? badge("weakened", "warn") : null));
}

function renderReport(node) {
  const run = CL.run;
  const report = run.report;
  if (!report) {
    node.appendChild(el("div", {class: "box", text: "This run wrote no report" +
      (run.torn ? " (the file is torn: " + run.problem + ")." : ".")}));
    renderClaimFates(node, run);
    return;
  }
  const answer = report.answer;
  if (answer) {
    const cited = [];
    for (const sec of report.sections) for (const rc of sec.claims)
      if (answer.claim_ids.includes(rc.claim_id)) for (const cid of rc.citations) cited.push([cid, rc.claim_id]);
    node.appendChild(el("div", {class: "box answer"}, el("b", {text: "Answer: "}),
      answer.status === "answered"
        ? [el("span", {class: "answer-text", text: answer.text}), " ", cited.map(([c, cl]) => citeButton(run, c, cl)),
           el("div", {class: "small muted", text: answer.confidence + " evidence; " + answer.reason})]
        : el("span", {class: "muted", text: answer.status.replace("_", " ") + ": " + answer.reason +
            (answer.candidates.length ? " (candidates: " + answer.candidates.join(", ") + ")" : "")})));
  }
  if (Object.keys(report.resolved_entities || {}).length) {
    node.appendChild(el("div", {class: "box small"}, el("b", {text: "Entities found along the way: "}),
      Object.entries(report.resolved_entities).map(([sq, name]) => sq + " → " + name).join("; ")));
  }
  for (const sec of report.sections) {
    const list = el("ul", {class: "claims"});
    if (!sec.claims.length) list.appendChild(el("li", {class: "muted", text: "No claim in this section survived verification."}));
    for (const rc of sec.claims) list.appendChild(claimLine(run, rc));
    node.appendChild(section(sec.title, list));
  }
  if (report.disagreements.length) {
    const list = el("ul", {class: "claims"});
    for (const d of report.disagreements) {
      list.appendChild(el("li", {}, el("span", {text: d.text}), " ", d.card_ids.map((c) => citeButton(run, c, d.claim_id)),
        " contradicted by ", d.counter_card_ids.length ? d.counter_card_ids.map((c) => citeButton(run, c, d.claim_id)) : "its own evidence"));
    }
    node.appendChild(section("Disagreements", list));
  }
  renderClaimFates(node, run);
  renderGaps(node, run);
  const facts = [];
  for (const [text, ok] of Object.entries(report.premises || {})) facts.push(["premise: " + text, ok ? "verified" : "not verified"]);
  for (const a of report.assumptions) facts.push(["assumption", a]);
  facts.push(["corpus cut-off", report.corpus_cutoff || "undated corpus (no publication dates)"]);
  node.appendChild(section("Premises and assumptions", el("div", {class: "box"}, kvTable(facts))));
  const evidence = el("ol", {class: "small"});
  const numbered = Object.entries(run.citations).sort((a, b) => a[1] - b[1]);
  for (const [cardId] of numbered) {
    const card = run.cards[cardId];
    if (!card) continue;
    evidence.appendChild(el("li", {}, citeButton(run, cardId, (card.cited_by || [])[0]), " “", card.quote, "” — ",
                            card.title + ", " + card.publisher));
  }
  node.appendChild(section("Evidence", evidence));
}

function searchesList(queries) {
  if (!queries || !queries.length) return el("span", {class: "muted", text: "no search"});
  return el("ul", {class: "small searches"}, queries.map((q) => el("li", {}, el("code", {text: q}))));
}

function renderClaimFates(node, run) {
  const fates = Object.values(run.claims).filter((c) => c.weakened || c.dropped || c.rewrites.length);
  const box = el("div", {id: "claim-fates"});
  if (!fates.length) box.appendChild(el("div", {class: "box muted", text: "No claim was weakened or dropped."}));
  for (const c of fates) {
    const last = c.final_verdict;
    box.appendChild(el("div", {class: "box fate", dataset: {claim: c.claim_id}},
      el("div", {}, c.dropped ? badge("dropped", "bad") : badge("weakened", "warn"), el("b", {text: c.claim_id}), " · " + c.subq),
      c.rewrites.map((r) => el("div", {class: "small"}, el("s", {text: r.old_text}), " → ", el("span", {text: r.new_text}),
                                     el("span", {class: "muted", text: " (" + r.reason + ")"}))),
      c.rewrites.length ? null : el("div", {text: c.text}),
      c.dropped ? el("div", {class: "small"}, verdictBadge(c.dropped.verdict), c.dropped.reason) : null,
      last ? el("div", {class: "small muted"}, "last check: ", verdictBadge(last.verdict), "by " + last.checker + ": " + last.reason) : null,
      el("div", {class: "small"}, "evidence: ", c.card_ids.map((cid) => citeButton(run, cid, c.claim_id))),
      el("div", {class: "small"}, "searches behind it:"), searchesList(c.searches)));
  }
  node.appendChild(section("Weakened and dropped claims", box));
}

function renderGaps(node, run) {
  const box = el("div", {id: "gaps"});
  const gaps = run.report ? run.report.gaps : [];
  const deadEnds = run.events.filter((e) => e.type === "dead_end");
  if (!gaps.length && !deadEnds.length) box.appendChild(el("div", {class: "box muted", text: "Every sub-question found evidence."}));
  for (const g of gaps) {
    box.appendChild(el("div", {class: "box gap", dataset: {subq: g.subq}},
      el("div", {}, badge(g.status, g.status === "dead_end" ? "bad" : "warn"), el("b", {text: g.subq}), " ", g.question),
      el("div", {class: "small muted", text: g.note}), el("div", {class: "small", text: "searches tried:"}),
      searchesList(g.queries_tried)));
  }
  for (const e of deadEnds) {
    box.appendChild(el("div", {class: "box dead-end"},
      el("div", {}, badge("dead end", "bad"), el("b", {text: e.subq || ""}), " " + e.data.reason),
      el("div", {class: "small", text: "angles: " + e.data.angles_tried.join(", ")}), searchesList(e.data.queries_tried)));
  }
  node.appendChild(section("Gaps and dead ends", box));
}

// ------------------------------------------------------------------ evidence panel

// The quote inside its context: three text nodes, the middle one inside <mark>.
function highlighted(context, quote) {
  const at = quote ? context.indexOf(quote) : -1;
  if (at < 0) return [el("mark", {class: "ev-quote", text: quote}), context ? el("div", {class: "muted small", text: context}) : null];
  return [context.slice(0, at), el("mark", {class: "ev-quote", text: quote}), context.slice(at + quote.length)];
}

function documentView(doc, sentenceIds) {
  const wanted = new Set(sentenceIds);
  const box = el("div", {class: "doc-text"});
  let pos = 0;
  for (const [sid, start, end] of doc.sentences) {
    if (!wanted.has(sid)) continue;
    box.appendChild(document.createTextNode(doc.text.slice(pos, start)));
    box.appendChild(el("mark", {text: doc.text.slice(start, end)}));
    pos = end;
  }
  box.appendChild(document.createTextNode(doc.text.slice(pos)));
  return box;
}

function openEvidence(run, cardId, claimId) {
  const panel = clear(document.getElementById("evidence-panel"));
  panel.hidden = false;
  const card = run.cards[cardId];
  panel.appendChild(el("div", {class: "filters"}, el("b", {text: "Evidence " + (card && card.number ? "[" + card.number + "]" : cardId)}),
                       el("span", {style: "flex:1"}), el("button", {class: "small-btn", id: "close-evidence", text: "close", onclick: closeEvidence})));
  if (!card) {
    panel.appendChild(el("div", {class: "box", text: "Card " + cardId + " is not in this run file."}));
    return panel;
  }
  const g = card.grade;
  const claim = claimId ? run.claims[claimId] : null;
  const reportClaim = claimId && run.report ? run.report.sections.flatMap((s) => s.claims).find((c) => c.claim_id === claimId) : null;
  panel.appendChild(el("blockquote", {class: "ev-context"}, highlighted(card.context, card.quote)));
  const doc = run.docs[card.doc_id];
  if (doc) {
    const holder = el("div");
    panel.appendChild(el("button", {class: "small-btn", text: "show in the whole document", onclick: (ev) => {
      ev.currentTarget.remove(); holder.appendChild(documentView(doc, card.sentence_ids)); }}));
    panel.appendChild(holder);
  }
  panel.appendChild(el("h3", {text: "Source"}));
  panel.appendChild(kvTable([["title", card.title], ["publisher", card.publisher], ["date", card.published || "undated"],
    ["type", card.evidence_type], ["address", safeLink(card.url)], ["document", card.doc_id + " · " + card.sentence_ids.join(", ")]]));
  panel.appendChild(el("h3", {text: "Grading"}));
  panel.appendChild(el("div", {class: "grades"},
    [["authority", g.authority], ["freshness", g.freshness], ["primacy", g.primacy], ["relevance", fmtNum(g.relevance)]]
      .map(([k, v]) => el("div", {}, el("b", {text: k}), v))));
  panel.appendChild(el("h3", {text: "Independence"}));
  panel.appendChild(kvTable([
    ["independent sources", reportClaim ? reportClaim.independent_sources + " (for this claim)" :
      (claim && claim.independent_sources !== null ? claim.independent_sources : "–")],
    ["source cluster", card.cluster_id],
    ["mirrors", card.mirrors.length ? card.mirrors.join(", ") : "none"],
    ["conflicts with", card.conflicts_with.length ? el("span", {}, card.conflicts_with.map((c) => citeButton(run, c, claimId))) : "none"]]));
  panel.appendChild(el("h3", {text: "Verdict"}));
  const claims = claimId ? [claimId, ...(card.cited_by || []).filter((c) => c !== claimId)] : (card.cited_by || []);
  if (!claims.length) panel.appendChild(el("div", {class: "muted", text: "No claim cites this card."}));
  for (const cid of claims) {
    const c = run.claims[cid];
    if (!c) continue;
    const v = c.final_verdict;
    panel.appendChild(el("div", {class: "box verdict" + (cid === claimId ? " this-claim" : ""), dataset: {claim: cid}},
      el("div", {class: "small muted", text: (cid === claimId ? "the claim you clicked" : "also cited by") + " · " + cid}),
      el("div", {text: c.text}),
      v ? el("div", {}, verdictBadge(v.verdict), el("span", {class: "checker", text: "checker: " + v.checker}),
             el("div", {class: "small", text: v.reason + " (support " + fmtNum(v.support) + ", pass " + v.pass + ")"}),
             v.missing_terms.length ? el("div", {class: "small muted", text: "missing terms: " + v.missing_terms.join(", ")}) : null)
        : el("div", {class: "muted", text: "not checked"}),
      c.dropped ? el("div", {}, badge("dropped", "bad"), c.dropped.reason) : null));
  }
  if (card.seq !== null && card.seq !== undefined) {
    panel.appendChild(el("p", {}, el("button", {class: "linkish", text: "show the card in the timeline (seq " + card.seq + ")",
                                                onclick: () => revealEvent(card.seq)})));
  }
  return panel;
}
