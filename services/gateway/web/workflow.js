// The saved workflow for people: a diagram drawn from its steps and edges (plain SVG, top to
// bottom, a branch side by side), a card per step in the words of the confirmation, what is
// left to do before it runs, and the downloads.
import { $, element, page } from "./page.js";

const SVG = "http://www.w3.org/2000/svg";
const BOX = { w: 216, h: 54, gapX: 22, gapY: 34, pad: 10 };
const TEXT_W = BOX.w - 20; // what a line of a box may take, in the drawing's units

function svg(tag, attrs, parent) {
  const made = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) made.setAttribute(key, value);
  parent?.append(made);
  return made;
}

// A line of text cut to the box's width, measured as drawn (the panel must be shown).
function fit(line, text) {
  line.textContent = text;
  for (let n = text.length - 1; n > 1 && line.getComputedTextLength() > TEXT_W; n -= 1) {
    line.textContent = `${text.slice(0, n).trimEnd()}…`;
  }
}

// The first line of a step's box and card: what starts it, which step it is, or a condition.
export function tagOf(step) {
  if (step.role === "trigger") return "Starts the workflow";
  if (step.role === "condition") return "Condition";
  return step.number ? `Step ${step.number}` : "Step";
}

// A box's two lines: which step and its app, then what it does; for a condition, "Only
// when" over what it tests (its quote is in the card and the box's tooltip).
function boxLines(step) {
  if (step.role === "condition") return ["Only when", step.does.replace(/^Only when /, "")];
  return [`${step.number ? `${step.number}. ` : "Starts: "}${step.name}`, step.does];
}

// Rows by depth (the longest run of steps before each), each row centred.
function positions(steps) {
  const rows = [];
  for (const step of steps) (rows[step.depth] ||= []).push(step);
  const widest = Math.max(...rows.map((r) => r?.length || 0));
  const width = widest * (BOX.w + BOX.gapX) - BOX.gapX + 2 * BOX.pad;
  const at = new Map();
  rows.forEach((row, depth) => {
    const span = row.length * (BOX.w + BOX.gapX) - BOX.gapX;
    row.forEach((step, i) => {
      const x = (width - span) / 2 + i * (BOX.w + BOX.gapX);
      at.set(step.id, { x, y: BOX.pad + depth * (BOX.h + BOX.gapY) });
    });
  });
  const height = rows.length * (BOX.h + BOX.gapY) - BOX.gapY + 2 * BOX.pad;
  return { at, width, height };
}

export function drawDiagram(target, view) {
  target.replaceChildren();
  if (view.steps.length === 0) return;
  const { at, width, height } = positions(view.steps);
  target.setAttribute("viewBox", `0 0 ${width} ${height}`);
  target.setAttribute("width", width);
  target.setAttribute("height", height);
  target.closest("figure").style.width = `${width}px`; // the caption wraps under the drawing
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
    markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("defs", {}, target));
  svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrow-head" }, marker);
  for (const edge of view.edges) {
    const a = at.get(edge.from);
    const b = at.get(edge.to);
    if (!a || !b) continue;
    const [x1, y1, x2, y2] = [a.x + BOX.w / 2, a.y + BOX.h, b.x + BOX.w / 2, b.y];
    const mid = (y1 + y2) / 2;
    const d = `M ${x1} ${y1} C ${x1} ${mid} ${x2} ${mid} ${x2} ${y2 - 1}`;
    const path = svg("path", { class: "edge", d, "marker-end": "url(#arrow)" }, target);
    path.dataset.from = edge.from;
    path.dataset.to = edge.to;
  }
  for (const step of view.steps) drawBox(target, step, at.get(step.id));
}

function drawBox(target, step, { x, y }) {
  const place = { class: `node role-${step.role}`, transform: `translate(${x} ${y})` };
  const group = svg("g", place, target);
  group.dataset.step = step.id;
  const quote = step.quote ? ` (“${step.quote}”)` : "";
  svg("title", {}, group).textContent = `${tagOf(step)}: ${step.name} — ${step.does}${quote}`;
  svg("rect", { width: BOX.w, height: BOX.h, rx: step.role === "condition" ? 22 : 8 }, group);
  const [first, second] = boxLines(step);
  fit(svg("text", { x: 12, y: 22, class: "node-name" }, group), first);
  fit(svg("text", { x: 12, y: 42, class: "node-does" }, group), second);
}

// One card per step: the app, what it does, the values it was given, what is left to fill in.
export function drawCards(list, view) {
  list.replaceChildren(...view.steps.map(card));
}

function card(step) {
  const li = element("li", `card role-${step.role}`);
  li.dataset.step = step.id;
  const heading = element("h3", "card-name");
  const title = step.role === "condition" ? step.does : step.name;
  heading.append(element("span", "card-tag", tagOf(step)), element("span", "", title));
  li.append(heading);
  if (step.role !== "condition") li.append(element("p", "card-does", step.does));
  if (step.quote) li.append(element("blockquote", "card-quote", `“${step.quote}”`));
  if (step.values.length) {
    const values = element("ul", "card-values");
    for (const v of step.values) {
      const item = element("li");
      item.append(element("span", "value-label", v.label));
      if (v.value) item.append(" ", element("span", "value", v.value));
      values.append(item);
    }
    li.append(values);
  }
  if (step.to_fill.length) {
    li.append(element("p", "card-fill", `To fill in: ${step.to_fill.join(", ")}`));
  }
  if (step.account) li.append(element("p", "card-account", `Connect your ${step.name} account`));
  return li;
}

// What is left before the workflow runs, in one sentence.
export function todoText(view) {
  const open = view.steps.flatMap((s) => s.to_fill);
  const accounts = view.steps.filter((s) => s.account).map((s) => s.name);
  const parts = [];
  if (open.length) parts.push(`fill in ${count(open.length, "value")} (${open.join(", ")})`);
  if (accounts.length) {
    parts.push(`connect ${count(accounts.length, "account")} (${accounts.join(", ")})`);
  }
  if (!parts.length) return "Nothing is left to fill in: import it and run it.";
  return `Before it runs: ${parts.join(" and ")}.`;
}

function count(n, thing) {
  return n === 1 ? `1 ${thing}` : `${n} ${thing}s`;
}

function caption(view) {
  const steps = view.steps.filter((s) => s.role !== "condition").length;
  const branches = view.steps.length - steps;
  const conditions = branches ? `, ${count(branches, "condition")}` : "";
  return `${count(steps, "step")}${conditions}, from what starts it (top) to the last step; ` +
    "each is described beside the diagram.";
}

export function drawWorkflow(workflowId, doc, view, summary) {
  page.workflow = { id: workflowId, doc };
  $("workflow-name").textContent = view.title || doc.title || workflowId;
  $("workflow-summary").textContent = summary || doc.summary || "";
  $("workflow").hidden = false; // shown first: the diagram measures its text
  drawDiagram($("diagram"), view);
  $("diagram-caption").textContent = caption(view);
  drawCards($("step-cards"), view);
  $("workflow-todo").textContent = todoText(view);
  $("workflow-doc").textContent = JSON.stringify(doc, null, 2);
}

export function clearWorkflow() {
  page.workflow = null;
  $("workflow").hidden = true;
  $("diagram").replaceChildren();
  $("step-cards").replaceChildren();
  $("document").open = false;
}

export function download() {
  if (!page.workflow) return;
  const blob = new Blob([JSON.stringify(page.workflow.doc, null, 2)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `${page.workflow.id}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
