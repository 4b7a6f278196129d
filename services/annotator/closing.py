"""Whether a message says the user is finished describing the workflow: pure rules, no I/O.

People close in many words ("done", "ship it", "that covers it", "you can build it now"),
and the same words also occur inside ordinary sentences ("done with Trello", "when the
upload is done", "nothing else matters than speed"). So a closing is read from structure:
a clause (between punctuation) whose whole content, once the pleasantries around it are
set aside, is a closing; a long regex over the message would hear it everywhere.
"""

from __future__ import annotations

import re

# Said anywhere, these long phrases close a message whatever else it says.
CLOSING_PHRASE = re.compile(
    r"\b(?:that'?s|that is|that should be) (?:about |pretty much )?everything"
    r"|\bplease (?:confirm|build)\b|\bconfirm what you(?:'ll| will) build\b|\bready to build\b"
    r"|\b(?:you can|please) (?:summari[sz]e|wrap (?:it|this) up)\b",
    re.IGNORECASE,
)
# A whole clause that is one of these is a closing.
CORE = re.compile(
    r"(?:i'?m |i am |we'?re |we are |all )?(?:done|finished)(?: here| now)?"
    r"|that'?s (?:it|all|everything|the lot|about it|all of it|all (?:i|we) (?:need|want|have))"
    r"|that is (?:it|all|everything)|that'?ll (?:do|be all|be it)|that should (?:do it|be it|be all)"
    r"|(?:that |i think that |that about )?covers it|(?:there'?s )?nothing (?:else|more|further)(?: to add)?"
    r"|no more|no(?:thing)? more to add|nothing to add|all set|(?:we'?re |i'?m )?good to go"
    r"|(?:you can |please |go ahead and |let'?s |now )?(?:build|ship|create|make|deploy|set up) (?:it|this|that|the (?:workflow|automation|thing))"
    r"|go ahead|go for it|let'?s (?:do it|build it)|(?:i'?m |we'?re )?ready|nothing else comes to mind"
    r"|(?:i )?can'?t think of anything (?:else|more)"
    r"|(?:please )?(?:proceed|confirm)|wrap (?:it|this) up|(?:we'?re |i'?m )?all good|that'?s the whole thing",
    re.IGNORECASE,
)
# Words around a closing that do not change it: "ok", "thanks", "I think", "for now".
OPENERS = re.compile(
    r"^(?:ok(?:ay)?|yes|yeah|yep|yup|sure|great|perfect|cool|alright|all right|right|thanks|thank you|thx|ty"
    r"|cheers|well|so|and|oh|hmm+|um+|(?:i )?think|i guess|i believe|then|now|actually|please|nope|no"
    r"|sounds good|looks good|lovely|nice|awesome|fine|good|sweet|ya|that'?s great)\b\W*",
    re.IGNORECASE,
)
CLOSERS = re.compile(
    r"\W*\b(?:please|now|then|for now|for today|thanks|thank you|thx|ty|cheers|i think|i guess|already"
    r"|really|from me|on my end|on my side|ah|xx+|lol|haha)$",
    re.IGNORECASE,
)
# A clause after the closing that adds to the workflow undoes it: "done. oh, also add Trello".
MORE = re.compile(
    r"^\W*(?:oh\W+)?(?:and\s+)?(?:also|plus|one more|but|except|wait|hold on)\b", re.I
)
CLAUSES = re.compile(r"[.,;:!?…\n]+|\s[-–—]+\s")


def clauses(text: str) -> list[str]:
    """The message split at punctuation into trimmed, non-empty clauses."""
    plain = text.replace("’", "'").replace("‘", "'")
    return [c.strip() for c in CLAUSES.split(plain) if c.strip(" \t\"'()*_~")]


def is_closing(clause: str) -> bool:
    """The clause says nothing but that the user is finished, pleasantries aside."""
    words = clause.strip(" \t\"'()*_~")
    while words:
        if CORE.fullmatch(words) or CORE.fullmatch(without_closers(words)):
            return True
        fewer = OPENERS.sub("", words, count=1).strip()
        if fewer == words:
            return False
        words = fewer
    return False


def without_closers(words: str) -> str:
    """The clause without the thank-yous and fillers at its end ("that's it i think thx")."""
    while (fewer := CLOSERS.sub("", words).strip()) != words:
        words = fewer
    return words


def said_done(text: str) -> bool:
    """The user says they are finished: a closing clause not followed by more to add."""
    if CLOSING_PHRASE.search(text):
        return True
    parts = clauses(text)
    closing = [i for i, part in enumerate(parts) if is_closing(part)]
    if not closing:
        return False
    return not any(MORE.search(part) for part in parts[closing[-1] + 1 :])
