// planwire's page: plain DOM, no framework. State comes from the gateway's HTTP API and each
// session's event stream; every event is applied once, in stream order, by its handler.
import { api, ApiError, describe, SessionStream } from "./api.js";
import { endTyping, showDelta } from "./typing.js";
import {
  addMessage,
  addResult,
  addSystemMessage,
  renderNotes,
  setPhase,
  showExamples,
  useExample,
} from "./chat.js";
import { $, page } from "./page.js";
import { activityWords, drawBuild, drawOutline, progressText, setNode, STATES } from "./plan.js";
import { refreshSessions } from "./sessions.js";
import { clearError, guarded, newest, setConnection, showError, showLogin } from "./status.js";
import { clearWorkflow, download, drawWorkflow } from "./workflow.js";

const CONFIRM_TEXT = "Yes, that's everything. Please build it.";
// The empty plan panel's own words: a saved workflow without a drawn plan replaces them
// (`showWorkflow`), and the next conversation must not inherit that.
const PLAN_EMPTY_TEXT = $("plan-empty").textContent;

// ---- authentication --------------------------------------------------------------------

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
  page.build = null;
  page.early.clear();
  $("messages").replaceChildren();
  $("activity-log").replaceChildren();
  $("build-steps").replaceChildren();
  $("build-steps").hidden = true;
  $("plan-empty").hidden = false;
  $("plan-empty").textContent = PLAN_EMPTY_TEXT;
  $("plan-progress").textContent = "";
  $("outline").hidden = true;
  $("confirmation").hidden = true;
  clearWorkflow();
  renderNotes(null);
  setPhase(null);
  showExamples();
}

async function openSession(id) {
  if (!id) return;
  resetView();
  page.sessionId = id;
  const state = await guarded(() => api.session(id));
  if (!state) {
    page.sessionId = null;
    setPhase(null);
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
  page.stream = new SessionStream(id, Object.keys(ON), applyEvent, streamStatus);
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
  li.textContent = activityWords(event);
  $("activity-log").append(li);
}

// One handler per event type: the stream listens for exactly these (a new type is a new
// entry here), and an event of a type the page does not know is only logged.
const ON = {
  "reply.delta"(d) {
    showDelta(d); // a streamed reply as it arrives; the reply event below replaces it
  },
  reply(d) {
    endTyping(d.turn_id);
    addMessage(d.turn_id, "assistant", d.text, d.kind);
    setPhase(d.phase);
    if (d.kind === "confirmation" && d.phase === "confirming") showConfirmation(d.text);
    else $("confirmation").hidden = true;
    refreshNotes();
    refreshOutline();
    refreshSessions();
  },
  plan(d) {
    $("confirmation").hidden = true;
    page.build = drawBuild(d.nodes || []);
    for (const [index, state] of page.early) setNode(page.build, index, state);
    page.early.clear();
    if (!["completed", "failed"].includes(page.phase)) setPhase("executing");
    $("plan-progress").textContent = progressText(page.build);
  },
  progress(d) {
    setStep(d.node_index, STATES[d.status]);
  },
  workflow_completed(d) {
    for (const [index, node] of (page.build?.nodes || []).entries()) {
      if (node.state !== "done") setStep(index, "done");
    }
    setPhase("completed");
    showWorkflow(d.workflow_id, d.summary);
    refreshSessions();
    refreshOutline();
  },
  workflow_failed(d) {
    const current = page.build?.nodes.findIndex((n) => ["running", "retrying"].includes(n.state));
    if (current >= 0) setStep(current, "failed");
    setPhase("failed");
    addSystemMessage(`The workflow failed: ${d.reason}`);
    refreshSessions();
  },
};

function applyEvent(event) {
  if (event.type !== "reply.delta") logActivity(event);
  ON[event.type]?.(event.data);
}

// ---- chat ------------------------------------------------------------------------------

function showConfirmation(text) {
  $("confirmation-text").textContent = text;
  $("confirmation").hidden = false;
}

// The conversation a message goes to: the open one, or (from the landing page) a new one.
async function conversation() {
  if (page.sessionId) return page.sessionId;
  const created = await guarded(() => api.create());
  if (!created) return null;
  history.pushState(null, "", `#s=${created.session_id}`); // no hashchange: opened here
  await openSession(created.session_id);
  refreshSessions();
  return page.sessionId;
}

async function send(text) {
  const message = text.trim();
  if (!message) return false;
  $("send").disabled = true;
  const id = await conversation();
  const accepted = id && (await guarded(() => api.say(id, message)));
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
    if (outline && id === page.sessionId) {
      $("outline").hidden = !drawOutline($("outline-tree"), outline);
    }
  } catch {
    $("outline").hidden = true; // no outline for this session (or no indexer): nothing to show
  }
}

// ---- build and workflow ----------------------------------------------------------------

function setStep(index, state) {
  if (!state) return;
  if (!page.build) {
    page.early.set(index, state); // drawn when the plan arrives
    return;
  }
  setNode(page.build, index, state);
  $("plan-progress").textContent = progressText(page.build);
}

async function showWorkflow(workflowId, summary) {
  const id = page.sessionId;
  const both = () => Promise.all([api.workflow(workflowId), api.steps(workflowId)]);
  const [doc, view] = (await guarded(both)) || [];
  if (!doc || id !== page.sessionId) return;
  drawWorkflow(workflowId, doc, view, summary);
  $("export-n8n").href = api.workflowUrl(workflowId, "n8n");
  addResult(workflowId, summary || doc.summary);
  if (!page.build) $("plan-empty").textContent = "Built and saved.";
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
    setConnection("No conversation open", "idle");
    $("message").focus();
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
  for (const button of document.querySelectorAll("#example-list button")) {
    button.addEventListener("click", () => useExample(button));
  }
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
    const id = sessionFromHash();
    if (id) await openSession(id);
    else {
      page.sessionId = null; // back to the landing page
      resetView();
      setConnection("No conversation open", "idle");
    }
    $("message").focus();
  });
}

wire();
start();
