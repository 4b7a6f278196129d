// What every part of the page shares: the element lookup, the state of the open conversation,
// and the words a person reads for the gateway's ids and phases.

export const $ = (id) => document.getElementById(id);

export const page = {
  catalogue: { threshold: 0.8, entries: {} },
  sessionId: null,
  stream: null,
  phase: null,
  messages: new Map(), // `${turn_id}:${role}` -> <li>
  build: null, // the steps being built (plan.js), once the plan arrives
  // Progress that arrived before its plan: the plan and the steps' progress travel on
  // different topics, so the first step's "dispatched" may be streamed first.
  early: new Map(), // node index -> state
  workflow: null, // {id, doc} once saved
};

// The session's phases as a person says them; the gateway's ids stay in the API.
export const PHASES = {
  gathering: "Talking it through",
  confirming: "Checking the summary",
  planning: "Planning",
  executing: "Building",
  completed: "Done",
  failed: "Failed",
};

export const OPEN_PHASES = new Set(["gathering", "confirming"]);

export function phaseWords(phase) {
  return PHASES[phase] || phase || "";
}

export function nameOf(id) {
  return page.catalogue.entries[id]?.name || id;
}

export function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}
