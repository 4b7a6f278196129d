// Drawing the compiled plan as a pipeline, and the conversation's outline.

const $ = (id) => document.getElementById(id);

// Progress statuses on the stream, in the words the page shows.
export const STATES = { dispatched: "running", retrying: "retrying", completed: "done" };
const FIXED = new Set(["save", "summarizer"]);
const WHAT = {
  specialist: "draft",
  config: "check",
  composer: "compose",
  save: "save",
  summarizer: "summarize",
};

function label(node, entries) {
  if (node.specialist) {
    const name = entries[node.specialist]?.name || node.specialist;
    return `${name} · ${WHAT[node.kind] || node.kind}`;
  }
  return node.kind.charAt(0).toUpperCase() + node.kind.slice(1);
}

// Steps in order: the dynamic region (per item draft and check, then the composer), then the
// fixed region (save, then summarizer). Every step starts queued.
export function drawPlan(nodes, entries) {
  const dynamic = $("dynamic-steps");
  const fixed = $("fixed-steps");
  dynamic.replaceChildren();
  fixed.replaceChildren();
  const steps = nodes.map((node, index) => {
    const li = document.createElement("li");
    li.className = `step kind-${node.kind}`;
    li.dataset.nodeId = node.node_id;
    li.dataset.state = "queued";
    const name = document.createElement("span");
    name.className = "step-name";
    name.textContent = label(node, entries);
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = "queued";
    li.append(name, badge);
    (FIXED.has(node.kind) ? fixed : dynamic).append(li);
    return { index, li, badge, state: "queued", label: name.textContent };
  });
  $("pipeline").hidden = nodes.length === 0;
  $("plan-empty").hidden = nodes.length > 0;
  return steps;
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
