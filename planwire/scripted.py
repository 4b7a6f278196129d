"""Scripted annotator models for `planwire eval --scripted`: an oracle and a liar.

They prove the precedence rules both ways on the real stack (docs/understanding.md, "How a message becomes notes").
The oracle knows each case's answer and proposes it with the user's own words as evidence,
so code must accept it; the liar invents apps and quotes words the user never wrote, so
code must reject all of it and build the same plan as with no model at all.

Both answer the annotator's OpenAI-compatible chat calls from a loopback server that the
eval starts; only the annotator is pointed at it, every other role stays heuristic.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from catalog import Catalogue, about, detect, evidence, names
from catalog.lexicon import phrase_hits
from catalog.matcher import WORD
from catalog.phrases import alias_hits
from catalog.typos import typo_hits
from shared.model.quoting import CLOSE, OPEN
from shared.model.tokens import estimate_messages, estimate_text

# The bound of a verdict's evidence in the annotator's output schema (services/annotator/prompt.py).
MAX_EVIDENCE = 80
SENTENCE = re.compile(r"[^.!?;\n]+")
# The labelled lines of the annotator's per-turn prompt.
PREVIOUS = re.compile(r"^Previous notes: (?P<notes>\{.*\})$", re.MULTILINE)
LATEST = re.compile(
    rf"^Latest user message[^\n]*\n{re.escape(OPEN)}\n(?P<text>.*?)\n{re.escape(CLOSE)}",
    re.MULTILINE | re.DOTALL,
)

# (previous notes as a dict, the user's latest message) -> verdicts, each
# (id, role, evidence quote); roles as the annotator's schema names them.
Verdict = tuple[str, str, str]
Script = Callable[[dict[str, Any], str], list[Verdict]]


def quotes(text: str, phrase: str) -> list[str]:
    """Evidence quotes around `phrase`: its sentence if it fits the schema, else windows of
    whole words that reach as far back as they can, then as far ahead."""
    found: list[str] = []
    for match in SENTENCE.finditer(text):
        sentence = match[0].strip()
        at = sentence.lower().find(phrase.lower())
        if at < 0:
            continue
        if len(sentence) <= MAX_EVIDENCE:
            found.append(sentence)
            continue
        end = at + len(phrase)
        back = sentence[max(0, end - MAX_EVIDENCE) : end]
        ahead = sentence[at : at + MAX_EVIDENCE]
        found += [back[back.find(" ") + 1 :] if end > MAX_EVIDENCE else back]
        found += [ahead[: ahead.rfind(" ")] if at + MAX_EVIDENCE < len(sentence) else ahead]
    return [q for q in found if q and q in text]


def _quote_for(id_: str, text: str, catalogue: Catalogue) -> str | None:
    """A quote of the user's words that refers to the item, if the message does."""
    # Where the rules did not read it, the alias or phrase a judgement may settle.
    every = alias_hits(text, catalogue) + phrase_hits(text, catalogue) + typo_hits(text, catalogue)
    phrase = evidence(id_, text, catalogue) or next(
        (text[h.start : h.end] for h in every if h.id == id_), None
    )
    if phrase is None:
        return _sense_quote(id_, text, catalogue)
    return next((q for q in quotes(text, phrase) if names(id_, q, catalogue)), None)


def _sense_quote(id_: str, text: str, catalogue: Catalogue) -> str | None:
    """A few of the user's words around one that says what the item does ("get a text
    right away"), as a model pointing at a function rather than a name would quote."""
    for sentence in SENTENCE.finditer(text):
        words = list(WORD.finditer(sentence[0]))
        for i in range(len(words)):
            first, last = words[max(0, i - 4)], words[min(len(words), i + 6) - 1]
            quote = sentence[0][first.start() : last.end()]
            if about(id_, words[i][0], catalogue) and about(id_, quote, catalogue):
                return quote
    return None


def oracle(cases: list[dict[str, Any]], catalogue: Catalogue) -> Script:
    """A correct model: per message, every app of the case that the message refers to, with
    its role in the case's answer (expected apps wanted, absent ones turned down or, where
    the rules read history, context) and the user's words as evidence."""
    by_turn: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        for turn in case["turns"]:
            by_turn.setdefault(turn.strip(), []).append(case)

    def answer(_notes: dict[str, Any], text: str) -> list[Verdict]:
        text = text.strip()
        verdicts: list[Verdict] = []
        ruled = detect(text, catalogue)
        for case in by_turn.get(text, [])[:1]:
            expect = case["expect"]
            for id_ in [*expect["integrations"], *expect["tools"]]:
                if quote := _quote_for(id_, text, catalogue):
                    verdicts.append((id_, "wanted", quote))
            # What the rules read as wanted but the case neither wants nor allows is only
            # spoken of ("every receipt" is no schedule): a correct model says so.
            wanted = {*expect["integrations"], *expect["tools"], *expect.get("allowed", [])}
            unwanted = [i for i in ruled.mentioned if i not in wanted]
            for id_ in [*expect.get("absent", []), *unwanted]:
                absent = id_ in expect.get("absent", [])
                role = "turned_down" if absent and id_ not in ruled.past else "context"
                if quote := _quote_for(id_, text, catalogue):
                    verdicts.append((id_, role, quote))
        return verdicts

    return answer


def liar(catalogue: Catalogue) -> Script:
    """Invents apps the message does not name, and turns noted apps down or into context
    with words the user never wrote."""

    def answer(notes: dict[str, Any], text: str) -> list[Verdict]:
        named = {i for i in catalogue.ids if names(i, text, catalogue)}
        invented = [i for i in catalogue.ids if i not in named][:2]
        verdicts: list[Verdict] = [
            (invented[0], "wanted", text[:MAX_EVIDENCE]),
            (invented[1], "wanted", f"add {invented[1]}"),
        ]
        noted = [*notes.get("mentioned_integrations", []), *notes.get("mentioned_tools", [])]
        for i in noted:
            if (entry := catalogue.get(i)) is not None:
                verdicts.append((i, "turned_down", f"please drop {entry.name} entirely"))
                verdicts.append((i, "context", f"we used {entry.name} years ago"))
        return [v for v in verdicts if v[2] not in text]

    return answer


def annotator_answer(script: Script, prompt: str) -> dict[str, Any]:
    """The annotator's JSON output for one per-turn prompt."""
    previous, latest = PREVIOUS.search(prompt), LATEST.search(prompt)
    notes = json.loads(previous["notes"]) if previous else {}
    verdicts = script(notes, latest["text"] if latest else "")
    return {
        "requirement_summary": "",
        "apps": [{"id": i, "role": r, "evidence": q[:MAX_EVIDENCE]} for i, r, q in verdicts],
        "confidence_score": 0.5,
        "hints": [],
    }


class ScriptedServer:
    """An OpenAI-compatible chat endpoint on loopback answering as the script says.

    `.base_url` for PLANWIRE_MODEL_BASE_URL; `.calls` counts the requests answered.
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self.calls = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_port}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        """One chat completion: the script's answer to the last user message."""
        self.calls += 1
        user = [m for m in request.get("messages", []) if m.get("role") == "user"]
        content = json.dumps(
            annotator_answer(self.script, str(user[-1]["content"]) if user else "")
        )
        # A script has no tokenizer: it charges the prompt and its answer at the estimate
        # the heuristic backend uses (shared/model/tokens.py), so token counts compare.
        messages = request.get("messages", [])
        return completion(request, content, estimate_messages(messages), estimate_text(content))


def completion(
    request: dict[str, Any], content: str, prompt_tokens: int = 0, completion_tokens: int = 0
) -> dict[str, Any]:
    """An OpenAI chat completion answering `request` with `content` (a scripted model has no
    tokens of its own unless the caller counts some)."""
    return {
        "id": f"chatcmpl-scripted-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = server.complete(json.loads(self.rfile.read(length) or b"{}"))
                status = 200
            except (ValueError, KeyError) as exc:
                body, status = {"error": {"message": str(exc), "type": "invalid_request"}}, 400
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: object) -> None:  # quiet: the eval prints its own lines
            pass

    return Handler
