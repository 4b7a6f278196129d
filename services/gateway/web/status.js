// How the page says what is wrong or where it stands: the error banner, the connection
// badge, the sign-in form; and the two wrappers every request goes through.
import { ApiError } from "./api.js";
import { $, page } from "./page.js";

export function showError(text) {
  $("error-text").textContent = text;
  $("error").hidden = false;
}

export function clearError() {
  $("error").hidden = true;
  delete $("error").dataset.kind;
  $("error-text").textContent = "";
}

export function setConnection(text, kind) {
  const el = $("connection");
  el.textContent = text;
  el.dataset.state = kind;
}

// Refreshes overlap when events come quickly; their answers can come back in any order. Only
// the answer to the newest request of each kind is drawn, so an older one never paints over it.
const asked = new Map(); // kind -> number of the newest request
export async function newest(kind, request) {
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

export async function guarded(action) {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) showLogin();
    else showError(error.message || String(error));
    return undefined;
  }
}

export function showLogin() {
  page.stream?.close();
  $("app").hidden = true;
  $("login").hidden = false;
  setConnection("Signed out", "idle");
  $("api-key").focus();
}
