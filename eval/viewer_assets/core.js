// citeloop viewer, part 1 of 5: DOM helpers, state and tabs.
// Every string from the data goes into the page as a text node (textContent / createTextNode);
// no data ever reaches innerHTML, so corpus text cannot become markup or script.
"use strict";

const CL = {
  data: null,        // the parsed citeloop-data block
  run: null,         // the run being shown
  rendered: {},      // view name -> run id it was last rendered for
  views: {},         // view name -> {title, render(section)}
  order: [],
  active: null,
};

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";  // a namespace name, never fetched

function svgEl(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, String(value));
  }
  return append(node, children);
}

function fmtNum(value, digits = 2) {
  if (value === null || value === undefined) return "–";
  if (typeof value !== "number") return String(value);
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

function badge(text, cls) {
  return el("span", {class: "badge " + (cls || ""), text});
}

function verdictBadge(verdict) {
  return badge(verdict || "no verdict", "v-" + (verdict || "none"));
}

function kvTable(pairs) {
  return el("table", {class: "kv"}, pairs.filter(Boolean).map(([key, value]) =>
    el("tr", {}, el("th", {text: key}), el("td", {}, value instanceof Node ? value : fmtNum(value)))));
}

function jsonBlock(value) {
  return el("pre", {class: "json", text: JSON.stringify(value, null, 2)});
}

// Only http(s) addresses become links; anything else (javascript:, data:) stays text.
function safeLink(url) {
  if (typeof url !== "string" || !url) return document.createTextNode("–");
  if (!/^https?:\/\//i.test(url)) return document.createTextNode(url);
  return el("a", {href: url, target: "_blank", rel: "noopener noreferrer", text: url});
}

function section(title, ...children) {
  return el("div", {}, el("h2", {text: title}), children);
}

// ------------------------------------------------------------------ tabs

function addView(name, title, render) {
  CL.views[name] = {title, render};
  CL.order.push(name);
}

function buildTabs() {
  const nav = clear(document.getElementById("tabs"));
  const main = clear(document.getElementById("views"));
  for (const name of CL.order) {
    nav.appendChild(el("button", {class: "tab", role: "tab", dataset: {tab: name}, id: "tab-" + name,
                                  text: CL.views[name].title, onclick: () => showView(name)}));
    main.appendChild(el("section", {class: "view", id: "view-" + name}));
  }
}

// Views render lazily, on first show and again when the shown run changes.
function showView(name) {
  if (!CL.views[name]) return null;
  CL.active = name;
  for (const button of document.querySelectorAll("button.tab")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  for (const view of document.querySelectorAll("section.view")) {
    view.classList.toggle("active", view.id === "view-" + name);
  }
  const node = document.getElementById("view-" + name);
  const key = CL.run ? CL.run.run_id : "";
  if (CL.rendered[name] !== key) {
    clear(node);
    CL.views[name].render(node);
    CL.rendered[name] = key;
  }
  return node;
}

function setRun(run) {
  CL.run = run;
  document.getElementById("question").textContent = run ? run.question : "";
  const line = document.getElementById("run-line");
  if (run) {
    const policies = Object.entries(run.header.policies).map(([k, v]) => k + "=" + v).join(", ");
    line.textContent = (run.label ? run.label + " · " : "") + run.run_id + " · " + policies +
      (run.torn ? " · torn file: " + run.problem : "");
  }
  for (const button of document.querySelectorAll("#run-switch button")) {
    button.classList.toggle("selected", button.dataset.run === (run && run.run_id));
  }
  closeEvidence();
}

function flash(node) {
  if (!node) return;
  node.scrollIntoView({block: "center"});
  node.classList.remove("flash");
  void node.offsetWidth;
  node.classList.add("flash");
}

function closeEvidence() {
  const panel = document.getElementById("evidence-panel");
  panel.hidden = true;
  clear(panel);
  for (const b of document.querySelectorAll("button.cite.selected")) b.classList.remove("selected");
}
