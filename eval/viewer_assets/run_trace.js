// citeloop viewer, part 3 of 5: timeline, decision inspector, event search, diff, run facts.
"use strict";

const HIDDEN_IN_TIMELINE = new Set(["text_blob", "run_meta"]);

function divergenceSeq() {
  const diff = CL.data.diff;
  return diff && diff.first_divergence ? diff.first_divergence.seq : null;
}

function phaseTitle(e) {
  if (e.phase === "plan") return "Plan";
  if (e.phase === "verify") return "Claims, verdicts and report";
  return "Round " + e.round;
}

function timelineEvent(run, e) {
  const cls = ["tl-event", e.decision ? "decision" : "", e.type === "card_rejected" ? "rejected" : "",
               e.type === "card_created" ? "accepted" : "", e.seq === divergenceSeq() ? "diverge" : ""].join(" ");
  const row = el("div", {class: cls, dataset: {seq: e.seq, type: e.type}},
    el("span", {class: "seq", text: "#" + e.seq}), badge(e.type), el("span", {class: "summary", text: e.summary}));
  if (e.type === "card_created") {
    row.appendChild(el("button", {class: "linkish small", text: "evidence", onclick: () => openEvidence(run, e.data.card.card_id, (run.cards[e.data.card.card_id].cited_by || [])[0])}));
  } else if (e.decision) {
    row.appendChild(el("button", {class: "linkish small", text: "inspect", onclick: () => inspectDecision(e.seq)}));
  } else if (e.type === "verdict_reached") {
    row.insertBefore(verdictBadge(e.data.record.verdict), row.lastChild);
  }
  if (e.type === "search_result" && e.data.response.hits.length) {
    row.appendChild(el("details", {class: "small"}, el("summary", {text: "hits"}),
      el("ol", {}, e.data.response.hits.map((h) => el("li", {}, el("b", {text: h.title}), " (" + h.doc_id + ", " + fmtNum(h.score) + ") ", el("span", {class: "muted", text: h.snippet}))))));
  }
  if (e.type === "stop_decision") {
    row.appendChild(el("details", {class: "small"}, el("summary", {text: "signals"}), signalsTable(e.data.state)));
  }
  return row;
}

function signalsTable(state) {
  return kvTable(Object.entries(state).map(([k, v]) => [k, Array.isArray(v) ? (v.join(", ") || "–") : (typeof v === "boolean" ? (v ? "yes" : "no") : v)]));
}

function renderTimeline(node) {
  const run = CL.run;
  const groups = [];
  for (const e of run.events) {
    if (HIDDEN_IN_TIMELINE.has(e.type)) continue;
    const key = e.phase + ":" + e.round;
    let group = groups[groups.length - 1];
    if (!group || group.key !== key) groups.push(group = {key, title: phaseTitle(e), lanes: new Map()});
    const lane = e.subq || "run";
    if (!group.lanes.has(lane)) group.lanes.set(lane, []);
    group.lanes.get(lane).push(e);
  }
  node.appendChild(el("p", {class: "muted small", text: "Events by round and sub-question (document text blobs and wall-clock data are in Events)."}));
  for (const group of groups) {
    const box = el("div", {class: "round", dataset: {phase: group.key}}, el("h3", {text: group.title}));
    for (const [lane, events] of group.lanes) {
      const sq = run.subqs[lane];
      box.appendChild(el("div", {class: "lane", dataset: {subq: lane}},
        el("h4", {text: lane === "run" ? "whole run" : lane + (sq ? ": " + sq.question : "")}),
        events.map((e) => timelineEvent(run, e))));
    }
    node.appendChild(box);
  }
}

function revealEvent(seq) {
  const view = showView("timeline");
  flash(view.querySelector('.tl-event[data-seq="' + seq + '"]'));
}

// ------------------------------------------------------------------ decisions

function llmFields(data) {
  const out = [];
  for (const source of [data, data.llm || {}, data.state || {}]) {
    for (const key of CL.data.llm_fields) {
      if (source[key] !== undefined && source[key] !== null && !out.some(([k]) => k === key)) out.push([key, source[key]]);
    }
  }
  return out;
}

function candidatesTable(e) {
  const d = e.data;
  const table = el("table", {class: "grid candidates"});
  if (e.type === "angle_decision") {
    table.appendChild(el("tr", {}, el("th", {text: "#"}), el("th", {text: "angle"}), el("th", {text: "query"})));
    d.candidates.forEach((q, i) => table.appendChild(el("tr", {class: i === d.choice ? "chosen" : ""},
      el("td", {text: i}), el("td", {text: d.angles[i] || ""}), el("td", {text: q}))));
  } else if (e.type === "read_decision") {
    const hits = new Map(d.state.hits.map((h) => [h.doc_id, h]));
    table.appendChild(el("tr", {}, el("th", {text: "doc"}), el("th", {text: "title"}), el("th", {class: "num", text: "score"}), el("th", {text: "read before"})));
    for (const id of d.candidates) {
      const h = hits.get(id) || {};
      table.appendChild(el("tr", {class: d.choice.includes(id) ? "chosen" : ""}, el("td", {text: id}), el("td", {text: h.title || ""}),
        el("td", {class: "num", text: fmtNum(h.score)}), el("td", {text: d.state.already_read.includes(id) ? "yes" : ""})));
    }
  } else if (e.type === "follow_decision") {
    table.appendChild(el("tr", {}, el("th", {text: "#"}), el("th", {text: "follow"}), el("th", {class: "num", text: "score"}), el("th", {text: "named in"})));
    d.candidates.forEach((c, i) => table.appendChild(el("tr", {class: i === d.choice ? "chosen" : ""},
      el("td", {text: i}), el("td", {text: c.names.join(" + ")}), el("td", {class: "num", text: fmtNum(c.score)}),
      el("td", {text: c.title ? c.title + ": " + c.quote : "(searched together)"}))));
  } else if (e.type === "keep_decision") {
    table.appendChild(el("tr", {}, el("th", {text: "sentence"}), el("th", {class: "num", text: "relevance"}), el("th", {text: "text"})));
    for (const c of d.candidates) {
      table.appendChild(el("tr", {class: d.choice.includes(c.sid) ? "chosen" : ""}, el("td", {text: c.sid}),
        el("td", {class: "num", text: fmtNum(c.relevance)}), el("td", {text: c.text})));
    }
  } else {
    table.appendChild(el("tr", {}, el("th", {text: "candidate"})));
    for (const c of d.candidates || []) table.appendChild(el("tr", {class: c === d.choice ? "chosen" : ""}, el("td", {text: typeof c === "string" ? c : JSON.stringify(c)})));
  }
  return table;
}

function renderInspector(box, e) {
  clear(box);
  const d = e.data;
  const choice = Array.isArray(d.choice) ? (d.choice.join(", ") || "(none)")
    : (e.type === "angle_decision" ? d.choice + " (" + d.angles[d.choice] + ")"
      : e.type === "follow_decision" ? d.choice + " (" + d.candidates[d.choice].names.join(" + ") + ")" : String(d.choice));
  box.appendChild(el("h3", {text: e.type + " #" + e.seq}));
  box.appendChild(kvTable([["policy", d.policy ? d.policy.name + " " + d.policy.version : "–"], ["sub-question", e.subq || "–"],
    ["round", e.phase === "round" ? e.round : e.phase], ["choice", choice], ["reason", d.reason || "–"]]));
  box.appendChild(el("h4", {text: "Candidates (" + (d.candidates || []).length + ")"}));
  box.appendChild(candidatesTable(e));
  box.appendChild(el("h4", {text: "State the policy saw"}));
  if (e.type === "stop_decision") box.appendChild(signalsTable(d.state));
  else if (e.type === "keep_decision") box.appendChild(kvTable([["document", d.doc_id]]));
  else box.appendChild(jsonBlock(d.state));
  const llm = llmFields(d);
  box.appendChild(el("h4", {text: "Model call"}));
  if (!llm.length) box.appendChild(el("div", {class: "muted small", text: "No prompt, completion or logprobs: " + (d.policy ? d.policy.name : "this") + " is not an LLM policy."}));
  for (const [key, value] of llm) {
    box.appendChild(el("div", {class: "llm-field", dataset: {field: key}}, el("b", {text: key}),
      el("pre", {class: "llm", text: typeof value === "string" ? value : JSON.stringify(value, null, 2)})));
  }
}

function renderDecisions(node) {
  const run = CL.run;
  const decisions = run.events.filter((e) => e.decision);
  const list = el("div", {class: "list", id: "decision-list"});
  const box = el("div", {class: "detail box", id: "decision-inspector"});
  for (const e of decisions) {
    const d = e.data;
    const choice = Array.isArray(d.choice) ? d.choice.length + " chosen" : (e.type === "angle_decision" ? d.angles[d.choice]
      : e.type === "follow_decision" ? d.candidates[d.choice].names.join(" + ") : d.choice);
    list.appendChild(el("div", {class: "decision-item" + (e.seq === divergenceSeq() ? " diverge" : ""), dataset: {seq: e.seq},
      onclick: () => inspectDecision(e.seq)},
      el("span", {class: "muted", text: "#" + e.seq + " "}), el("b", {text: e.type.replace("_decision", "")}),
      " " + (e.subq || "") + " · " + d.policy.name + " → " + choice));
  }
  if (!decisions.length) box.appendChild(el("div", {class: "muted", text: "This run recorded no decisions."}));
  node.appendChild(el("div", {class: "split"}, list, box));
  if (decisions.length) selectDecision(node, decisions[0].seq);
}

function selectDecision(node, seq) {
  const e = CL.run.events.find((x) => x.seq === seq);
  for (const item of node.querySelectorAll(".decision-item")) item.classList.toggle("active", Number(item.dataset.seq) === seq);
  renderInspector(node.querySelector("#decision-inspector"), e);
}

function inspectDecision(seq) {
  const view = showView("decisions");
  selectDecision(view, seq);
  const item = view.querySelector('.decision-item[data-seq="' + seq + '"]');
  if (item) item.scrollIntoView({block: "nearest"});
}

// ------------------------------------------------------------------ event search

function renderEvents(node) {
  const run = CL.run;
  const types = [...new Set(run.events.map((e) => e.type))].sort();
  const subqs = [...new Set(run.events.map((e) => e.subq).filter(Boolean))].sort();
  const search = el("input", {type: "search", id: "event-search", placeholder: "search events (summary and JSON)…"});
  const typeSel = el("select", {id: "event-type"}, el("option", {value: "", text: "all types"}), types.map((t) => el("option", {value: t, text: t})));
  const subqSel = el("select", {id: "event-subq"}, el("option", {value: "", text: "all sub-questions"}), subqs.map((s) => el("option", {value: s, text: s})));
  const onlyDecisions = el("input", {type: "checkbox", id: "event-decisions"});
  const count = el("span", {class: "muted small", id: "event-count"});
  const list = el("div", {id: "event-list"});
  const haystack = new Map();
  const rows = run.events.map((e) => {
    const row = el("div", {class: "event-row" + (e.seq === divergenceSeq() ? " diverge" : ""), dataset: {seq: e.seq, type: e.type}});
    const line = el("div", {class: "line"}, el("span", {class: "seq", text: "#" + e.seq}),
      el("span", {class: "rnd", text: e.phase === "round" ? "round " + e.round : e.phase}),
      el("span", {class: "type", text: e.type}), el("span", {class: "muted", text: e.subq || ""}), el("span", {class: "summary", text: e.summary}));
    line.addEventListener("click", () => {
      const open = row.querySelector("pre.json");
      if (open) open.remove(); else row.appendChild(jsonBlock(e.data));
      row.classList.toggle("selected", !open);
    });
    row.appendChild(line);
    list.appendChild(row);
    return [e, row];
  });
  const apply = () => {
    const q = search.value.trim().toLowerCase();
    let shown = 0;
    for (const [e, row] of rows) {
      let ok = (!typeSel.value || e.type === typeSel.value) && (!subqSel.value || e.subq === subqSel.value) && (!onlyDecisions.checked || e.decision);
      if (ok && q) {
        if (!haystack.has(e.seq)) haystack.set(e.seq, (e.summary + " " + JSON.stringify(e.data)).toLowerCase());
        ok = haystack.get(e.seq).includes(q);
      }
      row.hidden = !ok;
      shown += ok ? 1 : 0;
    }
    count.textContent = shown + " of " + rows.length + " events";
  };
  for (const input of [search, typeSel, subqSel, onlyDecisions]) input.addEventListener("input", apply);
  node.appendChild(el("div", {class: "filters"}, search, typeSel, subqSel, el("label", {}, onlyDecisions, " decisions only"), count));
  node.appendChild(list);
  apply();
}

// ------------------------------------------------------------------ diff and run facts

function diffEvidence(run, keys) {
  if (!keys.length) return el("div", {class: "muted", text: "none"});
  return el("ul", {}, keys.map((k) => {
    const card = Object.values(run.cards).find((c) => c.doc_id === k.doc_id && c.sentence_ids.join() === k.sentence_ids.join());
    return el("li", {}, el("b", {text: k.doc_id + " " + k.sentence_ids.map((s) => s.split("#").pop()).join(",")}), card ? " “" + card.quote + "”" : "");
  }));
}

function renderDiff(node) {
  const diff = CL.data.diff;
  const [a, b] = CL.data.runs;
  const fd = diff.first_divergence;
  const head = el("div", {class: "box", id: "divergence"});
  if (diff.identical) head.appendChild(el("b", {text: "Event streams identical (apart from run ids)."}));
  else if (fd) {
    head.appendChild(el("div", {}, el("b", {text: "First divergence at seq " + fd.seq + ": "}),
      (fd.before_type || "(ended)") + " → " + (fd.after_type || "(ended)") + (fd.fields.length ? " in " + fd.fields.join(", ") : "")));
    const pair = el("table", {class: "grid"}, el("tr", {}, el("th", {text: "A " + a.run_id}), el("th", {text: "B " + b.run_id})));
    const ea = a.events.find((e) => e.seq === fd.seq), eb = b.events.find((e) => e.seq === fd.seq);
    pair.appendChild(el("tr", {class: "diverge"}, [ea, eb].map((e) => el("td", {}, e ? [badge(e.type), e.summary, jsonBlock(e.data)] : "(ended)"))));
    head.appendChild(pair);
  }
  node.appendChild(section("Replay diff: A → B", head));
  node.appendChild(el("div", {class: "box"}, el("h3", {text: "Queries"}),
    kvTable([["added in B", diff.queries_added.join(" | ") || "none"], ["removed in B", diff.queries_removed.join(" | ") || "none"]])));
  node.appendChild(el("div", {class: "box", id: "evidence-gained"}, el("h3", {text: "Evidence gained (" + diff.evidence_gained.length + ")"}), diffEvidence(b, diff.evidence_gained)));
  node.appendChild(el("div", {class: "box", id: "evidence-lost"}, el("h3", {text: "Evidence lost (" + diff.evidence_lost.length + ")"}), diffEvidence(a, diff.evidence_lost)));
  const verdicts = el("table", {class: "grid", id: "verdicts-changed"}, el("tr", {}, el("th", {text: "claim"}), el("th", {text: "A"}), el("th", {text: "B"})));
  for (const v of diff.verdicts_changed) {
    const claim = b.claims[v.claim_id] || a.claims[v.claim_id];
    verdicts.appendChild(el("tr", {}, el("td", {text: claim ? claim.text : v.claim_id}), el("td", {}, verdictBadge(v.before)), el("td", {}, verdictBadge(v.after))));
  }
  node.appendChild(el("div", {class: "box"}, el("h3", {text: "Verdicts changed (" + diff.verdicts_changed.length + ")"}), verdicts));
  const stop = (s) => "round " + fmtNum(s.round) + ", " + (s.choice || "–") + " by " + (s.policy || "–") + ": " + (s.reason || "–");
  const metrics = el("table", {class: "grid"}, el("tr", {}, el("th", {text: "metric"}), el("th", {class: "num", text: "A"}), el("th", {class: "num", text: "B"})));
  const before = {...diff.counts_before, ...diff.metrics_before}, after = {...diff.counts_after, ...diff.metrics_after};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    metrics.appendChild(el("tr", {class: before[key] === after[key] ? "" : "diverge"}, el("td", {text: key}),
      el("td", {class: "num", text: fmtNum(before[key])}), el("td", {class: "num", text: fmtNum(after[key])})));
  }
  node.appendChild(el("div", {class: "box"}, el("h3", {text: "Stop point"}), kvTable([["A", stop(diff.stop_before)], ["B", stop(diff.stop_after)]]), metrics));
}

function renderRunInfo(node) {
  const run = CL.run;
  const h = run.header;
  node.appendChild(section("Run", el("div", {class: "box"}, kvTable([["run id", run.run_id], ["file", run.source || "–"],
    ["schema version", h.schema_version], ["seed", h.seed], ["planner", h.planner],
    ...Object.entries(h.policies).map(([k, v]) => ["policy " + k, v]), ["verifier", h.verifier], ["corpus", h.corpus],
    ["corpus fingerprint", h.corpus_fingerprint], ["config digest", h.config_digest],
    ["branch", h.branch ? JSON.stringify(h.branch) : "–"], ["torn", run.torn ? "yes: " + run.problem : "no"]]))));
  if (run.outcome) node.appendChild(section("Outcome", el("div", {class: "box"}, kvTable([["status", run.outcome.status], ["stop reason", run.outcome.stop_reason],
    ...Object.entries(run.outcome.counts), ...Object.entries(run.outcome.metrics)]))));
  const table = el("table", {class: "grid"}, el("tr", {}, ["id", "axis", "question", "query", "need", "statuses"].map((t) => el("th", {text: t}))));
  for (const sq of Object.values(run.subqs)) {
    table.appendChild(el("tr", {}, el("td", {text: sq.id}), el("td", {text: sq.axis}), el("td", {text: sq.question}),
      el("td", {}, el("code", {text: sq.search_query})), el("td", {text: sq.need}),
      el("td", {text: sq.statuses.map((s) => s.new).join(" → ")})));
  }
  node.appendChild(section("Sub-questions", table));
}
