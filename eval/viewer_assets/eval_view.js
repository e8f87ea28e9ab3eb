// citeloop viewer, part 4 of 5: the evaluation page (`citeloop view --eval eval.json`).
"use strict";

const EVAL_METRICS = ["retrieved_recall", "carded_recall", "cited_recall", "cited_precision", "all_gold_retrieved",
  "all_gold_cited", "search_hit_recall", "named_hop_recall", "bridge_hop_recall", "sp_em", "sp_f1", "sp_prec", "sp_recall",
  "citation_correctness", "coverage", "unsupported_claim_rate", "partial_rate", "citation_recall_alce",
  "citation_precision_alce", "answer_in_report"];
const EVAL_COSTS = ["searches_per_q", "reads_per_q", "model_calls_per_q", "tokens_per_q", "wall_s", "wall_ratio"];
const CHART_METRICS = ["retrieved_recall", "cited_recall", "cited_precision", "all_gold_retrieved", "citation_correctness", "coverage", "answer_in_report"];
const PALETTE = ["#2456a6", "#d9822b", "#2e8b57", "#b3261e", "#7a4eb3", "#5d6875"];

function pct(v) { return v === null || v === undefined ? "–" : (100 * v).toFixed(1); }

function barChart(policies, metrics) {
  const names = Object.keys(policies);
  const w = 90 + metrics.length * (names.length * 16 + 22), h = 280, top = 16, bottom = 200;
  const svg = svgEl("svg", {class: "chart", id: "eval-bars", width: w, height: h, viewBox: "0 0 " + w + " " + h});
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    const y = bottom - t * (bottom - top);
    svg.appendChild(svgEl("line", {x1: 40, x2: w - 6, y1: y, y2: y, stroke: "#e3e6ea"}));
    svg.appendChild(svgEl("text", {x: 34, y: y + 4, "text-anchor": "end", text: (100 * t).toFixed(0)}));
  }
  metrics.forEach((m, i) => {
    const x0 = 50 + i * (names.length * 16 + 22);
    names.forEach((name, j) => {
      const v = policies[name][m];
      if (v === null || v === undefined) return;
      const y = bottom - v * (bottom - top);
      svg.appendChild(svgEl("rect", {x: x0 + j * 16, y, width: 13, height: bottom - y, fill: PALETTE[j % PALETTE.length]},
        svgEl("title", {text: name + " " + m + ": " + pct(v) + "%"})));
    });
    svg.appendChild(svgEl("text", {x: x0, y: bottom + 14, transform: "rotate(20 " + x0 + " " + (bottom + 14) + ")", text: m}));
  });
  return svg;
}

function scatterChart(policies, baseline) {
  const w = 460, h = 240, left = 46, right = 120, top = 14, bottom = 200;
  const points = Object.entries(policies).map(([name, r], j) => ({name, x: r.searches_per_q, y: r.retrieved_recall, j}))
    .filter((p) => typeof p.x === "number" && typeof p.y === "number");
  if (baseline && typeof baseline.doc_recall === "number") points.push({name: "BM25 top-" + baseline.k, x: 1, y: baseline.doc_recall, j: -1});
  const maxX = Math.max(1, ...points.map((p) => p.x)) * 1.1;
  const svg = svgEl("svg", {class: "chart", id: "eval-scatter", width: w, height: h + 20, viewBox: "0 0 " + w + " " + (h + 20)});
  svg.appendChild(svgEl("line", {x1: left, x2: w - right, y1: bottom, y2: bottom, stroke: "#999"}));
  svg.appendChild(svgEl("line", {x1: left, x2: left, y1: top, y2: bottom, stroke: "#999"}));
  for (const t of [0, 0.5, 1]) {
    svg.appendChild(svgEl("text", {x: left - 6, y: bottom - t * (bottom - top) + 4, "text-anchor": "end", text: 100 * t}));
  }
  for (const t of [0, 0.5, 1]) {
    svg.appendChild(svgEl("text", {x: left + t * (w - left - right), y: bottom + 14, "text-anchor": "middle", text: fmtNum(t * maxX, 1)}));
  }
  svg.appendChild(svgEl("text", {x: (w + left) / 2, y: bottom + 30, "text-anchor": "middle", text: "searches per question"}));
  svg.appendChild(svgEl("text", {x: 12, y: (top + bottom) / 2, transform: "rotate(-90 12 " + (top + bottom) / 2 + ")", "text-anchor": "middle", text: "retrieved recall %"}));
  for (const p of points) {
    const cx = left + (p.x / maxX) * (w - left - right), cy = bottom - p.y * (bottom - top);
    svg.appendChild(svgEl("circle", {cx, cy, r: 5, fill: p.j < 0 ? "#888" : PALETTE[p.j % PALETTE.length]}, svgEl("title", {text: p.name})));
    // Points often share a spot (same recall): stagger their labels.
    svg.appendChild(svgEl("text", {x: cx + 7, y: cy + 4 + 12 * (points.indexOf(p) % 3), text: p.name + " (" + pct(p.y) + ")"}));
  }
  return svg;
}

function legend(names) {
  return el("div", {class: "legend"}, names.map((n, j) => el("span", {}, el("i", {style: "background:" + PALETTE[j % PALETTE.length]}), n)));
}

function policyTable(ev) {
  const policies = ev.policies;
  const metrics = EVAL_METRICS.filter((m) => Object.values(policies).some((r) => r[m] !== undefined));
  const costs = EVAL_COSTS.filter((m) => Object.values(policies).some((r) => r[m] !== undefined));
  const table = el("table", {class: "grid", id: "eval-table"},
    el("tr", {}, el("th", {text: "policy"}), el("th", {text: "planner"}), metrics.map((m) => el("th", {class: "num", text: m + " %"})),
       costs.map((m) => el("th", {class: "num", text: m}))));
  for (const [name, r] of Object.entries(policies)) {
    table.appendChild(el("tr", {dataset: {policy: name}}, el("td", {}, el("b", {text: name})), el("td", {text: r.planner || ""}),
      metrics.map((m) => el("td", {class: "num", text: pct(r[m])})), costs.map((m) => el("td", {class: "num", text: fmtNum(r[m])}))));
  }
  const base = ev.bm25_baseline;
  if (base) {
    table.appendChild(el("tr", {class: "muted"}, el("td", {text: "BM25 top-" + base.k}), el("td", {text: "–"}),
      metrics.map((m) => el("td", {class: "num", text: m === "retrieved_recall" ? pct(base.doc_recall) : (m === "all_gold_retrieved" ? pct(base.all_gold) : "–")})),
      costs.map((m) => el("td", {class: "num", text: m === "searches_per_q" ? "1" : "–"}))));
  }
  return table;
}

function questionDrilldown(ev) {
  const names = Object.keys(ev.policies);
  const byQ = new Map();
  for (const name of names) {
    for (const row of ev.policies[name].per_question || []) {
      if (!byQ.has(row.qid)) byQ.set(row.qid, {qid: row.qid, type: row.type, rows: {}});
      byQ.get(row.qid).rows[name] = row;
    }
  }
  const detail = el("div", {class: "detail box", id: "question-detail"}, el("div", {class: "muted", text: "Click a question to see every policy's run on it."}));
  const table = el("table", {class: "grid", id: "question-table"},
    el("tr", {}, el("th", {text: "question"}), el("th", {text: "type"}), names.map((n) => el("th", {class: "num", text: n + " cited R %"}))));
  const runs = new Map(CL.data.runs.map((r) => [r.run_id, r]));
  for (const q of byQ.values()) {
    table.appendChild(el("tr", {class: "clickable", dataset: {qid: q.qid}, onclick: () => {
      clear(detail).appendChild(el("h3", {text: "Question " + q.qid + (q.type ? " (" + q.type + ")" : "")}));
      for (const name of names) {
        const row = q.rows[name];
        if (!row) continue;
        const run = runs.get(row.run_id);
        detail.appendChild(el("div", {class: "box", dataset: {policy: name}}, el("h4", {text: name}),
          run ? el("button", {class: "small-btn open-run", text: "open run " + row.run_id, onclick: () => openRun(run.run_id)})
              : el("div", {class: "small muted", text: "run " + row.run_id + " (not embedded; pass --runs DIR with its run file)"}),
          kvTable(Object.entries(row).map(([k, v]) => [k, Array.isArray(v) ? (v.join(", ") || "–") : v]))));
      }
    }}, el("td", {text: q.qid}), el("td", {text: q.type || ""}),
      names.map((n) => el("td", {class: "num", text: q.rows[n] ? pct(q.rows[n].cited_recall) : "–"}))));
  }
  return el("div", {class: "split"}, el("div", {class: "list"}, table), detail);
}

function verificationView(v) {
  const labels = Object.keys(v.confusion || {});
  const predicted = [...new Set(labels.flatMap((g) => Object.keys(v.confusion[g])))];
  const confusion = el("table", {class: "grid", id: "confusion"}, el("tr", {}, el("th", {text: "gold \\ predicted"}), predicted.map((p) => el("th", {class: "num", text: p}))));
  for (const g of labels) confusion.appendChild(el("tr", {}, el("th", {text: g}), predicted.map((p) => el("td", {class: "num", text: v.confusion[g][p] || 0}))));
  const perClass = el("table", {class: "grid"}, el("tr", {}, ["label", "precision", "recall", "f1", "n"].map((t, i) => el("th", {class: i ? "num" : "", text: t}))));
  for (const [label, s] of Object.entries(v.per_class || {})) {
    perClass.appendChild(el("tr", {}, el("td", {text: label}), ["precision", "recall", "f1", "support"].map((k) => el("td", {class: "num", text: fmtNum(s[k])}))));
  }
  const failures = el("div", {}, (v.failures || []).map((f) => el("div", {class: "box small"},
    el("b", {text: f.gold + " → " + f.predicted + " (" + f.count + ")"}), " by " + Object.keys(f.by_verdict || {}).join(", "),
    el("ul", {}, (f.examples || []).map((x) => el("li", {text: x.claim_id + ": " + x.claim + " [" + x.verdict + "/" + x.checker + "]"}))))));
  return el("div", {}, el("div", {class: "box"}, kvTable([["verifier", v.verifier ? v.verifier.name + " " + v.verifier.version : "–"],
    ["claims", v.claims], ["pairs", v.pairs], ["accuracy", fmtNum(v.accuracy, 3)], ["macro F1", fmtNum(v.macro_f1, 3)],
    ["majority baseline", v.majority ? v.majority.label + ": accuracy " + fmtNum(v.majority.accuracy, 3) + ", macro F1 " + fmtNum(v.majority.macro_f1, 3) : "–"]])),
    el("h3", {text: "Confusion"}), confusion, el("h3", {text: "Per class"}), perClass, el("h3", {text: "Most frequent errors"}), failures);
}

function renderEval(node) {
  const ev = CL.data.eval;
  const ds = ev.dataset;
  node.appendChild(section("Evaluation: " + ds.name, el("div", {class: "box"}, kvTable([["task", ev.task], ["questions", ds.questions],
    ["gold level", ds.level || "–"], ["corpus", (ds.corpus || "–") + " (" + fmtNum(ds.documents) + " documents)"], ["seed", ev.seed],
    ["budget", ev.budget ? Object.entries(ev.budget).map(([k, v]) => k + " " + v).join(", ") : "–"],
    ["config digest", ev.config_digest || "–"], ["wall time (s)", ev.wall_s], ["notes", ds.notes || "–"]]))));
  if (ev.verification) {
    node.appendChild(verificationView(ev.verification));
    return;
  }
  const names = Object.keys(ev.policies);
  node.appendChild(el("h2", {text: "Policies side by side (recall and precision in %)"}));
  node.appendChild(el("div", {class: "scroll-x"}, policyTable(ev)));
  node.appendChild(el("h2", {text: "Charts"}));
  node.appendChild(legend(names));
  node.appendChild(el("div", {}, barChart(ev.policies, CHART_METRICS.filter((m) => names.some((n) => ev.policies[n][m] !== undefined))),
                          scatterChart(ev.policies, ev.bm25_baseline)));
  const types = [...new Set(names.flatMap((n) => Object.keys(ev.policies[n].by_type || {})))];
  if (types.length) {
    const t = el("table", {class: "grid"}, el("tr", {}, el("th", {text: "type"}), names.map((n) => el("th", {class: "num", text: n + " all gold retrieved %"}))));
    for (const ty of types) t.appendChild(el("tr", {}, el("td", {text: ty}), names.map((n) => el("td", {class: "num", text: pct(((ev.policies[n].by_type || {})[ty] || {}).all_gold_retrieved)}))));
    node.appendChild(section("By question type", t));
  }
  node.appendChild(section("Per question", questionDrilldown(ev)));
}
