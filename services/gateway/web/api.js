// The gateway's HTTP API and event stream, with every failure turned into words.
// Authentication: the bearer key is exchanged once for an HttpOnly cookie (POST /auth/login),
// so neither fetch nor EventSource ever carries the key in a URL.

export class ApiError extends Error {
  constructor(status, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

// What an HTTP status means to a person using the page.
export function describe(status, detail, retryAfter) {
  const why = detail ? ` (${detail})` : "";
  switch (status) {
    case 0:
      return "The planwire gateway cannot be reached. Is the stack running (planwire up)? Retrying by itself.";
    case 401:
      return "This gateway needs an API key: sign in to continue.";
    case 403:
      return `That is not allowed with this key${why}.`;
    case 404:
      return `Not found: it does not exist or belongs to someone else${why}.`;
    case 409:
      return `Not now: ${detail || "the conversation has moved on"}. Start a new conversation to build another workflow.`;
    case 413:
      return "That message is too long; the limit is 8 KB.";
    case 422:
      return `The gateway could not accept that${why}.`;
    case 429: {
      const wait = retryAfter ? ` Try again in ${retryAfter} s.` : " Try again shortly.";
      return `Too many requests for now.${wait}`;
    }
    case 502:
    case 503:
    case 504:
      return "The planwire stack is not answering (the broker or a service is down). Retrying by itself.";
    default:
      return `The gateway answered ${status}${why}.`;
  }
}

async function call(method, path, body = undefined, headers = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, describe(0));
  }
  if (response.ok) {
    return response.status === 204 ? null : response.json();
  }
  let detail = "";
  try {
    const payload = await response.json();
    detail = typeof payload.detail === "string" ? payload.detail : JSON.stringify(payload.detail);
  } catch {
    detail = "";
  }
  const retryAfter = response.headers.get("Retry-After");
  throw new ApiError(response.status, describe(response.status, detail, retryAfter), retryAfter);
}

export const api = {
  login: (key) => call("POST", "/auth/login", undefined, { Authorization: `Bearer ${key}` }),
  logout: () => call("POST", "/auth/logout"),
  catalogue: () => call("GET", "/v1/catalogue"),
  sessions: () => call("GET", "/v1/sessions"),
  create: () => call("POST", "/v1/sessions"),
  session: (id) => call("GET", `/v1/sessions/${encodeURIComponent(id)}`),
  say: (id, text) => call("POST", `/v1/sessions/${encodeURIComponent(id)}/messages`, { text }),
  workflow: (id) => call("GET", `/v1/workflows/${encodeURIComponent(id)}`),
  steps: (id) => call("GET", `/v1/workflows/${encodeURIComponent(id)}/steps`),
  // A link the browser downloads itself (the gateway names the file).
  workflowUrl: (id, format) =>
    `/v1/workflows/${encodeURIComponent(id)}?format=${encodeURIComponent(format)}`,
  outline: (id) => call("GET", `/v1/sessions/${encodeURIComponent(id)}/outline`),
  healthy: async () => {
    try {
      return (await fetch("/health", { cache: "no-store" })).ok;
    } catch {
      return false;
    }
  },
};

// Redis stream ids ("ms-seq") in order; the page applies each event once, in this order.
export function after(a, b) {
  const [am, as] = a.split("-").map(Number);
  const [bm, bs] = b.split("-").map(Number);
  return am > bm || (am === bm && as > bs);
}

// One session's event stream. Resumes after the last event applied, whether the browser
// reconnects by itself (it sends Last-Event-ID) or the stream is reopened here
// (?after=<id>); events at or before that id are dropped, so nothing is shown twice.
// `types`: the event types to listen for (the page's handlers say which).
export class SessionStream {
  constructor(sessionId, types, onEvent, onStatus) {
    this.sessionId = sessionId;
    this.types = types;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.last = "0-0";
    this.source = null;
    this.closed = false;
    this.retryMs = 1000;
    this.timer = null;
  }

  open() {
    if (this.closed) return;
    const url = `/v1/sessions/${encodeURIComponent(this.sessionId)}/events?after=${this.last}`;
    const source = new EventSource(url, { withCredentials: true });
    this.source = source;
    source.onopen = () => {
      this.retryMs = 1000;
      this.onStatus("live");
    };
    for (const type of this.types) {
      source.addEventListener(type, (message) => this.deliver(type, message));
    }
    source.onerror = () => {
      if (this.closed || source !== this.source) return;
      if (source.readyState === EventSource.CLOSED) {
        // The gateway answered with an error (503, 401...) or vanished: reopen here.
        this.onStatus("down");
        this.reopenSoon();
      } else {
        this.onStatus("reconnecting");
      }
    };
  }

  deliver(type, message) {
    const id = message.lastEventId;
    if (!id || !after(id, this.last)) return;
    this.last = id;
    this.onEvent({ id, type, data: JSON.parse(message.data) });
  }

  reopenSoon() {
    clearTimeout(this.timer);
    this.source?.close();
    this.timer = setTimeout(() => this.open(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 15000);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.source?.close();
  }
}
