"""Who a message goes to, read from the sentence's parse. Pure (the parse is cached).

"Text the customer", "email each applicant their result", "send the receipt to the tenant":
the recipient is a person in the data the workflow carries, so the step's recipient is a
placeholder filled from the item (`{customer}`, shaped per field by stated.as_property into
`{customer_phone}` or `{customer_email}`); "text them" is the item's own contact (`{}`).
"Text me", "email us" or a named person ("text Maria") give no value: only the user knows
the number, so code asks for it.

The parse says which word is the person reached (the object of "text", the indirect object
of "email", the object of "to" after "send"); `PEOPLE` and the suffix -ee are language
facts saying which nouns name people, so "email the report" is not a recipient.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from catalog.structure import SENTENCE, parse

if TYPE_CHECKING:
    from spacy.tokens import Token

CUES = re.compile(
    r"\b(?:te?xt|sms|messag|e-?mail|mail|notif|remind|tell|ping|alert|send|sent|forward"
    r"|whatsapp|contact|thank|invite|welcome|nudge|chase|reply|respond)",
    re.IGNORECASE,
)
# Verbs whose object is the person reached ("text the customer", "remind each volunteer").
REACH = {"text", "txt", "sms", "message", "notify", "remind", "tell", "ping", "alert"}
REACH |= {"whatsapp", "contact", "thank", "invite", "welcome", "nudge", "chase", "email"}
REACH |= {"e-mail", "mail", "warn", "inform", "update"}
# Verbs whose object is the thing sent; the person follows "to" ("send it to the tenant").
SEND = {"send", "forward", "email", "e-mail", "mail", "text", "message", "reply", "respond"}
SEND |= {"deliver", "pass", "share", "whatsapp", "post"}
# Nouns that name people, where no suffix says so (a fact of English, not a phrasing).
_PEOPLE_WORDS = (
    "customer member buyer owner manager volunteer donor subscriber user worker driver "
    "teacher partner supplier vendor seller player caller sender requester organiser "
    "organizer leader officer visitor tutor mentor doctor author contractor investor sponsor "
    "guest family parent child kid staff person people lead contact rep host guardian nurse "
    "coach trainer learner buyer renter landlord homeowner shopper reviewer signer hire "
    "recruiter interviewer approver reporter assignee submitter booker winner client "
    "applicant student resident patient tenant "
    "participant agent consultant accountant assistant recipient respondent claimant entrant "
    "registrant occupant dentist therapist pharmacist technician librarian physician "
    "principal lecturer pupil"
)
PEOPLE = frozenset(_PEOPLE_WORDS.split())
# "attendee", "employee", "trainee", "invitee": the suffix says a person.
PERSON_SUFFIX = re.compile(r"[a-z]{4,}ee$")
# The user and their own people: only they know those numbers and addresses.
SELF = {"me", "us", "myself", "ourselves"}
ITEM = {"them", "him", "her"}


def recipients(text: str) -> list[tuple[int, int, str]]:
    """(start, end, placeholder) for each person in the data a message is sent to."""
    found = []
    for start, token in _tokens(text):
        person = _reached(token)
        if person is None:
            continue
        value = _placeholder(person)
        if value is not None:
            at = start + person.idx
            found.append((at, at + len(person), value))
    return found


def _tokens(text: str) -> Iterator[tuple[int, Token]]:
    for found in SENTENCE.finditer(text):
        if CUES.search(found.group()):
            for token in parse(found.group().rstrip()):
                yield found.start(), token


def _reached(verb: Token) -> Token | None:
    """The person this verb sends to, if it is a sending verb and names one."""
    # A tagger may call an imperative "text" a noun; objects under it say it acts as a verb.
    if verb.pos_ != "VERB" and not any(c.dep_ in ("dobj", "dative") for c in verb.children):
        return None
    lemma = verb.lemma_.lower()
    objects = [c for c in verb.children if c.dep_ == "dobj"]
    for child in verb.children:
        if child.dep_ == "dative" and child.pos_ in ("NOUN", "PRON", "PROPN"):
            return child  # "email each applicant their result"
    # "send the receipt to the tenant": the "to" may hang from the verb or from what is sent.
    for child in (c for holder in (verb, *objects) for c in holder.children):
        if child.dep_ in ("prep", "dative") and child.lower_ == "to" and lemma in SEND:
            target = next((g for g in child.children if g.dep_ == "pobj"), None)
            if target is not None:
                return target
    return objects[0] if objects and lemma in REACH else None


def _placeholder(person: Token) -> str | None:
    """`{customer}` for a person in the data, `{}` for "them"; None for the user or a name."""
    word = person.lower_
    if word in SELF or person.pos_ == "PROPN":
        return None
    if word in ITEM:
        return "{}"
    lemma = person.lemma_.lower()
    if person.pos_ == "NOUN" and (lemma in PEOPLE or PERSON_SUFFIX.search(lemma)):
        return "{" + lemma + "}"
    return None
