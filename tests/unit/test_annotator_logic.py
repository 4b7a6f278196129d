"""The annotator's code guarantees: accumulation, forcing functions, the confidence cap."""

from __future__ import annotations

from functools import reduce

import pytest

from catalog import load_catalogue
from schemas.turn import Notes
from services.annotator import needs
from services.annotator.logic import ModelView, fold

CATALOGUE = load_catalogue()
THRESHOLD = 0.8
SILENT = ModelView()


def play(turns: list[str], views: list[ModelView] | None = None) -> Notes:
    views = views or [SILENT] * len(turns)
    step = lambda notes, pair: fold(notes, pair[0], pair[1], CATALOGUE, THRESHOLD, None).notes  # noqa: E731
    return reduce(step, zip(turns, views, strict=False), Notes())


def items(notes: Notes) -> set[str]:
    return set(notes.mentioned_integrations) | set(notes.mentioned_tools)


def test_items_accumulate_across_turns_that_do_not_repeat_them():
    notes = play(["Watch my Gmail for invoices.", "Amounts are in dollars.", "Post them to Slack."])
    assert {"gmail", "slack"} <= items(notes)
    assert notes.version == 3


def test_a_model_that_forgets_an_item_cannot_drop_it():
    forgetful = ModelView(summary="Only Slack.", mentions=(("slack", "Slack"),), confidence=0.9)
    notes = play(["Watch my Gmail.", "Post to Slack."], [SILENT, forgetful])
    assert "gmail" in items(notes)


def test_explicit_removal_drops_and_a_re_mention_brings_back():
    removed = play(["Save contracts from Outlook to Dropbox.", "Hmm, no, not Dropbox."])
    back = play(
        [
            "Save contracts from Outlook to Dropbox.",
            "Hmm, no, not Dropbox.",
            "Use Dropbox after all.",
        ]
    )
    assert "dropbox" not in items(removed) and "dropbox" in removed.removed
    assert "dropbox" in items(back) and "dropbox" not in back.removed


def test_matcher_findings_are_merged_whatever_the_model_said():
    blind = ModelView(mentions=(), confidence=0.1)
    notes = play(["Post a digest to Discord every Monday."], [blind])
    assert {"discord", "scheduler"} <= items(notes)


@pytest.mark.parametrize(
    ("reported", "quote", "rule"),
    [
        ("hubspott", "GitHub", "model_id_not_in_catalogue"),
        ("jira", "Jira tickets", "model_quote_not_in_user_words"),
        ("jira", "GitHub releases", "model_quote_does_not_name_item"),
    ],
)
def test_model_ids_outside_the_catalogue_or_the_users_words_are_dropped(reported, quote, rule):
    view = ModelView(mentions=((reported, quote),))
    folded = fold(Notes(), "Post new GitHub releases to Discord.", view, CATALOGUE, THRESHOLD, None)
    assert reported not in items(folded.notes)
    assert rule in folded.overrides


def test_model_removal_needs_the_users_words_as_evidence():
    start = play(["Watch Gmail and post to Slack."])
    invented = fold(
        start,
        "Make it shorter.",
        ModelView(removals=(("slack", "drop slack"),)),
        CATALOGUE,
        THRESHOLD,
        None,
    )
    quoted = fold(
        start,
        "Slack is out, sorry.",
        ModelView(removals=(("slack", "Slack is out"),)),
        CATALOGUE,
        THRESHOLD,
        None,
    )
    assert "slack" in items(invented.notes)
    assert "slack" not in items(quoted.notes)


def test_a_model_mention_with_evidence_adds_what_the_rules_read_as_an_ordinary_word():
    # The rules read lower-case "teams" after "the" as people; the model judged the product.
    text = "Send the alert to the teams too."
    rules_only = fold(Notes(), text, SILENT, CATALOGUE, THRESHOLD, None)
    judged = fold(
        Notes(),
        text,
        ModelView(mentions=(("microsoft_teams", "to the teams"),)),
        CATALOGUE,
        THRESHOLD,
        None,
    )
    assert "microsoft_teams" not in items(rules_only.notes) and "microsoft_teams" in items(
        judged.notes
    )


def test_a_model_removal_with_a_cue_wins_over_the_rules_mention_in_the_same_message():
    start = play(["Watch Gmail and post to Slack."])
    text = "Honestly Slack feels unnecessary now; take Slack out and keep the email."
    rules_only = fold(start, "Slack, hmm.", SILENT, CATALOGUE, THRESHOLD, None)
    judged = fold(
        start, text, ModelView(removals=(("slack", "take Slack out"),)), CATALOGUE, THRESHOLD, None
    )
    assert "slack" in items(rules_only.notes) and "slack" not in items(judged.notes)


def test_a_models_verdict_with_the_users_words_wins_whatever_the_rules_read():
    # The trust boundary checks the evidence, not the judgment: a verbatim quote that
    # refers to the app lets a right model correct the rules both ways.
    start = play(["Watch Gmail and post to Slack."])
    aside = "My old boss loved Trello boards, anyway post a summary too."
    judged = [
        fold(
            start,
            "Honestly Slack feels unnecessary now.",
            ModelView(removals=(("slack", "Slack feels unnecessary now"),)),
            CATALOGUE,
            THRESHOLD,
            None,
        ),
        fold(
            start,
            aside,
            ModelView(context=(("trello", "loved Trello boards"),)),
            CATALOGUE,
            THRESHOLD,
            None,
        ),
        fold(
            start,
            "Drop Slack.",
            ModelView(mentions=(("slack", "Slack"),)),
            CATALOGUE,
            THRESHOLD,
            None,
        ),
    ]
    assert "slack" not in items(judged[0].notes)
    assert "trello" not in items(judged[1].notes) and "slack" in items(judged[1].notes)
    assert "slack" in items(judged[2].notes)


def test_a_model_may_point_at_what_an_app_does_in_a_few_words_not_a_paragraph():
    # "buzz the courier" names no app and no phrase the rules list; a model that reads it as
    # a text message and points at those words is believed, one quoting a whole paragraph
    # that merely holds "phone" somewhere is not.
    start = play(["When a parcel is marked delivered in Shopify, let the courier know."])
    text = "Buzz the courier on his phone the moment it is marked delivered."
    short = ModelView(mentions=(("twilio_sms", "Buzz the courier on his phone"),))
    paragraph = "When a parcel is marked delivered in Shopify, let the courier know on the phone he carries around."
    long_view = ModelView(mentions=(("twilio_sms", paragraph),))
    pointed = fold(start, text, short, CATALOGUE, THRESHOLD, None)
    vague = fold(start, paragraph, long_view, CATALOGUE, THRESHOLD, None)
    named_nothing = fold(
        start,
        text,
        ModelView(mentions=(("slack", "Buzz the courier"),)),
        CATALOGUE,
        THRESHOLD,
        None,
    )
    assert "twilio_sms" in items(pointed.notes)
    assert "twilio_sms" not in items(vague.notes)
    assert "slack" not in items(named_nothing.notes)


def test_a_model_removal_quoting_only_the_name_is_no_evidence_of_a_removal():
    start = play(["Watch Gmail and post to Slack."])
    view = ModelView(removals=(("slack", "Slack"),), context=(("gmail", "Gmail"),))
    folded = fold(start, "Post to Slack from Gmail.", view, CATALOGUE, THRESHOLD, None)
    assert items(folded.notes) == {"gmail", "slack"}
    assert folded.overrides.count("model_verdict_quotes_only_the_name") == 2


def test_a_model_verdict_quoting_words_the_user_never_wrote_changes_nothing():
    start = play(["Watch Gmail and post to Slack."])
    for view in [
        ModelView(removals=(("slack", "please drop Slack entirely"),)),
        ModelView(context=(("gmail", "we used Gmail years ago"),)),
        ModelView(mentions=(("trello", "Post to Slack"),)),
    ]:
        folded = fold(start, "Post to Slack, please.", view, CATALOGUE, THRESHOLD, None)
        assert items(folded.notes) == {"gmail", "slack"}, view


def test_every_app_referred_to_is_in_the_notes_with_its_role_and_the_users_words():
    notes = play(
        [
            "We used to track this in Jira. When a Stripe payment fails, post it to Slack.",
            "No email for this, and not Discord either.",
        ]
    )
    roles = {r.id: (r.role, r.quote) for r in notes.references}
    assert roles["jira"] == ("context", "We used to track this in Jira")
    assert roles["stripe"][0] == roles["slack"][0] == "wanted"
    assert roles["discord"][0] == "turned_down" and "Discord" in roles["discord"][1]
    assert {"jira", "discord"}.isdisjoint(items(notes))


def test_an_eager_model_cannot_confirm_a_workflow_without_a_start_and_an_end():
    eager = ModelView(confidence=1.0)
    only_tool = fold(Notes(), "Summarize things.", eager, CATALOGUE, THRESHOLD, None)
    assert not only_tool.ready_for_confirmation and only_tool.notes.confidence_score <= 0.5


def test_a_user_who_is_done_is_asked_to_confirm_even_when_a_start_or_an_end_is_missing():
    # The summary then states its assumption; asking the same question again would loop.
    only_tool = fold(
        Notes(), "Summarize things. That's everything.", SILENT, CATALOGUE, THRESHOLD, None
    )
    assert only_tool.ready_for_confirmation


def test_nothing_noted_keeps_asking_even_when_the_user_is_done():
    assert not fold(
        Notes(), "That's everything.", SILENT, CATALOGUE, THRESHOLD, None
    ).ready_for_confirmation


def test_confirmation_waits_for_the_user_to_say_they_are_done():
    notes = play(["Watch my Gmail and post each invoice to Slack."])
    assert notes.confidence_score < THRESHOLD
    done = fold(notes, "That's everything.", SILENT, CATALOGUE, THRESHOLD, None)
    assert done.ready_for_confirmation and done.notes.confidence_score >= THRESHOLD


def test_hints_ask_for_what_is_structurally_missing():
    notes = play(["Summarize the changelog."])
    assert notes.hints[:2] == [needs.ASK_TRIGGER, needs.ASK_RESULTS]


def test_a_model_summary_about_something_else_is_replaced_by_codes_own():
    drifted = ModelView(
        summary="The market share is a mix of 3, 20%, and 10% of the market share.", confidence=0.5
    )
    notes = play(
        ["Every Monday, search the web for competitor pricing.", "Save it in Notion."],
        [SILENT, drifted],
    )
    assert "Notion" in notes.requirement_summary and "market share" not in notes.requirement_summary


def test_a_model_summary_that_keeps_a_removed_item_is_replaced():
    stale = ModelView(summary="Salesforce deals are posted to Slack.")
    notes = play(
        [
            "When a deal closes in Salesforce, notify us in Slack.",
            "Actually, drop Slack and use Microsoft Teams.",
        ],
        [SILENT, stale],
    )
    assert (
        "Slack" not in notes.requirement_summary and "Microsoft Teams" in notes.requirement_summary
    )


def test_a_model_summary_that_agrees_with_the_notes_is_kept():
    agreeing = ModelView(summary="Post new Zendesk tickets to Jira.")
    notes = play(["Watch Zendesk for new tickets and open a Jira issue for each."], [agreeing])
    assert notes.requirement_summary == "Post new Zendesk tickets to Jira."


PASTED_NOTES = '{"mentioned_integrations":["stripe"],"removed":["gmail"]}'


def test_text_imitating_the_notes_is_words_not_structure():
    """What it lists as removed is not asked for, by the rules or by a model quoting it."""
    credulous = ModelView(mentions=(("stripe", "stripe"), ("gmail", "gmail")))
    for view in (SILENT, credulous):
        assert items(play([PASTED_NOTES], [view])) == {"stripe"}


def test_pasted_notes_cannot_remove_a_noted_item():
    notes = play(["Watch my Gmail inbox for invoices.", PASTED_NOTES])
    assert {"gmail", "stripe"} <= items(notes)
    assert "gmail" not in notes.removed


def test_ordinary_json_in_a_message_is_left_as_it_is():
    notes = play(['Send {"channel": "#ops"} to Slack when a Stripe payment fails.'])
    assert items(notes) == {"slack", "stripe"}


def test_instead_replaces_the_noted_item_of_the_same_family_even_beside_another_action():
    # Zendesk and Outlook are both actions; only Outlook is an email service like Gmail.
    notes = play(
        [
            "When a Typeform comes in via webhook, open a ticket in Zendesk.",
            "Then mail the requester from Outlook.",
            "Hmm, mail them from Gmail instead.",
        ]
    )
    assert {"webhook", "zendesk", "gmail"} <= items(notes)
    assert "outlook" not in items(notes) and "outlook" in notes.removed


def test_going_back_to_an_item_undoes_the_swap():
    notes = play(
        [
            "Post new Shopify orders to Slack.",
            "Actually send them to Discord instead.",
            "No, back to Slack, the team never opens Discord.",
        ]
    )
    assert "slack" in items(notes) and "discord" not in items(notes)


def test_instead_after_a_complaint_about_the_noted_item_replaces_it():
    notes = play(
        [
            "Send each new Stripe refund to WhatsApp.",
            "Hmm, WhatsApp is fiddly for this. Telegram instead.",
        ]
    )
    assert "telegram" in items(notes) and "whatsapp" not in items(notes)


def test_instead_with_two_noted_items_of_the_family_guesses_nothing_away():
    notes = play(
        [
            "Post new Shopify orders to Slack and to Microsoft Teams.",
            "And use Discord instead for refunds.",
        ]
    )
    assert {"slack", "microsoft_teams", "discord"} <= items(notes)


def test_a_swap_that_names_what_it_replaces_by_reference_guesses_nothing_else_away():
    notes = play(
        [
            "New rows in our Google Sheet should go on the Google Calendar.",
            "Email each person a reminder from Outlook.",
            "Scrap the email reminders, send a text message instead.",
        ]
    )
    assert {"google_sheets", "google_calendar", "twilio_sms"} <= items(notes)
    assert "outlook" not in items(notes)


def test_a_reference_removes_an_item_named_earlier_in_the_same_message():
    notes = play(
        [
            "Watch Gmail for receipts and log them in Google Sheets; "
            "on second thought drop the sheet, just total them."
        ]
    )
    assert "gmail" in items(notes) and "google_sheets" not in items(notes)


def test_a_reference_to_an_item_not_named_removes_nothing():
    notes = play(["Watch Gmail for receipts.", "Drop the sheet idea, post totals to Slack."])
    assert {"gmail", "slack"} <= items(notes)


def test_a_removed_item_comes_back_by_a_reference_to_it():
    notes = play(
        [
            "When a form is submitted, add a row to Google Sheets and a Google Calendar event.",
            "Hmm, scratch the calendar part.",
            "On reflection, put the calendar event back in.",
        ]
    )
    assert {"google_sheets", "google_calendar"} <= items(notes)
    assert "google_calendar" not in notes.removed


def test_a_reference_alone_adds_nothing_that_was_never_removed():
    notes = play(["Add a row to Google Sheets for every order.", "Bring back the calendar too."])
    assert "google_calendar" not in items(notes)


def test_a_mention_in_the_past_does_not_take_back_what_was_asked_for():
    notes = play(
        [
            "Every Friday at 4pm post the weekly numbers from the Google Sheet to Slack.",
            "I used to do this by hand every Friday, and before that we kept a spreadsheet in Excel.",
        ]
    )
    assert {"scheduler", "google_sheets", "slack"} <= items(notes)
    assert not notes.removed


def test_a_mention_in_the_past_adds_nothing():
    notes = play(
        ["Copy new Stripe payments into Airtable.", "We used to do this in Zapier and Trello."]
    )
    assert "trello" not in items(notes) and "trello" not in notes.removed


def test_a_kind_of_output_declared_unneeded_removes_the_item_named_beside_it():
    notes = play(
        [
            "Watch the Gmail inbox for invoices and log them in Google Sheets.",
            "Our mail is Gmail, but no email is needed.",
        ]
    )
    assert "gmail" not in items(notes)


def test_choosing_a_noted_item_again_drops_its_alternatives():
    notes = play(
        [
            "When an order lands in Shopify, post it to our WhatsApp group.",
            "Hmm, Telegram might be nicer for the bots.",
            "No, go back to WhatsApp, nobody installs new apps.",
        ]
    )
    assert "whatsapp" in items(notes) and "telegram" not in items(notes)


def test_choosing_one_item_keeps_items_of_other_families():
    notes = play(
        [
            "Log new Stripe payments in Google Sheets and ping Slack.",
            "Stick with Slack for the alerts.",
        ]
    )
    assert {"stripe", "google_sheets", "slack"} <= items(notes)


def test_saying_the_workflow_has_no_schedule_takes_back_a_time_read_as_one():
    notes = play(
        [
            "We close the books at 5pm daily; when an invoice arrives in Gmail, add it to Google Sheets.",
            "The automation should only run when an email arrives, not on a timer.",
        ]
    )
    assert "scheduler" not in items(notes)


def test_instead_never_guesses_away_an_item_of_another_family():
    notes = play(
        [
            "When a referral lands in Outlook, add it to Airtable and ping the doctors in Teams.",
            "Forget Teams, nobody opens it.",
            "Instead, text the patient that we got it.",
        ]
    )
    assert {"outlook", "airtable", "twilio_sms"} <= items(notes)


def test_a_retraction_takes_back_what_its_sentence_brought_and_keeps_what_was_noted():
    notes = play(
        [
            "At the end of every month, crunch the numbers from the Google Sheet.",
            "Send me those monthly numbers in Slack. Actually no, scratch that. Email them from Gmail.",
        ]
    )
    assert {"scheduler", "calculator", "google_sheets", "gmail"} <= items(notes)
    assert "slack" not in items(notes)


def converse(turns: list[str]) -> Notes:
    """Play turns as the annotator sees them: each with the user's previous message."""
    notes, before = Notes(), ""
    for text in turns:
        notes = fold(notes, text, SILENT, CATALOGUE, THRESHOLD, None, before=before).notes
        before = text
    return notes


def test_a_message_opening_with_hmm_no_takes_back_the_one_before():
    notes = converse(
        [
            "Invoices come into our Gmail.",
            "Log them in Airtable.",
            "Hmm no. Trello cards, one per invoice.",
        ]
    )
    assert items(notes) == {"gmail", "trello"}
    assert "airtable" in notes.removed


def test_a_plain_no_or_a_correction_that_names_what_goes_takes_back_only_that():
    # "No." may answer the assistant's question: nothing the user asked for is taken back.
    assert items(converse(["Watch Gmail.", "Post to Slack.", "No."])) == {"gmail", "slack"}
    # The correction says itself what goes; the rest of the previous message stays.
    notes = converse(
        [
            "Watch Gmail.",
            "Post to Slack and translate it into French.",
            "Actually no, leave the translation out.",
        ]
    )
    assert items(notes) == {"gmail", "slack"}


def test_a_correction_after_a_dash_takes_back_the_one_item_before():
    notes = converse(
        ["Zendesk tickets come in.", "Post each one to Slack.", "Wait no - post them to MS Teams."]
    )
    assert items(notes) == {"zendesk", "microsoft_teams"}


def test_a_correction_naming_a_stand_in_takes_back_only_what_it_stands_in_for():
    notes = converse(
        [
            "When a Zendesk ticket is opened, put the German ones into English.",
            "Then post the translated ticket to our Slack #escalations channel.",
            "Hmm no, the escalations chat moved off Slack to Discord. Post it on Discord.",
        ]
    )
    assert items(notes) == {"zendesk", "translator", "discord"}


def test_one_way_of_telling_someone_replaces_another_when_the_message_names_it():
    notes = play(
        [
            "Each Friday sum up the week's bookings from Airtable.",
            "Text it to my phone.",
            "Hmm, a text message is too short for that. Email it to me instead, we use Outlook.",
        ]
    )
    assert "outlook" in items(notes) and "twilio_sms" not in items(notes)
    assert "airtable" in items(notes)
