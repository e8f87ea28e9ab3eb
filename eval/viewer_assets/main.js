// citeloop viewer, part 5 of 5: reads the data block and builds the page for its kind.
"use strict";

function needsRun(render) {
  return (node) => {
    if (!CL.run) {
      node.appendChild(el("div", {class: "box muted", text: "No run selected: open one from the Evaluation tab's per-question table."}));
      return;
    }
    render(node);
  };
}

function openRun(runId) {
  const run = CL.data.runs.find((r) => r.run_id === runId);
  if (!run) return;
  setRun(run);
  showView(CL.data.kind === "eval" ? "report" : CL.active || "report");
}

function boot() {
  CL.data = JSON.parse(document.getElementById("citeloop-data").textContent);
  const kind = CL.data.kind;
  if (kind === "eval") addView("eval", "Evaluation", renderEval);
  if (kind !== "eval" || CL.data.runs.length) {
    addView("report", "Report", needsRun(renderReport));
    addView("timeline", "Timeline", needsRun(renderTimeline));
    addView("decisions", "Decisions", needsRun(renderDecisions));
    addView("events", "Events", needsRun(renderEvents));
  }
  if (kind === "diff") addView("diff", "Diff", renderDiff);
  if (kind !== "eval" || CL.data.runs.length) addView("run", "Run", needsRun(renderRunInfo));
  buildTabs();
  if (kind === "diff") {
    const box = document.getElementById("run-switch");
    for (const run of CL.data.runs) {
      box.appendChild(el("button", {class: "small-btn", dataset: {run: run.run_id}, text: "show run " + run.label,
                                    title: run.run_id, onclick: () => openRun(run.run_id)}));
    }
  }
  if (kind === "eval") {
    document.getElementById("question").textContent = "Evaluation: " + CL.data.eval.dataset.name;
    document.getElementById("run-line").textContent = Object.keys(CL.data.eval.policies || {}).join(", ") || "verifier accuracy";
    showView("eval");
  } else {
    setRun(CL.data.runs[0]);
    showView(kind === "diff" ? "diff" : "report");
  }
  document.body.dataset.readyMs = performance.now().toFixed(1);  // read by eval/bench_viewer.py
  document.body.dataset.ready = "1";
}

boot();
