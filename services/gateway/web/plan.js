// The build as it runs (one box per step of the workflow, whatever the plan does for it
// inside), the activity log's words, and the conversation's outline.
import { $, element, nameOf } from "./page.js";

// Progress statuses on the stream, in the page's state names.
export const STATES = { dispatched: "running", retrying: "retrying", completed: "done" };
const STATE_WORDS = {
  queued: "Waiting",
  running: "Working on it",
  retrying: "Trying again",
  done: "Done",
  failed: "Failed",
};
// What a plan node does for its step, in words (the activity log says it).
const DOING = {
  specialist: "drafting its settings",
  config: "checking its settings",
  composer: "putting the workflow together",
  save: "saving the workflow",
  summarizer: "writing the summary",
};
const SAVING = "save"; // the box of the nodes that assemble and keep the workflow

function groupOf(node) {
  return node.specialist || SAVING;
}

function labelOf(key) {
  return key === SAVING ? "Saving the workflow" : nameOf(key);
}

// One box per app of the workflow (its draft and its check folded together) and one for
// saving it; every node starts queued.
export function drawBuild(nodes) {
  const list = $("build-steps");
  const groups = new Map();
  for (const node of nodes) {
    const key = groupOf(node);
    if (groups.has(key)) continue;
    const li = element("li", "step");
    li.dataset.step = key;
    li.dataset.state = "queued";
    const badge = element("span", "badge", STATE_WORDS.queued);
    li.append(element("span", "step-name", labelOf(key)), badge);
    groups.set(key, { key, label: labelOf(key), li, badge, state: "queued" });
  }
  list.replaceChildren(...[...groups.values()].map((g) => g.li));
  list.hidden = nodes.length === 0;
  $("plan-empty").hidden = nodes.length > 0;
  return { nodes: nodes.map((node) => ({ node, state: "queued" })), groups };
}

// A box's state from its nodes': a failure or a retry shows, done only when all are.
function folded(states) {
  if (states.includes("failed")) return "failed";
  if (states.includes("retrying")) return "retrying";
  if (states.every((s) => s === "done")) return "done";
  return states.some((s) => s !== "queued") ? "running" : "queued";
}

export function setNode(build, index, state) {
  const entry = build.nodes[index];
  if (!entry) return;
  entry.state = state;
  const group = build.groups.get(groupOf(entry.node));
  const members = build.nodes.filter((n) => groupOf(n.node) === group.key);
  group.state = folded(members.map((n) => n.state));
  group.li.dataset.state = group.state;
  group.badge.textContent = STATE_WORDS[group.state];
}

export function progressText(build) {
  const groups = build ? [...build.groups.values()] : [];
  if (groups.length === 0) return "";
  const done = groups.filter((g) => g.state === "done").length;
  const busy = groups.find((g) => g.state === "running" || g.state === "retrying");
  const now = busy ? `; ${busy.label}: ${STATE_WORDS[busy.state].toLowerCase()}` : "";
  return `${done} of ${groups.length} steps done${now}.`;
}

const REPLY_WORDS = {
  question: "planwire asked a question",
  confirmation: "planwire summed it up for you to confirm",
  clarify: "planwire asked what you meant",
  summary: "planwire started building",
  error: "planwire could not answer",
};

// Plan node ids: "<app>" drafts, "<app>.config" checks, then "composer", "save", "summarizer".
function kindOf(nodeId) {
  if (nodeId.endsWith(".config")) return "config";
  return ["composer", "save", "summarizer"].includes(nodeId) ? nodeId : "specialist";
}

// One line of the activity log for an event, in words.
export function activityWords(event) {
  const d = event.data;
  switch (event.type) {
    case "reply":
      return REPLY_WORDS[d.kind] || `planwire replied (${d.kind})`;
    case "plan":
      return `Planned: ${d.specialists.map(nameOf).join(", ") || "no steps"}`;
    case "progress": {
      const kind = kindOf(d.node_id);
      const app = kind === "specialist" || kind === "config" ? nameOf(d.node_id.split(".")[0]) : "";
      const step = app ? `${app}, ` : "";
      return `${step}${DOING[kind]}: ${STATE_WORDS[STATES[d.status]] || d.status}`;
    }
    case "workflow_completed":
      return `Saved the workflow ${d.workflow_id}`;
    case "workflow_failed":
      return `The build failed: ${d.reason}`;
    default:
      return event.type;
  }
}

function textOf(item) {
  return item.title || item.name || item.summary || "";
}

function turns(item) {
  const first = item.first_turn ?? item.turns?.[0] ?? item.turn_range?.[0];
  const last = item.last_turn ?? item.turns?.at?.(-1) ?? item.turn_range?.[1];
  return first != null ? ` (turns ${first}${last != null && last !== first ? `–${last}` : ""})` : "";
}

function list(items, render) {
  const ul = document.createElement("ul");
  for (const item of items || []) {
    const li = document.createElement("li");
    render(li, item);
    ul.append(li);
  }
  return ul;
}

// The outline tree Phase > Topic > Action, when the gateway has one; false when empty.
export function drawOutline(container, outline) {
  const phases = outline?.phases || [];
  container.replaceChildren();
  if (phases.length === 0) return false;
  container.append(
    list(phases, (li, phase) => {
      li.append(`${textOf(phase)}${turns(phase)}`);
      li.append(
        list(phase.topics, (tli, topic) => {
          tli.append(`${textOf(topic)}${turns(topic)}`);
          tli.append(
            list(topic.actions, (ali, action) => {
              ali.textContent = `${action.summary || textOf(action)}${turns(action)}`;
            }),
          );
        }),
      );
    }),
  );
  return true;
}
