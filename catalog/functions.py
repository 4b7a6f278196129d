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
from catalog.structure import SENTENCE, parse

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
