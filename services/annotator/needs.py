"""What the workflow still needs before it can run, read by code after every turn: pure rules.

Most important first: something to start it; an event the user described that their app
does not offer (Shopify has no review event); somewhere for results to go; then each step's
required values (its operation's schema says which) that nobody stated. Each is phrased as
the question to ask, so the notes' hints, the page's "Still to ask" and the reply say the
same thing, and a question saying why when the reason is not obvious.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

from catalog import Catalogue
from catalog.flow import SCHEDULER, operation_of, ordered, trigger_of, wanted_refs
from catalog.operations import Operation, operations_for
from catalog.values import crons, extract, stated
from catalog.values.fromwords import value_from_text
from schemas.turn import ChatMessage, Notes
from services.annotator.closing import said_done

ASK_TRIGGER = (
    "What should start it: a schedule (say when), or something that happens in one of your apps?"
)
ASK_RESULTS = "Where should the results go: a message, an email, a sheet, or somewhere else?"
NO_EVENT = (
    "{app} has no event for {nouns}, so they can't start it there. "
    "How do the {nouns} reach you: by email, a form, or another app?"
)
NO_EVENTS = (
    "{app} can't start a workflow (it has no events). "
    "What should start it: a schedule, or something in another app?"
)
# Required fields a person knows and can say, with the thing to ask about; the others
# (message templates, fields of the data, amounts) are worked out from the data.
ASKED = {
    "channel": "Which {app} channel should it {verb}?",
    "to": "Who should the {app} message go to: an address, a number, or someone in the data?",
    "chat_id": "Which {app} chat should it {verb}?",
    "cron": "What time should it run, and in which time zone?",
    "target_language": "Which language should it translate into?",
    "feed_url": "What is the address (URL) of the feed?",
    "url": "Which address (URL) should the request go to?",
}
WRITE_VERB = {"channel": "post to", "chat_id": "send to", "to": "send to"}
THINGS = ("spreadsheet", "database", "board", "list", "project", "table", "base", "bucket")
NAMED_THING = "Which {thing} in {app} should it {verb}?"
# Nouns of things that happen, as people say them, and what apps call them.
_EVENT_NOUNS_WORDS = (
    "review comment order refund product checkout message email file row record card task "
    "issue release ticket lead contact deal invoice bill payment charge subscription dispute "
    "payout meeting page form submission signup booking appointment mention reaction follower "
    "rating return cart shipment upload document photo call survey response reply "
    "conversation opportunity case company transaction expense receipt sale purchase "
    "subscriber"
)
EVENT_NOUNS = frozenset(_EVENT_NOUNS_WORDS.split())
# What an app may call a thing people name otherwise ("a deal" is a Salesforce opportunity).
SAME = {
    "mail": ("email",), "sale": ("order", "charge", "payment"), "purchase": ("order", "charge"),
    "cart": ("checkout",), "signup": ("customer", "contact", "lead"), "record": ("row",),
    "response": ("submission", "form"), "submission": ("response", "form"), "deal": ("opportunity",),
    "booking": ("event",), "appointment": ("event",), "meeting": ("event",), "bill": ("invoice",),
    "payment": ("charge", "invoice"), "transaction": ("charge", "payment"), "document": ("file",),
    "photo": ("file",), "upload": ("file",), "case": ("ticket",), "ticket": ("case", "issue"),
    "message": ("conversation", "reply"), "issue": ("ticket",), "receipt": ("charge", "payment"),
}  # fmt: skip
READS = ("read", "list", "select", "query", "get", "search", "find")
# Events whose item carries whatever the user speaks of: an email brings the invoice, a new
# file is the upload, a row is the form's answer. An app with one is never told it lacks one.
_CARRIER_WORDS = "email message sms file object request item row record page card task issue"
CARRIERS = frozenset(_CARRIER_WORDS.split())
_LEAD_IN_WORDS = (
    "new a an each every any incoming leaves leave posts post submits places receives gets"
)
LEAD_INS = frozenset(_LEAD_IN_WORDS.split())
_HAPPENS_WORDS = "comes come arrives arrive lands land is are gets get closes close"
HAPPENS = frozenset(_HAPPENS_WORDS.split())
ACTS = re.compile(
    r"\b(?:should|must|will|want|add|post|send|create|make|notify|email|text|save|log|put|write"
    r"|update|ping|alert|forward|copy)\b"
)
UNSURE = re.compile(r"\b(?:not sure|don'?t know|no idea|later|skip|dunno|unsure)\b", re.I)
# A reply that opens like this is a remark or an instruction, not the value asked for.
NOT_AN_ANSWER = re.compile(
    r"^\W*(?:ok(?:ay)?|yes|yeah|yep|no|nope|sure|fine|right|great|good|thanks|hmm+|um+|use|make"
    r"|keep|skip|sort|only|ignore|include|mark|add|remove|drop|if|when|also|and|but|actually|that"
    r"|this|it|we|i|please|let'?s|can|could|would|should|do|does|is|are|what|why|how)\b",
    re.IGNORECASE,
)
ANSWER_WORDS = 6
# Values recognisable on their own, whatever was asked ("#billing", an address, "9am"): the
# fields a reply's value may fill, read by the same finders that fill the configs.
DISTINCT = ("channel", "to", "cron", "url", "target_language")


def singular(word: str) -> str:
    """'replies' -> 'reply', 'orders' -> 'order' (enough for the nouns above)."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def plural(noun: str) -> str:
    """'review' -> 'reviews', 'reply' -> 'replies', 'survey' -> 'surveys'."""
    return noun[:-1] + "ies" if re.search(r"[^aeiou]y$", noun) else noun + "s"


def event_words(events: Iterable[Operation]) -> set[str]:
    """The words an app's events are called by, singular, with their common synonyms."""
    words = {
        singular(w) for op in events for w in re.split(r"[_\s]+", f"{op.id} {op.name}".lower())
    }
    return words | {noun for noun, names in SAME.items() if words & set(names)}


def clause_naming(item: str, quote: str, catalogue: Catalogue) -> str:
    """The clause of the user's words that names the app ("when a review is left on Shopify")."""
    aliases = "|".join(re.escape(a) for a in catalogue[item].aliases)
    clauses = re.split(r"[,;.:!?]|\bthen\b", quote.lower())
    return next((c for c in clauses if re.search(rf"\b(?:{aliases})\b", c)), "")


def happening_nouns(clause: str) -> list[str]:
    """The nouns of things that happen, where the words say one happens: after "new", "a",
    "each" or a verb like "leaves", or before "comes in", "arrives" ("a review", "orders arrive"),
    before what the workflow then does ("every new subscription | should add a row")."""
    words = re.findall(r"[a-z-]+", ACTS.split(clause, maxsplit=1)[0])
    found = []
    for i, word in enumerate(words):
        noun = singular(word)
        before = set(words[max(i - 2, 0) : i])
        after = words[i + 1] if i + 1 < len(words) else ""
        if noun in EVENT_NOUNS and (before & LEAD_INS or after in HAPPENS):
            found.append(noun)
    return found


def missing_event(item: str, quote: str, catalogue: Catalogue) -> str | None:
    """The thing the user said starts it, in the clause naming the app, if the app has no event
    for it ("a review on Shopify"); None when an event fits or nothing is said."""
    offered = event_words(operations_for(item).events)
    nouns = happening_nouns(clause_naming(item, quote, catalogue))
    if offered & CARRIERS or not nouns or any(n in offered for n in nouns):
        return None
    return nouns[0]


def start_questions(notes: Notes, catalogue: Catalogue) -> list[str]:
    """What to ask about how the workflow starts: nothing, a missing event, or no start."""
    trigger = trigger_of(notes, catalogue)
    described = [r for r in wanted_refs(notes).values() if r.use == "event" and catalogue.get(r.id)]
    if trigger is None:
        apps = [r for r in described if catalogue[r.id].kind == "integration"]
        silent = [r for r in apps if not operations_for(r.id).events]
        if silent:
            return [NO_EVENTS.format(app=catalogue[silent[0].id].name)]
        return [ASK_TRIGGER]
    ref = next((r for r in described if r.id == trigger and r.id != SCHEDULER), None)
    noun = missing_event(trigger, ref.quote, catalogue) if ref is not None else None
    return [NO_EVENT.format(app=catalogue[trigger].name, nouns=plural(noun))] if noun else []


def value_questions(notes: Notes, words: str, catalogue: Catalogue) -> list[tuple[str | None, str]]:
    """(field, question) per required value of a step's operation the words do not state.

    "Stated" is what the specialist step will write into the config (catalog/values), so a
    value the confirmation shows is never asked for and one the workflow would leave open
    always is."""
    trigger, steps = trigger_of(notes, catalogue), ordered(notes, catalogue)
    questions: list[tuple[str | None, str]] = []
    for item in steps:
        ops, op_id = operations_for(item), operation_of(item, notes, catalogue) or ""
        op = ops.event(op_id) or ops.action(op_id)
        if op is None:
            continue
        use = "watch" if item == trigger else "read from" if op.id.startswith(READS) else ""
        properties = op.config_schema.get("properties", {})
        for field in op.config_schema.get("required", ()):
            template = ASKED.get(field) or (NAMED_THING if field in THINGS else None)
            spec = properties.get(field, {})
            value = value_from_text(item, field, spec, words, properties, steps)
            if template and value in (None, "", [], False):
                verb = use or WRITE_VERB.get(field, "add to")
                app = catalogue[item].name
                questions.append((field, template.format(app=app, thing=field, verb=verb)))
    return questions


def acts(notes: Notes, catalogue: Catalogue) -> bool:
    """Something noted does something at the end (writes, sends, posts)."""
    entries = [catalogue.get(i) for i in (*notes.mentioned_integrations, *notes.mentioned_tools)]
    return any(e.role == "action" or e.also_acts for e in entries if e)


def an_answer(text: str) -> bool:
    """A few words that could be the value asked for ("#sales", "the Leads sheet")."""
    return (
        len(text.split()) <= ANSWER_WORDS
        and not NOT_AN_ANSWER.search(text)
        and not UNSURE.search(text)
        and not said_done(text)
    )


def answered(messages: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    """(what the assistant asked, the user's reply) where the reply could be a value
    (`an_answer`): the question in it counts as settled, unless the reply is plainly a value
    of another kind ("#billing" answers the channel, not the board that was asked about)."""
    return [
        (asked.text, reply.text)
        for asked, reply in itertools.pairwise(messages)
        if asked.role == "assistant" and reply.role == "user" and an_answer(reply.text)
    ]


def settled(field: str | None, question: str, replies: Sequence[tuple[str, str]]) -> bool:
    """The user answered this question right after it was asked."""
    return any(
        _alnum(question) in _alnum(asked) and not other_kind(field, reply)
        for asked, reply in replies
    )


def other_kind(field: str | None, reply: str) -> bool:
    """The reply is recognisably a value of a field other than `field`."""
    kinds = {t for c in stated.candidates(reply) for t in c.targets if t in DISTINCT}
    kinds |= {"cron"} if crons.cron(reply) else set()
    kinds |= {"url"} if extract.url(reply) else set()
    return bool(kinds) and field not in kinds


def open_questions(
    notes: Notes, words: str, catalogue: Catalogue, replies: Sequence[tuple[str, str]] = ()
) -> list[str]:
    """Everything still to ask, most important first, without the questions the user
    answered (`replies`: see `answered`)."""
    asked: list[tuple[str | None, str]] = [(None, q) for q in start_questions(notes, catalogue)]
    if not acts(notes, catalogue):
        asked.append((None, ASK_RESULTS))
    asked += value_questions(notes, words, catalogue)
    open_ = [q for field, q in asked if not settled(field, q, replies)]
    return list(dict.fromkeys(open_))


def _alnum(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())
