"""Whether a message says the user is finished describing the workflow: pure rules, no I/O.

People close in many words ("done", "ship it", "that covers it", "you can build it now"),
and the same words also occur inside ordinary sentences ("done with Trello", "when the
upload is done", "nothing else matters than speed"). So a closing is read from structure:
a clause (between punctuation) whose whole content, once the pleasantries around it are
set aside, is a closing; a long regex over the message would hear it everywhere.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Token

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
        return finished_in_own_words(text)
    return not any(MORE.search(part) for part in parts[closing[-1] + 1 :])


# --- Finishing told in the user's own grammar --------------------------------------------
#
# The clause forms above know the common closings word for word. People also finish in
# sentences nobody listed ("Spec's complete on my end. Go ahead and generate it."). Those are
# read by structure, and only from a message that adds nothing to the workflow: no app, no
# value, no condition (code's own finders say so), so "go ahead and post it to #general"
# or "build it so it runs every night" stay requests. What counts is a main clause that
# orders the assistant to proceed (an imperative, or "you can ...", with no object but the
# thing being built) or says the description is complete ("that's me done", "I've covered
# everything"). The word sets are language facts: verbs of proceeding and of finishing.

PROCEEDING = {"build", "make", "create", "generate", "start", "begin", "proceed", "go"}
PROCEEDING |= {"crack", "set", "put", "sort", "do", "run", "ship", "deploy", "launch"}
PROCEEDING |= {"implement", "finalise", "finalize", "assemble", "continue", "carry", "confirm"}
# Verbs that proceed only with their particle or object: "go ahead", "set it up".
NEEDS = {
    "go": {"ahead", "for", "on"},
    "crack": {"on"},
    "set": {"up"},
    "put": {"together"},
    "sort": {"out"},
    "do": {"thing", "magic", "stuff", "bit"},
    "carry": {"on"},
}
ALL_PARTICLES = {p for ps in NEEDS.values() for p in ps}
CLAUSE_HEADS = {"ROOT", "conj", "advcl", "ccomp", "xcomp", "dep", "parataxis"}
# What a bare order to proceed holds: its subject "you", "can", "please", "now", its
# particle, the thing built, another order joined to it, thanks.
PLAIN = {"nsubj", "aux", "advmod", "prt", "dobj", "cc", "conj", "punct", "intj", "npadvmod"}
PLAIN |= {"dep", "acomp", "prep", "discourse", "mark", "ccomp", "xcomp"}
# What may be proceeded with: the thing being built, never a new piece of it.
BUILT = {"it", "this", "that", "them", "workflow", "automation", "thing", "setup", "flow"}
BUILT |= {"one", "job", "lot", "creation", "creating", "building", "setting", "work"}
FINISHING = {"done", "finish", "finished", "complete", "wrap", "cover", "covered"}
TOTALS = {"everything", "all", "lot", "it"}
# "that's it for the trigger": finished with one part, more to come.
PARTS = {"trigger", "step", "action", "part", "bit", "section", "first", "start", "beginning"}
SUBORDINATE = {"when", "if", "until", "after", "before", "once", "while", "unless", "whether"}


def finished_in_own_words(text: str) -> bool:
    """The message adds nothing to the workflow and a main clause of it finishes."""
    if _adds_something(text):
        return False
    from catalog.structure import parse  # spaCy: loaded only when a message needs it

    for sentence in re.split(r"(?<=[.!?;])\s+|\n+", text.replace("’", "'")):
        if sentence.strip().endswith("?"):
            continue  # "is that everything?" asks
        doc = parse(sentence.strip())
        if any(t.like_num for t in doc):
            continue  # "make it 6:30 instead of 7": a value, whatever the finders missed
        if any(_proceeds(t) or _finishes(t) for t in doc):
            return True
    return False


def _adds_something(text: str) -> bool:
    from catalog.values.conditions import stated_conditions
    from catalog.values.owners import references
    from catalog.values.stated import candidates

    return bool(references(text) or candidates(text) or stated_conditions(text))


def _main(token: Token) -> bool:
    """Not inside a clause of time or condition, nor negated, nor said of someone else."""
    for t in (token, *token.ancestors):
        if any(c.dep_ in ("mark", "advmod") and c.lower_ in SUBORDINATE for c in t.children):
            return False
        if any(c.dep_ == "neg" for c in t.children):
            return False
    return True


def _proceeds(token: Token) -> bool:
    lemma = token.lemma_.lower()
    if lemma not in PROCEEDING or token.pos_ not in ("VERB", "AUX", "NOUN", "PROPN"):
        return False
    doc = token.doc
    after = doc[token.i + 1].lower_ if token.i + 1 < len(doc) else ""
    before = doc[token.i - 1].lower_ if token.i > 0 else ""
    if "-" in (after, before):
        return False  # "make-up artist", "family-run garage"
    if token.pos_ in ("NOUN", "PROPN") and (token.i != 0 or after not in BUILT | ALL_PARTICLES):
        return False  # a first word tagged a noun ("Go ahead") may still be the verb
    if any(c.dep_ not in PLAIN for c in token.children):
        return False  # "run it as the emails come in": it says how, so it asks for something
    if token.tag_ in ("VBG", "VBN") or token.dep_ not in CLAUSE_HEADS:
        return False  # "tanks keep running dry", "year built", "start and end time"
    if token.dep_ in ("conj", "dep") and token.head.pos_ not in ("VERB", "AUX"):
        return False  # "tag, build, publish": a list of words
    # "happy for you to proceed" wishes it; "put everyone in 'screen' to start" is a purpose.
    to = any(c.lower_ == "to" and c.dep_ == "aux" for c in token.children)
    if to and token.head.pos_ != "ADJ":
        return False
    if any(t.dep_ == "neg" for t in doc):
        return False  # "don't automate anything on the build side"
    subject = next((c for c in token.children if c.dep_.startswith("nsubj")), None)
    if subject is not None and subject.lower_ not in ("you", "u"):
        return False
    words = {c.lower_ for c in token.children} | {
        token.nbor(1).lower_ if token.i + 1 < len(token.doc) else ""
    }
    if lemma in NEEDS and not any(w in NEEDS[lemma] or _near_any(w, NEEDS[lemma]) for w in words):
        return False
    particles = NEEDS.get(lemma, set())
    if any(
        c.dep_ in ("ccomp", "xcomp", "oprd", "acomp")
        and c.i > token.i  # a clause before it is another one, hung on it by the parser
        and not (c.lower_ in particles or _near_any(c.lower_, particles))  # "go ahaed"
        for c in token.children
    ):
        return False  # "make the subject line start with ...", "make sure a human can undo"
    objects = [c for c in token.children if c.dep_ in ("dobj", "pobj", "prep")]
    said = {
        o.lemma_.lower()
        for c in objects
        for o in c.subtree
        if o.pos_ in ("NOUN", "PRON") and o.dep_ != "poss"  # "do your thing"
    }
    return said <= BUILT and _main(token)


def _finishes(token: Token) -> bool:
    word = token.lower_
    if not (
        token.lemma_.lower() in FINISHING
        or word in FINISHING
        or _near_any(word, TOTALS - {"it", "all"})
    ):
        return word in TOTALS and _total(token) and _main(token)
    if token.dep_ not in ("ROOT", "ccomp", "conj", "acomp", "attr") or token.tag_ == "VBG":
        return False  # "get it done by Friday", "the complete list": not the description
    if any(c.dep_ == "agent" for c in token.children):
        return False  # "weekends are covered by the neighbours": done by someone
    objects = {c.lower_ for c in token.children if c.dep_ == "dobj"}
    if not objects <= TOTALS | {"that", "this", "explaining", "describing"}:
        return False  # "we cover the tender stuff with fleece"
    subject = next((c for c in token.children if c.dep_.startswith("nsubj")), None)
    if subject is not None and subject.lower_ not in WHO_FINISHES:
        return False  # "half the teams don't finish their updates"
    if token.dep_ in ("ccomp", "acomp", "attr") and token.head.lemma_ not in ("be", "have"):
        return False
    return _unscoped(token) and _main(token)


WHO_FINISHES = {"i", "we", "that", "this", "it", "me", "spec", "thats", "everything"}


def _total(token: Token) -> bool:
    """ "that's it", "that's all", "that's the lot": the total said of this, with 'be'."""
    if any(c.lower_ in ("a", "an") for c in token.children):
        return False  # "that was a lot": much, not all
    verb = token.head
    if verb.lemma_ != "be" or token.dep_ not in ("attr", "nsubj", "acomp", "dobj"):
        return False
    # "that's it" (or, misparsed, "thats pretty much it" with two subjects); "it's someone's
    # birthday" has 'it' as the subject it is said of, not as the total.
    subjects = {c.lower_ for c in verb.children if c.dep_.startswith("nsubj") and c.i != token.i}
    return bool(subjects & {"that", "this", "thats"}) and _unscoped(token)


# Where a total may be said from: "that's all from my side", "that's everything for now".
OWN_END = {"end", "side", "part", "me", "now", "today", "moment", "everything", "I"}


def _unscoped(token: Token) -> bool:
    """Not limited to one part of the workflow ("that's it for the trigger"), nor said of
    something somewhere ("that's all on the sheet already")."""
    for t in (token, token.head):
        for prep in (c for c in t.children if c.dep_ == "prep"):
            said = {o.lemma_.lower() for o in prep.subtree if o.pos_ in ("NOUN", "PRON", "PROPN")}
            if said & PARTS or not said <= {w.lower() for w in OWN_END}:
                return False
    return True


def _near_any(word: str, names: set[str]) -> bool:
    from catalog.typos import near

    return any(len(n) > 3 and near(word, n) for n in names)
