"""Context checks for aliases that are also ordinary English.

An alias hit is only a reference to the catalogue item when its context says so: "linear"
is usually an adjective, "teams" usually people, "cut me some slack" an idiom (the senses
are data in the catalogue), and "summarize what you have so far" asks the assistant for a
recap rather than describing a workflow step.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from catalog.lexicon import compiled
from catalog.model import CatalogueEntry
from catalog.phrases import SENTENCE, Hit, sentence_start, words

# How far back the context checks look: enough for a few words, and linear in text length.
WINDOW = 24
# A capital letter proves nothing at the start of a sentence ("Linear growth is fine.").
SENTENCE_START = re.compile(r"(?:\A|[.!?;]\s+|\n\s*|[-–—>]\s*)[\"'(\[*-]*\s*\Z")
# "post it in teams", "create it on linear": a product's usual preposition right before it.
SEPARATOR = re.compile(r"[\s-]+")
PRODUCT_PREPOSITION = re.compile(
    r"(?<!\w)(?:in|on|to|into|onto|via|through|from|using|inside)\s+\Z", re.IGNORECASE
)

# A word with an ordinary sense, written in lower case, used in that sense's grammar: after a
# degree adverb it is an adjective ("things get pretty slack"), after an indefinite article
# and at most two describing words a common noun ("a thin diagonal stripe"). A product name
# takes neither, unless one of its own nouns follows ("a slack channel": `_names_a_part`).
DEGREE_BEFORE = re.compile(
    r"(?<!\w)(?:pretty|very|too|quite|really|rather|fairly|extremely|somewhat|kinda|a\s+bit|a\s+little)\s+\Z",
    re.IGNORECASE,
)
ARTICLE_BEFORE = re.compile(
    r"(?<!\w)(?:a|an|one)\s+"
    r"(?:(?!(?:to|in|on|into|onto|via|through|thru|using|over|per|from|with|and|or|for|at|by|of|the)(?!\w))[a-z'’-]+\s+){0,2}\Z",
    re.IGNORECASE,
)
# What follows a summary verb when the user wants a recap of the conversation itself.
RECAP_OBJECT = re.compile(
    r"\s+(?:of\s+)?(?:(?:it|everything|this|that)\s+)?(?:(?:for|to)\s+(?:me|us)\s+)?"
    # "what you have/understood/we discussed": the conversation; "what you find" is the
    # workflow's own findings and a step.
    r"(?:what\s+(?:you|we|i)(?:['’]ve|['’]d|\s+(?:have|had|know|knew|understood|understand|said|discussed"
    r"|told|heard|got|gathered|noted|talked|covered|agreed|decided|mean|meant|wrote|asked))(?!\w)"
    r"|where\s+we(?!\w)|so\s+far(?!\w)|before\s+(?:you|we)\s+(?:build|start|begin|go|confirm)(?!\w)|"
    r"(?:the|our|this|my)\s+(?:conversation|chat|discussion|plan|requirements?|notes)(?!\w))",
    re.IGNORECASE,
)
# "proceed as summarized": the assistant's summary, not a summary step.
AS_SUMMARIZED = re.compile(r"(?:as|you['’]?ve|you\s+have|you|just)\s+\Z", re.IGNORECASE)
# "let me digest that", "can't digest the kibble", "easy to digest": the verb, not a digest step.
DIGEST_AS_THINKING = re.compile(
    r"(?:let\s+me|to|can['’]?t|cannot|can|could|won['’]?t|don['’]?t|doesn['’]?t|didn['’]?t|will|would|should|must|helps?)\s+\Z",
    re.IGNORECASE,
)
# "the last page has the summary of charges": a summary in the data, not one the workflow writes.
SUMMARY_IN_DATA = re.compile(
    r"(?:has|have|had|contains?|includes?|shows?|with|there['’]?s|there\s+is|at)\s+(?:a|an|the|its|their|his|her)\s+\Z",
    re.IGNORECASE,
)
# "summary" alone is too often a request to the assistant to count, but a recurring or
# changelog summary is something the workflow produces.
SUMMARY_NOUN = words(
    r"(?:daily|weekly|monthly|nightly|changelog|release)\s+(summar(?:y|ies))"
    # "a one-page summary made", "gives me a little summary": a summary the workflow writes.
    r"|(?:a|an)\s+(?:(?!(?:of|for|to|in|on|the)(?!\w))[\w-]+\s+){0,4}?(summar(?:y|ies))(?!\s+of\s+(?:what|where|the\s+(?:conversation|chat|plan)))"
)


def sentence_of(text: str, pos: int) -> str:
    """The sentence that holds `pos`."""
    found = SENTENCE.match(text, sentence_start(text, pos))
    return found[0] if found else ""


def covered(text: str, hit: Hit, phrases: tuple[str, ...]) -> bool:
    """Whether one of the phrases spans the hit (looked for in a window around it)."""
    pattern = compiled(phrases)
    lo, hi = max(0, hit.start - 2 * WINDOW), min(len(text), hit.end + 2 * WINDOW)
    return pattern is not None and any(
        m.start() <= hit.start and hit.end <= m.end() for m in pattern.finditer(text, lo, hi)
    )


def _names_a_part(text: str, hit: Hit, entry: CatalogueEntry) -> bool:
    """The alias qualifies one of the product's own nouns, two words away at most: "the
    Notion roadmap database", "the Slack support channel". Then it is the product."""
    pattern = _qualifying(entry.context)
    return pattern is not None and pattern.match(text, hit.end) is not None


@lru_cache(maxsize=64)
def _qualifying(context: tuple[str, ...]) -> re.Pattern[str] | None:
    nouns = compiled(context)
    if nouns is None:
        return None
    return re.compile(rf"(?:[\s-]+[\w'’]+){{0,2}}?[\s-]+(?:{nouns.pattern})", re.IGNORECASE)


# ... and after a definite article with one or two describing words ("the marketing outlook
# for 2027", "the thin red stripe"), unless a place preposition comes first ("post it in the
# team slack") or the describer is one that qualifies a product account ("the shared outlook").
DEFINITE_BEFORE = re.compile(
    r"(?<!\w)(?<!in\s)(?<!on\s)(?<!to\s)(?<!via\s)(?:the|this|that|our|my|their|your|his|her)\s+"
    r"(?!(?:shared|team|company|work|office|main|same|usual|old|new|existing|current|internal|our|my|your|their|own)(?!\w))"
    r"(?:(?!(?:to|in|on|into|onto|via|through|from|with|and|or|for|at|by|of|the)(?!\w))[a-z'’-]+\s+){1,2}\Z",
    re.IGNORECASE,
)


# ... and after a quantity ("a lot of discord", "a bit of slack"): a mass noun, not a product.
QUANTITY_BEFORE = re.compile(
    r"(?<!\w)(?:a\s+lot|lots|plenty|a\s+bit|a\s+little|a\s+great\s+deal|signs?|sources?|full|amount|level|kind|sort)"
    r"\s+of\s+\Z",
    re.IGNORECASE,
)


def _has_ordinary_sense(text: str, hit: Hit, entry: CatalogueEntry) -> bool:
    """The alias written is a word the entry's ordinary phrases use ("outlook" is, "hotmail"
    is not: "an old hotmail address" is the product whatever the article)."""
    said = " ".join(text[hit.start : hit.end].lower().split())
    return any(re.search(rf"(?<![\w-]){re.escape(said)}(?![\w-])", p) for p in entry.ordinary)


def _ordinary_grammar(text: str, hit: Hit) -> bool:
    """A lower-case alias standing where only the ordinary word can (see DEGREE_BEFORE)."""
    if not text[hit.start].islower():
        return False
    window = max(0, hit.start - WINDOW * 2)
    return bool(
        DEGREE_BEFORE.search(text, window, hit.start)
        or ARTICLE_BEFORE.search(text, window, hit.start)
        or DEFINITE_BEFORE.search(text, window, hit.start)
        or QUANTITY_BEFORE.search(text, window, hit.start)
    )


TITLE_WORD_AFTER = re.compile(r"[\s-]+[A-Z][a-z]")


def _always_capitalised(text: str, hit: Hit) -> bool:
    """A name with a digit ("S3") is written in capitals in every sense, and so is every word
    of a title ("Linear Algebra 2"): there capitals prove nothing."""
    return any(c.isdigit() for c in text[hit.start : hit.end]) or bool(
        TITLE_WORD_AFTER.match(text, hit.end)
    )


def _capitalised_mid_sentence(text: str, hit: Hit) -> bool:
    return text[hit.start].isupper() and not SENTENCE_START.search(
        text, max(0, hit.start - WINDOW), hit.start
    )


# "a shopify-style roundup", "Notion-like", "a Trello type board"; "on our discord like 'we
# raised $X'" gives an example of the message, so a spaced "like" is no likeness.
STYLE_AFTER = re.compile(r"(?:-(?:style|like|esque|ish|type)|\s(?:style|esque|type))(?!\w)", re.I)
ALONE_BEFORE = re.compile(r"(?:\A|[.!?;]\s+)\Z")
ALONE_AFTER = re.compile(r"\s*[.!?;](?:\s|\Z)")


def product_sense(text: str, hit: Hit, entry: CatalogueEntry) -> bool:
    """Whether an alias hit names the product, not the ordinary word spelled the same.

    An `ordinary` phrase around it ("cut me some slack") says it does not. An alias listed in
    `needs_context` ("teams", "linear") must also show the product: a `context` noun after it,
    a product preposition right before it, or a capital letter mid-sentence.
    """
    if STYLE_AFTER.match(text, hit.end):
        return False  # "a shopify-style roundup": like the product, not the product
    if (
        entry.ordinary
        and covered(text, hit, entry.ordinary)
        and not (_capitalised_mid_sentence(text, hit) and not _always_capitalised(text, hit))
    ):
        return _names_a_part(text, hit, entry)
    if entry.ordinary and _has_ordinary_sense(text, hit, entry) and _ordinary_grammar(text, hit):
        return _names_a_part(text, hit, entry)
    if " ".join(text[hit.start : hit.end].lower().split()) not in entry.needs_context:
        return True
    if ALONE_BEFORE.search(text, max(0, hit.start - WINDOW), hit.start) and ALONE_AFTER.match(
        text, hit.end
    ):
        return True  # "we moved off Jira. Linear. Team PLAT.": a name said on its own
    nouns, gap = compiled(entry.context), SEPARATOR.match(text, hit.end)
    if nouns is not None and gap and nouns.match(text, gap.end()):
        return True
    before = text[max(0, hit.start - WINDOW) : hit.start]
    return bool(PRODUCT_PREPOSITION.search(before)) or _capitalised_mid_sentence(text, hit)


def summary_is_a_step(text: str, hit: Hit) -> bool:
    """A summary the workflow produces, not a recap the user asks the assistant for."""
    if (
        RECAP_OBJECT.match(text, hit.end)
        or AS_SUMMARIZED.search(text, max(0, hit.start - WINDOW), hit.start)
        or SUMMARY_IN_DATA.search(text, max(0, hit.start - WINDOW), hit.start)
    ):
        return False
    phrase = text[hit.start : hit.end].lower()
    if phrase.startswith("make") and text[hit.end : hit.end + 1] == ":":
        return False  # "make it short: suit no, court, time": the message's format
    return not (
        phrase == "digest"
        and DIGEST_AS_THINKING.search(text, max(0, hit.start - WINDOW), hit.start)
    )


# "looks up the weather forecast for Saturday morning online": the lookup and where it looks
# may stand further apart than a lexicon gap allows.
WEB_LOOKUP = words(
    r"(?:look(?:s|ed|ing)?\s+up|search(?:es|ed|ing)?\s+for)\s+(?:[\w'’%$-]+\s+){1,8}?"
    r"(?:online|on\s+the\s+(?:web|internet)|on\s+google)"
)


# "a photo goes into the folder; pull the text out of it": reading a picture named nearby.
PICTURE = words(
    r"photos?|photographs?|pictures?|images?|scans?|screenshots?|snapshots?|jpe?gs?|pngs?"
)
TEXT_OUT_OF_IT = words(
    r"(?:read|pull|extract|grab|get|lift)(?:s|ed|ing)?\s+(?:the\s+|any\s+)?(?:text|writing|words|handwriting|details|info|data|numbers)"
    r"\s+(?:out\s+of|off|from)\s+(?:it|them|each\s+one|those|these"
    # "reads the text off the checklist" when the message names the photo it is in.
    r"|(?:the|each|every|that|this)\s+[\w-]+)"
)


# "read the order number and the signed name from the image": the reading and the picture
# further apart than a lexicon gap allows.
READ_FROM_PICTURE = words(
    r"(?:read|pull|extract|grab|get|take|lift)(?:s|ed|ing)?\s+(?:[\w'’-]+\s+){1,8}?(?:from|off|out\s+of)\s+"
    r"(?:the|each|every|this|that|those|these|a|an|its|their)\s+(?:photo|picture|image|scan|screenshot|snapshot)s?"
)
# "positive, neutral or negative": a sentiment scale.
SENTIMENT_SCALE = words(
    r"(?:positive|negative|neutral|happy|unhappy|satisfied|angry)(?:\s*[,/]\s*|\s+(?:or|and)\s+)"
    r"(?:neutral|negative|positive|unhappy|happy|ok|okay|meh)(?:\s*[,/]\s*(?:or\s+|and\s+)?|,?\s+(?:or|and)\s+)"
    r"(?:negative|positive|neutral|unhappy|angry|happy|annoyed|upset|frustrated|furious|mad|cross|sad)"
)


# "each shift has a capacity and a signed-up count ... with how many spots are left": what is
# left of a capacity is a subtraction ("how many are left" in stock is a count read, not one).
LEFT_OF = words(r"how\s+(?:many|much)\s+(?:[\w'’-]+\s+){0,3}?(?:are|is)\s+(?:left|remaining)")
CAPACITY = words(
    r"capacit(?:y|ies)|limits?|budgets?|targets?|goals?|quotas?|max(?:imum)?|allowances?"
)


def left_of_capacity_hits(text: str) -> list[Hit]:
    """Calculator hits where what is left of a capacity named in the message is asked for."""
    if not CAPACITY.search(text):
        return []
    return [Hit(m.start(), m.end(), "calculator") for m in LEFT_OF.finditer(text)]


def sentiment_scale_hits(text: str) -> list[Hit]:
    """Sentiment hits where a text is sorted on a positive/neutral/negative scale."""
    return [Hit(m.start(), m.end(), "sentiment") for m in SENTIMENT_SCALE.finditer(text)]


def picture_text_hits(text: str) -> list[Hit]:
    """OCR hits where text is read from a picture, or out of "it" when the message names one."""
    found = [Hit(m.start(), m.end(), "ocr") for m in READ_FROM_PICTURE.finditer(text)]
    if PICTURE.search(text):
        found += [Hit(m.start(), m.end(), "ocr") for m in TEXT_OUT_OF_IT.finditer(text)]
    return found


def web_lookup_hits(text: str) -> list[Hit]:
    """Web search hits where a lookup says it looks online (see WEB_LOOKUP)."""
    return [Hit(m.start(), m.end(), "web_search") for m in WEB_LOOKUP.finditer(text)]


def summary_noun_hits(text: str) -> list[Hit]:
    """Summarizer hits on "summary" where a qualifier makes it a workflow step."""
    found = []
    for m in SUMMARY_NOUN.finditer(text):
        group = 1 if m.start(1) >= 0 else 2
        hit = Hit(m.start(group), m.end(group), "text_summarizer")
        found += [hit] if summary_is_a_step(text, hit) else []
    return found


# How often someone pays is a billing term, not when the workflow runs: "customers pay
# annually, some monthly", "a monthly plan". Only the bare adverbs read this way.
BARE_FREQUENCY = re.compile(
    r"(?:annually|yearly|quarterly|monthly|weekly|daily|hourly)\Z", re.IGNORECASE
)
# "an hourly rate", "the monthly total", "a daily limit": the frequency describes an amount,
# not when the workflow runs.
AMOUNT_AFTER = re.compile(
    r"[\s-]+(?:rates?|wages?|pay|fees?|prices?|costs?|budgets?|spend(?:ing)?|totals?|limits?|caps?"
    r"|allowances?|salar(?:y|ies)|income|revenue|average|quota|usage|volume|consumption)(?!\w)",
    re.IGNORECASE,
)
# "put an event on my calendar two days before the due date": the date of the entry the
# workflow writes, not when the workflow runs (that is when the bill arrives).
RELATIVE = re.compile(r"(?<!\w)(?:before|ahead\s+of|prior\s+to)(?!\w)", re.IGNORECASE)
CALENDAR_ENTRY = words(
    r"(?:put|puts|add|adds|create|creates|make|makes|block|blocks|book|books|insert|inserts|drop|drops)"
    r"\s+(?:an?|the|one|each|it|them)\s+(?:[\w-]+\s+)?(?:events?|entr(?:y|ies)|appointments?|blocks?|invites?)?"
    r"(?:\s+\w+){0,3}?\s+(?:on|in|into|to)\s+(?:the|my|our|their|a|an)\s+(?:[\w-]+\s+){0,2}calendars?"
)
MEETING_AFTER = re.compile(
    r"[\s-]+(?:stand-?ups?|scrums?|meetings?|huddles?|syncs?|check-?ins?|catch-?ups?|calls?)(?!\w)",
    re.IGNORECASE,
)
OWNED_BEFORE = re.compile(r"(?<!\w)(?:our|the|my|their|your)\s+\Z", re.IGNORECASE)
DUE_BEFORE = re.compile(r"(?<!\w)due(?:\s+date)?\s+(?:is\s+|on\s+)?\Z", re.IGNORECASE)
# "a total for each month", "one row per week": the period an amount covers.
PER_PERIOD_BEFORE = re.compile(
    r"(?<!\w)(?:totals?|sums?|counts?|averages?|figures?|numbers|breakdown|spend(?:ing)?|subtotals?"
    r"|one|rows?|lines?|columns?|tabs?|sheets?)\s+(?:for|per|of)\s+\Z",
    re.IGNORECASE,
)
BILLING = words(
    r"pa(?:y|ys|id|ying)|bill(?:s|ed|ing)?|charg(?:e|es|ed|ing)|renew(?:s|ed|al)?|subscri(?:be|bes|bed|ption)s?|plans?|pass(?:es)?|memberships?|rent|fees?|rates?"
)
# "the rule is the same every day": always, not a schedule.
CONSTANCY = words(r"(?:the\s+)?same\s+every\s+(?:day|time|week|month)")


# A sentence that asks for something: a want, a modal, a request or a workflow verb.
DIRECTIVE = words(
    r"wants?|needs?|like|please|should|must|ha(?:ve|s)\s+to|let['’]?s|make\s+sure|can\s+you|could\s+you"
    r"|would|i['’]d|we['’]d|['’]ll|run(?!\s+(?:a|an|our|my|the)\s)|runs(?!\s+(?:a|an|our|my|the)\s)|send|post|check|fetch|grab|pull|email|notify|remind|create"
    r"|generate|trigger|sync|update|export|import|back\s+up|compile|prepare|take|put|store|save|give"
    r"|book|ping|alert|message|text|search|look|read|process|collect|push|upload|copy|mirror|move"
    r"|archive|report|summari[sz]e|build|make|do|have|get|keep|ready|add|tell|show|list|count|total|flag"
    r"|(?<!on-)(?<!on\s)call|could\s+we|can\s+we|pick\s+up|find|query|compare|match|reconcile"
    # "the open cards, emailed to me": the request said in the passive.
    r"|(?:emailed|sent|posted|messaged|texted|delivered)\s+to\s+(?:me|us|the)"
)
# "we release on Tuesdays", "every year we miss one": what people do, said as a fact.
PERSON_STATEMENT = words(
    r"(?:we|i|they|he|she|people|everyone|nobody|somebody|someone|i['’]?m|im|we['’]re"
    r"|shifts|meetings|classes|lessons|services|events|trainings|deliveries|doors|markets|appointments"
    r"|(?:our|my|the|their)\s+(?:\w+\s+)?(?:team|teams|drivers|staff|people|customers|clients|users"
    r"|managers|agents|reps|accountants?|boss|manager|folks|employees|volunteers|students|teachers"
    r"|doctors|nurses|members|receptionists?|secretary|secretaries|assistants?|admins?|interns?"
    r"|paralegals?|partners?|colleagues?|co-?workers?|chefs?|cooks?|owners?|cleaners?|technicians?"
    r"|bookkeepers?|dispatchers?|couriers?|tenants?|parents?|coaches?|editors?|writers?|volunteer"
    r"|council|board|committee|club|group|class|school|office|shop|store|clinic|church|lab"
    r"|shifts?|meetings?|classes|lessons?|services|events?|trainings?|deliveries|doors|markets?))\s+"
    r"(?:usually\s+|always\s+|often\s+|normally\s+|typically\s+|mostly\s+|sometimes\s+|never\s+|still\s+)?"
    r"(?!(?:want|need|would|like|should|must|have|has|will|wanna|could|can|might|may)\b)[a-z]+"
)
# "start dates are usually Mondays": a day that describes the data.
DESCRIBED = re.compile(
    r"(?<!\w)(?:is|are|was|were)\s+(?:usually|mostly|always|often|normally|typically|generally)\s+(?:held\s+|done\s+|scheduled\s+)?(?:on\s+|at\s+)?\Z"
    # "the door code changes monthly": a thing that changes by itself, not a run.
    r"|(?<!for\s)(?<!of\s)(?<!any\s)(?<!the\s)(?<!new\s)(?<!no\s)(?<!\w)"
    r"(?:changes|resets|renews|rotates|expires|rolls\s+over|turns\s+over)\s+\Z",
    re.IGNORECASE,
)


# "the on-call rota is Mon/Thu Sam": who is on duty when, a fact about people.
ROSTER = words(r"rotas?|rosters?|rotations?|shift\s+patterns?|on[\s-]call\s+schedules?")
# A contrast splits what people do from what the workflow should do ("we meet on Mondays,
# so have it ready by then" is one request; "we record on Tuesdays, but fire on each new
# episode" is two).
# A relative clause after a comma is its own clause too: "forms, which our receptionist
# scans every afternoon" is a person's routine inside a request.
# "so" with a new subject starts a consequence ("I do markets on Saturdays so sometimes I'm
# slow to reply"); "so" with an imperative stays one request ("so have it ready by then").
CLAUSE_BREAK = re.compile(
    r"(?<!\w)(?:but|though|although|however)(?!\w)|,\s*(?=(?:which|who|whom)(?!\w))"
    r"|(?<!\w)so\s+(?=(?:(?:sometimes|often|usually|then)\s+)?(?:i|we|they|he|she|it)(?:['’]|\s))"
    # "we rehearse every tuesday so most of us look at the calendar then".
    r"|(?<!\w)so\s+(?=(?:most|all|some|half|none|both|everyone|everybody|nobody|people)(?:\s+of\s+(?:us|them))?\s)"
    # ", I sit down with Notion every evening": a new subject after a comma is its own clause.
    r"|,\s*(?=(?:i|we|they|he|she)\s+(?!(?:want|need|would|like|should|must|will|wanna|['’]d)\b))",
    re.IGNORECASE,
)


# "Parties are in my calendar, usually 2 till 4 on Saturdays": a fact said with "is/are".
FACT = re.compile(
    r"\s*(?:(?:the|our|my|their|most|all|some|typical|usual)\s+)?(?:[\w'’-]+\s+){0,2}?[\w'’-]+s\s+(?:are|were)\s",
    re.IGNORECASE,
)
# "for the monthly report", "in the weekly meeting": a thing named by how often it happens.
FREQUENCY_NAMING = re.compile(
    r"(?<!\w)(?:for|in|at|from|of|during|before|after|into|until|till|by)\s+(?:the|our|a|my|their|that)\s+\Z"
    # "the tracker company sends us the monthly report": someone else makes it.
    r"|(?<!\w)(?:sends|gives|emails|shares|produces|prepares|does|runs)\s+(?:(?:us|me|them)\s+)?(?:the|a|our|their)\s+\Z",
    re.IGNORECASE,
)


# "Usually between 4 and 5am, because the first wave reports at 05:30": a habit described.
HABIT = re.compile(r"\s*(?:usually|normally|typically|mostly|generally)(?!\w)", re.IGNORECASE)


def observation(sentence: str, before: str) -> bool:
    """A sentence stating a fact about people or data, asking nothing of the workflow.

    `before` is the sentence up to the recurring time. "Every Monday I check the inbox"
    still counts as a schedule: "check" is something the workflow can do.
    """
    if DESCRIBED.search(before):
        return True  # "the door code changes monthly", however the sentence goes on
    if DIRECTIVE.search(sentence):
        return False
    return bool(
        PERSON_STATEMENT.search(sentence)
        or HABIT.match(sentence)
        or ROSTER.search(sentence)
        or FACT.match(sentence)
    )


def clause_of(text: str, hit: Hit, opening: int, closing: int) -> str:
    """The clause of the sentence [opening, closing) that holds the hit."""
    start = max((m.end() for m in CLAUSE_BREAK.finditer(text, opening, hit.start)), default=opening)
    end = CLAUSE_BREAK.search(text, hit.end, closing)
    return text[start : end.start() if end else closing]


# "around 30 clients every week", "200 orders a day": how many, not when.
VOLUME_BEFORE = re.compile(
    r"(?<![\w:])(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty"
    r"|a\s+few|several|a\s+couple(?:\s+of)?|dozens\s+of|hundreds\s+of)\s+[a-z]+(?:\s+[a-z]+)?\s+\Z",
    re.IGNORECASE,
)

# "how that translates into cash flow", "translates to more sales": means, not a translation.
LANGUAGE_OR_OBJECT = (
    r"(?:english|german|spanish|french|italian|portuguese|dutch|polish|japanese|chinese|korean|arabic|turkish"
    r"|swedish|danish|norwegian|finnish|czech|greek|hindi|russian|ukrainian|hebrew|vietnamese|thai|indonesian"
    r"|romanian|hungarian|catalan|the|a|an|it|them|each|every|their|our|my|your|his|her|this|that|these|those"
    r"|local|whatever|whichever|any|other|plain|simple|multiple|several|both|all|one|two|three|\w+['’]s)(?!\w)"
)
TRANSLATES_INTO = re.compile(rf"\s+(?:in)?to\s+(?!{LANGUAGE_OR_OBJECT})", re.IGNORECASE)


# "so I write in English", "our staff speak French": who writes or speaks what, not a step.
SPEAKER_BEFORE = re.compile(
    r"(?<!\w)(?:i|we|they|he|she|staff|people|everyone|customers|clients|patients|parents|students)"
    r"\s+(?:\w+\s+)?\Z",
    re.IGNORECASE,
)


# "a small translation agency (German and French into English)": the business, not a step.
TRANSLATION_TRADE = words(
    r"translation\s+(?:agency|agencies|company|companies|business|firm|bureau|services?\s+provider|management\s+system)"
    r"|translators['’]?\s+(?:agency|company|cooperative|collective)|(?:i['’]?m|i\s+am|we['’]re|we\s+are)\s+(?:a\s+)?translators?"
)


# "jobs bounce between translator, reviewer and back", "our freelance translators": people.
TRANSLATOR_PERSON_BEFORE = re.compile(
    r"(?<!\w)(?:freelance|human|professional|in-house|assigned|between|sworn|certified)\s+\Z",
    re.IGNORECASE,
)
TRANSLATOR_PERSON_AFTER = re.compile(
    r"s?\s*(?:,|and|or|/)\s*(?:reviewers?|editors?|proofreaders?|revisers?)(?!\w)", re.IGNORECASE
)


def translation_is_a_step(text: str, hit: Hit) -> bool:
    """ "translates into cash flow problems" means "becomes": not a translation step."""
    said = text[hit.start : hit.end].lower()
    if said.startswith("translator") and (
        TRANSLATOR_PERSON_BEFORE.search(text, max(0, hit.start - WINDOW), hit.start)
        or TRANSLATOR_PERSON_AFTER.match(text, hit.start + len("translator"))
    ):
        return False
    if TRANSLATION_TRADE.search(sentence_of(text, hit.start)):
        return False
    if said.startswith(("write", "wrote", "speak", "spoke")) and SPEAKER_BEFORE.search(
        text, max(0, hit.start - WINDOW), hit.start
    ):
        return False
    return not (said.startswith("translat") and TRANSLATES_INTO.match(text, hit.end))


def schedule_is_a_schedule(text: str, hit: Hit) -> bool:
    """A recurring time that says when the workflow runs, not a billing period, "always", or
    a fact about people or data."""
    opening = sentence_start(text, hit.start)
    sentence = sentence_of(text, hit.start)
    if BARE_FREQUENCY.match(text[hit.start : hit.end]) and BILLING.search(sentence):
        return False
    if VOLUME_BEFORE.search(text, max(0, hit.start - WINDOW * 2), hit.start):
        return False
    if BARE_FREQUENCY.match(text[hit.start : hit.end]) and AMOUNT_AFTER.match(text, hit.end):
        return False
    if PER_PERIOD_BEFORE.search(text, max(0, hit.start - WINDOW), hit.start):
        return False
    if DUE_BEFORE.search(text, max(0, hit.start - WINDOW), hit.start):
        return False  # "due three days before the match": a due date, not a run
    if RELATIVE.search(text, hit.start, hit.end) and CALENDAR_ENTRY.search(sentence):
        return False
    if (
        BARE_FREQUENCY.match(text[hit.start : hit.end])
        and MEETING_AFTER.match(text, hit.end)
        and OWNED_BEFORE.search(text, max(0, hit.start - WINDOW), hit.start)
    ):
        return False  # "our daily standup is 20 minutes": a meeting named by how often it is
    if BARE_FREQUENCY.match(text[hit.start : hit.end]) and FREQUENCY_NAMING.search(
        text, max(0, hit.start - WINDOW), hit.start
    ):
        return False
    if observation(sentence, text[opening : hit.start]):
        return False
    # "we record Tuesday nights and it goes out Thursday, but fire it on each new episode".
    closing = opening + len(sentence)
    if observation(clause_of(text, hit, opening, closing), ""):
        return False
    return not any(
        m.start() <= hit.start - opening and hit.end - opening <= m.end()
        for m in CONSTANCY.finditer(sentence)
    )


# "the text the client sent" is a noun; "text the client" the verb that sends an SMS.
TEXT_AS_NOUN = re.compile(
    r"(?<!\w)(?:the|a|an|this|that|any|each|every|of|their|his|her|its|your|my|our)\s+\Z",
    re.IGNORECASE,
)


TEXT_NOUN_PHRASE = re.compile(r"texts?[\s-]+(?:messages?|alerts?|notifications?|reminders?)\b")


# "ping my phone on Telegram": the phone is where another named channel arrives.
ON_A_CHANNEL = re.compile(r"\s+(?:on|via|through|using|with|in)\s+[A-Z]")


# "my manager will probably text me a dozen questions": someone else texting the user.
TEXTED_BY_OTHERS = re.compile(
    r"(?<!\w)(?:he|she|they|people|someone|somebody"
    r"|(?:the|my|our|his|her|their)\s+(?!(?:system|app|bot|automation|workflow|tool|flow|script|integration)s?\s)[\w-]+)"
    r"\s+(?:will\s+|would\s+|might\s+|probably\s+|always\s+|often\s+|usually\s+|just\s+|keeps?\s+)*\Z",
    re.IGNORECASE,
)


def text_is_a_verb(text: str, hit: Hit) -> bool:
    """An SMS paraphrase counts where "text" is a verb and no other channel is named for it."""
    said = text[hit.start : hit.end].lower()
    if said.startswith("text") and TEXTED_BY_OTHERS.search(
        text, max(0, hit.start - WINDOW * 2), hit.start
    ):
        return False
    if "phone" in said and ON_A_CHANNEL.match(text, hit.end):
        return False
    if not said.startswith("text") or said.startswith("texting") or TEXT_NOUN_PHRASE.match(said):
        return True  # "the texting" is the SMS step too
    return not TEXT_AS_NOUN.search(text, max(0, hit.start - WINDOW), hit.start)


# "we get requests for all sorts": the verb, not a GET request; "the form POSTs a JSON
# payload to a webhook": the webhook's payload, not a call the workflow makes.
GET_AS_VERB = re.compile(
    r"(?<!\w)(?:we|i|they|you|people|customers|clients|he|she|it|also|often|usually|sometimes)\s+\Z",
    re.IGNORECASE,
)
PAYLOAD = re.compile(r"json|payload|body|post", re.IGNORECASE)
WEBHOOK = words(r"web-?hooks?")


def request_is_a_call(text: str, hit: Hit) -> bool:
    """An HTTP-request paraphrase that is the workflow's own call (see GET_AS_VERB, PAYLOAD)."""
    said = text[hit.start : hit.end]
    if said[:3].lower() == "get" and GET_AS_VERB.search(
        text, max(0, hit.start - WINDOW), hit.start
    ):
        return False
    return not (PAYLOAD.match(said) and WEBHOOK.search(sentence_of(text, hit.start)))


# "a Tally form": the form product, not a tally.
TALLY_PRODUCT_AFTER = re.compile(r"\s+(?:forms?|surveys?|submissions?)(?!\w)", re.IGNORECASE)


def arithmetic_is_a_step(text: str, hit: Hit) -> bool:
    """A calculator paraphrase that is arithmetic, not a product named like it."""
    said = text[hit.start : hit.end]
    return not (said.lower().startswith("tall") and TALLY_PRODUCT_AFTER.match(text, hit.end))


GUARDS: dict[str, Callable[[str, Hit], bool]] = {
    "calculator": arithmetic_is_a_step,
    "http_request": request_is_a_call,
    "twilio_sms": text_is_a_verb,
    "translator": translation_is_a_step,
    "text_summarizer": summary_is_a_step,
    "scheduler": schedule_is_a_schedule,
}


def allowed(text: str, hit: Hit) -> bool:
    """Whether the hit's context lets it count as a reference to its item."""
    guard = GUARDS.get(hit.id)
    return guard is None or guard(text, hit)
