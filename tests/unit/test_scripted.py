"""The eval's scripted annotator reads the annotator's real prompt and answers in its schema."""

from __future__ import annotations

from catalog import load_catalogue
from planwire import scripted
from schemas.turn import Notes
from services.annotator.prompt import output_schema, user_prompt
from shared.model.jsonschema_lite import validate

CATALOGUE = load_catalogue()
CASE = {
    "id": "c",
    "turns": ["When a Stripe payment fails, notify everyone over teams.", "That's all."],
    "confirm": "Yes.",
    "expect": {"integrations": ["stripe", "microsoft_teams"], "tools": [], "absent": []},
}


def test_the_oracle_answers_the_real_prompt_with_the_users_words_within_the_schema():
    notes = Notes(mentioned_integrations=["gmail"])
    prompt = user_prompt(notes, "Noted.", CASE["turns"][0])
    answer = scripted.annotator_answer(scripted.oracle([CASE], CATALOGUE), prompt)
    validate(answer, output_schema(CATALOGUE))
    proposed = {m["id"]: m["evidence"] for m in answer["apps"] if m["role"] == "wanted"}
    assert set(proposed) == {"stripe", "microsoft_teams"}
    assert all(quote in CASE["turns"][0] for quote in proposed.values())


def test_the_liar_reads_the_previous_notes_from_the_real_prompt():
    notes = Notes(mentioned_integrations=["gmail"])
    prompt = user_prompt(notes, "Noted.", "Post it to Slack.")
    answer = scripted.annotator_answer(scripted.liar(CATALOGUE), prompt)
    validate(answer, output_schema(CATALOGUE, 4))
    down = [r for r in answer["apps"] if r["role"] == "turned_down"]
    assert [r["id"] for r in down] == ["gmail"]
    assert all(r["evidence"] not in "Post it to Slack." for r in down)
    assert "slack" not in {m["id"] for m in answer["apps"] if m["role"] == "wanted"}


FLOW = {
    "id": "flow",
    "turns": ["New Shopify reviews: translate them to English first, then check the tone."],
    "confirm": "Yes.",
    "expect": {
        "integrations": ["shopify", "slack"],
        "tools": ["translator", "sentiment"],
        "absent": [],
        "trigger": "shopify",
        "order": [["translator", "sentiment"]],
        "values": {"*": ["English"]},
    },
}


def test_the_oracle_says_how_the_flow_runs_in_the_users_words_within_the_schema():
    text = FLOW["turns"][0]
    answer = scripted.annotator_answer(
        scripted.oracle([FLOW], CATALOGUE), user_prompt(Notes(), "", text)
    )
    validate(answer, output_schema(CATALOGUE))
    assert {a["id"]: a.get("use") for a in answer["apps"]}["shopify"] == "event"
    assert [(k["from"], k["to"]) for k in answer["links"]] == [("translator", "sentiment")]
    assert all(k["evidence"] in text for k in answer["links"])
    # A value of no one step, said where a step works on it, is that step's value.
    assert [(v["id"], v["text"]) for v in answer["values"]] == [("translator", "English")]


def test_the_liars_claims_about_the_flow_are_not_the_users_words():
    notes = Notes(mentioned_integrations=["shopify", "slack"], mentioned_tools=["sentiment"])
    text = "Post the angry ones to Slack."
    answer = scripted.annotator_answer(scripted.liar(CATALOGUE), user_prompt(notes, "", text))
    validate(answer, output_schema(CATALOGUE, 4))
    assert answer["links"] and all(k["evidence"] not in text for k in answer["links"])
    assert all(v["text"] not in v["evidence"] for v in answer["values"])
    assert all(c["value"] not in text for c in answer["conditions"])
