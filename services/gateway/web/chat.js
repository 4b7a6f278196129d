// The chat pane: messages, the result of the build as planwire's last message, the phase in
// words, the examples of an empty conversation, and the notes beside it.
import { $, element, OPEN_PHASES, page, phaseWords, nameOf } from "./page.js";
import { api } from "./api.js";

export function addMessage(turnId, role, text, kind = null) {
  const key = `${turnId}:${role}`;
  if (page.messages.has(key)) return;
  const li = element("li", `message ${role}${kind === "error" ? " failed" : ""}`);
  li.dataset.turnId = turnId;
  li.dataset.role = role;
  li.append(element("span", "who", role === "user" ? "You" : "planwire"), element("p", "", text));
  append(li);
  page.messages.set(key, li);
}

export function addSystemMessage(text) {
  append(element("li", "message system", text));
}

function append(li) {
  $("messages").append(li);
  $("examples").hidden = true;
  li.scrollIntoView({ block: "nearest" });
}

// The build's result, once per workflow, as planwire's last word: what was built and where
// to see it, so the chat never ends on "I'm compiling the plan…" after the save.
export function addResult(workflowId, summary) {
  if (document.querySelector(`#messages li.result[data-workflow-id="${workflowId}"]`)) return;
  const li = element("li", "message assistant result");
  li.dataset.workflowId = workflowId;
  const text = summary || "Your workflow is built and saved.";
  li.append(element("span", "who", "planwire"), element("p", "", `Done. ${text}`));
  const see = element("button", "see-workflow", "See your workflow");
  see.type = "button";
  see.addEventListener("click", () => {
    $("workflow").scrollIntoView({ block: "start" });
    $("workflow").focus({ preventScroll: true });
  });
  const n8n = element("a", "button", "Export to n8n");
  n8n.href = api.workflowUrl(workflowId, "n8n");
  n8n.setAttribute("download", "");
  const buttons = element("div", "buttons");
  buttons.append(see, n8n);
  li.append(buttons);
  append(li);
}

export function setPhase(phase) {
  page.phase = phase;
  $("phase").textContent = phase ? `— ${phaseWords(phase)}` : "";
  $("message-help").textContent = helpFor(phase);
}

function helpFor(phase) {
  if (!page.sessionId) return "Describe an automation and press Enter: that starts a conversation.";
  if (!phase || OPEN_PHASES.has(phase)) return "Enter sends; Shift+Enter starts a new line.";
  const now = phase === "completed" ? "done" : phaseWords(phase).toLowerCase();
  return `This conversation is ${now}; start a new conversation to build another workflow.`;
}

export function showExamples() {
  $("examples").hidden = $("messages").children.length > 0;
}

export function useExample(button) {
  const box = $("message");
  box.value = button.textContent.trim();
  box.focus();
}

// ---- notes -----------------------------------------------------------------------------

function chip(id, removed = false) {
  const li = element("li", removed ? "chip removed" : "chip");
  li.dataset.id = id;
  li.append(element(removed ? "del" : "span", "", nameOf(id)));
  return li;
}

const NO_NOTES = {
  requirement_summary: "",
  mentioned_integrations: [],
  mentioned_tools: [],
  removed: [],
  confidence_score: 0,
  hints: [],
};

export function renderNotes(notes) {
  const n = notes || NO_NOTES;
  const threshold = page.catalogue.threshold;
  $("notes-summary").textContent = n.requirement_summary || "Nothing noted yet.";
  $("integrations").replaceChildren(...n.mentioned_integrations.map((id) => chip(id)));
  $("tools").replaceChildren(...n.mentioned_tools.map((id) => chip(id)));
  $("removed").replaceChildren(...n.removed.map((id) => chip(id, true)));
  const meter = $("confidence");
  meter.low = threshold;
  meter.high = threshold;
  meter.value = n.confidence_score;
  const pct = (x) => `${Math.round(x * 100)}%`;
  const text = `${pct(n.confidence_score)} of the ${pct(threshold)} needed to confirm`;
  meter.setAttribute("aria-valuetext", text);
  meter.textContent = text;
  $("confidence-text").textContent = text;
  $("hints").replaceChildren(...n.hints.map((hint) => element("li", "", hint)));
}
