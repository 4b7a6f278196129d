"""Long conversations, generated from a seed: hundreds of turns the way requirement chats run.

`long_session(300, seed)` mixes stretches of small talk about the business with stretches that
name catalogue items; `euro_conversation(120)` gives a detail at turn 3 ("all amounts in
euros"), chats for a hundred turns without naming any catalogue item, then asks for a
workflow whose calculator step needs a currency.
"""

from __future__ import annotations

import random

from catalog import find_mentions, load_catalogue

CATALOGUE = load_catalogue()
SUBJECTS = (
    "the team offsite",
    "our vendor list",
    "the warehouse team",
    "the new office in Lyon",
    "customer onboarding",
    "the marketing budget",
    "supplier contracts",
    "holiday planning",
    "the audit next spring",
    "our hiring plans",
)
REMARKS = (
    "Just so you know, {s} keeps coming up in meetings.",
    "Another thing about {s}: people ask about it a lot.",
    "Regarding {s}, nobody owns it at the moment.",
    "We discussed {s} again yesterday.",
    "I am not sure {s} matters for this, but it is on my mind.",
    "Some context on {s}: it changed last year.",
    "Our manager cares about {s}.",
    "Remember {s} when you think about the bigger picture.",
)
ASKS = (
    "Can it also involve {n}?",
    "We rely on {n} for part of this.",
    "Please keep {n} in the loop.",
    "The team lives in {n} most of the day.",
)
NAMED = ("Slack", "Gmail", "Google Sheets", "Notion", "Trello", "Jira", "Airtable", "Dropbox")

EURO_DETAIL = "One more detail: all amounts in euros, please."
EURO_REQUEST = (
    "Here is the automation: every Monday at 9am, fetch invoices from Gmail with PDF "
    "attachments, calculate the total amount, and post it to Slack in #finance."
)


def remark(rng: random.Random) -> str:
    """A turn of background talk that names no catalogue item."""
    text = rng.choice(REMARKS).format(s=rng.choice(SUBJECTS))
    assert not find_mentions(text, CATALOGUE), text
    return text


def long_session(turns: int, seed: int) -> list[str]:
    """`turns` user messages: stretches of 3-12 turns, about a third of them naming items."""
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < turns:
        stretch = rng.randint(3, 12)
        naming = rng.random() < 0.35
        for _ in range(stretch):
            if naming and rng.random() < 0.5:
                texts.append(rng.choice(ASKS).format(n=rng.choice(NAMED)))
            else:
                texts.append(remark(rng))
    return texts[:turns]


def euro_conversation(turns: int = 120, seed: int = 7) -> list[str]:
    """The euro detail at turn 3, background talk, the request near the end (user turns only)."""
    rng = random.Random(seed)
    opening = [
        "I want to automate our invoice reporting.",
        "It is for the finance people.",
        EURO_DETAIL,
    ]
    filler = [remark(rng) for _ in range(turns - len(opening) - 1)]
    return [*opening, *filler, EURO_REQUEST]
