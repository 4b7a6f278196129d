// The list of the caller's conversations, newest first, to come back to.
import { api } from "./api.js";
import { $, page, phaseWords } from "./page.js";
import { guarded, newest } from "./status.js";

function when(seconds) {
  return new Date(seconds * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

function truncate(text, n) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

export async function refreshSessions() {
  const listed = await newest("sessions", () => guarded(() => api.sessions()));
  if (!listed) return;
  $("sessions-empty").hidden = listed.sessions.length > 0;
  $("session-list").replaceChildren(
    ...listed.sessions.map((s) => {
      const li = document.createElement("li");
      const link = document.createElement("a");
      link.href = `#s=${s.session_id}`;
      link.dataset.sessionId = s.session_id;
      link.textContent = s.title ? truncate(s.title, 60) : "New conversation";
      if (s.session_id === page.sessionId) link.setAttribute("aria-current", "page");
      const meta = document.createElement("span");
      meta.className = "muted";
      meta.textContent = ` ${phaseWords(s.phase)} · ${when(s.created)}`;
      li.append(link, meta);
      return li;
    }),
  );
}
