"""What a sentence's structure says of the apps it names (catalog/structure.py), through
`detect`: each kind in words no rule lists, with near misses that must stay wanted."""

from __future__ import annotations

import pytest

from catalog import detect, load_catalogue

CATALOGUE = load_catalogue()


def reading(text: str) -> tuple[set[str], set[str], set[str]]:
    found = detect(text, CATALOGUE)
    return set(found.mentioned), set(found.removed), set(found.past)


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Please do NOT open anything in Jira for these, just email me.", "jira"),
        ("No Slack ping at all; a text message is plenty.", "slack"),
        ("Nothing goes into Trello from this, ever.", "trello"),
        ("Not WhatsApp, that's my own number. Telegram is fine.", "whatsapp"),
        ("I was weighing Notion for this, but a plain Google Sheet will do.", "notion"),
        ("Log it in Postgres. Actually the Mysql box is the old one, ignore it.", "mysql"),
        ("Skip Slack: the night porter isn't on Slack any more.", "slack"),
        ("Put it in Pipedrive... sorry, HubSpot, not Salesforce.", "salesforce"),
        ("The bot must never post to Discord.", "discord"),
        ("We left Slack in March, so it goes to Teams now.", "slack"),
        ("The porters don't really check Telegram.", "telegram"),  # said alone: leave it out
    ],
)
def test_a_negation_or_an_option_passed_over_turns_the_app_down(text, item):
    mentioned, removed, _past = reading(text)
    assert item in removed and item not in mentioned


@pytest.mark.parametrize(
    ("text", "item"),
    [
        (
            "We were on Salesforce until spring and then cancelled it. Put leads in HubSpot.",
            "salesforce",
        ),
        ("My brother swears by Airtable. I only want a Google Sheet.", "airtable"),
        ("My wife's firm uses Microsoft Teams; we're a Slack shop.", "microsoft_teams"),
        ("Leave out anyone with hotmail addresses when you send the Gmail reminders.", "outlook"),
        ("Is the Stripe API any good? Not for now. Read the orders from Shopify.", "stripe"),
        ("The previous intern mailed a Gmail group by hand. Post it to Slack now.", "gmail"),
        ("We migrated the board off Asana in June. Cards go to Trello.", "asana"),
        ("Keep it in the sheet; I really don't want it writing Airtable records.", "airtable"),
        ("We came over from Dropbox two years ago; files live in Google Drive.", "dropbox"),
        ("A rival bakery sends its menu out through Discord; I want Telegram.", "discord"),
        ("Inventory week is chaos every quarter, so keep it simple in Airtable.", "scheduler"),
        # what someone else does, said with a negation: a reason, not a decision
        ("Keep the Telegram alert; our courier never checks Slack, though.", "slack"),
        ("Most tenants never check Outlook, so text them as well.", "outlook"),
        ("Bluefin Labs uses Jira internally, but that's their business.", "jira"),
        ("No rush: the landlord doesn't need to know we meet at 7pm.", "scheduler"),
        ("Right now I copy the orders into Airtable by hand every evening.", "airtable"),
        ("The consultancy we hired in 2023 set it up with Zendesk.", "zendesk"),
        ("Our old contractor had this going to Trello.", "trello"),
        # a clause dated in the past is history, whoever did it
        ("Head office put all of us on Microsoft Teams last year.", "microsoft_teams"),
        ("Three years ago the club kept the fixtures in Airtable.", "airtable"),
        ("No need for a text, Twilio already alerts the on-call nurse.", "twilio_sms"),
    ],
)
def test_history_other_peoples_tools_data_and_asides_are_context(text, item):
    mentioned, removed, past = reading(text)
    assert item in past and item not in mentioned and item not in removed


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Don't post to Slack unless the order is over $500.", "slack"),  # a condition
        ("Don't text anyone after 9pm, otherwise send the SMS straight away.", "twilio_sms"),
        ("I never want to miss a Shopify order again.", "shopify"),  # a wish
        ("Our team lives in Slack, so post it there.", "slack"),  # the user's own team
        ("When a deal closes in Salesforce, tell the team in Slack.", "salesforce"),
        ("We moved to HubSpot last year; new contacts come from there.", "hubspot"),
        ("Send it from our Gmail address to the client.", "gmail"),  # one address: the sender
        ("Put the rows in the sheet, not in Notion, and post a Slack message.", "slack"),
        ("Posting to Slack should be the last step.", "slack"),  # last = final, not former
        ("My friend can't read email, so text him via Twilio.", "twilio_sms"),
        ("My cousin sends order photos to my WhatsApp; forward them to Airtable.", "whatsapp"),
        ("It should run every day at 7 and post to Slack.", "scheduler"),
        ("The last setup mailed it from Outlook, which was clumsy, so from Gmail now.", "gmail"),
        ("Post the weekly total on our Discord like 'we made $X this week'.", "discord"),
        ("We set up HubSpot last year and love it; put new contacts there.", "hubspot"),
    ],
)
def test_near_misses_stay_wanted(text, item):
    mentioned, removed, past = reading(text)
    assert item in mentioned and item not in removed | past


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("each new order in shopfiy should go to the sheet", "shopify"),
        ("send a txt through twillio", "twilio_sms"),
        ("put it in my google calender", "google_calendar"),
        ("whatsap the driver the address", "whatsapp"),
        ("then send the invoice from my gmial account", "gmail"),
    ],
)
def test_a_product_name_with_a_slip_still_names_it(text, item):
    assert item in reading(text)[0]


@pytest.mark.parametrize(
    "text",
    ["a thin gold strip on the box", "hello, the next message goes to my team"],
)
def test_words_near_a_name_that_is_also_a_word_name_nothing(text):
    mentioned, removed, past = reading(text)
    assert not mentioned | removed | past


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Email the summary to ana.ruiz@hotmail.com from our Gmail.", "outlook"),
        ("Send replies to help@slack-fans.org using Gmail.", "slack"),
        ("Add a row to Airtable, base 'Leagues', table 'Teams'.", "microsoft_teams"),
        ("Make a card in Trello in the list called 'Notion ideas'.", "notion"),
    ],
)
def test_a_name_inside_an_address_or_a_things_quoted_name_is_data(text, item):
    mentioned, removed, past = reading(text)
    assert item not in mentioned | removed | past


@pytest.mark.parametrize(
    ("text", "item", "use"),
    [
        ("Every time a customer pays in Stripe I want a cheer in Slack.", "stripe", "event"),
        ("Scans end up in our Dropbox folder; read them please.", "dropbox", "event"),
        ("Add each signup as a new row in Airtable.", "airtable", "destination"),
        ("Please make a new card per lead in Trello.", "trello", "destination"),
        ("She still reads that Notion page every week.", "notion", None),
        ("The whole school is on Microsoft Teams, by the way.", "microsoft_teams", None),
        ("If it fails, email the owner from our Gmail account.", "gmail", "destination"),
        ("Forward the receipts from Gmail to the bookkeeper.", "gmail", "source"),
        ("Then mail the totals to boss@firm.example from my Gmail.", "gmail", "destination"),
        ("Management lives in Slack these days.", "slack", None),
        ("We keep the rota in Notion.", "notion", "source"),
        ("Each new member should go into Airtable.", "airtable", "destination"),
        ("The scans go into Google Drive now, one folder per site.", "google_drive", "event"),
        ("Each Friday at noon I get a text with the week's takings.", "twilio_sms", "destination"),
        ("The duty nurse should receive a Slack message right away.", "slack", "destination"),
        # One of the user's people telling others through the app does the job the workflow
        # takes over; others sending into it is what arrives.
        ("Our foreman texts the rota to the crew over WhatsApp.", "whatsapp", "destination"),
        ("Patients email their forms to the front desk in Outlook.", "outlook", "event"),
        ("Members post their photos to our Discord server.", "discord", "event"),
        # A new thing is an event when the clause is about it, not when it is what to write.
        ("Each booking should go in as a new card on Trello.", "trello", "destination"),
        ("Whenever there are new tickets in Zendesk, tell me.", "zendesk", "event"),
        ("New rows in our Airtable base go to the team.", "airtable", "event"),
        # Having an account is neither reading nor writing.
        ("We have got a Dropbox account from the old office.", "dropbox", None),
        ("I've got the figures from QuickBooks already.", "quickbooks", "source"),
        # Something happening, said as a noun: the run starts on it there.
        ("On ticket creation in Zendesk, open an issue in Jira.", "zendesk", "event"),
        ("Upon signup in HubSpot, send a welcome email from Gmail.", "hubspot", "event"),
        ("On payment in Stripe, add a row to the sheet.", "stripe", "event"),
        ("Log the creation date in Airtable.", "airtable", "destination"),
    ],
)
def test_how_a_sentence_uses_an_app_event_source_or_destination(text, item, use):
    assert detect(text, CATALOGUE).use(item) == use


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("When the alarm trips, the manager should get a text straight away.", "twilio_sms"),
        ("Let the driver know by text when the parcel is ready.", "twilio_sms"),
        ("Text it to my phone when the oven is done.", "twilio_sms"),
        ("Convert each price to euros before it goes in the sheet.", "calculator"),
        ("Please convert the weights into kg for the report.", "calculator"),
        ("Pull the meter readings off the photos the tenants send.", "ocr"),
        ("Transcribe the screenshots people post in the channel.", "ocr"),
    ],
)
def test_a_function_asked_for_in_other_words_is_read_from_the_sentence(text, item):
    mentioned, _removed, _past = reading(text)
    assert item in mentioned


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Copy the text of each review into the sheet.", "twilio_sms"),
        ("Convert the Word file to a PDF and save it in Drive.", "calculator"),
        ("Attach the photo to the Trello card.", "ocr"),
    ],
)
def test_the_same_words_in_another_sense_refer_to_nothing(text, item):
    mentioned, removed, past = reading(text)
    assert item not in mentioned | removed | past


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Refunds happen elsewhere; Shopify isn't needed for this.", "shopify"),
        ("Our team works late, so Trello does not need to be part of the flow.", "trello"),
        ("That's our Gmail inbox (we left Outlook in 2022), so watch it for orders.", "outlook"),
    ],
)
def test_an_app_said_not_to_be_needed_or_left_in_an_aside_is_turned_down(text, item):
    mentioned, removed, _past = reading(text)
    assert item in removed and item not in mentioned


@pytest.mark.parametrize(
    ("text", "item"),
    [
        # an aside is a clause of its own: its past tells nothing of the sentence around it
        ("That's our Gmail inbox (we left Outlook in 2022), so watch it for orders.", "gmail"),
        (
            "Each morning read both of their Google Calendars and text me the day.",
            "google_calendar",
        ),
        # "hotmail" has no ordinary sense, whatever the article before it
        ("My shop inbox is an old hotmail address; forward the orders to Slack.", "outlook"),
        # "drop ... into" puts something somewhere
        (
            "Translate it to French and drop the French version plus the original into Teams.",
            "translator",
        ),
        # a window of time the workflow reads, not the user's history
        (
            "Pull the posts published in the past week and summarise them for Telegram.",
            "text_summarizer",
        ),
        ("Check every reply for tone before it goes to Zendesk.", "sentiment"),
        (
            "The prices are in dollars, so convert them at a rate of 0.92 for QuickBooks.",
            "calculator",
        ),
    ],
)
def test_references_in_ordinary_grammar_stay_wanted(text, item):
    mentioned, removed, past = reading(text)
    assert item in mentioned and item not in removed | past


def test_a_routine_done_by_hand_is_context_for_every_verb_of_it():
    text = "Every Friday Marta compiles the report by hand and sends it out from Gmail."
    mentioned, removed, past = reading(text)
    assert "gmail" in past and "gmail" not in mentioned | removed


def test_not_just_some_keeps_them_and_more():
    mentioned, removed, _past = reading("Log every review in Airtable, not just the angry ones.")
    assert "sentiment" in mentioned and "sentiment" not in removed


@pytest.mark.parametrize(
    "text",
    [
        "Typing receipts up is eating my Friday afternoons.",
        # another party's clock makes the data arrive; the arrival is what starts the run
        "Every month the wholesaler sends me their price list as a PDF to my Gmail.",
        "Father Tomasz writes the monthly newsletter and saves it into our Dropbox.",
        "My accountant emails me a statement every quarter; put its totals in a Google Sheet.",
        # a particular period, not a recurrence
        "Add up the hours each lad has done so far that week and put them in the sheet.",
    ],
)
def test_someones_time_is_not_when_the_workflow_runs(text):
    mentioned, _removed, _past = reading(text)
    assert "scheduler" not in mentioned


@pytest.mark.parametrize(
    "text",
    [
        "Every Monday at 9, send the report to Slack.",
        "The bot posts the summary to Slack every morning at 8.",
        "Every morning our manager gets an email with yesterday's sales.",
        "Each evening the system sends a summary to Telegram.",
        "The report should go to Slack every Monday.",
    ],
)
def test_a_time_asked_of_the_workflow_or_said_of_the_users_team_is_a_schedule(text):
    mentioned, _removed, _past = reading(text)
    assert "scheduler" in mentioned


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Until now the intern copied them into a Google Sheet by hand.", "google_sheets"),
        ("The county office sends the rota out from their Outlook; text it to me.", "outlook"),
        ("In the slack months we only get a few bookings, so just post what there is.", "slack"),
    ],
)
def test_a_routine_someone_elses_app_or_an_ordinary_word_is_no_step(text, item):
    mentioned, _removed, _past = reading(text)
    assert item not in mentioned


@pytest.mark.parametrize(
    ("text", "item"),
    [
        (
            "We moved off Zendesk last spring. I don't want anything read from Zendesk, "
            "Intercom only.",
            "zendesk",
        ),
    ],
)
def test_a_wish_against_what_is_done_with_an_app_keeps_it_out(text, item):
    mentioned, _removed, _past = reading(text)
    assert item not in mentioned


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Every hour pull the new intercom conversations and log them.", "intercom"),
        ("Reviews arrive in Dutch and German; I need them in English.", "translator"),
        ("Work out what share of the week's orders were refunded.", "calculator"),
    ],
)
def test_function_and_product_nouns_say_which_app(text, item):
    mentioned, removed, past = reading(text)
    assert item in mentioned and item not in removed | past


@pytest.mark.parametrize(
    ("text", "item"),
    [
        # A negated verb of the user's whose object points back sets aside what was said.
        (
            "My sister logs her shop's orders in Airtable every night. I'm not copying that, "
            "just telling you.",
            "airtable",
        ),
        (
            "a colleague has his receipts photographed into Dropbox and run through OCR — "
            "we don't need any of that, ours arrive as PDFs.",
            "dropbox",
        ),
        # A bare no after someone else's idea says no to it.
        (
            "The volunteers keep asking for a Discord server. Absolutely not, email is fine.",
            "discord",
        ),
        # A negation on the verb that has the workflow act reaches what it would do.
        ("Please don't have it look anything up on the web, the sheet is enough.", "web_search"),
        ("Don't let it post in Slack, email me from Gmail instead.", "slack"),
        ("Don't bother updating the Trello side, the sheet is the master.", "trello"),
    ],
)
def test_what_the_user_dismisses_by_pointing_back_or_forbidding_is_no_step(text, item):
    mentioned, _removed, _past = reading(text)
    assert item not in mentioned


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Send the summary to Slack. Don't forget that.", "slack"),
        ("Log each one in Airtable. We don't check it often, so text me too.", "airtable"),
        ("Post it in Teams. No rush on the setup.", "microsoft_teams"),
        ("Have it search the web for each new company.", "web_search"),
        ("No, that's all. Save them to Dropbox.", "dropbox"),
    ],
)
def test_negations_that_dismiss_nothing_keep_the_app(text, item):
    mentioned, _removed, _past = reading(text)
    assert item in mentioned


@pytest.mark.parametrize(
    ("text", "item", "wanted"),
    [
        # Given up later in the same sentence, by a word pointing back at it.
        (
            "the last treasurer ran everything through QuickBooks but we cancelled it in May",
            "quickbooks",
            False,
        ),
        (
            "rotas used to live on an Asana board and we've stopped using that altogether",
            "asana",
            False,
        ),
        # A pointer to something else, or nothing given up.
        ("Send it to Slack, we stopped using email for this.", "slack", True),
        ("Log each one in Airtable and we'll keep it forever.", "airtable", True),
    ],
)
def test_an_app_given_up_later_in_the_sentence_is_out(text, item, wanted):
    mentioned, _removed, _past = reading(text)
    assert (item in mentioned) == wanted


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        # "drop box" in two words names the product only where the sentence shows it.
        ("Forms go in the metal drop box by reception and nobody empties it.", False),
        ("save each scan to drop box", True),
        ("put them in the drop box folder called Receipts", True),
    ],
)
def test_a_drop_box_is_dropbox_only_where_the_product_shows(text, wanted):
    mentioned, _removed, _past = reading(text)
    assert ("dropbox" in mentioned) == wanted
