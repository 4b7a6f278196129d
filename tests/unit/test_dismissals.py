"""Dismissals said about a clause, not beside the item (catalog/dismissals.py)."""

from __future__ import annotations

import pytest

from catalog import detect, find_mentions, load_catalogue
from tests.support.reading import reading

CATALOGUE = load_catalogue()


@pytest.mark.parametrize(
    ("text", "mentioned", "removed"),
    [
        # a rejection reaches its own clause
        (
            "Refunds go through Stripe, but this workflow must never touch Stripe.",
            set(),
            {"stripe"},
        ),
        ("Nvm the Discord bit, nobody reads it.", set(), {"discord"}),
        ("We don't use Jira anymore for any of this.", set(), {"jira"}),
        # ... or the clause before it when its own names nothing
        ("The sales team lives in HubSpot, so don't build anything on it.", set(), {"hubspot"}),
        (
            "Ping them in Slack - hold on, ops shut Slack down, it's Teams now.",
            {"microsoft_teams"},
            {"slack"},
        ),
        # ... or the sentence before, when that one names one item
        (
            "I collect old issues of The Outlook. It's a journal, not the email thing.",
            set(),
            {"outlook"},
        ),
        ("Track which asana gives people trouble? Just kidding, that's yoga.", set(), {"asana"}),
        ("Should it also email the client? Nah, phone is fine.", set(), set()),
        # the other sense named
        (
            "Here 'linear' is the engineering term, we do not use the app called Linear.",
            set(),
            {"linear"},
        ),
        # the sentence's own pick stays
        ("Discord? no, that's not the tool, Slack only.", {"slack"}, {"discord"}),
        # near misses
        ("Nothing goes out before 9am, then post to Slack.", {"slack"}, set()),
        ("Call their API at https://x.example/api/v2/items.", {"http_request"}, set()),
        ("Don't build the Trello card until the invoice is paid.", {"trello"}, set()),
    ],
)
def test_a_rejection_reaches_its_clause_or_the_one_it_points_back_at(
    text: str, mentioned: set[str], removed: set[str]
):
    result = detect(text, CATALOGUE)
    # A retraction of the sentence before removes what that sentence brought (annotator).
    assert (set(result.mentioned), set(result.removed) | set(result.retracted)) == (
        mentioned,
        removed,
    )


@pytest.mark.parametrize(
    ("text", "mentioned", "aside"),
    [
        (
            "Our board uses Notion for minutes, but that's got nothing to do with this.",
            set(),
            {"notion"},
        ),
        (
            "A weekly digest would be nice, but that's a later thing.",
            set(),
            {"text_summarizer", "scheduler"},
        ),
        ("Sentiment on reviews is a separate project.", set(), {"sentiment"}),
        (
            "Some write from Gmail, doesn't matter, it all arrives in our Outlook inbox.",
            {"outlook"},
            {"gmail"},
        ),
        ("The gala is at 7pm on the 12th, but that's just context.", set(), {"scheduler"}),
        ("Post the link to Slack, the rest is not part of this.", {"slack"}, set()),
    ],
)
def test_context_sets_items_aside_without_taking_anything_back(
    text: str, mentioned: set[str], aside: set[str]
):
    result = detect(text, CATALOGUE)
    assert (set(result.mentioned), set(result.past)) == (mentioned, aside)
    assert not result.removed


@pytest.mark.parametrize(
    ("text", "mentioned", "not_asked"),
    [
        # a correction that names the family of the item it takes back
        (
            "Pull the rows from our MySQL db every hour. wait no, it moved, it's Postgres now.",
            {"postgres", "scheduler"},
            {"mysql"},
        ),
        (
            "Post it in Slack at 9am. Hold on, make that Discord.",
            {"discord", "scheduler"},
            {"slack"},
        ),
        # later, other people's wishes, other people's tools
        (
            "Someone in the office wants a Telegram channel too. That's for next year though.",
            set(),
            {"telegram"},
        ),
        ("The chair keeps going on about Google Calendar.", set(), {"google_calendar"}),
        ("Use Trello, Asana is what the designers use.", {"trello"}, {"asana"}),
        ("The backups go to S3, but that's another job.", set(), {"s3"}),
        # an ordinary sense, and a restriction that keeps the step
        ("The general sentiment in the team is that it's too slow.", set(), set()),
        ("Announcements go over the intercom.", set(), set()),
        ("Don't text anyone under 18.", {"twilio_sms"}, set()),
        ("Actually no Slack, they don't have it.", set(), {"slack"}),
        ("There's no slack in the schedule.", set(), set()),
    ],
)
def test_corrections_later_wishes_and_senses(text: str, mentioned: set[str], not_asked: set[str]):
    assert reading(text) == (mentioned, not_asked)


@pytest.mark.parametrize(
    ("text", "mentioned", "not_asked"),
    [
        # a hesitation, then no, about the one item of the sentence before
        (
            "Send it by Slack. Hmm no, the volunteers all joined a Discord server.",
            {"discord"},
            {"slack"},
        ),
        ("Email it from Outlook? Nah actually don't, use Gmail.", {"gmail"}, {"outlook"}),
        ("Airtable after all? I keep changing my mind... no.", set(), {"airtable"}),
        # other people's tools, bans, rollbacks, old accounts
        ("Jira is the dev team's tool, we use Trello.", {"trello"}, {"jira"}),
        ("Telegram isn't allowed on work phones.", set(), {"telegram"}),
        ("Outlook is the old account, it's Gmail now.", {"gmail"}, {"outlook"}),
        # facts about when things happen, context covering the whole sentence before it
        ("Lessons are usually on Saturdays, that's just how the club works.", set(), set()),
        ("Classes are 9 till 5 on weekdays.", set(), set()),
        (
            "The fee changes at the start of each month, I do it by hand in Airtable, nothing to automate there.",
            set(),
            {"airtable", "scheduler"},
        ),
        ("Figures go in the monthly report for the board.", set(), set()),
        # near misses that stay requests
        ("Every Monday at 10, send the recap.", {"scheduler", "text_summarizer"}, set()),
        ("Best is each evening at 18h.", {"scheduler"}, set()),
    ],
)
def test_sixth_round_hesitations_others_tools_and_facts(
    text: str, mentioned: set[str], not_asked: set[str]
):
    assert reading(text) == (mentioned, not_asked)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Take the invoice number and the total from the scan.", {"ocr"}),
        ("Sort each review as positive, neutral or negative.", {"sentiment"}),
        ("Also put the newsletter into those two languages.", {"translator"}),
        ("The texts should go out in English and Spanish.", {"translator"}),
        ("Customers pay through a stripe link.", {"stripe"}),
        ("Send them a thank u txt.", {"twilio_sms"}),
        ("Residents never answer the intercom.", set()),
    ],
)
def test_sixth_round_paraphrases_and_senses(text: str, expected: set[str]):
    assert set(find_mentions(text, CATALOGUE)) == expected


# After the held-back set was played once: its kinds, in other words.
@pytest.mark.parametrize(
    ("text", "mentioned", "not_asked"),
    [
        ("Neither Trello nor Asana should be part of it.", set(), {"trello", "asana"}),
        ("The invoices sit in Dropbox but leave that alone.", set(), {"dropbox"}),
        ("We had Jira for this once, don't bother with that.", set(), {"jira"}),
        ("Every morning the vet checks the kennels fyi.", set(), {"scheduler"}),
        ("Is it Postgres? wait no, asked the admin, its MySQL.", {"mysql"}, {"postgres"}),
        ("Or maybe post it to Discord instead?", set(), {"discord"}),
        ("Can it also post to Discord?", {"discord"}, set()),
        ("Here S3 is a storeroom, nothing to do with Amazon.", set(), {"s3"}),
        ("I hardly ever open Slack.", set(), {"slack"}),
    ],
)
def test_held_back_kinds_in_other_words(text: str, mentioned: set[str], not_asked: set[str]):
    assert reading(text) == (mentioned, not_asked)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A shopify-style product grid at the bottom.", set()),
        ("At month end, add up the sales.", {"scheduler", "calculator"}),
        ("Check the web for the company's latest news.", {"web_search"}),
        ("Run a quick mood check on each reply.", {"sentiment"}),
        ("Tag each reply happy, neutral or unhappy.", {"sentiment"}),
        ("The agency sends us the weekly report anyway.", set()),
        ("The wifi password changes monthly.", set()),
        ("Usually between 6 and 7am, when the first shift arrives at 07:30.", set()),
        ("The label should say 'ship via Dropbox' on it.", set()),
        (
            "The message should go out immediately whenever a booking lands, not at 9am.",
            set(),
        ),
    ],
)
def test_held_back_paraphrases_and_senses_in_other_words(text: str, expected: set[str]):
    result = detect(text, CATALOGUE)
    assert set(result.mentioned) == expected


@pytest.mark.parametrize(
    ("text", "mentioned", "removed"),
    [
        ("Skip the texting. The parents would hate getting a texting bill.", set(), {"twilio_sms"}),
        ("Drop Slack. Actually post the summary to Slack after all.", {"slack"}, set()),
        (
            "Drop Slack. We'll move the alerts to Slack next quarter, post them there.",
            {"slack"},
            set(),
        ),
    ],
)
def test_a_reason_after_a_removal_does_not_bring_the_item_back(
    text: str, mentioned: set[str], removed: set[str]
):
    result = detect(text, CATALOGUE)
    assert (set(result.mentioned), set(result.removed)) == (mentioned, removed)
