"""Which hits sit inside a removal ("drop Slack", "not Dropbox", "Twilio is no longer needed").

A removal phrase applies to the catalogue items directly after it in the same clause
("drop Slack and Trello" removes both; "drop Slack and post to Teams" removes only Slack);
a few phrases apply to the items directly before them ("the SMS part is no longer needed").
Between the phrase and the items only small filler words may stand, so a negation that is
about something else ("No attachments larger than 10 MB") never reaches an item.
"""

from __future__ import annotations

import itertools
import re

from catalog.phrases import REF, SENTENCE_END, Hit, sentence_start, within, words
from catalog.structure import placing

# "in the past week" is a window of time the workflow reads, not the user's history.
IN_THE_PAST = (
    r"in\s+the\s+past(?!\s+(?:few\s+|\d+\s+|couple\s+of\s+|two\s+|three\s+|seven\s+)?"
    r"(?:days?|weeks?|months?|years?|hours?|quarters?|fortnight|24h)(?!\w))"
)
_LEADING = (
    r"drop(?:ping)?",
    r"neither",
    # "I'd rather edit video for a living than go back to Asana".
    r"than\s+(?:go(?:ing)?\s+back\s+to|us(?:e|ing)|switch(?:ing)?\s+(?:back\s+)?to|touch(?:ing)?)",
    r"let['’]?s\s+not",
    # "the council won't let us keep records on Dropbox any more".
    r"(?:won['’]?t|will\s+not|doesn['’]?t|does\s+not|don['’]?t)\s+let\s+(?:us|me|them)\s+(?:[\w-]+\s+){0,3}?(?:on|in|to|into|use)",
    # "Nothing should be sent to Gmail".
    r"nothing\s+(?:should|must|may|can|will)\s+(?:be\s+|ever\s+be\s+)?(?:sent|go|posted|saved|stored|written|shared)\s+(?:to|in|into|on|via)",
    # "the committee doesn't really use Slack".
    r"(?:doesn['’]?t|does\s+not)(?=\s+(?:really\s+|even\s+|actually\s+)?(?:use|need|want|read|check|look\s+at|like)(?!\w))",
    # "we're done with Trello", "I'm done with Outlook".
    r"(?:(?:we|i)(?:['’]re|['’]m|\s+are|\s+am)\s+)?(?:so\s+|totally\s+|completely\s+)?done\s+with",
    r"remov(?:e|ing)",
    r"ditching",
    r"barely",
    r"hardly",
    r"rarely",
    r"seldom",
    r"ignore",
    r"(?:we|i)(?:['’]ll|\s+will|['’]re|\s+are)?\s+cancel(?:l?ing)?",
    r"(?:we|i)(?:['’]ve|\s+have)?\s+cancell?ed",
    r"scrapping",
    r"skipping",
    r"nobody",
    r"no\s+one",
    r"delete",
    r"ditch",
    r"forget",
    r"skip",
    r"exclude",
    r"leave\s+out",
    r"scrap",
    r"scratch",
    r"nix",
    r"lose",
    r"cut\s+out",
    r"take\s+out",
    r"(?:won['’]?t|will\s+not|wouldn['’]?t|shan['’]?t)\s+need",
    # "the handlers aren't on Slack": the people the step is for do not use it.
    r"(?:aren['’]?t|are\s+not|isn['’]?t|is\s+not|weren['’]?t)\s+(?:even\s+|really\s+)?on",
    r"(?:i\s+)?doubt\s+(?:we|you|i)\s+(?:really\s+|even\s+)?need",
    r"not\s+(?:going\s+to|gonna)\s+(?:need|use)",
    r"(?:can|could)\s+(?:do|live)\s+without",
    r"mov(?:e|ed|ing)\s+off",
    r"got\s+rid\s+of",
    r"stopp?(?:ed)?\s+using",
    r"switched\s+(?:away\s+)?from",
    r"moved\s+away\s+from",
    r"migrated\s+(?:away\s+)?(?:from|off)",
    r"retir(?:e|ing)",
    r"phas(?:e|ing)\s+out",
    r"clos(?:e|ing)(?:\s+down)?",
    r"shut(?:ting)?\s+down",
    r"sunset(?:ting)?",
    r"get\s+rid\s+of",
    r"getting\s+rid\s+of",
    r"mov(?:e|ed|ing)\s+from",
    r"replace",
    r"swap(?:\s+out)?",
    r"stop\s+using",
    r"without",
    r"instead\s+of",
    r"rather\s+than",
    r"no\s+longer",
    r"no\s+need\s+(?:for|of)",
    r"no\s+need\s+to",
    r"no\s+more",
    r"don['’]?t",
    r"do\s+not",
    r"never",
    r"switch(?:ing)?\s+(?:away\s+)?from",
    r"mov(?:e|ing)\s+away\s+from",
    r"migrat(?:e|ing)\s+(?:away\s+)?(?:from|off)",
    r"not",
    r"no",
)
# Longest first, so "no longer" is not read as "no" followed by the word "longer".
LEADING = words("|".join(sorted(_LEADING, key=len, reverse=True)))
# The part of a product a state of disuse may be said of: "the Trello board is archived".
PARTS = (
    r"(?:(?:e-?mails?|messages?|notifications?|alerts?|accounts?|inbox(?:es)?|boards?|files?|projects?"
    r"|workspaces?|channels?|servers?|pages?|databases?|bases?|sheets?|folders?|repos?|instances?)\s*)?"
)
# "Slack is out", "the SMS part is no longer needed", "Slack and Trello are not needed".
TRAILING = words(
    r"(?:is|are)\s+(?:no\s+longer|not)\s+(?:needed|necessary|required|wanted|an\s+option)"
    r"|(?:isn|aren)['’]?t\s+(?:needed|necessary|required|wanted|an\s+option)"
    r"|(?:is|are)\s+out(?!\s+of)"
    r"|(?:can|should)\s+be\s+(?:dropped|removed|skipped)"
    r"|(?:is|are)\s+(?:way\s+|far\s+|a\s+bit\s+|much\s+)?too\s+(?:pricey|expensive|costly|complicated|heavy|much)"
    r"|(?:is|are|would\s+be|seems?)\s+(?:(?:way|total|complete|a\s+bit|kind\s+of|kinda|probably|just)\s+)?(?:overkill|off\s+the\s+table|not\s+worth\s+it)"
    r"|won['’]?t\s+be\s+(?:needed|necessary|required|used)"
    # "Outlook should not be part of this", "Dropbox isn't involved", "the CRM stays out of it".
    r"|(?:should|must|need|will|does|do)(?:n['’]?t|\s+not)\s+(?:be\s+)?(?:part\s+of|involved|included|in\s+the\s+loop|touched|used)"
    r"|(?:is|are)(?:n['’]?t|\s+not)\s+(?:part\s+of|involved|included|in\s+the\s+loop)"
    r"|(?:stays?|stay)\s+out\s+of"
    r"|(?:got|was|were|is|has\s+been|have\s+been)\s+(?:cancell?ed|dropped|scrapped|discontinued|shut\s+down|retired)"
    r"|(?:can|could)\s+go(?!\s+(?:to|in|into|on))"
    r"|(?:is|are)\s+(?:a\s+)?(?:no-?go|non-?starter|out\s+of\s+the\s+question|dead\s+to\s+(?:us|me))"
    # "Slack can take a hike", "Zapier can get lost".
    r"|can\s+(?:take\s+a\s+hike|get\s+lost|go\s+jump\s+in\s+a\s+lake|do\s+one)"
    # "HubSpot is basically dead for us", "Trello's dead".
    r"|(?:is|are|['’]s)\s+(?:basically\s+|pretty\s+much\s+|totally\s+|kind\s+of\s+|kinda\s+|all\s+but\s+)?dead"
    r"(?!\s+(?:simple|easy|quiet|on|set|serious|centre|center|cheap|reliable))"
    r"|(?:is|are)(?:n['’]?t|\s+not)\s+(?:allowed|permitted)|(?:is|are|was|were|got)\s+banned"
    r"|(?:is|are)\s+the\s+(?:old|previous|former)\s+(?:one|account|system|tool|app)"
    r"|(?:got|was|were)\s+(?:rolled\s+back|reverted|called\s+off|postponed)"
    # "Outlook was my previous job", "Jira was the old tracker": the item belongs to the past.
    r"|(?:was|were)\s+(?:at\s+)?(?:the|my|our|an?)\s+(?:old|previous|former|last)(?!\w)"
    # "Jira is read-only now", "the old Trello board is archived": kept only as a record.
    rf"|{PARTS}(?:is|are|['’]s)\s+(?:now\s+|basically\s+|just\s+)?(?:read-?only|archived|deprecated|decommissioned|frozen)"
    # "WhatsApp is not approved for practice business", "Slack isn't used here".
    r"|(?:is|are)(?:n['’]?t|\s+not)\s+(?:approved|authori[sz]ed|sanctioned|signed\s+off|used)(?!\w)"
    r"|(?:is|are|['’]s)\s+being\s+(?:closed|shut|phased\s+out|retired|decommissioned|switched\s+off)"
    # "Outlook emails, which we're not even on anymore": a relative clause of disuse.
    rf"|{PARTS},?\s*"
    r"(?:which|that)\s+(?:we|i)(?:['’]re|['’]m|\s+are|\s+am)?\s+(?:not\s+(?:even\s+|really\s+)?|no\s+longer\s+)"
    r"(?:on|using|use|in|with|paying\s+for)(?!\w)"
    rf"|{PARTS},?\s*"
    r"(?:which|that)\s+(?:we|i)\s+(?:stopped\s+using|left|dropped|cancell?ed|got\s+rid\s+of|moved\s+(?:off|away\s+from))(?!\w)"
)
ACCEPTED = re.compile(
    r"\s*,?\s*(?:ok(?:ay)?|fine|so\s+be\s+it|fair\s+enough|that['’]?s\s+fine|we['’]ll\s+go\s+with\s+it)\s*(?:[.!]|\Z)",
    re.IGNORECASE,
)
# "jira's basically read-only", "Trello's dead": the state said right after the name.
CONTRACTED_STATE = re.compile(
    r"['’]s\s+(?:now\s+|basically\s+|just\s+|pretty\s+much\s+)?(?:read-?only|archived|deprecated|decommissioned"
    r"|frozen|dead|gone|history|retired|being\s+(?:closed|shut|phased\s+out|retired|decommissioned))(?!\w)",
    re.IGNORECASE,
)
# "years ago": a past-time marker after the items takes back its clause's items before it.
HISTORY_AFTER = words(
    r"(?:years|months|ages|decades|a\s+(?:few|couple\s+of)\s+years|a\s+long\s+time)\s+ago"
)
# "maybe I'll open a Shopify shop next year": a clause about a vague future, not the plan.
FUTURE_AFTER = words(
    r"next\s+(?:year|yr|spring|summer|autumn|fall|winter)|some\s*day|one\s+day|eventually|down\s+the\s+(?:road|line)"
    r"|in\s+the\s+(?:future|long\s+run)|(?:not|but\s+not)\s+(?:now|yet|right\s+now|for\s+now)"
)
# ... said as a possibility, not a request.
MAYBE = words(
    r"maybe|perhaps|might|may|possibly|if\s+(?:i|we)\s+(?:feel|get|have|decide)|thinking\s+(?:of|about)|someday"
    r"|(?:would|['’]d)\s+(?:be\s+(?:nice|good|great|cool)|like|love)"
)
# "eventually ..., but not yet": a later "not yet" in the sentence sets the clause aside too.
NOT_YET = words(r"not\s+(?:yet|now|right\s+now)|maybe\s+later|for\s+now")
# ... unless the clause comes back to the present: "set up Slack years ago and still use it".
STILL = words(r"still|now|today|these\s+days|again")
# "no need to open the PDFs", "there's no need to bother translating it": everything the
# rest of the clause names is unwanted, not only what directly follows.
NO_NEED = words(
    r"no\s+need\s+(?:to|for|of)|(?:don['’]?t|do\s+not|doesn['’]?t|does\s+not)\s+(?:really\s+|even\s+)?need\s+(?:(?:it|them|this|you|the\s+\w+)\s+)?to"
    r"|needn['’]?t|(?:it['’]?s|is)\s+not\s+necessary\s+to"
)
NO_NEED_END = re.compile(
    r"[.;!?,\n]|(?<!\w)(?:but|just|instead|then|before|after|because|since|as\s+long\s+as|so)(?!\w)",
    re.IGNORECASE,
)
# "keep Slack out of this", "leave the Trello part out": a verb, the items, then "out".
CIRCUMFIX = words(r"keep|leave|take|cut|pull|rip|count")
OUT = words(r"out|(?:well\s+)?alone|for\s+later|till\s+later|until\s+later|aside")
# "I doubt we need Dropbox here, skip it": the removal points back at the last item named.
ANAPHORA = words(
    r"(?:skip|drop|scrap|scratch|ditch|remove|forget(?:\s+about)?|lose|kill|nix|bin|dropped|scrapped|ditched|removed"
    r"|killed|binned|banned|decided\s+against|ruled\s+out|gave\s+up\s+on|left)\s+(?:it|that|this|them|those)(?:\s+(?:one|part|bit|step))?"
    r"|(?:won['’]?t|don['’]?t|do\s+not|will\s+not|doesn['’]?t|never|(?:please\s+)?not)\s+(?:really\s+|actually\s+)?(?:need\s+to\s+)?(?:need|want|use|involve|touch|include|add|do)\s+(?:it|that|this|them|those|these)"
    r"|(?:declined|rejected|vetoed|refused|turned\s+down)(?:\s+(?:it|that|this|them))?|turned\s+(?:it|that|this|them)\s+down"
    r"|(?:can|could)\s+live\s+without\s+(?:it|that|this|them)"
    r"|(?:not|aren['’]?t|isn['’]?t|won['’]?t\s+be)\s+(?:going\s+to\s+be\s+)?using\s+(?:it|that|this|them)"
    r"|(?:leave|take|keep|cut)\s+(?:it|that|this|them)\s+(?:out|alone)"
    r"|(?:don['’]?t|do\s+not|dont)\s+bother\s+with\s+(?:it|that|this|them)"
    # "the fans are on Discord but this shouldn't post anything there": a negated action there.
    r"|(?:shouldn['’]?t|should\s+not|don['’]?t|do\s+not|won['’]?t|will\s+not|mustn['’]?t|must\s+not|never)"
    r"\s+(?:[a-z]+\s+){1,2}?(?:(?:anything|stuff|something|messages?|posts?|notifications?)\s+)?(?:in\s+)?there"
)
# "it's way overkill for us", "that's too much hassle": a verdict on the item named before.
VERDICT = words(
    r"(?:it['’]?s|that['’]?s|this\s+is|it\s+is|that\s+is|would\s+be)\s+(?:(?:way|total|complete|just|a\s+bit|probably|honestly)\s+)?"
    r"(?:overkill|too\s+much(?:\s+(?:hassle|work|effort))?|too\s+(?:pricey|expensive|complicated|fiddly|noisy)|not\s+needed|unnecessary|pointless)"
)
# ... unless it is a condition or a placement: "skip it if it is spam", "drop it into the folder".
NOT_ANAPHORA = re.compile(
    r"\s+(?:if|when|unless|for(?!\s+(?:now|this|us|the\s+moment|the\s+time\s+being))|in|into|to|on|onto|from|after|before|with|until)(?!\w)",
    re.IGNORECASE,
)
# A bare negation in an if-clause is a condition the workflow checks ("if the backup is not
# in S3 by 3am, alert me"), not a removal.
NEGATION = re.compile(
    r"not|no|never|don['’]?t|do\s+not"
    r"|(?:aren['’]?t|are\s+not|isn['’]?t|is\s+not|weren['’]?t)\s+(?:even\s+|really\s+)?on",
    re.IGNORECASE,
)
CONDITIONAL = re.compile(
    r"\s*(?:(?:and|but|or|so|also|oh|then)\s+)?(?:if|when|whenever|unless|in\s+case|should)(?!\w)",
    re.IGNORECASE,
)
# "we used to track this in Jira", "our old setup was Zapier + Trello": history, not the plan.
HISTORY = words(
    r"years\s+ago|a\s+while\s+ago|before\s+(?:we|i)\s+(?:used|had|kept|sent|ran|were|was|did)"
    # Someone else's suggestion is not the user's request: "a colleague suggested Airtable".
    r"|(?:someone|somebody|people|(?:a|my|our|one|the)\s+(?:\w+\s+)?(?:colleague|boss|manager|friend|cohost|co-host"
    r"|partner|coworker|co-worker|nephew|niece|consultant|assistant|contractor|supervisor|daughter|son|wife|husband"
    r"|sister|brother|cousin|dad|mum|mom|uncle|aunt|neighbou?r|accountant|advisor|adviser|cto|ceo|it\s+guy|web\s+guy"
    r"|team\s*lead|investor|mentor|teacher|coach|chairman|chair|president|secretary|treasurer|co-?admin|admin|co-?founder|office|vendors|customers|clients|users|members|parents"
    r"|staff|people)(?:\s+[A-Z][\w'’-]+)?)\s+(?:(?:also|once|always|then|even)\s+)?"
    r"(?:suggest(?:s|ed)?|recommend(?:s|ed)?|propos(?:e|es|ed)|mention(?:s|ed)?|swears?\s+by|loves?"
    r"|keeps?\s+(?:saying|suggesting|pushing|telling\s+(?:me|us)|going\s+on\s+about|talking\s+about)|goes\s+on\s+about|told\s+(?:me|us)|tells?\s+(?:me|us)"
    r"|wants?\s+(?:me|us)\s+to|wanted\s+(?:me|us)\s+to|push(?:es|ed)?\s+for|insist(?:s|ed)?(?:\s+on)?"
    r"|wants?\s+(?:it|them|this)|keeps?\s+asking(?:\s+for)?|kept\s+asking(?:\s+for)?|have\s+been\s+asking(?:\s+for)?"
    r"|asked\s+(?:if|whether|about|for))"
    # "Originally I thought WhatsApp for the cast": an idea the user had before, not the plan.
    r"|(?:originally|initially|at\s+first|first)\s*,?\s*(?:i|we)\s+(?:thought|figured|wanted|planned|considered"
    r"|was\s+thinking|were\s+thinking|had\s+in\s+mind)"
    r"|(?:i|we)\s+(?:originally|initially|first)\s+(?:thought|wanted|planned|considered|had|used)"
    # "Councillor Pryce suggested we also keep a sheet", "someone said use QuickBooks".
    r"|(?<!\w)(?!(?:i|we|you)\s)(?:[\w'’-]+\s+){1,2}?(?:suggested|recommended|proposed)(?!\w)"
    r"|(?:someone|somebody|people|everyone|they)\s+(?:said|says|told\s+(?:me|us))"
    r"|(?:someone|somebody)\s+(?:on|in|from)\s+(?:the|our)\s+[\w-]+\s+(?:wants?|asked|suggested|keeps?\s+asking)"
    # "I was going to post it to Teams too, but ...": a plan given up.
    r"|(?:i|we)\s+(?:was|were)\s+going\s+to|(?:i|we)\s+(?:had\s+)?planned\s+to"
    # "It was suggested that we use WhatsApp".
    r"|(?:it\s+)?(?:was|has\s+been|had\s+been)\s+suggested"
    # "the previous treasurer used QuickBooks", "the last coordinator had a Trello board".
    r"|(?:the|our|my|a)\s+(?:last|previous|old|former)\s+(?:[\w-]+\s+){1,2}?(?:had|used|kept|ran|did|was\s+using|set\s+up"
    r"|forced|imposed|mandated|pushed|made\s+(?:us|me|everyone)\s+use)"
    # "we looked at Intercom for this", "I evaluated Airtable": a candidate weighed.
    r"|(?:we|i)\s+(?:looked\s+at|considered|evaluated|trialled|trialed|checked\s+out|played\s+(?:around\s+)?with|demoed)"
    # "yes i know every guild on earth uses Discord": a concession to what others do.
    r"|(?:(?:yes|yeah|yep|ok|sure)\s*,?\s*)?(?:i|we)\s+know,?\s+(?:that\s+)?(?:every|everyone|everybody|all|most|people|the\s+whole)(?!\w)"
    # "I know SMS is the usual thing, but ...": a concession, set aside by what follows.
    r"|(?:i|we)\s+know(?=[^.!?\n]{0,120}?(?<!\w)but(?!\w))"
    # "we thought about posting it in Slack or Teams, but ...": an option weighed.
    r"|(?:we|i)\s+(?:(?:thought|were\s+thinking|was\s+thinking|toyed\s+with\s+the\s+idea)\s+(?:about|of)|debated)(?!\s+(?:it|this|that)(?!\w))"
    r"|used\s+to|previously|formerly|"
    + IN_THE_PAST
    + r"|back\s+when|(?:we|i)\s+(?:had\s+)?tried|we\s+were\s+(?:on|using)"
    # "not discord. tried discord, nobody joined": a fragment that leaves the subject out.
    r"|(?:\A|(?<=[.!?;]\s))tried"
    r"|(?:our|the)\s+(?:old|previous|former|legacy)\s+(?:setup|system|tool|tools|process|way|workflow|stack|solution|provider|vendor|app|crm|thing)"
)
# "Before, we collected requests on a Trello board": an opening that sets the whole sentence
# in the past.
HISTORY_OPENER = re.compile(
    r"\s*(?:before|previously|formerly|"
    + IN_THE_PAST
    + r"|back\s+then|until\s+(?:recently|now|last\s+\w+)"
    r"|originally|at\s+my\s+(?:last|old|previous)\s+(?:job|company|place))\s*,",
    re.IGNORECASE,
)
# ... and reaches to the end of its sentence, or to a turn back to the present.
OPENER_END = re.compile(
    r"[.!?;\n]|(?<!\w)(?:but|now|these\s+days|today|instead|however)(?!\w)", re.IGNORECASE
)
# A history reaches to the end of its clause.
CLAUSE_END = re.compile(
    r"[.;!?,\n]|(?<!\w)(?:but|now|these\s+days|instead|so|then|however)(?!\w)", re.IGNORECASE
)
# "don't drop Slack", "why not Slack?": the removal itself is negated or only suggested.
CANCELLED = re.compile(
    r"(?<!\w)(?:don['’]?t|do\s+not|never|not|won['’]?t|shouldn['’]?t|can['’]?t|cannot|why|if)\s+\Z",
    re.IGNORECASE,
)
# Words that may stand anywhere between the phrase and its items.
FILLER = words(
    r"the|a|an|our|my|your|their|that|this|those|these|any\s+more|anymore|any|whole|entire|part|step|bit"
    r"|integration|account|stuff|thing|one|node|connection|either|altogether|entirely|completely|too|as\s+well"
    r"|for\s+now|about|even|really|actually|necessarily|probably|honestly|here|bits?|pieces?|side|route|channel|messages?"
    r"|trial|subscription|licen[cs]e|plan|contract|setup|idea|option|own|separate|extra|additional|dedicated|special"
    r"|migration|move|switch|rollout|transition|written|manual|automatic|automated|machine|human|live"
    # "not the old MySQL instance", "not a normal text message".
    r"|old|former|previous|legacy|normal|regular|plain|ordinary|standard|usual"
    # "NOT my work Outlook calendar".
    r"|work|personal|home|private|business|office|school"
)
# Verbs that may stand only before the first item: "not to Slack", "don't need the SMS part".
LEAD_IN = words(
    r"need|use|using|want|to|on|in|via|with|through|anyone|anybody|someone|everyone|people"
    # "don't have anything like Jira", "never look in Dropbox", "not doing Telegram alerts",
    # "never send anything to customers from Outlook".
    r"|have|has|like|bother\s+with|look(?:ing)?|check(?:ing)?|doing|from|anything|something"
    # "I don't want to pay for Twilio".
    r"|pay(?:ing)?(?:\s+for)?"
    # "please don't connect to QuickBooks".
    r"|connect(?:ing)?(?:\s+(?:to|with))?|integrat(?:e|ing)(?:\s+with)?|link(?:ing)?(?:\s+to)?|hook(?:ing)?\s+(?:up\s+)?(?:to|into)"
    # "scratch what I said about texting them", "please don't bring Dropbox into this".
    r"|what\s+(?:i|we)\s+(?:said|wrote|mentioned|asked\s+for)(?:\s+(?:about|re|on))?|bring"
    r"|clients?|customers?|users?|them|him|her|us|me"
    # "don't add a calculation step", "no need to involve Jira", "never open the PDFs".
    r"|add|include|involve|create|build|set\s+up|make|open|run|attach|bring\s+in|touch|go\s+through"
    # "not a fan of Notion", "nobody on the crew uses Slack", "no one in the office reads it".
    r"|(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of|uses|wants|needs|reads|checks|opens|looks\s+at|cares\s+about|bother(?:\s+with)?"
    r"|crew|team|staff|office|company|here|family|club|lab|group|department|studio|school|house|shop|clinic"
    r"|really|even|actually|ever|do|does"
    r"|(?:post|send|save|upload|store|put|write|log|push|sync|notify|message|ping|tell|alert|email|contact)(?:ing|s)?"
    r"(?:\s+(?:it|them|this|that|everything|anything|anymore))?(?:\s+back)?(?:\s+(?:to|into|in|on|via|through))?"
)
JOINER = re.compile(r"&|(?<!\w)(?:and|or|nor)(?!\w)", re.IGNORECASE)
LIST_SEPARATOR = re.compile(r",|&|/|(?<!\w)(?:and|or|nor)(?!\w)", re.IGNORECASE)
# An item naming what kind of thing follows is not the thing removed: "skip Gmail messages
# from newsletters" filters messages, "drop a Slack message" sends one.
DESCRIBES_NOUN = re.compile(
    r"(?:\s|-)+(?:message|notification|alert|post|ping|email|mail|ticket|issue|row|file|attachment|record"
    r"|entry|entries|event|order|lead|invoice|contact|task|card|comment|link)s?(?!\w)",
    re.IGNORECASE,
)
SUBSET = re.compile(
    r"\s+(?:those|these|(?:the\s+)?(?:[\w-]+\s+)?ones)(?!\w)(?!\s+(?:any\s*more|no\s+more))",
    re.IGNORECASE,
)
RESTRICTED = re.compile(
    r"\s+(?:under|over|below|above|older|younger|aged|who|whose|outside|between|unless|except"
    # "no texts on Saturday or Sunday", "no Slack pings at night": when, not whether.
    r"|on\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|(?:bank\s+|public\s+)?holidays?)"
    r"|at\s+(?:the\s+)?(?:weekends?|night)|overnight|after\s+\d|before\s+\d)(?!\w)",
    re.IGNORECASE,
)
NOUN_BEFORE = re.compile(
    r"(?<!\w)(?:our|the|my|their|a|month-end|year-end|quarter-end|financial|books)\s+\Z",
    re.IGNORECASE,
)
# "managers ignore Slack DMs": a habit of other people, not an instruction.
OTHERS_BEFORE = re.compile(
    r"(?<!\w)(?:they|he|she|people|everyone|everybody|managers|users|customers|clients|staff|parents"
    r"|patients|guests|members|students)\s+(?:often\s+|usually\s+|always\s+|just\s+|all\s+|tend\s+to\s+)?\Z",
    re.IGNORECASE,
)
# "remove the user from our GitHub organization": an action done in the product.
FROM_THE_PRODUCT = re.compile(r"(?<!\w)from\s+(?:the|our|their|my|your)?\s*\Z", re.IGNORECASE)
# "no need to touch the originals in S3": the things acted on, located in the product.
LOCATED = re.compile(
    r"(?<!\w)(?:touch|change|modify|delete|move|edit|alter|rename|overwrite|update)\s+(?:the|those|these|any|our)\s+"
    r"[\w-]+(?:\s+[\w-]+)?\s+(?:in|on|inside|within)\s+(?:the\s+|our\s+)?\Z",
    re.IGNORECASE,
)
# "English ones can go in as they are, without translation": some items pass untouched, the
# step stays for the others.
AS_IS = re.compile(
    r"(?<!\w)(?:as\s+(?:they|it)\s+(?:are|is|come|stand)|as[\s-]is|unchanged|untouched|verbatim)(?!\w)",
    re.IGNORECASE,
)
# Leading cues that are no removal after certain words: (the cue, the words before it, whether
# they may stand anywhere earlier in the sentence rather than right before the cue).
EXCUSED_CUES: tuple[tuple[re.Pattern[str], re.Pattern[str], bool], ...] = (
    (re.compile(r"clos.*", re.IGNORECASE), NOUN_BEFORE, False),  # "our close Google Sheet"
    (re.compile(r"ignores?", re.IGNORECASE), OTHERS_BEFORE, False),  # "they ignore Slack DMs"
    (re.compile(r"without", re.IGNORECASE), AS_IS, True),  # "as they are, without translation"
)


def _excused(text: str, match: re.Match[str]) -> bool:
    """Whether a leading cue is excused by what stands before it (see EXCUSED_CUES)."""
    for cue, before, whole_sentence in EXCUSED_CUES:
        if cue.fullmatch(match[0]):
            start = (
                sentence_start(text, match.start())
                if whole_sentence
                else max(0, match.start() - WINDOW)
            )
            return before.search(text, start, match.start()) is not None
    return False


STILL_GONE = re.compile(r"\s+(?:any\s*more|no\s+more|any\s+longer)(?!\w)", re.IGNORECASE)
# "drop the file into Dropbox": drop as "put", not as "remove".
PLACEMENT = re.compile(r"\s+(?:into|onto|in|to|inside)(?!\w)(?!\s+favou?r)", re.IGNORECASE)
SPACE = re.compile(r"\s*")


def _after_space(text: str, pos: int) -> int:
    """The first position at or after `pos` that is not whitespace."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


# Looking back this far is enough for any negation or filler word, and keeps long texts linear.
WINDOW = 24
# The same fillers and separators, found ending at a position, for trailing phrases.
FILLER_BEFORE = re.compile(rf"(?<!\w)(?:{FILLER.pattern})\Z", re.IGNORECASE)
SEPARATOR_BEFORE = re.compile(rf"(?:{LIST_SEPARATOR.pattern})\Z", re.IGNORECASE)


def removed_indices(text: str, hits: list[Hit]) -> set[int]:
    """Indices into `hits` (non-overlapping, in text order) that a removal applies to."""
    starts = {hit.start: i for i, hit in enumerate(hits)}
    ends = {hit.end: i for i, hit in enumerate(hits)}
    removed: set[int] = set()
    for match in LEADING.finditer(text):
        if _in_a_name(text, match):
            continue
        if CANCELLED.search(text, max(0, match.start() - WINDOW), match.start()):
            continue
        if NEGATION.fullmatch(match[0]) and (
            _in_condition(text, match.start()) or _excepted(text, match.end())
        ):
            continue
        if _excused(text, match):
            continue
        removed |= _after(text, match, hits, starts)
    for match in TRAILING.finditer(text):
        removed |= _before(
            text, match.start(), hits, ends, plural=match.group(0)[:3].lower() == "are"
        )
    for match in CONTRACTED_STATE.finditer(text):
        removed |= {ends[match.start()]} if match.start() in ends else set()
    return removed | _circumfix(text, hits, starts) | _anaphora(text, hits) | _no_need(text, hits)


def _no_need(text: str, hits: list[Hit]) -> set[int]:
    """Items in the rest of a "no need to ..." clause (see NO_NEED)."""
    gone: set[int] = set()
    for match in NO_NEED.finditer(text):
        if CANCELLED.search(text, max(0, match.start() - WINDOW), match.start()):
            continue
        end = NO_NEED_END.search(text, match.end())
        stop = end.start() if end else len(text)
        for i, hit in enumerate(hits):
            if not (match.end() <= hit.start and hit.end <= stop) or hit.id == REF:
                continue
            if SUBSET.match(text, hit.end):
                break  # "no need to text him those": which things, not whether the step exists
            if hit.id == "scheduler" or LOCATED.search(text, match.start(), hit.start):
                continue  # how often, or where the untouched things are: not what is unwanted
            gone.add(i)
    return gone


# "#finance-close", "drop-off", "no_reply": a cue word inside a compound is part of a name.
NAME_JOINER = "-_#/@"


def _in_a_name(text: str, match: re.Match[str]) -> bool:
    before = text[match.start() - 1] if match.start() else " "
    after = text[match.end() : match.end() + 2]
    joined_after = len(after) == 2 and after[0] in "-_" and after[1].isalnum()
    return before in NAME_JOINER or joined_after


def _circumfix(text: str, hits: list[Hit], starts: dict[int, int]) -> set[int]:
    """Items between "keep/leave/take ... out"."""
    removed: set[int] = set()
    for match in CIRCUMFIX.finditer(text):
        taken: list[int] = []
        pos = match.end()
        while (step := _next(text, pos, hits, starts, bool(taken), lead_in=False)) is not None:
            index, pos = step
            taken += [] if index is None else [index]
        if taken and OUT.match(text, _after_space(text, pos)):
            removed |= set(taken)
    return removed


QUOTES = "\"'‘’“”"


def _quoted(text: str, match: re.Match[str]) -> bool:
    """Whether the cue is a quoted word on its own ('Declined')."""
    before = text[match.start() - 1] if match.start() else ""
    after = text[match.end()] if match.end() < len(text) else ""
    return bool(before) and before in QUOTES and bool(after) and after in QUOTES


PLURAL = words(r"them|those|these")
LISTED = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|&|/|(?:and|or)\s+)\s*", re.IGNORECASE)


def _listed_last(text: str, hits: list[Hit], before: list[int]) -> set[int]:
    """The last item before a plural pronoun, with the items listed together with it:
    "I plan in Notion and Asana, but don't touch those" points at both."""
    taken = [before[-1]]
    for i in reversed(before[:-1]):
        if not LISTED.fullmatch(text, hits[i].end, hits[taken[-1]].start):
            break
        taken.append(i)
    return set(taken)


def _anaphora(text: str, hits: list[Hit]) -> set[int]:
    """ "skip it" after an item in the same sentence removes that item.

    Not in a conditional ("if a feed is down, skip it"): that is what the workflow does.
    """
    removed: set[int] = set()
    cues = [(m, True) for m in ANAPHORA.finditer(text)] + [
        (m, False) for m in VERDICT.finditer(text)
    ]
    for match, verb in cues:
        if _quoted(text, match):
            continue  # "moving to 'Bound' or 'Declined'": a value, not a verdict
        if (verb and NOT_ANAPHORA.match(text, match.end())) or CANCELLED.search(
            text, max(0, match.start() - WINDOW), match.start()
        ):
            continue
        opening = sentence_start(text, match.start())
        if CONDITIONAL.match(text, opening):
            continue
        if OPENS_WITH_NO.match(text, opening):
            continue  # "nah, forget that": the sentence before, see retractions.REJECTION
        idea = TENTATIVE.search(text, opening, match.start())
        start = idea.end() if idea else opening
        before = [
            i
            for i, hit in enumerate(hits)
            if start <= hit.start and hit.end <= match.start() and hit.id != REF
        ]
        if idea:
            removed |= set(before)  # "I thought about a daily digest email, but that's overkill"
        elif before:
            removed |= _listed_last(text, hits, before) if PLURAL.search(match[0]) else {before[-1]}
        elif opening and (earlier := _only_item_before(text, hits, opening)) is not None:
            removed.add(earlier)  # "The old admin used QuickBooks. Please don't involve it."
    return removed


# An idea the user floats before taking it back as a whole.
TENTATIVE = words(
    r"(?:i|we)\s+(?:thought\s+(?:about|of)|was\s+(?:also\s+)?thinking(?:\s+(?:of|about))?|were\s+(?:also\s+)?thinking"
    r"(?:\s+(?:of|about))?|considered|toyed\s+with|wondered\s+about)|what\s+about|how\s+about|maybe\s+also"
)
OPENS_WITH_NO = re.compile(
    r"\s*(?:(?:hmm+|um+|oh|well|ok(?:ay)?|actually)[\s,.]+)*(?:no|nah|nope)(?!\w)", re.IGNORECASE
)


def _only_item_before(text: str, hits: list[Hit], opening: int) -> int | None:
    """The item of the sentence right before `opening`, when it names just one."""
    previous = sentence_start(text, max(0, opening - 1))
    inside = [i for i, hit in enumerate(hits) if previous <= hit.start < opening and hit.id != REF]
    return inside[-1] if len({hits[i].id for i in inside}) == 1 else None


# "don't post to Slack unless it is urgent": a negation with an exception is a filter.
EXCEPTION = words(
    r"unless|except(?:\s+(?:for|when|if))?|other\s+than|apart\s+from|only\s+(?:if|when)|until"
)
EXCEPTION_END = re.compile(r"[.;!?\n]|(?<!\w)but(?!\w)", re.IGNORECASE)


def _excepted(text: str, pos: int) -> bool:
    """Whether the rest of a negated clause names an exception (see EXCEPTION)."""
    end = EXCEPTION_END.search(text, pos)
    return EXCEPTION.search(text, pos, end.start() if end else len(text)) is not None


def _in_condition(text: str, pos: int) -> bool:
    """Whether `pos` lies in the if-clause that opens its sentence (before the first comma)."""
    opening = sentence_start(text, pos)
    return bool(CONDITIONAL.match(text, opening)) and "," not in text[opening:pos]


def historical_indices(text: str, hits: list[Hit]) -> set[int]:
    """Items in a clause about the past ("we used to use Jira") are not part of the plan."""
    gone: set[int] = set()
    for match in HISTORY.finditer(text):
        end = CLAUSE_END.search(text, match.end())
        stop = end.start() if end else len(text)
        if ACCEPTED.match(text, stop):
            continue  # "my partner insists on Salesforce, ok.": the suggestion taken up
        gone |= within(hits, match.end(), stop)
    for match in HISTORY_AFTER.finditer(text):
        opening = _clause_start(text, match.start())
        end = CLAUSE_END.search(text, match.end())
        if STILL.search(text, opening, end.start() if end else len(text)):
            continue
        gone |= within(hits, opening, match.start())
    for match in history_openers(text):
        end = OPENER_END.search(text, match.end())
        stop = end.start() if end else len(text)
        gone |= within(hits, match.end(), stop)
    return gone | _someday(text, hits) | _set_aside(text, hits) | _wondered(text, hits)


# "doors are at 7pm, doesn't matter for this", "unrelated to this, just mentioning it": what
# the sentence says is context, not a request.
DISCLAIMER = words(
    r"(?:does\s*n['’]?t|doesn['’]?t|does\s+not|won['’]?t)\s+matter\s+(?:for|here|to)|(?:is|are|that['’]?s|it['’]?s)\s+"
    r"(?:not\s+(?:important|relevant)\s+(?:for|to|here)|irrelevant|unrelated)|unrelated\s+to\s+(?:this|the)"
    r"|unrelated(?=\s*(?:[,.!;]|\Z))|(?:irrelevant|not\s+relevant)\s+(?:here|for\s+this|to\s+this)"
    r"|(?:in\s+case|if)\s+(?:that|it)\s+matters|only\s+matters\s+for|(?:has|have)\s+nothing\s+to\s+do\s+with|nothing\s+to\s+automate|just\s+so\s+you\s+know|just\s+for\s+context"
    r"|(?:that['’]?s|it['’]?s)\s+(?:just\s+)?(?:me|my\s+(?:job|problem|thing)|personal|a\s+(?:whole\s+)?(?:other|different|separate)\s+(?:thing|problem|story|matter))"
    r"|(?:fyi|for\s+your\s+info(?:rmation)?)(?=\s*(?:[.!]|\Z))"
    r"|not\s+the\s+(?:workflow|bot|automation)|(?:isn|aren)['’]?t\s+relevant|not\s+for\s+the\s+(?:workflow|bot|automation)"
)


# "For context: the board meets on the first Tuesday": a sentence that opens as background.
BACKGROUND = re.compile(
    r"\s*(?:for\s+context|background|side\s+note|fyi|for\s+your\s+information|for\s+the\s+record|as\s+background)\s*[:,–—-]",
    re.IGNORECASE,
)


def _set_aside(text: str, hits: list[Hit]) -> set[int]:
    """Items of a sentence that calls itself context (DISCLAIMER); one that opens with the
    disclaimer speaks of the sentence before."""
    aside: set[int] = set()
    for match in DISCLAIMER.finditer(text):
        opening = sentence_start(text, match.start())
        closing = SENTENCE_END.search(text, match.end())
        stop = closing.start() if closing else len(text)
        if not text[opening : match.start()].strip(" ,") and opening:
            opening = sentence_start(text, max(0, opening - 1))  # and the sentence before
        aside |= within(hits, opening, stop)
    for start in [0, *(m.end() for m in SENTENCE_END.finditer(text))]:
        if BACKGROUND.match(text, start):
            closing = SENTENCE_END.search(text, start)
            stop = closing.start() if closing else len(text)
            aside |= within(hits, start, stop)
    return aside


# "or maybe email it to my Gmail instead?": an alternative wondered about, not asked for.
WONDERED = words(
    r"or\s+(?:maybe|perhaps)|should\s+(?:it|we|that)\s+be|(?:would|might)\s+(?:\w+\s+){0,4}?be\s+better"
)


def _wondered(text: str, hits: list[Hit]) -> set[int]:
    """Items of a question that wonders about an alternative (WONDERED, ending in "?")."""
    gone: set[int] = set()
    for match in WONDERED.finditer(text):
        opening = sentence_start(text, match.start())
        closing = SENTENCE_END.search(text, match.end())
        if closing is None or closing[0] != "?":
            continue
        gone |= within(hits, opening, closing.start())
    return gone


def _someday(text: str, hits: list[Hit]) -> set[int]:
    """Items of a clause that puts them in a vague future as a possibility (FUTURE_AFTER)."""
    gone: set[int] = set()
    for match in FUTURE_AFTER.finditer(text):
        opening = _clause_start(text, match.start())
        end = CLAUSE_END.search(text, match.end())
        stop = end.start() if end else len(text)
        closing = SENTENCE_END.search(text, match.end())
        not_yet = NOT_YET.search(text, match.end(), closing.start() if closing else len(text))
        if (
            match[0].lower().startswith(("not", "but"))
            or MAYBE.search(text, opening, stop)
            or not_yet
        ):
            gone |= within(hits, opening, stop)
    return gone


def _clause_start(text: str, pos: int) -> int:
    """Where the clause holding `pos` begins (after the last clause end before it)."""
    opening = sentence_start(text, pos)
    ends = [m.end() for m in CLAUSE_END.finditer(text, opening, pos)]
    return ends[-1] if ends else opening


def history_openers(text: str) -> list[re.Match[str]]:
    """Sentence openings that set the sentence in the past ("Before, ...")."""
    starts = [0, *(m.end() for m in SENTENCE_END.finditer(text))]
    return [m for start in starts if (m := HISTORY_OPENER.match(text, start))]


def _after(text: str, phrase: re.Match[str], hits: list[Hit], starts: dict[int, int]) -> set[int]:
    """The items a leading phrase applies to: fillers and list separators may come between."""
    taken: list[int] = []
    pos = phrase.end()
    while (step := _next(text, pos, hits, starts, bool(taken))) is not None:
        index, pos = step
        if index is not None and (SUBSET.match(text, pos) or RESTRICTED.match(text, pos)):
            # "no need to text him those", "don't text anyone under 16": which things, not
            # whether the step exists.
            break
        noun = DESCRIBES_NOUN.match(text, pos) if index is not None else None
        if noun and index is not None and STILL_GONE.match(text, noun.end()):
            # "not doing WhatsApp orders anymore": the kind of thing stopped with the item.
            taken.append(index)
            break
        if noun and index is not None and _drops_a_part(text, phrase, hits[index], noun):
            taken.append(index)
            break
        if noun and index is not None and _negated_output(text, phrase, noun):
            taken.append(index)
            break
        if noun:
            break
        taken += [] if index is None else [index]
    if (
        taken
        and phrase.group(0).lower().startswith("drop")
        and (PLACEMENT.match(text, pos) or placing(text, phrase.start()))
    ):
        return set()
    if VERB_REMOVAL.fullmatch(phrase.group(0)):
        taken = [i for i in taken if not FROM_THE_PRODUCT.search(text, phrase.end(), hits[i].start)]
    return set(_closed_list(text, taken, hits))


# "drop the Teams notification", "remove that Slack alert": a definite article points at an
# output already in the plan, so the item goes; "drop a Slack message" sends one, and "skip
# the Gmail messages from newsletters" filters them (a qualifier follows).
PART_NOUN = re.compile(
    r"(?:\s|-)+(?:notification|alert|ping|post|update|reminder|message|step|part|bit)s?(?!\w)",
    re.IGNORECASE,
)
DEFINITE = words(r"the|that|this|those|these")
VERB_REMOVAL = words(
    r"drop(?:ping)?|remove|delete|ditch|skip|scrap|scratch|nix|lose|cut\s+out|take\s+out|forget"
)
PART_ENDS = re.compile(
    r"\s*(?:[.!?;,\n]|\Z|(?:and|too|as\s+well|please|altogether|entirely)(?!\w))", re.IGNORECASE
)


def _drops_a_part(text: str, phrase: re.Match[str], hit: Hit, noun: re.Match[str]) -> bool:
    """Whether "<remove> the <item> <part noun>" removes the item (see PART_NOUN)."""
    part = PART_NOUN.match(text, hit.end)
    return bool(
        part
        and VERB_REMOVAL.fullmatch(phrase.group(0))
        and DEFINITE.search(text, phrase.end(), hit.start)
        and PART_ENDS.match(text, part.end())
    )


# "don't create a Jira ticket for these", "never send a Slack message": no such output at all,
# said with a verb that makes one; "don't send Slack messages to clients" only narrows it.
NEGATED = words(
    r"don['’]?t|do\s+not|never|won['’]?t|will\s+not|shouldn['’]?t|should\s+not|no\s+need\s+to"
    r"|let['’]?s\s+not"
)
MAKES = words(
    r"create|open|make|send|post|add|raise|file|log|write|start|set\s+up|do|bother\s+with"
)
OUTPUT_ENDS = re.compile(
    r"\s*(?:[.!?;,\n]|\Z|(?:for\s+(?:this|these|that|those|them|it|now)|here|at\s+all|please|too|either)(?!\w))",
    re.IGNORECASE,
)


def _negated_output(text: str, phrase: re.Match[str], noun: re.Match[str]) -> bool:
    """Whether "<negation> <make> a <item> <noun>" says the item's output is not wanted."""
    return bool(
        NEGATED.fullmatch(phrase.group(0))
        and MAKES.search(text, phrase.end(), noun.start())
        and OUTPUT_ENDS.match(text, noun.end())
    )


def _closed_list(text: str, taken: list[int], hits: list[Hit]) -> list[int]:
    """A list joined by commas alone is no list: "not Outlook, Gmail" swaps, it removes one.

    "drop Slack, Trello and Asana" names its last item with and/or/nor, so all three go.
    """
    gaps = [text[hits[a].end : hits[b].start] for a, b in itertools.pairwise(taken)]
    if not gaps or any(JOINER.search(gap) for gap in gaps):
        return taken
    return taken[:1]


def _next(
    text: str,
    pos: int,
    hits: list[Hit],
    starts: dict[int, int],
    listing: bool,
    lead_in: bool = True,
) -> tuple[int | None, int] | None:
    """One step forward: (hit index, end) for an item, (None, end) for a filler, None to stop."""
    pos = _after_space(text, pos)
    if pos in starts:
        return starts[pos], hits[starts[pos]].end
    # Separators only continue a list already begun: "No, Slack is fine" removes nothing.
    lead = LEAD_IN.match(text, pos) if lead_in else None
    gap = FILLER.match(text, pos) or (LIST_SEPARATOR.match(text, pos) if listing else lead)
    return (None, gap.end()) if gap and gap.end() > pos else None


def _before(text: str, pos: int, hits: list[Hit], ends: dict[int, int], plural: bool) -> set[int]:
    """The items a trailing phrase applies to: one for "is", a list for "are"."""
    taken: list[int] = []
    while True:
        while pos and text[pos - 1].isspace():
            pos -= 1
        if pos in ends:
            taken.append(ends[pos])
            pos = hits[ends[pos]].start
            if not plural:
                break
            continue
        window = max(0, pos - WINDOW)
        gap = FILLER_BEFORE.search(text, window, pos) or (
            SEPARATOR_BEFORE.search(text, window, pos) if taken else None
        )
        if not gap or gap.start() == pos:
            break
        pos = gap.start()
    return set(taken)


def removal_cue(text: str) -> bool:
    """Whether the text holds a removal or history cue that is not itself negated.

    "Don't drop Slack" holds none: "drop" is cancelled, and "don't" is about "drop".
    """
    cues = list(LEADING.finditer(text))
    leading = any(
        not CANCELLED.search(text, max(0, m.start() - WINDOW), m.start())
        and not any(_after_space(text, m.end()) == n.start() for n in cues)
        for m in cues
    )
    circumfix = any(OUT.search(text, m.end()) for m in CIRCUMFIX.finditer(text))
    return (
        leading
        or circumfix
        or bool(history_openers(text))
        or any(p.search(text) for p in (TRAILING, ANAPHORA, HISTORY))
    )
