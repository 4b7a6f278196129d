// planwire's page: plain DOM, no framework. State comes from the gateway's HTTP API and each
// session's event stream; every event is applied once, in stream order.
import { api, ApiError, describe, SessionStream } from "./api.js";
import { drawOutline, drawPlan, STATES } from "./plan.js";
import { endTyping, showDelta } from "./typing.js";

const $ = (id) => document.getElementById(id);
const CONFIRM_TEXT = "Yes, that's everything. Please build it.";
const OPEN_PHASES = new Set(["gathering", "confirming"]);
// The empty plan panel's own words: a saved workflow without a drawn plan replaces them
// (`showWorkflow`), and the next conversation must not inherit that.
const PLAN_EMPTY_TEXT = $("plan-empty").textContent;

const page = {
  catalogue: { threshold: 0.8, entries: {} },
  sessionId: null,
  stream: null,
  phase: null,
  messages: new Map(), // `${turn_id}:${role}` -> <li>
  steps: [], // per plan node: {li, state}
  // Progress that arrived before its plan: the plan and the steps' progress travel on
  // different topics, so the first step's "dispatched" may be streamed first.
  early: new Map(), // node index -> state
  workflow: null,
};

// ---- words for people -------------------------------------------------------------------

function showError(text) {
  $("error-text").textContent = text;
  $("error").hidden = false;
}

function clearError() {
  $("error").hidden = true;
  delete $("error").dataset.kind;
  $("error-text").textContent = "";
}

function setConnection(text, kind) {
  const el = $("connection");
  el.textContent = text;
  el.dataset.state = kind;
}

// Refreshes overlap when events come quickly; their answers can come back in any order. Only
// the answer to the newest request of each kind is drawn, so an older one never paints over it.
const asked = new Map(); // kind -> number of the newest request
async function newest(kind, request) {
  const n = (asked.get(kind) || 0) + 1;
  asked.set(kind, n);
  try {
    const answer = await request();
    return asked.get(kind) === n ? answer : undefined;
  } catch (error) {
    if (asked.get(kind) === n) throw error;
    return undefined;
  }
}

async function guarded(action) {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      showLogin();
    } else {
      showError(error.message || String(error));
    }
    return undefined;
  }
}

// ---- authentication --------------------------------------------------------------------

function showLogin() {
  page.stream?.close();
  $("app").hidden = true;
  $("login").hidden = false;
  setConnection("Signed out", "idle");
  $("api-key").focus();
}

async function login(event) {
  event.preventDefault();
  const key = $("api-key").value.trim();
  try {
    await api.login(key);
  } catch (error) {
    showError(error.status === 401 ? "That API key is not known to this gateway." : error.message);
    $("api-key").select();
    return;
  }
  $("api-key").value = "";
  $("login").hidden = true;
  clearError();
  await start();
}

async function logout() {
  await guarded(() => api.logout());
  page.sessionId = null;
  history.replaceState(null, "", location.pathname);
  showLogin();
}

// ---- sessions --------------------------------------------------------------------------

function relativeTime(seconds) {
  return new Date(seconds * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

async function refreshSessions() {
  const listed = await newest("sessions", () => guarded(() => api.sessions()));
  if (!listed) return;
  const list = $("session-list");
  list.replaceChildren();
  $("sessions-empty").hidden = listed.sessions.length > 0;
  for (const s of listed.sessions) {
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = `#s=${s.session_id}`;
    link.dataset.sessionId = s.session_id;
    const title = s.title ? truncate(s.title, 60) : "New conversation";
    link.textContent = title;
    const meta = document.createElement("span");
    meta.className = "muted";
    meta.textContent = ` ${s.phase || ""} · ${relativeTime(s.created)}`;
    if (s.session_id === page.sessionId) link.setAttribute("aria-current", "page");
    li.append(link, meta);
    list.append(li);
  }
}

function truncate(text, n) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

async function newSession() {
  const created = await guarded(() => api.create());
  if (!created) return;
  location.hash = `s=${created.session_id}`; // hashchange opens it
}

function sessionFromHash() {
  const match = /^#s=([0-9a-zA-Z_-]+)$/.exec(location.hash);
  return match ? match[1] : null;
}

function resetView() {
  page.stream?.close();
  page.stream = null;
  page.messages.clear();
  page.steps = [];
  page.early.clear();
  page.workflow = null;
  $("messages").replaceChildren();
  $("activity-log").replaceChildren();
  $("dynamic-steps").replaceChildren();
  $("fixed-steps").replaceChildren();
  $("pipeline").hidden = true;
  $("plan-empty").hidden = false;
  $("plan-empty").textContent = PLAN_EMPTY_TEXT;
  $("plan-progress").textContent = "";
  $("workflow").hidden = true;
  $("outline").hidden = true;
  $("confirmation").hidden = true;
  renderNotes(null);
}

async function openSession(id) {
  if (!id) return;
  resetView();
  page.sessionId = id;
  const state = await guarded(() => api.session(id));
  if (!state) {
    page.sessionId = null;
    setComposer(false);
    return;
  }
  clearError();
  for (const line of state.transcript) addMessage(line.turn_id, line.role, line.text);
  setPhase(state.phase);
  renderNotes(state.notes);
  if (state.phase === "confirming") {
    const last = [...state.transcript].reverse().find((m) => m.role === "assistant");
    if (last) showConfirmation(last.text);
  }
  if (state.failure) addSystemMessage(`The workflow failed: ${state.failure}`);
  for (const link of document.querySelectorAll("#session-list a")) {
    if (link.dataset.sessionId === id) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  page.stream = new SessionStream(id, applyEvent, streamStatus);
  page.stream.open();
  refreshOutline();
  if (state.workflow_id) showWorkflow(state.workflow_id, null);
}

// ---- the event stream ------------------------------------------------------------------

async function streamStatus(status) {
  if (status === "live") {
    setConnection("Live", "live");
    if ($("error").dataset.kind === "down") clearError();
    return;
  }
  setConnection(status === "reconnecting" ? "Reconnecting…" : "Stack down", status);
  if (!page.sessionId) return;
  // Find out why the stream dropped, and say it in words.
  let words = null;
  try {
    await api.session(page.sessionId);
    if (!(await api.healthy())) words = describe(503);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      showLogin();
      return;
    }
    words = error.message || describe(0);
  }
  if (words) {
    showError(words);
    $("error").dataset.kind = "down";
  }
}

function logActivity(event) {
  const li = document.createElement("li");
  li.dataset.eventId = event.id;
  li.dataset.type = event.type;
  const d = event.data;
  const words = {
    reply: () => `reply (${d.kind})`,
    plan: () => `plan of ${d.steps} steps`,
    progress: () => `step ${d.node_index + 1}/${d.total} ${d.node_id}: ${STATES[d.status] || d.status}`,
    workflow_completed: () => `workflow ${d.workflow_id} saved`,
    workflow_failed: () => `workflow failed: ${d.reason}`,
  }[event.type];
  li.textContent = words ? words() : event.type;
  $("activity-log").append(li);
}

function applyEvent(event) {
  if (event.type === "reply.delta") return showDelta(event.data);
  logActivity(event);
  const d = event.data;
  switch (event.type) {
    case "reply":
      endTyping(d.turn_id);
      addMessage(d.turn_id, "assistant", d.text, d.kind);
      setPhase(d.phase);
      if (d.kind === "confirmation" && d.phase === "confirming") showConfirmation(d.text);
      else $("confirmation").hidden = true;
      refreshNotes();
      refreshOutline();
      refreshSessions();
      break;
    case "plan":
      $("confirmation").hidden = true;
      page.steps = drawPlan(d.nodes || [], page.catalogue.entries);
      for (const [index, state] of page.early) setStep(index, state);
      page.early.clear();
      if (!["completed", "failed"].includes(page.phase)) setPhase("executing");
      updateProgress();
      break;
    case "progress":
      setStep(d.node_index, { dispatched: "running", retrying: "retrying", completed: "done" }[d.status]);
      break;
    case "workflow_completed":
      for (const step of page.steps) if (step.state !== "done") setStep(step.index, "done");
      setPhase("completed");
      showWorkflow(d.workflow_id, d.summary);
      refreshSessions();
      break;
    case "workflow_failed": {
      const current = page.steps.find((s) => s.state === "running" || s.state === "retrying");
      if (current) setStep(current.index, "failed");
      setPhase("failed");
      addSystemMessage(`The workflow failed: ${d.reason}`);
      refreshSessions();
      break;
    }
    default:
      break;
  }
}

// ---- chat ------------------------------------------------------------------------------

function addMessage(turnId, role, text, kind = null) {
  const key = `${turnId}:${role}`;
  if (page.messages.has(key)) return;
  const li = document.createElement("li");
  li.className = `message ${role}${kind === "error" ? " failed" : ""}`;
  li.dataset.turnId = turnId;
  li.dataset.role = role;
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = role === "user" ? "You" : "planwire";
  const body = document.createElement("p");
  body.textContent = text;
  li.append(who, body);
  $("messages").append(li);
  page.messages.set(key, li);
  li.scrollIntoView({ block: "nearest" });
}

function addSystemMessage(text) {
  const li = document.createElement("li");
  li.className = "message system";
  li.textContent = text;
  $("messages").append(li);
}

function setPhase(phase) {
  page.phase = phase;
  $("phase").textContent = phase ? `— ${phase}` : "";
  setComposer(Boolean(page.sessionId));
  $("message-help").textContent = OPEN_PHASES.has(phase)
    ? "Enter sends; Shift+Enter starts a new line."
    : `This conversation is ${phase}; start a new conversation to build another workflow.`;
}

function setComposer(enabled) {
  $("message").disabled = !enabled;
  $("send").disabled = !enabled;
}

function showConfirmation(text) {
  $("confirmation-text").textContent = text;
  $("confirmation").hidden = false;
}

async function send(text) {
  const message = text.trim();
  if (!message || !page.sessionId) return false;
  const id = page.sessionId;
  $("send").disabled = true;
  const accepted = await guarded(() => api.say(id, message));
  $("send").disabled = false;
  if (!accepted) return false; // the text stays in the box: nothing is lost
  clearError();
  if (id === page.sessionId) addMessage(accepted.turn_id, "user", message);
  refreshSessions();
  return true;
}

async function submitComposer(event) {
  event.preventDefault();
  const box = $("message");
  if (await send(box.value)) {
    box.value = "";
    box.placeholder = "";
  }
  box.focus();
}

// ---- notes -----------------------------------------------------------------------------

function nameOf(id) {
  return page.catalogue.entries[id]?.name || id;
}

function chip(id, removed = false) {
  const li = document.createElement("li");
  li.className = removed ? "chip removed" : "chip";
  li.dataset.id = id;
  const label = document.createElement(removed ? "del" : "span");
  label.textContent = nameOf(id);
  li.append(label);
  return li;
}

function renderNotes(notes) {
  const n = notes || {
    requirement_summary: "",
    mentioned_integrations: [],
    mentioned_tools: [],
    removed: [],
    confidence_score: 0,
    hints: [],
  };
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
  $("hints").replaceChildren(
    ...n.hints.map((hint) => {
      const li = document.createElement("li");
      li.textContent = hint;
      return li;
    }),
  );
}

async function refreshNotes() {
  const id = page.sessionId;
  try {
    const state = await newest("notes", () => api.session(id));
    if (state && id === page.sessionId) renderNotes(state.notes);
  } catch {
    // the stream's status already says what is wrong
  }
}

async function refreshOutline() {
  const id = page.sessionId;
  try {
    const outline = await newest("outline", () => api.outline(id));
    if (outline && id === page.sessionId) $("outline").hidden = !drawOutline($("outline-tree"), outline);
  } catch {
    $("outline").hidden = true; // no outline for this session (or no indexer): nothing to show
  }
}

// ---- plan and workflow -----------------------------------------------------------------

function setStep(index, state) {
  const step = page.steps[index];
  if (!state) return;
  if (!step) {
    page.early.set(index, state); // drawn when the plan arrives
    return;
  }
  step.state = state;
  step.badge.textContent = state;
  step.li.dataset.state = state;
  updateProgress();
}

function updateProgress() {
  const done = page.steps.filter((s) => s.state === "done").length;
  const running = page.steps.find((s) => s.state === "running" || s.state === "retrying");
  $("plan-progress").textContent = page.steps.length
    ? `${done} of ${page.steps.length} steps done${running ? `; ${running.label} is ${running.state}` : ""}.`
    : "";
}

async function showWorkflow(workflowId, summary) {
  const doc = await guarded(() => api.workflow(workflowId));
  if (!doc) return;
  page.workflow = { id: workflowId, doc };
  $("workflow-summary").textContent = summary || doc.summary || `Workflow ${workflowId}`;
  $("workflow-doc").textContent = JSON.stringify(doc, null, 2);
  $("export-n8n").href = api.workflowUrl(workflowId, "n8n");
  $("workflow").hidden = false;
  if (page.steps.length === 0) {
    $("plan-empty").textContent = `Built and saved as ${workflowId}.`;
  }
}

function download() {
  if (!page.workflow) return;
  const blob = new Blob([JSON.stringify(page.workflow.doc, null, 2)], {
    type: "application/json",
  });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `${page.workflow.id}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// ---- start -----------------------------------------------------------------------------

async function start() {
  const catalogue = await guarded(() => api.catalogue());
  if (!catalogue) return;
  page.catalogue = catalogue;
  $("app").hidden = false;
  $("login").hidden = true;
  // A gateway that refuses a request without the cookie needs one: offer to sign out.
  const anonymous = await fetch("/v1/catalogue", { credentials: "omit" }).catch(() => null);
  $("logout").hidden = !(anonymous && anonymous.status === 401);
  await refreshSessions();
  const id = sessionFromHash();
  if (id) await openSession(id);
  else {
    resetView();
    setComposer(false);
    setConnection("No conversation open", "idle");
    $("new-session").focus();
  }
}

function wire() {
  $("login-form").addEventListener("submit", login);
  $("logout").addEventListener("click", logout);
  $("new-session").addEventListener("click", newSession);
  $("error-dismiss").addEventListener("click", clearError);
  $("composer").addEventListener("submit", submitComposer);
  $("message").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("confirm").addEventListener("click", async () => {
    if (await send(CONFIRM_TEXT)) $("confirmation").hidden = true;
  });
  $("change").addEventListener("click", () => {
    const box = $("message");
    box.placeholder = "Say what to change, e.g. “post to Teams instead of Slack”";
    box.focus();
  });
  $("download").addEventListener("click", download);
  window.addEventListener("hashchange", async () => {
    await openSession(sessionFromHash());
    $("message").focus();
  });
}

wire();
start();
