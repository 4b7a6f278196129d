"""Removals that reach across a sentence or back along one.

- A bare rejection that opens a sentence takes back the items of the sentence before it
  in the same message: "Someone suggested WhatsApp. No.", "Maybe in Spanish too? Hmm no,
  forget it", "... my Google Calendar... actually no, skip that".
- Within one sentence, an item already removed stays removed when it is named again
  without anything that brings it back: "Not GitHub, people always assume GitHub."
  ("Drop Slack, actually keep Slack" and "don't post to Slack hourly, post to Slack once a
  day" bring it back.)
"""

from __future__ import annotations

import re

from catalog.phrases import REF, SENTENCE_END, Hit, sentence_start

# "No.", "Nope!", "hmm no, forget it", "actually no, skip the calendar bit", "nah".
# A "no" that goes on to say something else ("No emojis", "No, that's fine") is not one.
# "Hmm no, this season we made a Telegram group": a hesitation, then no, then something else;
# it takes back the sentence before when that names one item (more: catalog/dismissals.py).
HESITANT_NO = re.compile(
    r"\s*(?:(?:hmm+|hm+|um+|uh+|ah+|actually|wait|oh)[\s,.]+)+(?:no|nah|nope)(?:,|\s+[-–—])",
    re.IGNORECASE,
)
REJECTION = re.compile(
    r"\s*(?:(?:hmm+|hm+|um+|uh+|actually|wait|oh|ok(?:ay)?|well|on\s+second\s+thought)[\s,.]+)*"
    r"(?:(?:no|nah|nope)(?!\w)\s*(?:[.!]|\Z|(?=[\w-]+(?:\s+[\w-]+)?\s+(?:actually|instead)(?!\w))|,?\s*(?:forget|scratch|skip|drop|ditch|not\s+that)(?!\w)"
    # "Hmm, no, sorry, stick with Airtable": the sentence before floated an alternative.
    r"|,?\s*(?:actually,?\s*)?let['’]?s\s+not(?!\w)|,?\s*sorry(?!\w)|\s+(?:actually\s+)?(?:don['’]?t|do\s+not)(?!\w)|,?\s*(?:sorry,?\s*)?(?:let['’]?s\s+)?(?:(?:stick|stay|go)\s+(?:with|to)|keep)(?!\w)|.{0,80}?(?:forget|scrap|scratch|skip|drop)\s+(?:it|that)(?!\w)"
    # "wait, no, that was the last show": the sentence before was about something else.
    r"|,?\s*(?:that\s+was|that['’]s\s+(?:from|for)|that\s+(?:is|was)\s+(?:from|for))\s+(?:the|my|our|a|an)\s+"
    r"(?:last|old|previous|other|different|former)(?!\w))"
    # "Never mind.", "Not needed.", "Maybe someday, but not for this.": a whole sentence saying no.
    r"|(?:absolutely\s+not|definitely\s+not|certainly\s+not|no\s+way|not\s+a\s+chance|let['’]?s\s+not|never\s*mind|not\s+needed|not\s+necessary|no\s+thanks|not\s+(?:now|yet)|scratch\s+that|forget\s+(?:it|that)"
    r"|maybe\s+(?:someday|some\s+day|later|one\s+day|next\s+(?:year|quarter|month|spring|summer|autumn|fall|winter)))"
    r"(?:\s*,?\s*(?:but\s+)?not\s+(?:for\s+(?:this|now)|now|yet))?\s*(?:[.!]|\Z))",
    re.IGNORECASE,
)
# "hmm no. ...", "actually no, ...": a message that opens by correcting the one before. A
# bare "No." may answer the assistant's question, so a hesitation must come first.
SELF_CORRECTION = re.compile(
    r"\s*(?:(?:hmm+|hm+|um+|uh+|actually|wait|oh|on\s+second\s+thought)[\s,.]+)+(?:no|nah|nope)(?!\w)",
    re.IGNORECASE,
)


def corrects_previous(text: str) -> bool:
    """Whether a message opens by taking back what the user's previous message said."""
    return SELF_CORRECTION.match(text) is not None


# What, between two namings of an item in one sentence, can bring a removed item back.
REVIVE = re.compile(
    r"(?<!\w)(?:but|actually|wait|keep|instead|rather|just|only|still|now|use|using|post|send|save|put"
    r"|push|add|log|write|notify|store|upload|create|move|sync|back\s+to|no|fine|ok|okay|good|stays?"
    r"|after\s+all)(?!\w)",
    re.IGNORECASE,
)


# "WhatsApp? nah, plain SMS": a no right after the user's own question answers it.
ANSWER_NO = re.compile(
    r"\s*(?:(?:hmm+|um+|oh|well|actually)[\s,.]+)*(?:no|nah|nope)(?!\w)", re.IGNORECASE
)


def rejected_indices(text: str, hits: list[Hit]) -> set[int]:
    """Items of the sentence right before a sentence that is a bare rejection."""
    starts = [m.end() for m in SENTENCE_END.finditer(text)]
    gone: set[int] = set()
    for start in starts:
        answered = text[start - 1] == "?" and ANSWER_NO.match(text, start)
        hesitant = HESITANT_NO.match(text, start)
        if start >= len(text) or not (REJECTION.match(text, start) or answered or hesitant):
            continue
        end = start - 1
        while end > 0 and text[end - 1] in ".!?;\n \t…":  # "Notion... actually no": one end
            end -= 1
        previous = sentence_start(text, end)
        for _ in range(0 if answered else 2):  # "Airtable after all? I keep going back... no."
            if previous == 0 or any(previous <= h.start < start and h.id != REF for h in hits):
                break
            previous = sentence_start(text, previous - 1)
        taken = {i for i, hit in enumerate(hits) if previous <= hit.start < start and hit.id != REF}
        if hesitant and not (REJECTION.match(text, start) or answered):
            taken = taken if len({hits[i].id for i in taken}) == 1 else set()
        if answered:
            # "search the web for reviews, maybe once a day? No, that's overkill": the no
            # answers the hedged part of the question, when the question hedges.
            hedge = [m.end() for m in HEDGE.finditer(text, previous, start)]
            hedged = {i for i in taken if hedge and hits[i].start >= hedge[-1]}
            taken = hedged or taken
        gone |= taken
    return gone


HEDGE = re.compile(r"(?<!\w)(?:maybe|perhaps|possibly|or)(?!\w)", re.IGNORECASE)


# A later sentence that gives the reason for a removal names the item without asking for it:
# "skip the texting. The trust would ask questions about sending numbers to a texting service."
REASON = re.compile(
    r"(?<!\w)(?:would|because|since|otherwise|complain\w*|hate\w*|nobody|never"
    r"|consent|complian\w*|won['’]t|can['’]?t|cannot|policy|gdpr|privacy|legal|expensive|costs?)(?!\w)",
    re.IGNORECASE,
)


# "WhatsApp would mean ...": what the item would cost, said of an item just taken back.
CONSEQUENCE = re.compile(
    r"\s+(?:would|['’]d)\s+(?:mean|need|require|cost|take|involve|entail)(?!\w)", re.IGNORECASE
)


def persisting(text: str, hits: list[Hit], gone: set[int]) -> set[int]:
    """Later namings of a removed item in the same sentence, or in a later one that gives the
    reason for the removal (REASON), with nothing reviving it in between."""
    kept: set[int] = set()
    for i in sorted(gone):
        removed = hits[i]
        opening = sentence_start(text, removed.start)
        # "no, stick to email, WhatsApp would mean asking everyone again": what it would cost.
        kept |= {
            j
            for j in range(i + 1, len(hits))
            if hits[j].id == removed.id != REF and CONSEQUENCE.match(text, hits[j].end)
        }
        for j in range(i + 1, len(hits)):
            later = hits[j]
            here = sentence_start(text, later.start)
            # In a later sentence only a reviving word right before the item counts ("We only
            # have consent for texting for half of them" gives a reason, it revives nothing).
            between = (removed.end, later.start) if here == opening else (removed.end, here)
            if REVIVE.search(text, *between) or (
                here != opening and REVIVE.search(text, max(here, later.start - 12), later.start)
            ):
                break
            if here == opening:
                if later.id == removed.id and later.id != REF:
                    kept.add(j)
                continue
            later_end = SENTENCE_END.search(text, later.end)
            reason = REASON.search(
                text,
                sentence_start(text, later.start),
                later_end.start() if later_end else len(text),
            )
            if later.id == removed.id and later.id != REF and reason:
                kept.add(j)
    return kept
