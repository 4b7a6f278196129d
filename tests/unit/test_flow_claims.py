"""A model may say how the workflow runs: how each app is used, how data moves between steps,
the values and conditions the user stated. Code checks every claim against the user's words
and the notes; what holds decides the plan's order, the configs and the filter steps, and
what does not is dropped and named (docs/understanding.md, "What a model may say about the
flow")."""

from __future__ import annotations

from functools import reduce

from catalog import load_catalogue
from catalog.flow import linked_order, ordered, trigger_of
from schemas.turn import Link, Notes, Stated
from services.annotator.logic import ModelView, fold
from services.conversation.summary import confirmation_summary
from services.planner.logic import Proposal, compile_plan
from services.specialist import compose, logic
from state.plan import PlanLog

CATALOGUE = load_catalogue()
SILENT = ModelView()


def play(turns: list[str], views: list[ModelView]) -> tuple[Notes, list[str]]:
    """The notes after the turns, and every claim code refused on the way."""

    def step(
        carried: tuple[Notes, list[str]], pair: tuple[str, ModelView]
    ) -> tuple[Notes, list[str]]:
        folded = fold(carried[0], pair[0], pair[1], CATALOGUE, 0.8, None)
        return folded.notes, carried[1] + folded.overrides

    return reduce(step, zip(turns, views, strict=True), (Notes(), []))


REVIEWS = [
    "When a customer leaves a review on our Shopify store, check the tone of it.",
    "Translate it to English first, then post it in #support on Slack.",
]


def test_links_from_a_model_reorder_the_steps_the_rules_read_otherwise():
    # The rules place the steps as told: sentiment before the translator. The model reads
    # "translate ... first" as data moving from the translator to the tone check.
    rules_only, _ = play(REVIEWS, [SILENT, SILENT])
    said = ModelView(
        links=(("translator", "sentiment", "Translate it to English first"),),
    )
    notes, refused = play(REVIEWS, [SILENT, said])
    assert ordered(rules_only, CATALOGUE).index("sentiment") < ordered(rules_only, CATALOGUE).index(
        "translator"
    )
    steps = ordered(notes, CATALOGUE)
    assert steps.index("translator") < steps.index("sentiment") < steps.index("slack")
    assert steps[0] == "shopify"
    assert refused == []


def test_a_link_needs_both_steps_noted_the_users_words_and_no_cycle():
    said = ModelView(
        links=(
            ("translator", "gmail", "Translate it to English first"),  # gmail is not noted
            ("translator", "sentiment", "translate everything, says the model"),  # not theirs
            ("translator", "sentiment", "then post it in #support"),  # names neither step
            ("translator", "sentiment", "Translate it to English first"),
            ("sentiment", "translator", "Translate it to English first"),  # closes a cycle
        ),
    )
    notes, refused = play(REVIEWS, [SILENT, said])
    assert [(k.source, k.target) for k in notes.links] == [("translator", "sentiment")]
    assert refused == [
        "model_link_not_between_noted_steps",
        "model_quote_not_in_user_words",
        "model_quote_does_not_name_item",
        "model_link_makes_cycle",
    ]


def test_a_link_goes_with_a_step_the_user_removes():
    said = ModelView(links=(("translator", "sentiment", "Translate it to English first"),))
    notes, _ = play(
        [*REVIEWS, "Actually drop the translation, they all write in English."],
        [SILENT, said, SILENT],
    )
    assert "translator" not in notes.mentioned_tools
    assert notes.links == []


def test_a_model_saying_which_app_starts_the_run_is_heard_only_with_an_accepted_verdict():
    turns = ["Every new row in our Airtable base gets a Gmail to the client."]
    rules_only, _ = play(turns, [SILENT])
    starts = ModelView(
        mentions=(("gmail", "gets a Gmail to the client"),),
        uses=(("gmail", "destination"), ("airtable", "event")),
    )
    notes, refused = play(turns, [starts])
    assert trigger_of(notes, CATALOGUE) == trigger_of(rules_only, CATALOGUE) == "airtable"
    # The Airtable "event" came with no verdict on Airtable: code does not take it.
    assert refused == ["model_use_without_accepted_verdict"]
    gmail = next(r for r in notes.references if r.id == "gmail")
    assert (gmail.use, gmail.by) == ("destination", "model")


def test_stated_values_must_stand_word_for_word_in_the_users_message():
    said = ModelView(
        stated=(
            ("slack", "#support", "then post it in #support on Slack"),
            ("translator", "en", "then post it in #support"),  # "en" only inside a word
            ("slack", "#general", "then post it in #support on Slack"),  # not in the quote
            ("gmail", "#support", "then post it in #support on Slack"),  # no such step
        ),
    )
    notes, refused = play(REVIEWS, [SILENT, said])
    assert [(v.id, v.text) for v in notes.stated] == [("slack", "#support")]
    assert refused == [
        "model_value_not_in_user_words",
        "model_value_not_in_user_words",
        "model_value_for_step_not_noted",
    ]


def test_a_condition_needs_a_known_operator_and_the_users_value():
    turns = ["New Shopify orders go to a Google Sheet, only the big ones over 250 dollars."]
    said = ModelView(
        conditions=(
            ("total", "greater_than", "250", "only the big ones over 250 dollars"),
            ("total", "bigger", "250", "only the big ones over 250 dollars"),
            ("total", "greater_than", "2500", "only the big ones over 250 dollars"),
        ),
    )
    notes, refused = play(turns, [said])
    assert [(c.field, c.operator, c.value) for c in notes.conditions] == [
        ("total", "greater_than", "250")
    ]
    assert refused == ["model_condition_malformed", "model_value_not_in_user_words"]


def test_linked_order_moves_only_what_a_link_needs_and_keeps_the_trigger_first():
    items = ["shopify", "sentiment", "translator", "slack"]
    assert linked_order(items, [("translator", "sentiment")], starts=True) == [
        "shopify",
        "translator",
        "sentiment",
        "slack",
    ]
    # Nothing feeds what starts the run; a cycle is broken in code's order.
    assert linked_order(items, [("slack", "shopify")], starts=True) == items
    assert linked_order(items, [("slack", "sentiment"), ("sentiment", "slack")]) == [
        "shopify",
        "translator",
        "sentiment",
        "slack",
    ]


def plan_for(notes: Notes) -> PlanLog:
    return PlanLog("plan-1", compile_plan(Proposal(), notes, CATALOGUE).nodes, "", "now", {})


def test_a_stated_value_lands_in_the_field_its_quote_fills_over_a_value_read_elsewhere():
    words = (
        "Send the report from jo@brasserie.fr to our Outlook.\nEmail it to tom@lune.fr each week."
    )
    entry = CATALOGUE["outlook"]
    read = logic.heuristic_config(entry, words, "send_email")
    stated = [Stated(id="outlook", text="tom@lune.fr", quote="Email it to tom@lune.fr each week")]
    config, fired = logic.carry_stated(read, entry, stated, words, "send_email")
    assert config["to"] == "tom@lune.fr"
    assert fired == ["config_value_stated"]
    logic.check(config, entry, "send_email")


def test_a_stated_value_takes_an_open_required_field_and_is_never_forced_into_another():
    words = "Post the list to Discord.\nThe channel is Lab Ops.\nOur server is the Greenhouse."
    entry = CATALOGUE["discord"]
    read = logic.heuristic_config(entry, "Post the list to Discord.")
    assert read["channel"] == logic.default_value(
        "channel", entry.config_schema["properties"]["channel"]
    )
    stated = [
        Stated(id="discord", text="Lab Ops", quote="The channel is Lab Ops"),
        # No field code reads takes it, and the one left open is optional: left out.
        Stated(id="discord", text="Greenhouse", quote="Our server is the Greenhouse"),
    ]
    config, fired = logic.carry_stated(read, entry, stated, words)
    assert config["channel"] == "Lab Ops"
    assert "Greenhouse" not in str(config)
    assert fired == ["config_value_stated", "config_stated_value_without_field"]


def test_a_language_the_user_named_lands_as_its_code():
    entry = CATALOGUE["translator"]
    stated = [Stated(id="translator", text="Polish", quote="translate the summary into Polish")]
    config, _ = logic.carry_stated({"target_language": "en"}, entry, stated, "into Polish")
    assert config["target_language"] == "pl"


def test_the_composer_builds_the_flow_the_notes_hold():
    notes = Notes(
        mentioned_integrations=["jira", "slack", "webhook"],
        links=[
            Link(source="webhook", target="jira", quote="open a jira ticket"),
            Link(source="jira", target="slack", quote="drop the ticket link into slack"),
        ],
    )
    words = "Each alert hits our webhook; open a jira ticket when it's critical.\nThen drop the ticket link into slack."
    plan = plan_for(notes)
    configs = {s: logic.heuristic_config(CATALOGUE[s], words) for s in compose.specialists_of(plan)}
    edges = compose.compose(plan, "s", configs, CATALOGUE, "", None, words)["edges"]
    pairs = [(e["from"], e["to"]) for e in edges]
    assert ("jira", "slack") in pairs
    assert ("webhook", "slack") not in pairs


def test_a_condition_the_model_read_becomes_a_filter_step_beside_codes_own():
    notes = Notes(
        mentioned_integrations=["google_sheets", "shopify"],
        conditions=[
            {
                "field": "title",
                "operator": "contains",
                "value": "gift card",
                "quote": "just the gift card ones",
            }
        ],
    )
    words = "New Shopify orders into a Google Sheet, just the gift card ones, and over $40."
    plan = plan_for(notes)
    configs = {s: logic.heuristic_config(CATALOGUE[s], words) for s in compose.specialists_of(plan)}
    document = compose.compose(plan, "s", configs, CATALOGUE, "", None, words)
    filters = [n["config"] for n in document["nodes"] if n["kind"] == "condition"]
    assert {(f["operator"], f["value"]) for f in filters} >= {
        ("contains", "gift card"),
        ("greater_than", "40"),
    }


def test_the_confirmation_shows_the_flow_values_and_conditions_a_model_read():
    flow = ModelView(
        links=(("translator", "sentiment", "Translate it to English first"),),
        stated=(("slack", "#support", "then post it in #support on Slack"),),
    )
    condition = ModelView(conditions=(("rating", "at_most", "2", "only the 2 star ones"),))
    turns = [*REVIEWS, "only the 2 star ones please"]
    notes, _ = play(turns, [SILENT, flow, condition])
    text = confirmation_summary(notes, CATALOGUE, words="\n".join(turns))
    steps = [line for line in text.splitlines() if line[:1].isdigit()]
    assert [line.split(":")[0] for line in steps] == [
        "1. Translator",
        "2. Sentiment analysis",
        "3. Slack",
    ]
    assert "#support" in steps[2]
    assert "Only when rating at most 2" in text


def test_claims_are_offered_to_a_capable_model_only():
    from services.annotator import prompt
    from shared.model.service import ModelServiceSettings

    assert ModelServiceSettings(model="openai").model_extra_claims is True
    assert ModelServiceSettings(model="local").model_extra_claims is False
    assert ModelServiceSettings(model="local", model_extra_claims=True).model_extra_claims is True
    offered = prompt.output_schema(CATALOGUE, 2, claims=True)
    plain = prompt.output_schema(CATALOGUE, 2, claims=False)
    assert {"links", "values", "conditions"} <= set(offered["properties"])
    assert not {"links", "values", "conditions"} & set(plain["properties"])
    assert "use" not in plain["properties"]["apps"]["items"]["properties"]
    assert len(prompt.system_prompt(CATALOGUE, False)) < len(prompt.system_prompt(CATALOGUE, True))
    assert prompt.max_tokens(2, False) < prompt.max_tokens(2, True)
