"""References by what a sentence asks done, read from its parse rather than its phrasing.

"get a text right away", "shoot him a quick text", "by text" mean a text message whatever
words stand around them; "convert the amount to USD", "convert it into pounds" mean a
calculation. The parse says the word's part in the sentence (a text *sent*, not "the text
of the review"; an amount *converted to* a currency, not a file converted to PDF), so one
rule covers the ways of saying it. Only sentences holding one of the words are parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from catalog.phrases import Hit
from catalog.structure import SENTENCE, WORKFLOW_WORDS, parse

if TYPE_CHECKING:
    from spacy.tokens import Token

SMS_WORDS = re.compile(r"\b(?:texts?|txts?)\b", re.IGNORECASE)
# Verbs a message is sent or received by.
CARRYING = {"send", "get", "receive", "shoot", "fire", "drop", "want", "give", "ping", "need"}
CONVERT = re.compile(r"\bconvert", re.IGNORECASE)
# What a number is converted into: money and units of measure.
MONEY = {"usd", "eur", "gbp", "chf", "jpy", "cad", "aud", "inr", "pln", "sek", "nok", "dkk"}
MONEY |= {"dollar", "euro", "pound", "yen", "franc", "rupee", "zloty", "krone", "currency"}
UNITS = {"kg", "kilo", "kilogram", "gram", "lb", "ounce", "mile", "km", "kilometre", "meter"}
UNITS |= {"celsius", "fahrenheit", "litre", "liter", "gallon", "hour", "minute", "metre"}


def _tokens(text: str, words: re.Pattern[str]) -> Iterator[tuple[int, Token]]:
    """Each token (with its sentence's start) of the sentences holding one of the words."""
    for found in SENTENCE.finditer(text):
        if words.search(found.group()):
            for token in parse(found.group().rstrip()):
                yield found.start(), token


def _hit(start: int, token: Token, id_: str) -> Hit:
    return Hit(start + token.idx, start + token.idx + len(token), id_)


def text_message_hits(text: str) -> list[Hit]:
    """A text as a message sent or received ("get a text", "by text"), not a text's words."""
    return [
        _hit(start, token, "twilio_sms")
        for start, token in _tokens(text, SMS_WORDS)
        if token.lower_ in ("text", "texts", "txt", "txts") and _a_message(token)
    ]


def text_verb_hits(text: str) -> list[Hit]:
    """ "text" as the verb of sending one ("text it to my phone"); who texts whom, and
    whether it is restricted, the SMS guard reads (catalog/guards.py)."""
    return [
        _hit(start, token, "twilio_sms")
        for start, token in _tokens(text, SMS_WORDS)
        if token.pos_ == "VERB" and token.lemma_ in ("text", "txt")
    ]


def _a_message(token: Token) -> bool:
    if token.pos_ != "NOUN" or any(c.dep_ == "prep" and c.lower_ == "of" for c in token.children):
        return False  # "the text of the review"
    head = token.head
    if token.dep_ == "pobj" and head.lower_ in ("by", "via", "over"):
        return True  # "let me know by text"
    article = any(c.lower_ in ("a", "an", "another") for c in token.children)
    return token.dep_ in ("dobj", "npadvmod") and head.lemma_ in CARRYING and article


def conversion_hits(text: str) -> list[Hit]:
    """A number converted into money or a unit ("convert the amount to USD")."""
    return [
        _hit(start, token, "calculator")
        for start, token in _tokens(text, CONVERT)
        if token.lemma_ == "convert" and _into_measure(token)
    ]


def _into_measure(verb: Token) -> bool:
    targets = [
        g
        for c in verb.children
        if c.dep_ in ("prep", "dative") and c.lower_ in ("to", "into", "in")
        for g in c.children
        if g.dep_ == "pobj"
    ]
    return any(t.lemma_.lower() in MONEY | UNITS or t.lower_ in MONEY for t in targets)


# Verbs of arithmetic: "total the hours", "sum up the refunds", "subtract the deposit".
ARITHMETIC = {"total", "sum", "subtract", "deduct", "average", "tally", "tot", "multiply"}
ARITHMETIC |= {"divide", "calculate", "compute", "prorate"}
ARITHMETIC_WORDS = re.compile(
    r"\b(?:total|sum|subtract|deduct|averag|tall|tot|multipl|divid|calculat|comput|prorat)\w*",
    re.IGNORECASE,
)


def arithmetic_hits(text: str) -> list[Hit]:
    """A verb of arithmetic done to something ("total the hours per person", "sum up the
    refunds", "it should average the scores"): a calculation, however it is worded around.
    Not "it sums the amounts" (told, not asked), "sum it up in two lines" (a summary),
    nor "update the stock by subtracting the quantities" (how another step writes)."""
    return [
        _hit(start, token, "calculator")
        for start, token in _tokens(text, ARITHMETIC_WORDS)
        if token.pos_ == "VERB" and token.lemma_.lower() in ARITHMETIC and _done_to(token)
    ]


def _done_to(verb: Token) -> bool:
    if verb.dep_ == "pcomp" and verb.head.lower_ == "by":
        return False  # the way another verb's step is done
    subject = any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children)
    if subject and not any(c.tag_ == "MD" for c in verb.children):
        return False  # "it sums the amounts": told of something, not asked for
    objects = [c for c in verb.children if c.dep_ == "dobj"]
    if verb.lemma_.lower() == "sum" and any(c.dep_ == "prt" for c in verb.children):
        # "sum up the refunds" adds; "sum it up", "sum up the article" tell the gist.
        return any(o.tag_ == "NNS" for o in objects)
    return bool(objects)


# Words for a number a workflow can be asked to work out (language data, not phrasings):
# what it is called, what a change or a share of something is called, and periods compared.
QUANTITIES = {"total", "sum", "subtotal", "balance", "percentage", "percent", "%", "average"}
QUANTITIES |= {"mean", "median", "ratio", "proportion", "fraction", "margin", "difference"}
QUANTITIES |= {"growth", "change", "increase", "decrease", "rise", "drop", "variance"}
QUANTITIES |= {"cost", "price", "charge", "fee", "amount", "figure", "number", "tax"}
QUANTITIES |= {"vat", "profit", "commission", "discount", "interest", "rate", "score", "value"}
QUANTITIES |= {"gross", "net", "quote", "estimate", "wage", "pay", "salary", "bonus", "owe"}
QUANTITIES |= {"point", "pts", "standing", "ranking", "leaderboard", "table"}
SHARES = {"percentage", "percent", "%", "proportion", "ratio", "fraction"}
CHANGES = {"growth", "change", "increase", "decrease", "rise", "drop", "difference"}
PERIODS = {"day", "week", "month", "quarter", "year"}
# What working a number out is said with; what a percentage is applied by.
WORKING_OUT = {"work", "figure"}  # with "out"
APPLYING = {"add", "take", "deduct", "subtract", "knock", "apply", "remove"}
CHECKING = {"check", "verify", "confirm", "ensure", "make", "flag", "compare", "test"}
WANTING = {"want", "need", "like", "wish", "love", "prefer"}
CLAUSES = {"advcl", "relcl", "conj", "parataxis", "cc", "mark", "acl"}
DERIVED_WORDS = re.compile(
    r"%|\b(?:work|figur)\w*\b.*\bout\b|\bout\s+of\s+(?:the\s+|our\s+|all\s+)?\d"
    r"|\b(?:minus|plus|times|percent\w*|proportion|ratio|fraction|per\s+cent)\b"
    r"|\b(?:day|week|month|quarter|year)\s+(?:over|on)\s+(?:day|week|month|quarter|year)\b",
    re.IGNORECASE,
)


def derived_hits(text: str) -> list[Hit]:
    """A number the workflow is asked to work out, said by what is done with it rather than
    by a word for arithmetic: "work out the remaining balance", "the total units worked
    out", "price minus the deposit", "MRR times 12", "add 20% on top of the gift", "check
    the tax is 20% of the net", "what percentage that is", "the share of 5-star replies",
    "week over week growth %". Not a number only read or passed on ("post the order
    total"), a habit told ("I work out the totals by hand"), nor "3 times a week"."""
    found: list[Hit] = []
    for start, token in _tokens(text, DERIVED_WORDS):
        if _worked_out(token) or _operator(token) or _applied_share(token) or _a_share(token):
            found.append(_hit(start, token, "calculator"))
    return found


def _lemma(token: Token) -> str:
    return "%" if token.text == "%" else token.lemma_.lower()


def _worked_out(verb: Token) -> bool:
    """ "work out / figure out" asked, with a number in what is worked out."""
    if verb.lemma_.lower() not in WORKING_OUT or verb.pos_ != "VERB":
        return False
    if not any(c.dep_ == "prt" and c.lower_ == "out" for c in verb.children):
        return False
    if not _asked(verb):
        return False  # "I work out the totals by hand": a habit told
    words = list(_own_words(verb))
    how = any(t.lower_ in ("many", "much") and t.nbor(-1).lower_ == "how" for t in words)
    return how or any(_lemma(t) in QUANTITIES or _digits(t) for t in words)


def _asked(verb: Token) -> bool:
    """The verb asks for something done, rather than telling what is or is done."""
    if verb.dep_ == "pcomp" and verb.head.lower_ == "by":
        return False  # the way another verb's step is done
    subject = any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children)
    wanted = verb.dep_ in ("ccomp", "xcomp", "oprd") and verb.head.lemma_ in WANTING
    modal = any(c.tag_ == "MD" for c in verb.children)
    return not subject or modal or wanted


def _digits(token: Token) -> bool:
    return any(ch.isdigit() for ch in token.text)


def _own_words(verb: Token) -> Iterator[Token]:
    """The words of the verb's own clause (a "what ... should be" asked about included)."""
    for child in verb.children:
        if child.dep_ in CLAUSES and child.dep_ != "ccomp":
            continue
        yield from child.subtree


def _operator(token: Token) -> bool:
    """ "price minus the deposit", "base plus the surcharge", "MRR times 12"."""
    word = token.lower_
    before = token.doc[token.i - 1] if token.i > 0 else None
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if before is None or after is None:
        return False
    if word == "minus":
        return before.pos_ in ("NOUN", "PROPN", "NUM") or before.text == "%"
    if word == "plus":
        following = [t for t in token.doc[token.i + 1 : token.i + 4] if t.pos_ != "DET"][:1]
        sides = [before, *following]
        return any(_lemma(t) in QUANTITIES or _digits(t) for t in sides)
    if word == "times":
        # "MRR times 12": a quantity times a number, not "3 times a week"
        return before.pos_ in ("NOUN", "PROPN") and _digits(after)
    return False


def _applied_share(token: Token) -> bool:
    """A stated percentage of or on top of something: "20% of the net", "add 25% on top"."""
    if _lemma(token) not in SHARES or not any(c.dep_ == "nummod" for c in token.children):
        return False
    if any(c.dep_ == "prep" and c.lower_ == "of" for c in token.children):
        # checked or applied, not "it's about 20% of our customers" (told)
        return any(a.lemma_.lower() in CHECKING | APPLYING for a in token.ancestors)
    return token.dep_ == "dobj" and token.head.lemma_.lower() in APPLYING


def _a_share(token: Token) -> bool:
    """A share or change to be found: "what percentage", "the % of 5-star scores", "growth
    %", "% change", "week over week"."""
    word = _lemma(token)
    if word == "out" and token.dep_ == "prep":  # "how many ... out of the 58"
        of = [c for c in token.children if c.lower_ == "of"]
        whole = [g for c in of for g in c.children if g.dep_ == "pobj"]
        return any(_digits(w) for w in whole) and _how_many(token)
    if word in PERIODS:
        nxt = token.doc[token.i + 1 : token.i + 3]
        return len(nxt) == 2 and nxt[0].lower_ in ("over", "on") and _lemma(nxt[1]) == word
    if word not in SHARES or any(c.dep_ == "nummod" for c in token.children):
        return False
    if any(c.lower_ == "what" for c in token.children):
        return True
    if any(c.dep_ == "prep" and c.lower_ == "of" for c in token.children):
        # asked for ("post the share of 5-star replies"), not told ("terms are a % of sales")
        verb = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX")), None)
        return verb is not None and verb.lemma_ not in ("be", "have", "get") and _asked(verb)
    # "growth %", "% change", "percentage increase": a share told by the change it measures
    doc = token.doc
    beside = [doc[i] for i in (token.i - 1, token.i + 1) if 0 <= i < len(doc)]
    compounds = [c for c in token.children if c.dep_ == "compound"]
    return any(_lemma(t) in CHANGES for t in compounds + beside)


def _how_many(token: Token) -> bool:
    clause = token.head
    return any(t.lower_ == "how" and t.head.lower_ in ("many", "much") for t in clause.subtree)


# Feelings a text or its writer can show (language data), and the nouns for a text's feeling.
FEELINGS = {"angry", "upset", "annoyed", "unhappy", "happy", "frustrated", "furious", "irate"}
FEELINGS |= {"negative", "positive", "hostile", "rude", "stressed", "anxious", "worried"}
FEELINGS |= {"disappointed", "dissatisfied", "satisfied", "pleased", "grumpy", "mad", "cross"}
FEELINGS |= {"irritated", "salty", "toxic", "nasty", "abusive", "aggressive", "distressed"}
FEELINGS |= {"panicked", "scared", "excited", "enthusiastic", "lukewarm", "sarcastic"}
MOODS = {"vibe", "vibes", "mood", "tone", "sentiment", "feeling", "feelings", "attitude"}
# Verbs a feeling is perceived by, and verbs of finding or reporting one.
PERCEIVING = {"sound", "seem", "look", "feel", "read", "come", "be", "get", "appear"}
GAUGING = {"tell", "give", "check", "gauge", "read", "judge", "assess", "show", "report"}
GAUGING |= {"measure", "detect", "track", "analyse", "analyze", "rate", "score", "get", "pick"}
GAUGING |= {"flag", "scan", "screen", "sort", "tag", "classify", "know", "see", "find"}
FEELING_WORDS = re.compile(r"\b(?:" + "|".join(sorted(FEELINGS | MOODS)) + r")\b", re.IGNORECASE)


def feeling_hits(text: str) -> list[Hit]:
    """How a text or its writer feels, asked of the workflow: "if someone sounds really
    negative, flag it", "how upset the caller seems", "tell us the overall vibe", "scan the
    replies for tone". Not the user's own feeling ("I'm annoyed by this") nor a tone the
    workflow writes in ("keep the tone friendly")."""
    return [
        _hit(start, token, "sentiment")
        for start, token in _tokens(text, FEELING_WORDS)
        if (token.lower_ in FEELINGS and token.pos_ in ("ADJ", "VERB") and _felt_by_another(token))
        or (token.lower_ in MOODS and token.pos_ == "NOUN" and _gauged(token))
    ]


def _felt_by_another(feeling: Token) -> bool:
    """A feeling perceived in someone else ("sounds really negative", "how annoyed staff
    sound", "whether the caller seems stressed") and asked about (a condition, a "how", or
    what a verb of finding out finds). Read from the words around it as well as the tree:
    the parser often takes "sound" for a noun or "stressed" for a verb."""
    doc = feeling.doc
    window = doc[max(0, feeling.i - 3) : feeling.i + 4]
    perceived = [t for t in window if t.lemma_ in PERCEIVING and t.i != feeling.i]
    if not perceived:
        return False
    first = min(feeling.i, *(t.i for t in perceived))
    before = doc[max(0, first - 5) : first + 1]
    between = doc[first : max(feeling.i, *(t.i for t in perceived)) + 1]
    if any(t.lower_ in ("i", "we", "i'm", "me", "us") for t in [*before[-2:], *between]):
        return False  # the user's own feeling
    asked = any(t.lower_ in ("if", "whether", "when", "how") for t in before)
    governed = any(a.lemma_ in GAUGING and a.pos_ == "VERB" for a in feeling.ancestors)
    return asked or governed


def _gauged(noun: Token) -> bool:
    """The feeling noun is what a verb of finding or reporting gets ("tell us the vibe"),
    or what something is scanned for ("scan the replies for tone")."""
    head = noun.head
    if noun.dep_ == "pobj" and head.lower_ == "for":
        head = head.head
        if head.pos_ == "NOUN":
            head = head.head  # "scan the replies for tone": the parser's noun, then its verb
    elif noun.dep_ != "dobj":
        return False
    return head.pos_ == "VERB" and head.lemma_ in GAUGING


# A call made to an address: who makes it decides the direction. Another system calling a
# URL the user gives is an incoming webhook; the workflow calling an API is an HTTP request.
CALLING = {"call", "post", "ping", "hit", "send", "fire", "push", "notify", "trigger"}
ENDPOINTS = {"url", "endpoint", "callback", "hook", "uri"}
CALL_WORDS = re.compile(r"\b(?:url|endpoint|callback|hook|uri)s?\b", re.IGNORECASE)
NOT_CALLERS = {"i", "we", "you", "it", "this", "that", "which", "workflow", "automation"}
NOT_CALLERS |= {"bot", "script", "flow", "zap", "planwire"}
ASIDES = re.compile(r"\([^()]*\)")
TIMES = {"hour", "minute", "day", "week", "month", "morning", "evening", "night", "time"}


def inbound_call_hits(text: str) -> list[Hit]:
    """Another system calling an address ("the booking system can call a URL when someone
    books", "a crash reporter that POSTs a payload to whatever URL I give it"): an incoming
    webhook, the run's start. Not the workflow's own call ("call the weather API", "it
    should hit this endpoint")."""
    found = []
    # an aside in brackets ("a payload (trace, build, note) to a URL") hides the sentence's
    # shape from the parser: it is blanked out, offsets kept
    plain = ASIDES.sub(lambda m: " " * len(m.group()), text)
    for start, token in _tokens(plain, CALL_WORDS):
        if token.lemma_.lower() not in ENDPOINTS or token.pos_ not in ("NOUN", "PROPN"):
            continue
        # the verb the address hangs from: "call a URL", "POSTs a payload to whatever URL"
        verb = next((a for a in list(token.ancestors)[:3] if a.pos_ == "VERB"), token)
        # "The ERP posts to a URL": the parser's plural noun is the verb, its compound the caller
        misread = [
            a
            for a in list(token.ancestors)[:3]
            if a.dep_ == "ROOT" and a.tag_ == "NNS" and a.lemma_.lower() in CALLING
        ]
        if misread and any(c.dep_ == "compound" for c in misread[0].children):
            verb = misread[0]
        elif verb.lemma_.lower() not in CALLING or verb.pos_ != "VERB":
            continue
        caller = _caller(verb)
        if caller is not None:
            first, last = min(verb.i, token.i), max(verb.i, token.i)
            doc = token.doc
            found.append(
                Hit(start + doc[first].idx, start + doc[last].idx + len(doc[last]), "webhook")
            )
    return found


def _caller(verb: Token) -> Token | None:
    """The system the call comes from, when it is neither the user nor the workflow."""
    if any(c.dep_ == "dative" for c in verb.children):
        return None  # "their tech chap sent me an endpoint URL": given, not called
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "compound")), None)
    if subject is not None and subject.tag_ == "WDT" and verb.dep_ == "relcl":
        subject = verb.head  # "a crash reporter that POSTs ..."
    if subject is None or subject.pos_ not in ("NOUN", "PROPN"):
        return None
    # "the booking system" is a system of theirs; "the system", "something" is the workflow
    named = any(c.dep_ in ("compound", "amod", "poss") for c in subject.children)
    workflow = subject.lower_ in WORKFLOW_WORDS and not named
    if subject.lower_ in NOT_CALLERS or workflow or subject.lemma_.lower() in TIMES:
        return None  # the user, the workflow, or a time the parser took for a subject
    return subject


# Looking something up on the web: "google" done to something, or a search whose place is
# the web ("a quick search on the web", "search online").
WEB = {"web", "internet", "net", "online", "google"}
SEARCHING = {"search", "lookup", "look", "research", "dig", "hunt", "scour"}
GOOGLE_PRODUCTS = {"sheet", "sheets", "drive", "calendar", "doc", "docs", "form", "forms"}
GOOGLE_PRODUCTS |= {"mail", "maps", "chat", "meet", "workspace", "account", "analytics", "ads"}
WEB_WORDS = re.compile(r"\bgoogl\w*|\b(?:web|internet|net|online)\b", re.IGNORECASE)


def web_search_hits(text: str) -> list[Hit]:
    """A web search asked for in other words: "google my game's name", "Google each new
    company", "do a quick search on the web for ...", "search online for reviews". Not
    Google's products ("the google sheet", "google calendar")."""
    return [
        _hit(start, token, "web_search")
        for start, token in _tokens(text, WEB_WORDS)
        if _googled(token) or _searched_on_web(token)
    ]


def _googled(token: Token) -> bool:
    if not token.lower_.startswith("googl"):
        return False
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if after is not None and after.lower_ in GOOGLE_PRODUCTS:
        return False
    done_to = any(c.dep_ == "dobj" for c in token.children)
    # "Google the band's name": an order the tagger took for the name
    first = all(t.is_space for t in token.doc[: token.i])
    ordered = after is not None and after.tag_ in ("DT", "PRP$") and first
    return token.pos_ == "VERB" or (token.dep_ == "ROOT" and (done_to or ordered))


def _searched_on_web(token: Token) -> bool:
    if token.lower_ not in WEB:
        return False
    head = token.head
    if token.dep_ == "pobj" and head.lower_ in ("on", "across", "over", "of", "in"):
        head = head.head
    elif token.dep_ != "advmod":
        return False
    return head.lemma_.lower() in SEARCHING


PICTURE_WORDS = re.compile(
    r"\b(?:photo|pic|picture|image|screenshot|scan|snapshot|snap|jpe?g|png|selfie)s?\b",
    re.IGNORECASE,
)
PICTURES = {"photo", "pic", "picture", "image", "screenshot", "scan", "snapshot", "snap"}
PICTURES |= {"jpg", "jpeg", "png", "selfie"}
# Verbs of taking words out of something, and the words for where they come from.
TAKING = {"read", "get", "pull", "extract", "grab", "take", "copy", "scrape", "lift", "transcribe"}
TAKING |= {"capture", "fetch", "parse", "recognise", "recognize"}
OUT_OF = {"off", "from", "out", "of", "in", "on"}


def picture_reading_hits(text: str) -> list[Hit]:
    """Text read off a picture ("read the text off the ticket pic", "pull the totals from the
    photos", "transcribe the screenshots"): the picture is where words are taken from."""
    return [
        _hit(start, token, "ocr")
        for start, token in _tokens(text, PICTURE_WORDS)
        if _a_picture(token) and _read_from(token)
    ]


def _a_picture(token: Token) -> bool:
    """A picture noun that is not itself a modifier ("the photos folder" is a folder)."""
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    # ("the screenshots people post": a clause about them begins, the noun is theirs)
    modifier = after is not None and after.pos_ in ("NOUN", "PROPN") and "subj" not in after.dep_
    return token.pos_ in ("NOUN", "PROPN") and token.lemma_.lower() in PICTURES and not modifier


def _read_from(picture: Token) -> bool:
    """The picture is what a taking verb reads, or where it takes words from."""
    head = picture.head
    if picture.dep_ == "dobj" and head.lemma_ in ("read", "transcribe", "scan"):
        return True
    if picture.dep_ == "pobj" and head.lower_ in OUT_OF:
        verb = head.head
        if verb.lower_ == "out" and verb.dep_ == "prep":  # "out of the photo"
            verb = verb.head
        verb = verb.head if verb.pos_ == "NOUN" else verb  # "the text off the pic"
        return verb.lemma_ in TAKING
    return False
