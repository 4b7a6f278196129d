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
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from typing import Any

from catalog import Catalogue, about, detect, evidence, find_mentions, names, of_family
from catalog.lexicon import phrase_hits
from catalog.matcher import WORD
from catalog.phrases import alias_hits
from catalog.typos import typo_hits
from planwire.scripted_values import MAX_EVIDENCE, claim, field_for
from services.annotator.prompt import MAX_CONDITIONS, MAX_LINKS, MAX_VALUES, MIN_APPS
from shared.model.quoting import CLOSE, OPEN
from shared.model.tokens import estimate_messages, estimate_text

# A sentence ends at a stop followed by a space: "3.5 kilos" and "jo@lune.fr" are inside one.
SENTENCE = re.compile(r"(?:[^.!?;\n]|[.!?;](?=[^\s.!?;]))+")
# The labelled lines of the annotator's per-turn prompt.
PREVIOUS = re.compile(r"^Previous notes: (?P<notes>\{.*\})$", re.MULTILINE)
LATEST = re.compile(
    rf"^Latest user message[^\n]*\n{re.escape(OPEN)}\n(?P<text>.*?)\n{re.escape(CLOSE)}",
    re.MULTILINE | re.DOTALL,
)

# (previous notes as a dict, the user's latest message) -> verdicts, each
# (id, role, evidence quote) or (id, role, evidence quote, use); roles and uses as the
# annotator's schema names them.
Verdict = tuple[str, ...]
Claim = tuple[str, str, str]  # a link (from, to, evidence)
Value = tuple[str, ...]  # a value (id, text, evidence[, config field])


@dataclass
class Answer:
    """What a script says about one message: verdicts on apps, links, stated values."""

    apps: list[Verdict] = field(default_factory=list)
    links: list[Claim] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    conditions: list[tuple[str, str, str, str]] = field(default_factory=list)


Script = Callable[[dict[str, Any], str], Answer | list[Verdict]]


def quotes(text: str, phrase: str) -> list[str]:
    """Evidence quotes around `phrase`: its sentence if it fits the schema, else windows of
    whole words that reach as far back as they can, then as far ahead."""
    found: list[str] = []
    for match in SENTENCE.finditer(text):
        sentence = match[0].strip()
        found_at = re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", sentence, re.IGNORECASE)
        if found_at is None:
            continue
        at = found_at.start()
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
    return _near(text, lambda quote: about(id_, quote, catalogue))


def _family_quote(id_: str, text: str, catalogue: Catalogue) -> str | None:
    """A few words around what the item's family holds ("the auto email is fine")."""
    return _near(text, lambda quote: of_family(id_, quote, catalogue))


def _near(text: str, speaks: Callable[[str], bool]) -> str | None:
    """A few of the user's words around the first word the test accepts, if the quote
    around it passes too."""
    for sentence in SENTENCE.finditer(text):
        words = list(WORD.finditer(sentence[0]))
        for i in range(len(words)):
            first, last = words[max(0, i - 4)], words[min(len(words), i + 6) - 1]
            quote = sentence[0][first.start() : last.end()]
            if speaks(words[i][0]) and speaks(quote):
                return quote
    return None


def oracle(cases: list[dict[str, Any]], catalogue: Catalogue) -> Script:
    """A correct model: per message, every app of the case that the message refers to, with
    its role in the case's answer (expected apps wanted, absent ones turned down or, where
    the rules read history, context) and the user's words as evidence; for a wanted app how
    the workflow uses it, the links of the case's order and the values it states that the
    message says, each with the user's words."""
    by_turn: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        for turn in case["turns"]:
            by_turn.setdefault(turn.strip(), []).append(case)

    def answer(notes: dict[str, Any], text: str) -> Answer:
        text = text.strip()
        said = Answer()
        taken_back = set(notes.get("removed", ()))
        ruled = detect(text, catalogue)
        for case in by_turn.get(text, [])[:1]:
            expect = case["expect"]
            uses = _uses(expect, catalogue)
            found: dict[str, str] = {}
            for id_ in [*expect["integrations"], *expect["tools"]]:
                quote = _quote_for(id_, text, catalogue)
                if quote is None and id_ in taken_back:  # "ok, the auto email is fine"
                    quote = _family_quote(id_, text, catalogue)
                if quote:
                    found[id_] = quote
                    said.apps.append((id_, "wanted", quote, *uses.get(id_, ())))
            # What the rules read as wanted but the case neither wants nor allows is only
            # spoken of ("every receipt" is no schedule): a correct model says so.
            wanted = {*expect["integrations"], *expect["tools"], *expect.get("allowed", [])}
            if expect.get("trigger") not in (None, "scheduler"):  # an event starts it
                wanted.discard("scheduler")
            unwanted = [i for i in ruled.mentioned if i not in wanted]
            for id_ in [*expect.get("absent", []), *unwanted]:
                absent = id_ in expect.get("absent", [])
                role = "turned_down" if absent and id_ not in ruled.past else "context"
                if quote := _quote_for(id_, text, catalogue):
                    said.apps.append((id_, role, quote))
            for a, b in expect.get("order", []):
                if quote := found.get(b) or found.get(a):
                    said.links.append((a, b, quote))
            sentences = [m[0].strip() for m in SENTENCE.finditer(text)]
            for id_, texts in expect.get("values", {}).items():
                for value in texts:
                    if (stated := claim(value, text, quotes, sentences)) is None:
                        continue
                    written, quote = stated
                    # A value of no one step is what a step that works it out uses
                    # ("3.5 kilos a rug, multiply"), else what the workflow tests.
                    worker = next((t for t in expect["tools"] if about(t, quote, catalogue)), None)
                    if id_ in catalogue.ids:
                        said.values.append((id_, written, quote, field_for(id_, quote)))
                    elif worker is not None:
                        said.values.append((worker, written, quote, field_for(worker, quote)))
                    else:
                        said.conditions.append(_condition(written, quote))
        # Once each, and no more than the schema allows (services/annotator/prompt.py).
        bound = len(find_mentions(text, catalogue)) + MIN_APPS
        said.apps = list({v[0]: v for v in reversed(said.apps)}.values())[::-1][:bound]
        said.links, said.values = said.links[:MAX_LINKS], said.values[:MAX_VALUES]
        said.conditions = said.conditions[:MAX_CONDITIONS]
        return said

    return answer


# The case states a condition's value only; the script reads its comparison from the word
# before it, as any reader would ("over 150", "under 3").
COMPARING = (
    (
        "greater_than",
        re.compile(r"(?:over|above|more than|greater than|exceeds?|higher than)\W*$", re.I),
    ),
    ("less_than", re.compile(r"(?:under|below|less than|fewer than|lower than)\W*$", re.I)),
    ("at_least", re.compile(r"(?:at least|minimum of)\W*$", re.I)),
)


def _condition(value: str, quote: str) -> tuple[str, str, str, str]:
    """(field, operator, value, evidence) for a value the workflow tests."""
    before = quote[: quote.lower().find(value.lower())]
    number = re.fullmatch(r"-?\d+(?:[.,]\d+)?", value) is not None
    operator = next((o for o, words in COMPARING if words.search(before)), None)
    field = "amount" if number else "text"
    return field, operator or ("equals" if number else "contains"), value, quote


def _uses(expect: dict[str, Any], catalogue: Catalogue) -> dict[str, tuple[str]]:
    """How the case's workflow uses each of its integrations: the trigger starts it, one
    that only gives data is read, one that only receives it is written to."""
    pairs = expect.get("order", [])
    uses: dict[str, tuple[str]] = {}
    for id_ in expect["integrations"]:
        if id_ == expect.get("trigger"):
            uses[id_] = ("event",)
        elif catalogue.get(id_) is None or catalogue[id_].kind != "integration":
            continue
        elif any(a == id_ for a, _b in pairs) and not any(b == id_ for _a, b in pairs):
            uses[id_] = ("source",)
        elif any(b == id_ for _a, b in pairs) and not any(a == id_ for a, _b in pairs):
            uses[id_] = ("destination",)
    return uses


def liar(catalogue: Catalogue) -> Script:
    """Invents apps the message does not name, turns noted apps down or into context, and
    says how the flow runs (links backwards, values, a condition), each with words the
    user never wrote or a value their words do not hold."""

    def answer(notes: dict[str, Any], text: str) -> Answer:
        named = {i for i in catalogue.ids if names(i, text, catalogue)}
        invented = [i for i in catalogue.ids if i not in named][:2]
        verdicts: list[Verdict] = []
        noted = [*notes.get("mentioned_integrations", []), *notes.get("mentioned_tools", [])]
        for i in noted:
            if (entry := catalogue.get(i)) is not None:
                verdicts.append((i, "turned_down", f"please drop {entry.name} entirely"))
                verdicts.append((i, "context", f"we used {entry.name} years ago"))
        verdicts[1:1] = [
            (invented[0], "wanted", text[:MAX_EVIDENCE], "event"),
            (invented[1], "wanted", f"add {invented[1]}"),
        ]
        bound = len(find_mentions(text, catalogue)) + MIN_APPS  # within the schema
        said = Answer(apps=[v for v in verdicts if v[2] not in text][:bound])
        for a, b in list(pairwise(reversed(noted)))[:MAX_LINKS]:
            said.links.append((a, b, f"send {a} after {b}"))
        for i in noted[:MAX_VALUES]:
            said.values.append((i, "#everyone", text[:MAX_EVIDENCE]))
        said.conditions.append(("amount", "greater_than", "1000000", text[:MAX_EVIDENCE]))
        return said

    return answer


def annotator_answer(script: Script, prompt: str) -> dict[str, Any]:
    """The annotator's JSON output for one per-turn prompt."""
    previous, latest = PREVIOUS.search(prompt), LATEST.search(prompt)
    notes = json.loads(previous["notes"]) if previous else {}
    return as_json(script(notes, latest["text"] if latest else ""))


def as_json(said: Answer | list[Verdict]) -> dict[str, Any]:
    """A script's answer as the annotator's JSON output (services/annotator/prompt.py)."""
    said = said if isinstance(said, Answer) else Answer(apps=said)
    out: dict[str, Any] = {
        "requirement_summary": "",
        "apps": [
            {"id": v[0], "role": v[1], "evidence": v[2][:MAX_EVIDENCE]}
            | ({"use": v[3]} if len(v) > 3 else {})
            for v in said.apps
        ],
        "confidence_score": 0.5,
        "hints": [],
    }
    if said.links:
        out["links"] = [{"from": a, "to": b, "evidence": q} for a, b, q in said.links]
    if said.values:
        out["values"] = [
            {"id": v[0], "text": v[1], "evidence": v[2]}
            | ({"field": v[3]} if v[3:] and v[3] else {})
            for v in said.values
        ]
    if said.conditions:
        out["conditions"] = [
            {"field": f, "operator": o, "value": v, "evidence": q} for f, o, v, q in said.conditions
        ]
    return out


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
